// Running one batch through the real binary and judging what it did.
//
// A batch's folder holds in/ (the inputs) and, beside it, what the run
// wrote: out.jsonl, M.json (the manifest) and stderr.txt. castchunk runs
// in in/, so its messages name the inputs as input_NNN.ext, in a process
// group of its own, so that the wall timeout kills its worker processes
// with it. What the run did is then sorted into stops (the run stopped,
// hung or blew up: what castchunk must never do), anomalies (the run
// finished but its exit status, manifest and records disagree), and
// fallbacks (a grammar failed on an input, which castchunk chunked with
// the sliding method, or on a region embedded in it, chunked as its
// host's text, and said so: what the supervision is for).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// rssLimit is the peak resident set size over which a run blew up.
const rssLimit = 1 << 30

// outcome is what one run of the binary did.
type outcome struct {
	args        []string      // the command line
	elapsed     time.Duration // wall time
	cpu         time.Duration // user and system time of the process and its waited-for children
	exit        int           // exit status; -1 when it died by a signal
	signal      string        // the signal that killed it, if one did
	timedOut    bool          // castfuzz's wall timeout killed it
	startErr    error         // it could not be started
	maxRSS      int64         // peak RSS in bytes (the largest of the process and its waited-for children)
	stderr      []byte
	leftBehind  bool                // processes of its group outlived it
	records     map[string]int      // records per path in out.jsonl
	manifest    map[string]manifest // the manifest's line per path
	messages    map[string][]string // stderr messages per path
	outputError string              // out.jsonl or M.json could not be read
}

// manifest is one line of --manifest's output.
type manifest struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Chunks int    `json:"chunks"`
	Note   string `json:"note"`
}

// run runs bin on the inputs in dir/in, killing it after timeout.
func run(ctx context.Context, bin, dir string, timeout time.Duration) *outcome {
	o := &outcome{args: []string{bin, "chunk", "-j", "2", "--no-ignore", "--include-generated",
		"--manifest", "../M.json", "-o", "../out.jsonl", "."}}
	stderr, err := os.Create(filepath.Join(dir, "stderr.txt"))
	if err != nil {
		o.startErr = err
		return o
	}
	defer stderr.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := command(ctx, o.args, filepath.Join(dir, "in"), stderr)
	start := time.Now()
	err = cmd.Run()
	o.elapsed = time.Since(start)
	o.timedOut = ctx.Err() == context.DeadlineExceeded
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && cmd.ProcessState == nil {
		o.startErr = err
		return o
	}
	st := cmd.ProcessState
	o.exit = st.ExitCode()
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		o.signal = ws.Signal().String()
	}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		o.maxRSS = ru.Maxrss << 10 // kilobytes on Linux
	}
	o.cpu = st.UserTime() + st.SystemTime()
	o.leftBehind = reapGroup(cmd.Process.Pid)
	o.stderr, _ = os.ReadFile(filepath.Join(dir, "stderr.txt"))
	o.messages = messages(o.stderr)
	var problems []string
	if o.records, err = readRecords(filepath.Join(dir, "out.jsonl")); err != nil {
		problems = append(problems, err.Error())
	}
	if o.manifest, err = readManifest(filepath.Join(dir, "M.json")); err != nil {
		problems = append(problems, err.Error())
	}
	o.outputError = strings.Join(problems, "; ")
	return o
}

// environ is castfuzz's environment without what would change how
// castchunk works: a cache (which would answer repeated inputs without
// parsing them) and the test hook that fakes failures.
func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "CASTCHUNK_CACHE=") || strings.HasPrefix(kv, "CASTCHUNK_TEST_FAULT=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// reapGroup reports whether processes of group pgid are still alive two
// seconds after its leader exited (worker processes left behind), and
// kills them.
func reapGroup(pgid int) bool {
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if syscall.Kill(-pgid, 0) != nil {
			return false
		}
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	return true
}

// messages sorts castchunk's stderr lines ("castchunk: PATH: message") by
// path; lines that name no path (summaries) are left out.
func messages(stderr []byte) map[string][]string {
	out := map[string][]string{}
	for _, line := range strings.Split(string(stderr), "\n") {
		rest, ok := strings.CutPrefix(line, "castchunk: ")
		if !ok {
			continue
		}
		var path, msg string
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				continue
			}
			path, _ = strconv.Unquote(q)
			msg = strings.TrimPrefix(rest[len(q):], ": ")
		} else if path, msg, ok = strings.Cut(rest, ": "); !ok {
			continue
		}
		path = strings.TrimPrefix(path, "./")
		out[path] = append(out[path], msg)
	}
	return out
}

