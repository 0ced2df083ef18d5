// -tokenizers mode: hostile tokenizer.json files through the real binary.
//
// Each batch writes one hostile tokenizer.json (tokgen.go: its shapes
// taken in turn), the source files made to hurt it and a few ordinary
// files (seeds of -seeds) into a fresh folder, and runs
//
//	BIN chunk -j 2 --no-ignore --include-generated --tokenizer ../tokenizer.json --max-tokens N --manifest ../M.json -o ../out.jsonl .
//
// over it, then the same over a folder holding the ordinary files alone
// (the baseline). A batch is a finding when the run
//
//   - died by a signal, or exited with a status other than 0, 1, 2 or 4;
//   - was killed by castfuzz's wall limit (-batch-timeout: hung);
//   - peaked over 1 GiB of RSS summed over its whole process tree (the
//     parent and its workers, sampled from /proc every 25 ms; at 2 GiB
//     castfuzz kills it, to spare the machine), or one of
//     its processes did (getrusage's peak, counted only when castfuzz's
//     own RSS, where a forked child's peak starts, is well below it);
//   - exited 1 or 4 naming no file on stderr, or 2 (a refusal) without a
//     message about --tokenizer, or 2 in one of the two runs only;
//   - printed a Go runtime error (fatal error, panic, SIGABRT);
//   - lost an input (no records and no message about it), or wrote for an
//     ordinary file records that differ from the baseline's.
//
// A load refusal (status 2 and a message) is not a finding. A finding's
// batch is kept whole under -out/tokenizers/bNNNNN_SHAPE/ (the folder, the
// baseline's output, why.txt, command.txt) and the report, with inputs per
// shape, exit statuses and the peak memory seen, goes to stdout and
// -out/report.txt.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// killRSS is the sampled RSS of a run's process tree at which castfuzz
// kills it: over rssLimit it is a finding already, and a tokenizer.json
// of 8 KB has made castchunk take 20 GB, most of a machine shared with
// other work.
const killRSS = 2 * rssLimit

// tokOutcome is one run of the binary in -tokenizers mode.
type tokOutcome struct {
	*outcome
	treeRSS   int64               // the largest sum of RSS over the process group seen (sampled)
	selfRSS   int64               // castfuzz's own RSS when it started the run
	killedRSS bool                // castfuzz killed it for going over killRSS
	procs     int                 // the most processes of the group seen at once
	lines     map[string][]string // out.jsonl's lines by path, in order
}

// runTok runs bin over dir/in with the tokenizer dir/tokenizer.json and
// --max-tokens maxTokens, killing it after timeout; it samples the
// process group's RSS meanwhile.
func runTok(ctx context.Context, bin, dir string, maxTokens int, timeout time.Duration) *tokOutcome {
	o := &tokOutcome{outcome: &outcome{args: []string{bin, "chunk", "-j", "2", "--no-ignore", "--include-generated",
		"--tokenizer", "../tokenizer.json", "--max-tokens", strconv.Itoa(maxTokens),
		"--manifest", "../M.json", "-o", "../out.jsonl", "."}}}
	stderr, err := os.Create(filepath.Join(dir, "stderr.txt"))
	if err != nil {
		o.startErr = err
		return o
	}
	defer stderr.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := command(ctx, o.args, filepath.Join(dir, "in"), stderr)
	runtime.GC()
	debug.FreeOSMemory() // the getrusage peak of the child starts from castfuzz's RSS
	o.selfRSS = selfRSS()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		o.startErr = err
		return o
	}
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		o.sampleGroup(cmd.Process.Pid, done)
	}()
	err = cmd.Wait()
	close(done)
	<-sampled
	o.elapsed = time.Since(start)
	o.timedOut = ctx.Err() == context.DeadlineExceeded
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && cmd.ProcessState == nil {
		o.startErr = err
		return o
	}
	o.noteExit(cmd.ProcessState)
	o.leftBehind = reapGroup(cmd.Process.Pid)
	o.readResults(dir)
	return o
}

