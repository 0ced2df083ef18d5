// Command castbench is a benchmark driver for castchunk, not part of the
// product: `make bench` builds castchunk and runs it (see the Makefile).
//
// For each corpus folder it measures, on the same files and in one run:
//
//	(a) parse only: read and parse every file castchunk would chunk, with the
//	    same grammars (internal/parse, one parser, -j 1, trees closed) and
//	    nothing else; the files are listed with walk.List and given their
//	    grammar by package plan, as castchunk chunk does (names, attributes,
//	    shebangs), and files castchunk skips for their encoding (binary,
//	    UTF-16, not UTF-8) are left out. An embedded region (a fence in
//	    Markdown, a script in HTML) is not parsed here: its parse is part of
//	    what chunking costs over parsing the host. It runs in a child process
//	    (castbench itself with -parse-worker), timed from inside: the time
//	    covers reading and parsing only, not the listing or the start;
//	(b) `castchunk chunk -j 1 DIR` end to end, as a subprocess, its stdout
//	    written to a file on disk that is deleted after each run;
//	(c) the same with -j 2;
//	(d) (b) with --context, (e) with --tokenizer cl100k_base, (f) with both,
//	    and (g) with --tokenizer cl100k_base --max-tokens 512 --embed-text
//	    --context: what each costs over (b), in the same run;
//	(h) (b) with --cache into a new, empty folder (cold), then again with
//	    that cache (warm): the warm run's speed-up over the cold one, and
//	    the space the cache takes on disk (du: the blocks allocated to every
//	    file in its folder) per 1,000 files chunked; and (i) the same with
//	    the flags of (g), whose entries also hold each chunk's scope,
//	    defines, token count and header;
//
// each -reps times, interleaved, and prints the best and median time, MB/s
// (10^6 bytes of source per second), the ratio (b)/(a) in time, the speedup
// of (c) over (b), the subprocesses' peak resident memory, and the start-up
// CPU and wall time of `castchunk chunk` on one small file. The first run
// of (b) is checked: it must have chunked exactly the files (a) parsed.
//
// Peak memory is the child's ru_maxrss, as wait4 reports it. On Linux that
// figure never falls below the resident size of the process that started
// the child (the kernel keeps the high-water mark of the address space
// across the exec), so castbench keeps itself small: parsing happens in a
// child, and castbench resets its own high-water mark (/proc/self/clear_refs)
// before each run. The floor is printed with the figures.
//
//	go run ./cmd/castbench -bin bin/castchunk -corpus bench/corpus-small -corpus bench/corpus
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/walk"
)

