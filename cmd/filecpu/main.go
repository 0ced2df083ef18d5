// Command filecpu measures the CPU time castchunk's grammar work costs per
// file, to set the deadline of its worker processes (supervise.ForFile)
// from measured costs. It is a measuring tool, not part of the product;
// docs/deadline-measurements.md holds its figures, and
// scripts/deadline-measure.sh runs it as they were measured and summarizes
// its output (scripts/filecpu-summary.py).
//
// Warm costs (the default mode): every file castchunk would chunk under the
// corpora (named NAME=DIR), listed as castchunk lists them (walk.List,
// plan.Policy, generated and vendored files kept, notebooks left out), is
// chunked -passes times in one process with one engine (what a worker
// process holds: internal/pipeline's worker, whose chunk this program's
// engine.chunk follows), and the last pass is written: by then every
// language's one-off costs (its definition and injection queries compiled)
// are paid. The main goroutine is locked to its thread, and each file's
// CPU time is read around the grammar work alone (the file is read
// before; a worker's decoding of the request and encoding of the reply
// are not counted): the thread's (CLOCK_THREAD_CPUTIME_ID: parse,
// queries, chunker) and the process's (CLOCK_PROCESS_CPUTIME_ID: with the
// garbage collector's other threads, as the worker's deadline counts it).
// Output, TSV with a header:
//
//	corpus  method  path  bytes  cpu_seconds  process_cpu_seconds  language  spans  parse_failed
//
// One-off costs (-first): for each file, a fresh process (filecpu itself,
// -one) chunks that file first, then warm -warm times, and reports the
// first call's CPU time, the least warm one, and their difference (the
// one-off cost: the queries of the file's language, and of any language
// embedded in it, compiled; and what any first file costs a process).
// Output, TSV with a header:
//
//	corpus  method  language  path  bytes  first_cpu  warm_cpu  oneoff_cpu  first_process_cpu  warm_process_cpu  oneoff_process_cpu
//
// The method column is the configuration: the method, with "+context"
// for -context and "+tok512" for -max-tokens 512 (-label overrides it).
//
//	go run ./cmd/filecpu -method cast -corpus go=/usr/local/go/src -o cast.tsv
//	go run ./cmd/filecpu -method cast -context -first -corpus corpus=testdata/corpus -o first.tsv
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/tokens"
	"github.com/castchunk/castchunk/internal/walk"
)

func init() {
	// Every measured call runs on this thread: its CPU clock is the call's.
	runtime.LockOSThread()
}

type corpusFlag []string

func (c *corpusFlag) String() string     { return strings.Join(*c, ",") }
func (c *corpusFlag) Set(s string) error { *c = append(*c, s); return nil }

type options struct {
	method    string
	budget    int
	context   bool
	tokenizer string
	maxTokens int
	label     string
	passes    int
	warm      int
	first     bool
	out       string
	corpora   corpusFlag
	exclude   corpusFlag
	// -one: the child of -first
	one, oneLang, onePath, oneCorpus string
}

func main() {
	var o options
	flag.StringVar(&o.method, "method", "cast", "the method: "+strings.Join(method.Names(), ", "))
	flag.IntVar(&o.budget, "max-size", 2000, "the budget, as castchunk's --max-size")
	flag.BoolVar(&o.context, "context", false, "as castchunk's --context")
	flag.StringVar(&o.tokenizer, "tokenizer", "", "as castchunk's --tokenizer (cl100k_base when -max-tokens is given without it)")
	flag.IntVar(&o.maxTokens, "max-tokens", 0, "as castchunk's --max-tokens")
	flag.StringVar(&o.label, "label", "", "the method column (default: the method, +context, +tokN)")
	flag.IntVar(&o.passes, "passes", 2, "passes over the corpora; the last is written")
	flag.IntVar(&o.warm, "warm", 5, "with -first, warm repetitions after the first call (the least is kept)")
	flag.BoolVar(&o.first, "first", false, "measure one-off costs: each file first in a fresh process")
	flag.StringVar(&o.out, "o", "-", "output TSV file")
	flag.Var(&o.corpora, "corpus", "NAME=DIR to measure (repeatable)")
	flag.Var(&o.exclude, "exclude", "skip paths matching `GLOB`, as castchunk's --exclude (repeatable)")
	flag.StringVar(&o.one, "one", "", "internal: the child of -first, on this OS path")
	flag.StringVar(&o.oneLang, "one-lang", "", "internal: -one's language")
	flag.StringVar(&o.onePath, "one-path", "", "internal: -one's display path")
	flag.StringVar(&o.oneCorpus, "one-corpus", "", "internal: -one's corpus name")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "filecpu:", err)
		os.Exit(1)
	}
}