// sampleGroup samples the RSS and the number of processes of process
// group pgid every 25 ms until done is closed, keeping the largest seen,
// and kills the group once its RSS is over killRSS.
func (o *tokOutcome) sampleGroup(pgid int, done <-chan struct{}) {
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		rss, n := groupRSS(pgid)
		o.treeRSS = max(o.treeRSS, rss)
		o.procs = max(o.procs, n)
		if rss > killRSS && !o.killedRSS { // already a finding; spare the machine
			o.killedRSS = true
			syscall.Kill(-pgid, syscall.SIGKILL)
		}
		select {
		case <-done:
			return
		case <-tick.C:
		}
	}
}

// noteExit records how the run that ended in st exited: its status, the
// signal that killed it, its peak RSS and the CPU time it used.
func (o *tokOutcome) noteExit(st *os.ProcessState) {
	o.exit = st.ExitCode()
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		o.signal = ws.Signal().String()
	}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		o.maxRSS = ru.Maxrss << 10
	}
	o.cpu = st.UserTime() + st.SystemTime()
}

// readResults reads what the run in dir left: its stderr and the
// messages on it, out.jsonl's records and the manifest, noting in
// outputError what could not be read.
func (o *tokOutcome) readResults(dir string) {
	o.stderr, _ = os.ReadFile(filepath.Join(dir, "stderr.txt"))
	o.messages = messages(o.stderr)
	var problems []string
	var err error
	if o.lines, err = readLines(filepath.Join(dir, "out.jsonl")); err != nil {
		problems = append(problems, err.Error())
	}
	o.records = map[string]int{}
	for p, l := range o.lines {
		o.records[p] = len(l)
	}
	if o.manifest, err = readManifest(filepath.Join(dir, "M.json")); err != nil && o.exit != 2 {
		problems = append(problems, err.Error())
	}
	o.outputError = strings.Join(problems, "; ")
}

// groupRSS sums the resident set of the processes in process group pgid
// (from /proc/PID/stat: the group is field 5, the RSS in pages field 24)
// and counts them.
func groupRSS(pgid int) (int64, int) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0
	}
	var sum int64
	n := 0
	page := int64(os.Getpagesize())
	for _, e := range entries {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
		if len(f) < 22 {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g != pgid {
			continue
		}
		rss, _ := strconv.ParseInt(f[21], 10, 64)
		sum += rss * page
		n++
	}
	return sum, n
}

// runtimeLine returns the first line of stderr that the Go runtime of
// castchunk itself wrote (a fatal error, a panic, a goroutine dump), not
// a worker's death quoted in castchunk's message about a file.
func runtimeLine(stderr []byte) string {
	for _, line := range strings.Split(string(stderr), "\n") {
		for _, p := range []string{"fatal error:", "panic:", "runtime:", "runtime/cgo:", "goroutine ", "SIGABRT", "SIGSEGV"} {
			if strings.HasPrefix(line, p) {
				return line
			}
		}
	}
	return ""
}

// selfRSS is castfuzz's own resident set: a child's getrusage peak starts
// from it, since the child is forked from castfuzz before it runs castchunk.
func selfRSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseInt(f[1], 10, 64)
	return n * int64(os.Getpagesize())
}

// readLines reads out.jsonl's lines by the path they hold.
func readLines(name string) (map[string][]string, error) {
	out := map[string][]string{}
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return out, nil
		}
		return out, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		var r struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return out, fmt.Errorf("out.jsonl: %v", err)
		}
		out[r.Path] = append(out[r.Path], sc.Text())
	}
	return out, sc.Err()
}

// shapeStats is what the batches of one tokenizer shape did.
type shapeStats struct {
	batches, hostile, good int
	exits                  map[string]int // exit statuses of the hostile runs
	findings               int
	peakRSS                int64
	longest                time.Duration
}