// Targets from the issue.
const (
	targetOverhead = 1.15 // (b)/(a) in time, at most
	targetSpeedup  = 1.8  // (b)/(c) in time, at least
	targetStartup  = 15 * time.Millisecond
	targetEmbed    = 1.5       // (d), (e), (f) over (b) in time, at most
	targetWarm     = 10.0      // (h) cold over warm in time, at least
	targetRSS      = 200 << 20 // bytes, on a ~100 MB tree
	maxFileSize    = 10 << 20  // castchunk's default --max-file-size
	parseTimeout   = 20 * time.Second
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

type options struct {
	bin         string
	corpora     []string
	reps        int
	jobs        int
	startupRuns int
	tmp         string
	cacheOnly   bool
}

func main() {
	var o options
	var corpora listFlag
	flag.StringVar(&o.bin, "bin", "bin/castchunk", "the castchunk binary to measure")
	flag.Var(&corpora, "corpus", "a corpus folder (repeatable; default bench/corpus-small and bench/corpus)")
	flag.IntVar(&o.reps, "reps", 3, "repetitions of each measurement")
	flag.IntVar(&o.jobs, "jobs", 2, "the -j of the parallel run (c)")
	flag.IntVar(&o.startupRuns, "startup-runs", 20, "runs on one small file for the start-up time")
	flag.StringVar(&o.tmp, "tmp", "bench/tmp", "folder on disk for the output of each run (deleted after it)")
	flag.BoolVar(&o.cacheOnly, "cache-only", false, "measure only (h) and (i), the cold and the warm runs with --cache")
	worker := flag.String("parse-worker", "", "internal: parse the files listed in this file and print the timings as JSON")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: castbench [flags]\n\nBenchmark driver for castchunk (not part of the product).\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *worker != "" {
		if err := parseWorker(*worker, o.jobs); err != nil {
			fmt.Fprintln(os.Stderr, "castbench -parse-worker:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() > 0 || o.reps < 1 || o.jobs < 1 || o.startupRuns < 1 {
		flag.Usage()
		os.Exit(2)
	}
	o.corpora = corpora
	if len(o.corpora) == 0 {
		o.corpora = []string{"bench/corpus-small", "bench/corpus"}
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "castbench:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	began := time.Now()
	bin, err := filepath.Abs(o.bin)
	if err != nil {
		return err
	}
	o.bin = bin
	if err := os.MkdirAll(o.tmp, 0o755); err != nil {
		return err
	}
	version, err := exec.Command(o.bin, "version").Output()
	if err != nil {
		return fmt.Errorf("%s version: %v", o.bin, err)
	}
	fmt.Printf("castbench: %s", version)
	fmt.Printf("  binary %s; %s; runtime.NumCPU() = %d, GOMAXPROCS = %d; load average at start: %s\n",
		o.bin, runtime.Version(), runtime.NumCPU(), runtime.GOMAXPROCS(0), loadAverage())
	fmt.Printf("  (b) and (c) write stdout to a file on disk in %s, deleted after each run: writing is included\n", o.tmp)
	fmt.Printf("  every measurement %d times, interleaved; times shown as best (median); MB = 10^6 bytes of source, MiB = 2^20 bytes\n", o.reps)

	var results []*corpusResult
	for _, dir := range o.corpora {
		r, err := benchCorpus(o, dir)
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		results = append(results, r)
	}
	if o.cacheOnly {
		fmt.Printf("\nsummary (%d CPUs)\n", runtime.NumCPU())
		for _, r := range results {
			r.cacheSummary()
		}
		fmt.Printf("  load average at the end: %s; castbench took %s\n", loadAverage(), time.Since(began).Round(time.Second))
		return nil
	}
	startup, err := benchStartup(o)
	if err != nil {
		return fmt.Errorf("start-up: %w", err)
	}

	fmt.Printf("\nsummary (%d CPUs)\n", runtime.NumCPU())
	fmt.Printf("  %-20s %7s %9s %9s %9s %8s %7s %11s %11s %13s\n", "corpus", "MB", "(a) MB/s", "(b) MB/s", "(c) MB/s", "(b)/(a)", "(c) x", "RSS (b)", "RSS (c)", "RSS 1 file")
	for _, r := range results {
		fmt.Printf("  %-20s %7.1f %9.2f %9.2f %9.2f %8.3f %6.2fx %7.0f MiB %7.0f MiB %9.0f MiB\n",
			r.dir, mb(r.bytes), r.parse.rate(r.bytes), r.seq.rate(r.bytes), r.par.rate(r.bytes),
			r.overhead(), r.speedup(), mib(r.seq.maxRSS()), mib(r.par.maxRSS()), mib(r.largestRSS))
	}
	fmt.Printf("  targets: (b)/(a) <= %.2f, (c) speedup >= %.1fx, peak RSS < %d MiB on ~100 MB, start-up < %v CPU\n",
		targetOverhead, targetSpeedup, targetRSS>>20, targetStartup)
	for _, r := range results {
		fmt.Printf("  %-20s (b)/(a) %s, (c) speedup %s, peak RSS %s\n", r.dir,
			verdict(r.overhead() <= targetOverhead), verdict(r.speedup() >= targetSpeedup),
			verdict(max(r.seq.maxRSS(), r.par.maxRSS()) < targetRSS))
	}
	for _, r := range results {
		fmt.Printf("  %-20s", r.dir)
		for k, e := range embedRuns {
			fmt.Printf(" (%s)/(b) %.3f", e.name, r.embedRatio(k))
			if e.targeted {
				fmt.Printf(" %s", verdict(r.embedRatio(k) <= targetEmbed))
			}
			fmt.Printf(";")
		}
		fmt.Printf(" (targets: (d), (e), (f) <= %.1f)\n", targetEmbed)
	}
	for _, r := range results {
		r.cacheSummary()
	}
	fmt.Printf("  start-up: CPU median %s (min %s), wall median %s (min %s) over %d runs: %s\n",
		ms(startup.medianCPU()), ms(startup.bestCPU()), ms(startup.median()), ms(startup.best()), len(startup), verdict(startup.medianCPU() < targetStartup))
	fmt.Printf("  load average at the end: %s; castbench took %s\n", loadAverage(), time.Since(began).Round(time.Second))
	return nil
}

// job is one file castchunk would chunk.
type job struct {
	path   string // display path, as in the records
	osPath string
	lang   *lang.Language
	size   int
}

type corpusResult struct {
	dir                       string
	bytes                     int
	parse, parsePar, seq, par samples
	embed                     [len(embedRuns)]samples // (d)...(g)
	largest                   job
	largestRSS                int64
	cache                     [len(cacheRuns)]cacheResult // (h), (i)
}

// cacheSummary prints the summary lines of (h) and (i).
func (r *corpusResult) cacheSummary() {
	for k, c := range r.cache {
		c.summary(r.dir, cacheRuns[k].name, cacheRuns[k].label)
	}
}

func (r *corpusResult) overhead() float64 {
	return r.seq.best().Seconds() / r.parse.best().Seconds()
}

// embedRuns are the runs with the embedding flags, (d) to (g): the
// targeted ones first.
var embedRuns = [...]struct {
	name, label string
	args        []string
	targeted    bool
}{
	{"d", "--context", []string{"--context"}, true},
	{"e", "--tokenizer cl100k_base", []string{"--tokenizer", "cl100k_base"}, true},
	{"f", "--context --tokenizer", []string{"--context", "--tokenizer", "cl100k_base"}, true},
	{"g", "all, --max-tokens 512", []string{"--context", "--tokenizer", "cl100k_base", "--max-tokens", "512", "--embed-text"}, false},
}

// embedRatio is run k of embedRuns over (b), in time.
func (r *corpusResult) embedRatio(k int) float64 {
	return r.embed[k].best().Seconds() / r.seq.best().Seconds()
}

func (r *corpusResult) speedup() float64 {
	return r.seq.best().Seconds() / r.par.best().Seconds()
}

func benchCorpus(o options, dir string) (*corpusResult, error) {
	fmt.Printf("\ncorpus %s\n", dir)
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("not a folder (run make corpus first)")
	}
	jobs, skipped, walkTime, err := listJobs(dir)
	if err != nil {
		return nil, err
	}
	r := &corpusResult{dir: dir}
	perLang := map[string][2]int{}
	for _, j := range jobs {
		r.bytes += j.size
		c := perLang[j.lang.Name]
		perLang[j.lang.Name] = [2]int{c[0] + 1, c[1] + j.size}
	}
	fmt.Printf("  %d files, %.1f MB:", len(jobs), mb(r.bytes))
	for _, name := range sortedKeys(perLang) {
		fmt.Printf(" %s %d files %.1f MB;", name, perLang[name][0], mb(perLang[name][1]))
	}
	fmt.Printf("\n  listing (walk.List) took %s; %d listed files left out as castchunk skips them (binary, UTF-16, not UTF-8)\n", ms(walkTime), skipped)
	if len(jobs) == 0 {
		return nil, fmt.Errorf("no file to chunk")
	}

	for k, c := range cacheRuns {
		if r.cache[k], err = benchCache(o, dir, len(jobs), c.name, c.label, c.args); err != nil {
			return nil, err
		}
	}
	if o.cacheOnly {
		return r, nil
	}

	list, err := writeJobList(o.tmp, jobs)
	if err != nil {
		return nil, err
	}
	defer os.Remove(list)
	var langTime map[string]time.Duration
	for rep := range o.reps {
		res, s, err := parseRun(o, list, 1)
		if err != nil {
			return nil, err
		}
		if res.Failed > 0 && rep == 0 {
			fmt.Printf("  note: %d files did not parse within %v (castchunk chunks them with the sliding method)\n", res.Failed, parseTimeout)
		}
		r.parse = append(r.parse, s)
		if s.wall <= r.parse.best() {
			langTime = res.PerLang
		}
		if _, s, err = parseRun(o, list, o.jobs); err != nil {
			return nil, err
		}
		r.parsePar = append(r.parsePar, s)
		if s, err = chunkRun(o, dir, 1, rep == 0, jobs); err != nil {
			return nil, err
		}
		r.seq = append(r.seq, s)
		if s, err = chunkRun(o, dir, o.jobs, false, nil); err != nil {
			return nil, err
		}
		r.par = append(r.par, s)
		for k, e := range embedRuns {
			if s, err = chunkRun(o, dir, 1, false, nil, e.args...); err != nil {
				return nil, err
			}
			r.embed[k] = append(r.embed[k], s)
		}
	}
	fmt.Printf("  (a) parse only, -j 1          %-20s %7.2f MB/s   cpu %s   peak RSS %.0f MiB\n", r.parse.times(), r.parse.rate(r.bytes), secs(r.parse.bestCPU()), mib(r.parse.maxRSS()))
	fmt.Printf("  (a) parse only, -j %-6d     %-20s %7.2f MB/s   (for reference: parsing alone speeds up %.2fx)\n", o.jobs, r.parsePar.times(), r.parsePar.rate(r.bytes), r.parse.best().Seconds()/r.parsePar.best().Seconds())
	fmt.Printf("  (b) castchunk chunk -j 1      %-20s %7.2f MB/s   cpu %s   peak RSS %.0f MiB\n", r.seq.times(), r.seq.rate(r.bytes), secs(r.seq.bestCPU()), mib(r.seq.maxRSS()))
	fmt.Printf("  (c) castchunk chunk -j %-6d %-20s %7.2f MB/s   cpu %s   peak RSS %.0f MiB\n", o.jobs, r.par.times(), r.par.rate(r.bytes), secs(r.par.bestCPU()), mib(r.par.maxRSS()))
	fmt.Printf("  (b)/(a) in time: %.3f (target <= %.2f: %s)   (c) speedup over (b): %.2fx (target >= %.1fx: %s)\n",
		r.overhead(), targetOverhead, verdict(r.overhead() <= targetOverhead), r.speedup(), targetSpeedup, verdict(r.speedup() >= targetSpeedup))
	for k, e := range embedRuns {
		fmt.Printf("  (%s) (b) with %-22s %-20s %7.2f MB/s   %.3fx (b)\n", e.name, e.label, r.embed[k].times(), r.embed[k].rate(r.bytes), r.embedRatio(k))
	}
	for _, j := range jobs {
		if j.size > r.largest.size {
			r.largest = j
		}
	}
	one, err := chunkRun(o, r.largest.osPath, 1, false, nil)
	if err != nil {
		return nil, err
	}
	r.largestRSS = one.rss
	fmt.Printf("  the largest file alone (%s, %.1f MB): castchunk chunk -j 1 takes %s, peak RSS %.0f MiB\n",
		r.largest.path, mb(r.largest.size), secs(one.wall), mib(one.rss))
	floor := max(r.parse.maxFloor(), r.parsePar.maxFloor(), r.seq.maxFloor(), r.par.maxFloor(), one.floor)
	fmt.Printf("  (peak RSS figures cannot be below castbench's own resident size when it starts a run, here at most %.0f MiB)\n", mib(floor))
	fmt.Printf("  parse only by language (fastest repetition):")
	for _, name := range sortedKeys(perLang) {
		fmt.Printf(" %s %.2f MB/s;", name, mb(perLang[name][1])/time.Duration(langTime[name]).Seconds())
	}
	fmt.Println()
	return r, nil
}

// cacheRuns are the cache measurements: (h) with the flags of (b), and (i)
// with those of (g), the embedding flags of the README's recipe.
var cacheRuns = [...]struct {
	name, label string
	args        []string
}{
	{"h", "--cache", nil},
	{"i", "--cache with the flags of (g)", embedRuns[3].args},
}

// cacheResult is (h) or (i): the cold and the warm runs with --cache, and
// the space the cache took.
type cacheResult struct {
	cold, warm samples
	disk       int64 // bytes on disk of the cache folder after the warm run (the largest of the repetitions)
	files      int
}

func (r cacheResult) speedup() float64 { return r.cold.best().Seconds() / r.warm.best().Seconds() }
func (r cacheResult) perThousand() float64 {
	return float64(r.disk) / float64(max(r.files, 1)) * 1000
}

func (r cacheResult) summary(dir, name, label string) {
	fmt.Printf("  %-20s (%s) %s: warm run %.1fx faster than cold (target >= %.0fx: %s); cache %.2f MiB on disk, %.1f KiB per 1,000 files\n",
		dir, name, label, r.speedup(), targetWarm, verdict(r.speedup() >= targetWarm), mib(r.disk), r.perThousand()/1024)
}

// benchCache measures (h) or (i): `castchunk chunk -j 1 --cache C FLAGS
// DIR` with C a new, empty folder (cold), then again (warm), -reps times,
// each with a new folder; then the space the cache folder takes on disk,
// as du counts it. The first warm run's output is compared with the cold
// one's: a cache must not change it.
func benchCache(o options, dir string, files int, name, label string, flags []string) (cacheResult, error) {
	r := cacheResult{files: files}
	for rep := range o.reps {
		c, err := os.MkdirTemp(o.tmp, "cache-")
		if err != nil {
			return r, err
		}
		args := append([]string{"--cache", c}, flags...)
		var sums [2][sha256.Size]byte
		sum := func(i int) *[sha256.Size]byte {
			if rep == 0 {
				return &sums[i]
			}
			return nil
		}
		cold, err := chunkRunSum(o, dir, 1, false, nil, sum(0), args...)
		if err != nil {
			os.RemoveAll(c)
			return r, err
		}
		warm, err := chunkRunSum(o, dir, 1, false, nil, sum(1), args...)
		if err != nil {
			os.RemoveAll(c)
			return r, err
		}
		disk, err := du(c)
		os.RemoveAll(c)
		if err != nil {
			return r, err
		}
		if sums[0] != sums[1] {
			return r, fmt.Errorf("(%s) the warm run's output differs from the cold run's", name)
		}
		r.cold, r.warm, r.disk = append(r.cold, cold), append(r.warm, warm), max(r.disk, disk)
	}
	fmt.Printf("  (%s) -j 1 %s: cold %s, warm %s: warm %.1fx faster (target >= %.0fx: %s)\n",
		name, label, r.cold.times(), r.warm.times(), r.speedup(), targetWarm, verdict(r.speedup() >= targetWarm))
	fmt.Printf("  (%s) the cache on disk: %.2f MiB (du) for %d files, %.1f KiB per 1,000 files\n",
		name, mib(r.disk), files, r.perThousand()/1024)
	return r, nil
}

// du is the space the files below dir take on disk: their allocated
// blocks, as du counts them, folders excluded.
func du(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			n += st.Blocks * 512
		} else {
			n += info.Size()
		}
		return nil
	})
	return n, err
}