// readRecords counts out.jsonl's records per path.
func readRecords(name string) (map[string]int, error) {
	out := map[string]int{}
	err := decodeLines(name, func(dec *json.Decoder) error {
		var r struct {
			Path string `json:"path"`
		}
		if err := dec.Decode(&r); err != nil {
			return err
		}
		out[r.Path]++
		return nil
	})
	return out, err
}

// readManifest reads the manifest's lines by path.
func readManifest(name string) (map[string]manifest, error) {
	out := map[string]manifest{}
	err := decodeLines(name, func(dec *json.Decoder) error {
		var m manifest
		if err := dec.Decode(&m); err != nil {
			return err
		}
		out[m.Path] = m
		return nil
	})
	return out, err
}

// decodeLines calls one for each JSON value of file name.
func decodeLines(name string, one func(*json.Decoder) error) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("%s: %v", filepath.Base(name), err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	for dec.More() {
		if err := one(dec); err != nil {
			return fmt.Errorf("%s: %v", filepath.Base(name), err)
		}
	}
	return nil
}

// fallback is one input a grammar failed on.
type fallback struct {
	in      input
	message string // castchunk's message about it
	class   string // the reason, in a few words (reasonClass)
}

// verdict is what a batch found.
type verdict struct {
	stops     []string // why the run stopped, hung or blew up
	anomalies []string // where its exit status, manifest and records disagree
	fallbacks []fallback
	reached   map[string]bool // inputs castchunk chunked (the manifest says "chunked")
}

// judge sorts what run did with the inputs.
func judge(o *outcome, inputs []input) *verdict {
	v := &verdict{reached: map[string]bool{}}
	switch {
	case o.startErr != nil:
		v.stops = append(v.stops, "could not be run: "+o.startErr.Error())
		return v
	case o.timedOut:
		v.stops = append(v.stops, fmt.Sprintf("hung: killed by castfuzz's wall timeout after %v", o.elapsed.Round(time.Second)))
	case o.signal != "":
		v.stops = append(v.stops, "died by "+o.signal)
	case o.exit != 0 && o.exit != 4:
		v.stops = append(v.stops, fmt.Sprintf("exited with status %d", o.exit))
	}
	if o.maxRSS > rssLimit {
		v.stops = append(v.stops, fmt.Sprintf("blew up: peak RSS %d MiB, over 1 GiB", o.maxRSS>>20))
	}
	stopped := len(v.stops) > 0 // the outputs are not worth checking one by one
	for _, in := range inputs {
		msgs := o.messages[in.name]
		for _, m := range msgs {
			if isFallback(m) {
				v.fallbacks = append(v.fallbacks, fallback{in: in, message: m, class: reasonClass(m)})
				break
			}
		}
		m, listed := o.manifest[in.name]
		if listed && m.Status == "chunked" {
			v.reached[in.name] = true
		}
		n := o.records[in.name]
		if !stopped && n == 0 && len(msgs) == 0 && !(in.empty && listed && m.Status == "chunked" && m.Chunks == 0) {
			v.stops = append(v.stops, fmt.Sprintf("%s: no records and no message on stderr (manifest: %s)", in.name, describe(m, listed)))
		}
		if o.outputError == "" && len(v.stops) == 0 {
			switch {
			case !listed:
				v.anomalies = append(v.anomalies, in.name+": not in the manifest")
			case m.Status == "chunked" && m.Chunks != n:
				v.anomalies = append(v.anomalies, fmt.Sprintf("%s: the manifest says %d chunks, out.jsonl holds %d records", in.name, m.Chunks, n))
			}
		}
	}
	if len(v.stops) > 0 {
		return v
	}
	if o.outputError != "" {
		v.anomalies = append(v.anomalies, "output unreadable: "+o.outputError)
	}
	if o.exit == 4 && len(v.fallbacks) == 0 {
		v.anomalies = append(v.anomalies, "exit status 4 but no input was chunked with the sliding method")
	}
	if o.exit == 0 && len(v.fallbacks) > 0 {
		v.anomalies = append(v.anomalies, fmt.Sprintf("exit status 0 but %d inputs were chunked with the sliding method", len(v.fallbacks)))
	}
	if o.leftBehind {
		v.anomalies = append(v.anomalies, "processes of its group were still alive 2 s after it exited (killed)")
	}
	return v
}