// tokFinding is a batch kept whole.
type tokFinding struct {
	batch   int
	shape   string
	dir     string
	reasons []string
	how     string
}

// judgeTok says what is wrong with the run o of a batch over inputs (the
// hostile ones and goods), against the baseline run base over goods alone.
func judgeTok(o, base *tokOutcome, inputs, goods []input) []string {
	var bad []string
	for _, x := range []struct {
		what string
		o    *tokOutcome
	}{{"", o}, {"baseline (ordinary files only): ", base}} {
		o := x.o
		switch {
		case o.startErr != nil:
			bad = append(bad, x.what+"could not be run: "+o.startErr.Error())
			continue
		case o.timedOut:
			bad = append(bad, x.what+fmt.Sprintf("hung: killed by castfuzz's wall limit after %v", o.elapsed.Round(time.Second)))
		case o.killedRSS:
			bad = append(bad, x.what+fmt.Sprintf("blew up: killed by castfuzz when its process tree reached %d MiB", o.treeRSS>>20))
		case o.signal != "":
			bad = append(bad, x.what+"died by "+o.signal)
		case o.exit != 0 && o.exit != 1 && o.exit != 2 && o.exit != 4:
			bad = append(bad, x.what+fmt.Sprintf("exited with status %d", o.exit))
		case (o.exit == 1 || o.exit == 4) && len(o.messages) == 0:
			bad = append(bad, x.what+fmt.Sprintf("exited with status %d and named no file on stderr", o.exit))
		case o.exit == 2 && !strings.Contains(string(o.stderr), "tokenizer"):
			bad = append(bad, x.what+"exited with status 2 without a message about the tokenizer")
		}
		switch {
		case o.treeRSS > rssLimit:
			bad = append(bad, x.what+fmt.Sprintf("blew up: peak RSS of the process tree %d MiB, over 1 GiB", o.treeRSS>>20))
		case o.maxRSS > rssLimit && o.selfRSS < rssLimit/4:
			bad = append(bad, x.what+fmt.Sprintf("blew up: one process peaked at %d MiB (getrusage), over 1 GiB", o.maxRSS>>20))
		}
		if line := runtimeLine(o.stderr); line != "" {
			bad = append(bad, x.what+fmt.Sprintf("the Go runtime spoke on stderr (%q)", clip(line, 120)))
		}
		if o.leftBehind {
			bad = append(bad, x.what+"processes of its group were alive 2 s after it exited")
		}
	}
	if len(bad) > 0 || o.startErr != nil || base.startErr != nil {
		return bad
	}
	if (o.exit == 2) != (base.exit == 2) {
		return append(bad, fmt.Sprintf("the tokenizer was refused (status 2) in one run only: %d with the hostile files, %d without", o.exit, base.exit))
	}
	if o.exit == 2 {
		return nil
	}
	if o.outputError != "" {
		bad = append(bad, "output unreadable: "+o.outputError)
	}
	for _, in := range inputs {
		if len(o.lines[in.name]) == 0 && len(o.messages[in.name]) == 0 && !in.empty {
			bad = append(bad, fmt.Sprintf("%s: no records and no message on stderr", in.name))
		}
	}
	for _, in := range goods {
		a, b := o.lines[in.name], base.lines[in.name]
		switch {
		case len(a) == 0 && len(b) > 0:
			bad = append(bad, fmt.Sprintf("%s (an ordinary file): no records beside the hostile files (%s), %d without them",
				in.name, strings.Join(o.messages[in.name], "; "), len(b)))
		case len(b) == 0 && len(a) > 0:
			bad = append(bad, fmt.Sprintf("%s (an ordinary file): %d records beside the hostile files, none without them (%s)",
				in.name, len(a), strings.Join(base.messages[in.name], "; ")))
		case strings.Join(a, "\n") != strings.Join(b, "\n"):
			bad = append(bad, fmt.Sprintf("%s (an ordinary file): its %d records differ from the %d written without the hostile files", in.name, len(a), len(b)))
		}
	}
	return bad
}

