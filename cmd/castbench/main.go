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
//	(m) `castchunk chunk -j 1 --method M DIR` for each method of -methods
//	    (default cast, function and declaration), its time over (a)'s as
//	    (b)/(a) is for cast, against the same target: each method at the
//	    parse floor (issue 30). cast's figures are (b)'s, not run again. A
//	    method the binary does not take (a trial run on one small file
//	    exits with status 2, a usage error) is skipped with one line: a
//	    binary from before the method is measured for the others;
//	(w) castchunk's worker processes (the default: the grammars run in
//	    --jobs children, castchunk started again) against --in-process (the
//	    grammars in castchunk's own process), each at -j 1 and -j 2 with the
//	    flags of (b), interleaved (in-process -j 1, workers -j 1, in-process
//	    -j 2, workers -j 2): medians of the wall time and of the CPU time of
//	    the whole process tree, the overhead of the workers in each, the
//	    -j 2 speedup of each mode, and the peak memory of a run (the RSS of
//	    castchunk and its descendants, summed, sampled from /proc); every
//	    run's output must hash as the first's (see workers.go);
//
// each -reps times, interleaved, and prints the best and median time, MB/s
// (10^6 bytes of source per second), the ratio (b)/(a) in time, the speedup
// of (c) over (b), the subprocesses' peak resident memory, and the start-up
// CPU and wall time of `castchunk chunk` on one small file. The first run
// of (b) is checked: it must have chunked exactly the files (a) parsed.
// (b) to (m) run castchunk as it runs by default, with its workers.
// -cache-only and -workers-only narrow the measurements to (h) and (i),
// or to (w), leaving (m) out; -methods "" leaves (m) out, and
// -workers=false leaves (w) out, for a castchunk without --in-process.
//
// Peak memory is the child's ru_maxrss, as wait4 reports it. On Linux that
// figure never falls below the resident size of the process that started
// the child (the kernel keeps the high-water mark of the address space
// across the exec), so castbench keeps itself small: parsing happens in a
// child, and castbench resets its own high-water mark (/proc/self/clear_refs)
// before each run. The floor is printed with the figures.
//
//	go run ./cmd/castbench -bin bin/castchunk -corpus bench/corpus-small -corpus bench/corpus \
//	    -corpus bench/cpython -corpus bench/java-base
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
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
	workers     bool // measure (w)
	workersOnly bool
	methods     []string // (m): after probeMethods, those the binary knows
}

// only is whether an -…-only flag narrows the measurements.
func (o options) only() bool { return o.cacheOnly || o.workersOnly }

// measureCache, measureWorkers and measureRest say what is measured: (h)
// and (i); (w); and everything else.
func (o options) measureCache() bool   { return !o.only() || o.cacheOnly }
func (o options) measureWorkers() bool { return o.workers && (!o.only() || o.workersOnly) }
func (o options) measureRest() bool    { return !o.only() }

func main() {
	var o options
	var corpora listFlag
	flag.StringVar(&o.bin, "bin", "bin/castchunk", "the castchunk binary to measure")
	flag.Var(&corpora, "corpus", "a corpus folder (repeatable; default bench/corpus-small, bench/corpus, bench/cpython and bench/java-base)")
	flag.IntVar(&o.reps, "reps", 3, "repetitions of each measurement")
	flag.IntVar(&o.jobs, "jobs", 2, "the -j of the parallel run (c)")
	flag.IntVar(&o.startupRuns, "startup-runs", 20, "runs on one small file for the start-up time")
	flag.StringVar(&o.tmp, "tmp", "bench/tmp", "folder on disk for the output of each run (deleted after it)")
	flag.BoolVar(&o.cacheOnly, "cache-only", false, "measure only (h) and (i), the cold and the warm runs with --cache (with -workers-only: and (w))")
	flag.BoolVar(&o.workers, "workers", true, "measure (w), castchunk's worker processes against --in-process (false: leave it out, for a castchunk without --in-process)")
	flag.BoolVar(&o.workersOnly, "workers-only", false, "measure only (w), workers against --in-process at -j 1 and -j N (with -cache-only: and (h), (i))")
	methods := flag.String("methods", "cast,function,declaration", "the methods of (m), `castchunk chunk -j 1 --method M`, separated by commas (one the binary does not take is skipped; cast is (b))")
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
	var err error
	if o.methods, err = parseMethods(*methods); err != nil {
		fmt.Fprintln(os.Stderr, "castbench:", err)
		os.Exit(2)
	}
	if flag.NArg() > 0 || o.reps < 1 || o.jobs < 1 || o.startupRuns < 1 || (o.workersOnly && !o.workers) {
		flag.Usage()
		os.Exit(2)
	}
	o.corpora = corpora
	if len(o.corpora) == 0 {
		o.corpora = []string{"bench/corpus-small", "bench/corpus", "bench/cpython", "bench/java-base"}
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
	if o.measureWorkers() {
		if err := probeInProcess(o); err != nil {
			return err
		}
	}
	if o.measureRest() {
		if o.methods, err = probeMethods(o); err != nil {
			return err
		}
	}

	var results []*corpusResult
	for _, dir := range o.corpora {
		r, err := benchCorpus(o, dir)
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		results = append(results, r)
	}
	if !o.measureRest() {
		fmt.Printf("\nsummary (%d CPUs)\n", runtime.NumCPU())
		for _, r := range results {
			r.cacheSummary()
		}
		workersSummary(results)
		fmt.Printf("  load average at the end: %s; castbench took %s\n", loadAverage(), time.Since(began).Round(time.Second))
		return nil
	}
	startup, err := benchStartup(o)
	if err != nil {
		return fmt.Errorf("start-up: %w", err)
	}

	summary(results)
	workersSummary(results)
	fmt.Printf("  start-up: CPU median %s (min %s), wall median %s (min %s) over %d runs: %s\n",
		ms(startup.medianCPU()), ms(startup.bestCPU()), ms(startup.median()), ms(startup.best()), len(startup), verdict(startup.medianCPU() < targetStartup))
	fmt.Printf("  load average at the end: %s; castbench took %s\n", loadAverage(), time.Since(began).Round(time.Second))
	return nil
}

// summary prints the table of every corpus's figures and their targets.
func summary(results []*corpusResult) {
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
		r.methodsSummary()
	}
	for _, r := range results {
		r.cacheSummary()
	}
}