// listJobs lists the files as `castchunk chunk --include-generated
// --include-vendored DIR` does, deciding each file's grammar as it does
// (package plan: name, attributes, shebang), reads each once (which also
// warms the page cache for every measurement alike) and leaves out those
// castchunk skips for their encoding or size.
func listJobs(dir string) (jobs []job, skipped int, took time.Duration, err error) {
	start := time.Now()
	files, _, err := walk.List([]string{dir}, walk.Options{})
	if err != nil {
		return nil, 0, time.Since(start), err
	}
	policy := plan.Policy{KeepGenerated: true, KeepVendored: true, MaxFileSize: maxFileSize}
	type named struct {
		f walk.File
		d plan.Decision
	}
	var kept []named
	for _, f := range files {
		d := policy.ByName(plan.File{Path: f.Path, Attrs: f.Attrs, Named: f.Explicit})
		if d.Fate == plan.Chunked && !d.Notebook {
			kept = append(kept, named{f, d})
		}
	}
	took = time.Since(start)
	for _, k := range kept {
		src, err := os.ReadFile(k.f.OSPath)
		if err != nil {
			skipped++
			continue
		}
		c := policy.ByContent(plan.File{Path: k.f.Path, Attrs: k.f.Attrs, Named: k.f.Explicit}, k.d, src)
		switch {
		case c.Fate == plan.Unsupported:
			continue // a file with no grammar by name and no shebang castchunk knows
		case c.Fate != plan.Chunked:
			skipped++
			continue
		case len(src) == 0:
			continue // castchunk writes no chunk for an empty file
		}
		jobs = append(jobs, job{path: k.f.Path, osPath: k.f.OSPath, lang: c.Lang, size: len(src)})
	}
	return jobs, skipped, took, nil
}