// tokCampaign runs -tokenizers mode for total, then reports.
func tokCampaign(bin, out, seedDir, realDir string, seed int64, total, timeout time.Duration, replay int) error {
	abs, goods, reals, err := tokSetup(bin, out, seedDir, realDir)
	if err != nil {
		return err
	}
	command := strings.Join(os.Args, " ")
	fmt.Fprintf(os.Stderr, "castfuzz -tokenizers: seed %d (-seed %d repeats this run); %d shapes, %d ordinary files to pick from, real tokenizer.json files: %d (%s); for %v; findings in %s\n",
		seed, seed, len(shapes), len(goods), len(reals), strings.Join(sortedRealNames(reals), ", "), total, out)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c := newTokTally()
	start := time.Now()
	interrupted := false
	first, more := 0, func(int) bool { return time.Since(start) < total }
	if replay >= 0 {
		first, more = replay, func(batch int) bool { return batch == replay }
	}
	for batch := first; more(batch); batch++ {
		b := newTokBatch(seed, batch, reals, goods)
		if err := b.write(); err != nil {
			return err
		}
		o := runTok(ctx, abs, b.dir, b.maxTokens, timeout)
		var base *tokOutcome
		if ctx.Err() == nil {
			base = runTok(ctx, abs, b.baseDir(), b.maxTokens, timeout)
		}
		if ctx.Err() != nil {
			os.RemoveAll(b.dir)
			interrupted = true
			break
		}
		c.batches++
		bad := judgeTok(o, base, b.inputs, b.good)
		c.record(b, o, base)
		if len(bad) > 0 || replay >= 0 {
			if err := c.keep(out, b, o, base, bad, seed, replay); err != nil {
				return err
			}
		}
		os.RemoveAll(b.dir)
		c.progress(b, o, base, bad, total, start)
	}
	text := tokReport(command, time.Since(start), seed, c.batches, interrupted, c.stats, c.found, c.peak, c.peakWhere, len(reals))
	fmt.Print(text)
	return os.WriteFile(filepath.Join(out, "report.txt"), []byte(text), 0o644)
}

// tokSetup checks the binary bin and returns its absolute path, loads
// the ordinary files of seedDir and the real tokenizer.json files of
// realDir, and makes the folder out.
func tokSetup(bin, out, seedDir, realDir string) (string, []input, map[string][]byte, error) {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return "", nil, nil, err
	}
	if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() {
		return "", nil, nil, fmt.Errorf("-bin %s: not a file (make build)", bin)
	}
	goods, err := loadGoods(seedDir)
	if err != nil {
		return "", nil, nil, err
	}
	reals := loadReals(realDir)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", nil, nil, err
	}
	return abs, goods, reals, nil
}