func (o options) setup() (chunk.Setup, enrich.Options, error) {
	m := method.ByName(o.method)
	if m == nil {
		return chunk.Setup{}, enrich.Options{}, fmt.Errorf("no method %q", o.method)
	}
	s := chunk.Setup{Method: m, Budget: o.budget, Values: chunk.Values{}}
	if err := s.Check(); err != nil {
		return s, enrich.Options{}, err
	}
	opts := enrich.Options{Context: o.context, MaxTokens: o.maxTokens}
	if o.tokenizer == "" && o.maxTokens > 0 {
		o.tokenizer = "cl100k_base"
	}
	if o.tokenizer != "" {
		e, err := tokens.Load(o.tokenizer)
		if err != nil {
			return s, opts, err
		}
		opts.Encoding = e
	}
	return s, opts, nil
}

func (o options) labelled() string {
	if o.label != "" {
		return o.label
	}
	l := o.method
	if o.context {
		l += "+context"
	}
	if o.maxTokens > 0 {
		l += "+tok" + strconv.Itoa(o.maxTokens)
	}
	return l
}

func run(o options) error {
	setup, opts, err := o.setup()
	if err != nil {
		return err
	}
	if o.one != "" {
		return runOne(o, setup, opts)
	}
	var out io.Writer = os.Stdout
	if o.out != "-" {
		f, err := os.Create(o.out)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	w := bufio.NewWriter(out)
	defer w.Flush()
	var files []file
	for _, c := range o.corpora {
		name, dir, ok := strings.Cut(c, "=")
		if !ok {
			return fmt.Errorf("-corpus %q: want NAME=DIR", c)
		}
		fs, err := list(name, dir, o.exclude)
		if err != nil {
			return err
		}
		files = append(files, fs...)
	}
	if len(files) == 0 {
		return fmt.Errorf("no file to measure (-corpus NAME=DIR)")
	}
	if o.first {
		return runFirst(o, w, files)
	}
	return runWarm(o, w, setup, opts, files)
}

// file is one file castchunk would chunk with a grammar.
type file struct {
	corpus, path, osPath string
	lang                 *lang.Language
	size                 int
}

// list lists dir's files as castchunk chunk --include-generated
// --include-vendored would chunk them with a grammar (castbench's
// listJobs): text, notebooks, empty files and files castchunk skips for
// their bytes are left out.
func list(corpus, dir string, exclude []string) ([]file, error) {
	listed, _, err := walk.List([]string{dir}, walk.Options{Exclude: exclude})
	if err != nil {
		return nil, err
	}
	policy := plan.Policy{KeepGenerated: true, KeepVendored: true, MaxFileSize: 10 << 20}
	var files []file
	for _, f := range listed {
		pf := plan.File{Path: f.Path, Attrs: f.Attrs, Named: f.Explicit}
		d := policy.ByName(pf)
		if d.Fate != plan.Chunked || d.Notebook {
			continue
		}
		src, err := os.ReadFile(f.OSPath)
		if err != nil {
			continue
		}
		c := policy.ByContent(pf, d, src)
		if c.Fate != plan.Chunked || c.Lang == nil || len(src) == 0 {
			continue
		}
		files = append(files, file{corpus: corpus, path: f.Path, osPath: f.OSPath, lang: c.Lang, size: len(src)})
	}
	return files, nil
}

// cpu is a thread's and the process's CPU time.
type cpu struct{ thread, process time.Duration }

// The clocks of clock_gettime(2): the calling thread's CPU time and the
// process's. Unlike getrusage(RUSAGE_THREAD), whose figure for the running
// thread lags until the next tick or context switch (so that a 5 KB file
// can read as 10 µs), these add the time run since the last update.
const (
	clockProcessCPU = 2 // CLOCK_PROCESS_CPUTIME_ID
	clockThreadCPU  = 3 // CLOCK_THREAD_CPUTIME_ID
)

func clock(id uintptr) time.Duration {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, id, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		panic(errno)
	}
	return time.Duration(ts.Nano())
}