// parseResult is what a parse worker reports.
type parseResult struct {
	Wall, CPU time.Duration
	PerLang   map[string]time.Duration // time per language, summed over the goroutines
	Failed    int                      // parses that timed out
}

// writeJobList writes the files for a parse worker: language, tab, path.
func writeJobList(dir string, jobs []job) (string, error) {
	f, err := os.CreateTemp(dir, "jobs-*.txt")
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(f)
	for _, j := range jobs {
		fmt.Fprintf(w, "%s\t%s\t%s\n", j.lang.Name, j.path, j.osPath)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	return f.Name(), f.Close()
}

// parseRun runs a parse worker over the list with n goroutines: (a).
func parseRun(o options, list string, n int) (parseResult, sample, error) {
	self, err := os.Executable()
	if err != nil {
		return parseResult{}, sample{}, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(self, "-parse-worker", list, "-jobs", strconv.Itoa(n))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	floor := resetPeak()
	if err := cmd.Run(); err != nil {
		return parseResult{}, sample{}, fmt.Errorf("parse worker: %v\n%s", err, lastLines(stderr.String(), 10))
	}
	var res parseResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return parseResult{}, sample{}, fmt.Errorf("parse worker: %v", err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return res, sample{wall: res.Wall, cpu: res.CPU, rss: ru.Maxrss << 10, floor: floor}, nil
}

// parseWorker is the child side of parseRun: it reads and parses every file
// of the list with n goroutines, each with its own parser, and prints a
// parseResult as JSON.
func parseWorker(list string, n int) error {
	data, err := os.ReadFile(list)
	if err != nil {
		return err
	}
	var jobs []job
	for line := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 3 || lang.ByName(f[0]) == nil {
			return fmt.Errorf("bad line in %s: %q", list, line)
		}
		jobs = append(jobs, job{lang: lang.ByName(f[0]), path: f[1], osPath: f[2]})
	}
	res := parseResult{PerLang: map[string]time.Duration{}}
	cpu0 := selfCPU()
	start := time.Now()
	var next atomic.Int64
	type outcome struct {
		perLang map[string]time.Duration
		failed  int
		err     error
	}
	done := make(chan outcome, n)
	for range n {
		go func() {
			p := parse.New(parseTimeout)
			defer p.Close()
			out := outcome{perLang: map[string]time.Duration{}}
			defer func() { done <- out }()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) {
					return
				}
				t0 := time.Now()
				src, err := os.ReadFile(jobs[i].osPath)
				if err != nil {
					out.err = err
					return
				}
				tree, err := p.Parse(src, jobs[i].lang)
				switch {
				case errors.Is(err, parse.ErrTimeout):
					out.failed++
				case err != nil:
					out.err = fmt.Errorf("%s: %v", jobs[i].path, err)
					return
				default:
					tree.Close()
				}
				out.perLang[jobs[i].lang.Name] += time.Since(t0)
			}
		}()
	}
	for range n {
		out := <-done
		if out.err != nil {
			return out.err
		}
		res.Failed += out.failed
		for name, d := range out.perLang {
			res.PerLang[name] += d // with n > 1: time summed over the goroutines
		}
	}
	res.Wall, res.CPU = time.Since(start), selfCPU()-cpu0
	return json.NewEncoder(os.Stdout).Encode(res)
}