// sortedRealNames is the names of the real tokenizer.json files, sorted.
func sortedRealNames(reals map[string][]byte) []string {
	var names []string
	for n := range reals {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// tokBatch is one batch of -tokenizers mode: its hostile tokenizer.json,
// the files made to hurt it, the ordinary ones and the folder they go to.
type tokBatch struct {
	n         int
	shape     string
	tok       []byte
	how       string
	hostile   []input
	good      []input
	inputs    []input // hostile, then good
	maxTokens int
	dir       string // set by write
}

// newTokBatch makes batch number batch of the run with seed seed.
func newTokBatch(seed int64, batch int, reals map[string][]byte, goods []input) *tokBatch {
	b := &tokBatch{n: batch, shape: shapes[batch%len(shapes)]}
	g := newTokGen(seed, batch, reals, goods)
	tok, h, how := g.tokenizer(b.shape)
	b.tok, b.how = tok, how
	b.hostile = g.sources(h)
	b.good = g.goodFiles(4)
	b.maxTokens = []int{8, 32, 128, 512, 8192}[g.r.IntN(5)]
	b.inputs = append(append([]input(nil), b.hostile...), b.good...)
	return b
}

// baseDir is the folder of the baseline run, the ordinary files alone.
func (b *tokBatch) baseDir() string { return filepath.Join(b.dir, "baseline") }

// write writes the batch into a fresh temporary folder, b.dir: all its
// inputs and the tokenizer there, the ordinary ones and the tokenizer
// again under baseline/, and tokenizer.txt saying how it was made.
func (b *tokBatch) write() error {
	dir, err := os.MkdirTemp("", "castfuzz-tok-")
	if err != nil {
		return err
	}
	b.dir = dir
	err = writeInputs(dir, b.inputs)
	if err == nil {
		err = writeInputs(b.baseDir(), b.good)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "tokenizer.json"), b.tok, 0o644)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(b.baseDir(), "tokenizer.json"), b.tok, 0o644)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "tokenizer.txt"), []byte(b.how+"\n"), 0o644)
	}
	if err != nil {
		os.RemoveAll(dir)
		return err
	}
	return nil
}

// tokTally is what a -tokenizers campaign has seen so far.
type tokTally struct {
	stats     map[string]*shapeStats
	found     []tokFinding
	peak      int64
	peakWhere string
	batches   int
}

// newTokTally is an empty tally, with a shapeStats for every shape.
func newTokTally() *tokTally {
	c := &tokTally{stats: map[string]*shapeStats{}}
	for _, s := range shapes {
		c.stats[s] = &shapeStats{exits: map[string]int{}}
	}
	return c
}

// record adds the runs o (of batch b) and base (its baseline) to the
// statistics of b's shape and to the peak RSS.
func (c *tokTally) record(b *tokBatch, o, base *tokOutcome) {
	st := c.stats[b.shape]
	st.batches++
	st.hostile += len(b.hostile)
	st.good += len(b.good)
	st.exits[exitName(o)]++
	st.peakRSS = max(st.peakRSS, o.treeRSS, base.treeRSS)
	st.longest = max(st.longest, o.elapsed)
	if o.treeRSS > c.peak {
		c.peak, c.peakWhere = o.treeRSS, fmt.Sprintf("batch %d (%s: %s)", b.n, b.shape, b.how)
	}
}

// keep copies batch b's folder under out (tokenizers/, or replay/ when
// replaying) with command.txt and why.txt, and counts it a finding when
// bad holds anything.
func (c *tokTally) keep(out string, b *tokBatch, o, base *tokOutcome, bad []string, seed int64, replay int) error {
	kind := "tokenizers"
	if replay >= 0 {
		kind = "replay"
	}
	to := filepath.Join(out, kind, fmt.Sprintf("b%05d_%s", b.n, b.shape))
	if err := copyDir(b.dir, to); err != nil {
		return err
	}
	cmd := fmt.Sprintf("cd %s/in && %s\n# the baseline: cd %s/baseline/in && (the same)\n", to, strings.Join(o.args, " "), to)
	why := fmt.Sprintf("%s\n\ntokenizer: %s\nexit status %d%s, %v wall, %v CPU, peak RSS of the tree %d MiB (%d processes at most), of its largest process %d MiB (castfuzz's own %d MiB); baseline exit %d, peak %d MiB\nbatch %d of the run with -seed %d (castfuzz -tokenizers -seed %d -replay %d)\n",
		strings.Join(bad, "\n"), b.how, o.exit, signalNote(o.signal), o.elapsed.Round(time.Millisecond), o.cpu.Round(time.Millisecond),
		o.treeRSS>>20, o.procs, o.maxRSS>>20, o.selfRSS>>20, base.exit, base.treeRSS>>20, b.n, seed, seed, b.n)
	if err := os.WriteFile(filepath.Join(to, "command.txt"), []byte(cmd), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(to, "why.txt"), []byte(why), 0o644); err != nil {
		return err
	}
	if len(bad) > 0 {
		c.stats[b.shape].findings++
		c.found = append(c.found, tokFinding{b.n, b.shape, to, bad, b.how})
	}
	return nil
}

