package main

import (
	"fmt"
	"os"
	"time"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/walk"
)

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
	cacheMeasured             bool
	workers                   *workersResult // (w); nil when not measured
	methods                   []methodResult // (m)
}

// cacheSummary prints the summary lines of (h) and (i), if measured.
func (r *corpusResult) cacheSummary() {
	if !r.cacheMeasured {
		return
	}
	for k, c := range r.cache {
		c.summary(r.dir, cacheRuns[k].name, cacheRuns[k].label)
	}
}

// workersSummary prints the summary lines of (w): its targets, then a line
// per corpus; nothing when it was not measured.
func workersSummary(results []*corpusResult) {
	if len(results) == 0 || results[0].workers == nil {
		return
	}
	fmt.Printf("  (w) targets: workers over in-process <= %.0f%% in wall and CPU time at -j 1 and -j %d, -j %d/-j 1 >= %.1fx in wall time, peak memory of a run (RSS of castchunk and its descendants) < 1 GB\n",
		100*targetWorkersOverhead, results[0].workers.jobs, results[0].workers.jobs, targetSpeedup)
	for _, r := range results {
		r.workers.summary(r.dir)
	}
}

func (r *corpusResult) overhead() float64 {
	return r.seq.best().Seconds() / r.parse.best().Seconds()
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
	perLang := r.describe(jobs)
	fmt.Printf("\n  listing (walk.List) took %s; %d listed files left out as castchunk skips them (binary, UTF-16, not UTF-8)\n", ms(walkTime), skipped)
	if len(jobs) == 0 {
		return nil, fmt.Errorf("no file to chunk")
	}
	if o.measureCache() {
		for k, c := range cacheRuns {
			if r.cache[k], err = benchCache(o, dir, len(jobs), c.name, c.label, c.args); err != nil {
				return nil, err
			}
		}
		r.cacheMeasured = true
	}
	if o.measureWorkers() {
		if r.workers, err = benchWorkers(o, dir, r.bytes); err != nil {
			return nil, err
		}
	}
	if !o.measureRest() {
		return r, nil
	}
	list, err := writeJobList(o.tmp, jobs)
	if err != nil {
		return nil, err
	}
	defer os.Remove(list)
	for _, m := range o.methods {
		r.methods = append(r.methods, methodResult{name: m})
	}
	langTime, err := r.measure(o, dir, list, jobs)
	if err != nil {
		return nil, err
	}
	r.report(o)
	if err := r.measureLargest(o, jobs); err != nil {
		return nil, err
	}
	fmt.Printf("  parse only by language (fastest repetition):")
	for _, name := range sortedKeys(perLang) {
		fmt.Printf(" %s %.2f MB/s;", name, mb(perLang[name][1])/time.Duration(langTime[name]).Seconds())
	}
	fmt.Println()
	return r, nil
}

// describe sums the corpus's bytes and prints its files and megabytes by
// language, which it returns (files, bytes).
func (r *corpusResult) describe(jobs []job) map[string][2]int {
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
	return perLang
}

// measure runs the repetitions of (a) to (c), the embedding runs and (m),
// interleaved, and returns the parse time by language of the fastest
// parse-only repetition.
func (r *corpusResult) measure(o options, dir, list string, jobs []job) (map[string]time.Duration, error) {
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
		if err := r.measureMethods(o, dir); err != nil {
			return nil, err
		}
	}
	return langTime, nil
}

// report prints (a) to (c), the targets, the embedding runs and (m).
func (r *corpusResult) report(o options) {
	fmt.Printf("  (a) parse only, -j 1          %-20s %7.2f MB/s   cpu %s   peak RSS %.0f MiB\n", r.parse.times(), r.parse.rate(r.bytes), secs(r.parse.bestCPU()), mib(r.parse.maxRSS()))
	fmt.Printf("  (a) parse only, -j %-6d     %-20s %7.2f MB/s   (for reference: parsing alone speeds up %.2fx)\n", o.jobs, r.parsePar.times(), r.parsePar.rate(r.bytes), r.parse.best().Seconds()/r.parsePar.best().Seconds())
	fmt.Printf("  (b) castchunk chunk -j 1      %-20s %7.2f MB/s   cpu %s   peak RSS %.0f MiB\n", r.seq.times(), r.seq.rate(r.bytes), secs(r.seq.bestCPU()), mib(r.seq.maxRSS()))
	fmt.Printf("  (c) castchunk chunk -j %-6d %-20s %7.2f MB/s   cpu %s   peak RSS %.0f MiB\n", o.jobs, r.par.times(), r.par.rate(r.bytes), secs(r.par.bestCPU()), mib(r.par.maxRSS()))
	fmt.Printf("  (b)/(a) in time: %.3f (target <= %.2f: %s)   (c) speedup over (b): %.2fx (target >= %.1fx: %s)\n",
		r.overhead(), targetOverhead, verdict(r.overhead() <= targetOverhead), r.speedup(), targetSpeedup, verdict(r.speedup() >= targetSpeedup))
	for k, e := range embedRuns {
		fmt.Printf("  (%s) (b) with %-22s %-20s %7.2f MB/s   %.3fx (b)\n", e.name, e.label, r.embed[k].times(), r.embed[k].rate(r.bytes), r.embedRatio(k))
	}
	r.reportMethods()
}

// measureLargest chunks the largest file alone, for its peak memory, and
// says how low castbench's own size lets a peak figure go.
func (r *corpusResult) measureLargest(o options, jobs []job) error {
	for _, j := range jobs {
		if j.size > r.largest.size {
			r.largest = j
		}
	}
	one, err := chunkRun(o, r.largest.osPath, 1, false, nil)
	if err != nil {
		return err
	}
	r.largestRSS = one.rss
	fmt.Printf("  the largest file alone (%s, %.1f MB): castchunk chunk -j 1 takes %s, peak RSS %.0f MiB\n",
		r.largest.path, mb(r.largest.size), secs(one.wall), mib(one.rss))
	floor := max(r.parse.maxFloor(), r.parsePar.maxFloor(), r.seq.maxFloor(), r.par.maxFloor(), one.floor)
	fmt.Printf("  (peak RSS figures cannot be below castbench's own resident size when it starts a run, here at most %.0f MiB)\n", mib(floor))
	return nil
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