// resetPeak resets castbench's own peak resident size to its current size
// and returns that: the floor of the ru_maxrss of the next child.
func resetPeak() int64 {
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	return selfHWM()
}

// selfHWM is castbench's peak resident size (VmHWM), in bytes; 0 if unknown.
func selfHWM() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// chunkRun runs `castchunk chunk -j N dir` with stdout to a file on disk.
// With check, the output must hold records for exactly the jobs' paths.
// Generated and vendored files are chunked too: the parse-only run parses
// every file, and both must measure the same bytes.
func chunkRun(o options, dir string, jobs int, check bool, want []job, flags ...string) (sample, error) {
	return chunkRunSum(o, dir, jobs, check, want, nil, flags...)
}

// chunkRunSum is chunkRun that also writes the SHA-256 of the run's output
// to sum, unless sum is nil.
func chunkRunSum(o options, dir string, jobs int, check bool, want []job, sum *[sha256.Size]byte, flags ...string) (sample, error) {
	out, err := os.CreateTemp(o.tmp, "out-*.jsonl")
	if err != nil {
		return sample{}, err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(o.bin, append(append([]string{"chunk", "--include-generated", "--include-vendored", "-j", strconv.Itoa(jobs)}, flags...), dir)...)
	cmd.Stdout = out
	cmd.Stderr = &stderr
	cmd.Env = benchEnv()
	floor := resetPeak()
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, lastLines(stderr.String(), 10))
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	s := sample{
		wall:  wall,
		cpu:   time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		rss:   ru.Maxrss << 10, // KiB on Linux
		floor: floor,
	}
	if sum != nil {
		if *sum, err = fileSum(out); err != nil {
			return sample{}, err
		}
	}
	if check {
		if err := checkOutput(out, want); err != nil {
			return sample{}, fmt.Errorf("%s: %v", strings.Join(cmd.Args, " "), err)
		}
		if n := strings.Count(stderr.String(), "\n"); n > 0 {
			fmt.Printf("  castchunk wrote %d lines to stderr, first: %s\n", n, firstLine(stderr.String()))
		}
	}
	return s, nil
}