// progress prints batch b's line on stderr: how the runs went, the
// verdict, the findings so far and the time left of total since start.
func (c *tokTally) progress(b *tokBatch, o, base *tokOutcome, bad []string, total time.Duration, start time.Time) {
	verdict := "ok"
	if len(bad) > 0 {
		verdict = "FINDING: " + strings.Join(bad, "; ")
	}
	msg := firstMessage(o)
	fmt.Fprintf(os.Stderr, "castfuzz: batch %d %s (%s), --max-tokens %d: exit %d, %.1fs wall, %.1fs CPU, tree peak %d MiB in %d processes, largest process %d MiB (baseline exit %d, %d MiB)%s: %s; %d findings; %v left\n",
		b.n, b.shape, clip(b.how, 160), b.maxTokens, o.exit, o.elapsed.Seconds(), o.cpu.Seconds(), o.treeRSS>>20, o.procs, o.maxRSS>>20,
		base.exit, base.treeRSS>>20, msg, verdict, len(c.found), max(0, total-time.Since(start)).Round(time.Second))
}

// exitName is a run's exit status, or the signal that ended it, or "hung".
func exitName(o *tokOutcome) string {
	switch {
	case o.timedOut:
		return "hung"
	case o.signal != "":
		return o.signal
	case o.startErr != nil:
		return "not started"
	}
	return strconv.Itoa(o.exit)
}

// firstMessage is the run's first stderr line, shortened, for progress.
func firstMessage(o *tokOutcome) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(o.stderr)), "\n")
	if line == "" {
		return ""
	}
	return " [" + clip(line, 200) + "]"
}

// tokReport writes the report of a -tokenizers campaign.
func tokReport(command string, elapsed time.Duration, seed int64, batches int, interrupted bool, stats map[string]*shapeStats,
	found []tokFinding, peak int64, peakWhere string, reals int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "castfuzz -tokenizers report\n\n")
	fmt.Fprintf(&b, "command:   %s\n", command)
	fmt.Fprintf(&b, "duration:  %v", elapsed.Round(time.Second))
	if interrupted {
		fmt.Fprintf(&b, " (interrupted)")
	}
	fmt.Fprintf(&b, "\nseed:      %d (-seed %d makes the same batches again; -replay N one of them)\n", seed, seed)
	hostile, good := 0, 0
	for _, s := range stats {
		hostile += s.hostile
		good += s.good
	}
	fmt.Fprintf(&b, "batches:   %d (one tokenizer.json each; %d real tokenizer.json files to mutate)\n", batches, reals)
	fmt.Fprintf(&b, "inputs:    %d hostile source files, %d ordinary ones (each batch run twice: with and without the hostile files)\n", hostile, good)
	fmt.Fprintf(&b, "findings:  %d (should be 0)\n", len(found))
	fmt.Fprintf(&b, "peak RSS:  %d MiB summed over the process tree, %s\n\n", peak>>20, peakWhere)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "shape\tbatches\thostile\tordinary\texit statuses\tpeak MiB\tlongest run\tfindings\n")
	for _, name := range shapes {
		s := stats[name]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%d\t%v\t%d\n", name, s.batches, s.hostile, s.good, counts(s.exits), s.peakRSS>>20, s.longest.Round(100*time.Millisecond), s.findings)
	}
	tw.Flush()
	fmt.Fprintf(&b, "\nFindings: %d\n", len(found))
	for _, f := range found {
		fmt.Fprintf(&b, "  batch %d (%s): %s\n    tokenizer: %s\n    %s\n", f.batch, f.shape, f.dir, f.how, strings.Join(f.reasons, "\n    "))
	}
	return b.String()
}