func now() cpu {
	return cpu{thread: clock(clockThreadCPU), process: clock(clockProcessCPU)}
}

func (c cpu) since(start cpu) cpu {
	return cpu{thread: c.thread - start.thread, process: c.process - start.process}
}

// measure chunks one file with e and returns the CPU time it took.
func measure(e *engine, f file, src []byte) (cpu, result, error) {
	start := now()
	res, err := e.chunk(f.path, f.lang, src)
	took := now().since(start)
	if err != nil {
		return took, res, fmt.Errorf("%s: %v", f.osPath, err)
	}
	return took, res, nil
}

func runWarm(o options, w *bufio.Writer, setup chunk.Setup, opts enrich.Options, files []file) error {
	e := newEngine(setup, opts)
	defer e.close()
	label := o.labelled()
	fmt.Fprintln(w, "corpus\tmethod\tpath\tbytes\tcpu_seconds\tprocess_cpu_seconds\tlanguage\tspans\tparse_failed")
	for pass := 1; pass <= o.passes; pass++ {
		start := time.Now()
		var total cpu
		for _, f := range files {
			src, err := os.ReadFile(f.osPath)
			if err != nil {
				return err
			}
			took, res, err := measure(e, f, src)
			if err != nil {
				return err
			}
			total.thread += took.thread
			total.process += took.process
			if pass == o.passes {
				fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%.6f\t%.6f\t%s\t%d\t%t\n", f.corpus, label, f.path, len(src),
					took.thread.Seconds(), took.process.Seconds(), f.lang.Name, res.spans, res.parseErr)
			}
		}
		fmt.Fprintf(os.Stderr, "filecpu %s pass %d: %d files, thread CPU %.1fs, process CPU %.1fs, wall %.1fs\n",
			label, pass, len(files), total.thread.Seconds(), total.process.Seconds(), time.Since(start).Seconds())
	}
	return nil
}

// runFirst starts a fresh process (this program, -one) per file.
func runFirst(o options, w *bufio.Writer, files []file) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "corpus\tmethod\tlanguage\tpath\tbytes\tfirst_cpu\twarm_cpu\toneoff_cpu\tfirst_process_cpu\twarm_process_cpu\toneoff_process_cpu")
	for _, f := range files {
		args := []string{"-method", o.method, "-max-size", strconv.Itoa(o.budget), "-max-tokens", strconv.Itoa(o.maxTokens),
			"-warm", strconv.Itoa(o.warm), "-label", o.labelled(),
			"-one", f.osPath, "-one-lang", f.lang.Name, "-one-path", f.path, "-one-corpus", f.corpus}
		if o.context {
			args = append(args, "-context")
		}
		if o.tokenizer != "" {
			args = append(args, "-tokenizer", o.tokenizer)
		}
		cmd := exec.Command(self, args...)
		cmd.Stderr = os.Stderr
		line, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("%s: %v", f.osPath, err)
		}
		w.Write(line)
	}
	return nil
}

// runOne is the child of -first: one file, first in this process, then
// warm.
func runOne(o options, setup chunk.Setup, opts enrich.Options) error {
	l := lang.ByName(o.oneLang)
	if l == nil {
		return fmt.Errorf("no language %q", o.oneLang)
	}
	src, err := os.ReadFile(o.one)
	if err != nil {
		return err
	}
	f := file{corpus: o.oneCorpus, path: o.onePath, osPath: o.one, lang: l, size: len(src)}
	e := newEngine(setup, opts)
	defer e.close()
	first, _, err := measure(e, f, src)
	if err != nil {
		return err
	}
	warm := cpu{thread: time.Hour, process: time.Hour}
	for range max(o.warm, 1) {
		took, _, err := measure(e, f, src)
		if err != nil {
			return err
		}
		warm.thread = min(warm.thread, took.thread)
		warm.process = min(warm.process, took.process)
	}
	fmt.Printf("%s\t%s\t%s\t%s\t%d\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\n", f.corpus, o.labelled(), l.Name, f.path, len(src),
		first.thread.Seconds(), warm.thread.Seconds(), (first.thread - warm.thread).Seconds(),
		first.process.Seconds(), warm.process.Seconds(), (first.process - warm.process).Seconds())
	return nil
}