// fileSum is the SHA-256 of f's content, read from its start.
func fileSum(f *os.File) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return sum, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	h.Sum(sum[:0])
	return sum, nil
}

// benchEnv is the environment of the measured runs: castchunk's cache off.
func benchEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CASTCHUNK_CACHE=") {
			env = append(env, kv)
		}
	}
	return env
}

// checkOutput reads the records back and compares the files they cover with
// the files (a) parses.
func checkOutput(f *os.File, want []job) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	records := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var rec struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("record %d: %v", records+1, err)
		}
		seen[rec.Path] = true
		records++
	}
	if err := sc.Err(); err != nil {
		return err
	}
	var missing, extra []string
	wanted := map[string]bool{}
	for _, j := range want {
		wanted[j.path] = true
		if !seen[j.path] {
			missing = append(missing, j.path)
		}
	}
	for p := range seen {
		if !wanted[p] {
			extra = append(extra, p)
		}
	}
	fmt.Printf("  output of (b): %d records, %.1f MB, covering %d files", records, mb(int(info.Size())), len(seen))
	if len(missing) == 0 && len(extra) == 0 {
		fmt.Printf(": the same files as (a)\n")
		return nil
	}
	fmt.Println()
	sort.Strings(missing)
	sort.Strings(extra)
	return fmt.Errorf("castchunk did not chunk the files (a) parses: %d missing (%s), %d extra (%s)",
		len(missing), head(missing, 5), len(extra), head(extra, 5))
}