// describe says what the manifest says about a file.
func describe(m manifest, listed bool) string {
	if !listed {
		return "not listed"
	}
	s := fmt.Sprintf("%s, %d chunks", m.Status, m.Chunks)
	if m.Note != "" {
		s += ", " + m.Note
	}
	return s
}

// isFallback reports whether a message about a file says a grammar
// failed on it: its worker process died or was killed, or the file, or
// a region embedded in it ("embedded bash at line 48: …; chunked as
// markdown text"), was chunked without that grammar's tree.
func isFallback(msg string) bool {
	return strings.Contains(msg, "worker process") || strings.Contains(msg, "chunked with the sliding method") ||
		strings.HasPrefix(msg, "embedded ") && strings.Contains(msg, "; chunked as ")
}

// reasonClass names the kind of a fallback message in a few words:
// deadline, memory, killed by SIGABRT, exited with status N, …; an
// assertion's text adds "(assertion)".
func reasonClass(msg string) string {
	if rest, ok := strings.CutPrefix(msg, "embedded "); ok && !strings.Contains(msg, "worker process") {
		// "embedded bash at line 48: the parse gave up: …": the region's grammar and why.
		name, _, _ := strings.Cut(rest, " ")
		return "embedded " + name + ": " + reasonClass(rest)
	}
	var class string
	switch {
	case strings.Contains(msg, "ran past its deadline"):
		class = "deadline"
	case strings.Contains(msg, "deadline in wall time"):
		class = "deadline (wall time)"
	case strings.Contains(msg, "reached its memory limit"):
		class = "memory"
	case strings.Contains(msg, "was killed by "):
		sig := strings.TrimPrefix(msg[strings.Index(msg, "was killed by "):], "was killed by ")
		sig, _, _ = strings.Cut(sig, " ")
		sig = strings.TrimRight(sig, ";,")
		class = "killed by " + sig
	case strings.Contains(msg, "exited with status "):
		n := strings.TrimPrefix(msg[strings.Index(msg, "exited with status "):], "exited with status ")
		n, _, _ = strings.Cut(n, " ")
		class = "exited with status " + strings.TrimRight(n, ";,")
	case strings.Contains(msg, "worker process"):
		class = "worker: other"
	case strings.Contains(msg, "nesting too deep"):
		class = "nesting too deep (scanner state)"
	case strings.Contains(msg, "lexed the file over"):
		class = "parse gave up (lexed over 1,024 times)"
	case strings.Contains(msg, "rebuilt its state"):
		class = "parse gave up (scanner work)"
	case strings.Contains(msg, "parse gave up"):
		class = "parse gave up"
	default:
		class = "other"
	}
	if strings.Contains(msg, "worker process") && (strings.Contains(msg, "Assertion") || strings.Contains(msg, "assert")) {
		class += " (assertion)"
	}
	return class
}

// command is the command of args run in dir in a process group of its
// own, with stderr to stderr, killed whole when ctx ends.
func command(ctx context.Context, args []string, dir string, stderr io.Writer) *exec.Cmd {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = environ()
	cmd.Stdout = io.Discard
	cmd.Stderr = stderr // a file, not a pipe: a worker left behind cannot hold Wait up
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}