// benchStartup times `castchunk chunk -j 1` on one small file: the CPU
// time (user+sys) the child took, which the target is about, and the wall
// time, which other work on the machine stretches.
func benchStartup(o options) (samples, error) {
	dir, err := os.MkdirTemp(o.tmp, "startup-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	const small = "import os\n\n\ndef main():\n    \"\"\"Print the working folder.\"\"\"\n    print(os.getcwd())\n"
	file := filepath.Join(dir, "small.py")
	if err := os.WriteFile(file, []byte(small), 0o644); err != nil {
		return nil, err
	}
	var s samples
	for range o.startupRuns {
		cmd := exec.Command(o.bin, "chunk", "-j", "1", file)
		cmd.Env = benchEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil { // stdout: /dev/null
			return nil, fmt.Errorf("%v\n%s", err, lastLines(stderr.String(), 5))
		}
		ps := cmd.ProcessState
		s = append(s, sample{wall: time.Since(start), cpu: ps.UserTime() + ps.SystemTime()})
	}
	fmt.Printf("\nstart-up: `castchunk chunk -j 1 small.py` (%d bytes), stdout to /dev/null, over %d runs: CPU (user+sys) median %s, min %s (target < %v: %s); wall median %s, min %s\n",
		len(small), len(s),
		ms(s.medianCPU()), ms(s.bestCPU()), targetStartup, verdict(s.medianCPU() < targetStartup), ms(s.median()), ms(s.best()))
	return s, nil
}

// sample is one measured run.
type sample struct {
	wall, cpu time.Duration
	rss       int64 // peak resident memory of the child, bytes
	floor     int64 // castbench's own resident size when it started the child: rss is never below it
}

type samples []sample

func (s samples) walls() []time.Duration {
	var w []time.Duration
	for _, x := range s {
		w = append(w, x.wall)
	}
	slices.Sort(w)
	return w
}

func (s samples) best() time.Duration { return s.walls()[0] }

func (s samples) median() time.Duration {
	w := s.walls()
	if len(w)%2 == 1 {
		return w[len(w)/2]
	}
	return (w[len(w)/2-1] + w[len(w)/2]) / 2
}

func (s samples) medianCPU() time.Duration {
	var c []time.Duration
	for _, x := range s {
		c = append(c, x.cpu)
	}
	slices.Sort(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

func (s samples) bestCPU() time.Duration {
	c := s[0].cpu
	for _, x := range s {
		c = min(c, x.cpu)
	}
	return c
}

func (s samples) maxRSS() int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.rss)
	}
	return m
}

func (s samples) maxFloor() int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.floor)
	}
	return m
}

func (s samples) rate(bytes int) float64 { return mb(bytes) / s.best().Seconds() }

func (s samples) times() string { return fmt.Sprintf("%s (%s)", secs(s.best()), secs(s.median())) }

func mb(n int) float64            { return float64(n) / 1e6 }
func mib(n int64) float64         { return float64(n) / (1 << 20) }
func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func sortedKeys[V any](m map[string]V) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func head(s []string, n int) string {
	if len(s) > n {
		return strings.Join(s[:n], ", ") + ", …"
	}
	return strings.Join(s, ", ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
