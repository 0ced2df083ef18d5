package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// (w): castchunk's supervised workers against its --in-process mode. By
// default `castchunk chunk` runs the grammars in --jobs worker processes
// (castchunk started again as its children); with --in-process it runs
// them in its own process. Each repetition runs, in this order,
// in-process -j 1, workers -j 1, in-process -j N, workers -j N (N: -jobs),
// on the same files with the flags of (b), and each configuration's
// medians are compared.
//
// The CPU time of a run is that of the whole process tree: the growth of
// castbench's getrusage(RUSAGE_CHILDREN) over the run, which counts
// castchunk once castbench has waited for it, and with it every
// descendant castchunk waited for, its workers (a worker that castchunk
// left running unwaited would not be counted). On Linux the rusage that
// wait4 returns for the child is the same sum (the kernel fills it as
// RUSAGE_BOTH of the child: itself and its waited-for descendants), not
// castchunk's own process alone; the two are compared, and a difference
// is told. Peak memory is the resident sizes of castchunk and all its
// descendants, summed, sampled from /proc every treeEvery (watchTree):
// the child's ru_maxrss is the largest single process's.

// Targets of (w), from the issue.
const (
	targetWorkersOverhead = 0.05          // workers over in-process, wall and CPU, at most
	targetTreeRSS         = 1_000_000_000 // bytes: the whole run's peak memory, below 1 GB
)

// workerModes are the two modes of (w), in the order each repetition runs
// them at each -j: in-process first, then workers.
var workerModes = [2]struct {
	name string
	args []string
}{
	{"in-process", []string{"--in-process"}},
	{"workers", nil},
}

// workersResult is (w) on one corpus.
type workersResult struct {
	jobs int                // the -j of the parallel runs
	runs [2][2]samples      // [j][mode]: j 0 is -j 1, 1 is -j jobs; mode as workerModes
	wait [2][2]samples      // the same runs' wait4 rusage (cpu only), to check the CPU figures against
	sum  [sha256.Size]byte  // the output's SHA-256, the same in every run
	n    int                // runs whose output was compared
	peak [2][2]treePeakList // each run's peak memory
}

type treePeakList []treePeak

func (l treePeakList) max() treePeak {
	var m treePeak
	for _, p := range l {
		m.rss, m.procs = max(m.rss, p.rss), max(m.procs, p.procs)
	}
	return m
}

// overheadWall and overheadCPU are workers over in-process at j (0: -j 1,
// 1: -j jobs), medians, as a fraction (0.05: 5% more).
func (r *workersResult) overheadWall(j int) float64 {
	return r.runs[j][1].median().Seconds()/r.runs[j][0].median().Seconds() - 1
}

func (r *workersResult) overheadCPU(j int) float64 {
	return r.runs[j][1].medianCPU().Seconds()/r.runs[j][0].medianCPU().Seconds() - 1
}

// speedup is mode m's -j 1 median wall time over its -j jobs one.
func (r *workersResult) speedup(m int) float64 {
	return r.runs[0][m].median().Seconds() / r.runs[1][m].median().Seconds()
}

// peakRSS is the largest peak memory of all the runs.
func (r *workersResult) peakRSS() int64 {
	var m int64
	for j := range r.peak {
		for _, l := range r.peak[j] {
			m = max(m, l.max().rss)
		}
	}
	return m
}

func (r *workersResult) jobsOf(j int) int {
	if j == 0 {
		return 1
	}
	return r.jobs
}

// benchWorkers measures (w) on dir: -reps repetitions of the four runs,
// interleaved, every output compared with the first's.
func benchWorkers(o options, dir string, size int) (*workersResult, error) {
	r := &workersResult{jobs: o.jobs}
	first := ""
	for rep := range o.reps {
		for j := range 2 {
			for m, mode := range workerModes {
				var sum [sha256.Size]byte
				s, w, peak, err := treeRun(o, dir, r.jobsOf(j), &sum, mode.args...)
				if err != nil {
					return nil, err
				}
				r.runs[j][m] = append(r.runs[j][m], s)
				r.wait[j][m] = append(r.wait[j][m], w)
				r.peak[j][m] = append(r.peak[j][m], peak)
				what := fmt.Sprintf("%s -j %d (repetition %d)", mode.name, r.jobsOf(j), rep+1)
				if first == "" {
					r.sum, first = sum, what
				} else if sum != r.sum {
					return nil, fmt.Errorf("(w) the output of %s differs from that of %s: sha256 %x, not %x", what, first, sum[:8], r.sum[:8])
				}
				r.n++
			}
		}
	}
	fmt.Printf("  (w) workers vs --in-process, -j 1 and -j %d, interleaved, medians over %d: CPU is user+sys of castchunk and every process it waited for (its workers);\n", o.jobs, o.reps)
	fmt.Printf("      peak memory is the RSS of castchunk and all its descendants, summed, sampled every %v\n", treeEvery)
	for j := range 2 {
		for m, mode := range workerModes {
			s := r.runs[j][m]
			p := r.peak[j][m].max()
			fmt.Printf("      %-10s -j %-4d wall %s (best %s)  %7.2f MB/s   cpu %s (best %s)   peak %4.0f MiB, %d %s at most\n",
				mode.name, r.jobsOf(j), secs(s.median()), secs(s.best()), mb(size)/s.median().Seconds(),
				secs(s.medianCPU()), secs(s.bestCPU()), mib(p.rss), p.procs, plural(p.procs, "process", "processes"))
		}
	}
	for j := range 2 {
		for m, mode := range workerModes {
			for k, s := range r.runs[j][m] {
				if d := s.cpu - r.wait[j][m][k].cpu; d.Abs() > 10*time.Millisecond+s.cpu/100 {
					fmt.Printf("      note: %s -j %d, repetition %d: the CPU time from RUSAGE_CHILDREN, %s, is not wait4's for castchunk, %s\n",
						mode.name, r.jobsOf(j), k+1, secs(s.cpu), secs(r.wait[j][m][k].cpu))
				}
			}
		}
	}
	for j := range 2 {
		if r.peak[j][1].max().procs < 2 {
			fmt.Printf("      note: workers -j %d never had a child process: does this castchunk run the grammars in workers?\n", r.jobsOf(j))
		}
	}
	r.report()
	fmt.Printf("  (w) outputs: all %d runs byte-identical (sha256 %x…)\n", r.n, r.sum[:8])
	return r, nil
}

// report prints (w)'s overheads, speedups and peak memory, with verdicts.
func (r *workersResult) report() {
	fmt.Printf("  (w) workers over in-process (target <= %.0f%%):%s\n", 100*targetWorkersOverhead, r.overheads())
	fmt.Printf("  (w) -j %d speedup over -j 1 in wall time (target >= %.1fx):%s\n", r.jobs, targetSpeedup, r.speedups())
	fmt.Printf("  (w) peak memory of a whole run, the largest of the %d: %.0f MiB (target < 1 GB: %s)\n",
		r.n, mib(r.peakRSS()), verdict(r.peakRSS() < targetTreeRSS))
}

// summary prints (w)'s line of the summary.
func (r *workersResult) summary(dir string) {
	fmt.Printf("  %-20s (w) workers over in-process:%s -j %d/-j 1:%s peak %.0f MiB %s\n",
		dir, r.overheads(), r.jobs, r.speedups(), mib(r.peakRSS()), verdict(r.peakRSS() < targetTreeRSS))
}

// overheads is "-j 1 wall +1.2% met, cpu +3.4% met; -j 2 …;".
func (r *workersResult) overheads() string {
	var b strings.Builder
	for j := range 2 {
		fmt.Fprintf(&b, " -j %d wall %+.1f%% %s, cpu %+.1f%% %s;", r.jobsOf(j),
			100*r.overheadWall(j), verdict(r.overheadWall(j) <= targetWorkersOverhead),
			100*r.overheadCPU(j), verdict(r.overheadCPU(j) <= targetWorkersOverhead))
	}
	return b.String()
}

// speedups is "in-process 1.90x met; workers 1.85x met;".
func (r *workersResult) speedups() string {
	var b strings.Builder
	for m, mode := range workerModes {
		fmt.Fprintf(&b, " %s %.2fx %s;", mode.name, r.speedup(m), verdict(r.speedup(m) >= targetSpeedup))
	}
	return b.String()
}

// errNoInProcess is the failure of a castchunk bin that has no --in-process.
func errNoInProcess(bin string) error {
	return fmt.Errorf("%s chunk does not know --in-process (a castchunk from before the supervised workers?): (w) needs it; build a castchunk that has it, or leave (w) out with -workers=false", bin)
}

// noInProcess tells whether a run failed for want of --in-process.
func noInProcess(stderr string) bool {
	return strings.Contains(stderr, "unknown flag: --in-process")
}

// probeInProcess runs `castchunk chunk --in-process` on one small file, so
// that a castchunk without the flag is told at the start, not after the
// first corpus.
func probeInProcess(o options) error {
	dir, err := os.MkdirTemp(o.tmp, "probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "probe.py")
	if err := os.WriteFile(file, []byte("def probe():\n    return 1\n"), 0o644); err != nil {
		return err
	}
	cmd := exec.Command(o.bin, "chunk", "--in-process", "-j", "1", file)
	cmd.Env = benchEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil { // stdout: /dev/null
		if noInProcess(stderr.String()) {
			return errNoInProcess(o.bin)
		}
		return fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, lastLines(stderr.String(), 5))
	}
	return nil
}

// treeRun runs `castchunk chunk -j N FLAGS dir` as (b) does, stdout to a
// file on disk, and measures the whole process tree: the sample's CPU is
// that of castchunk and of every descendant it waited for (RUSAGE_CHILDREN
// after the run less before), w holds the CPU time of the child's wait4
// rusage (the rest unset), and the peak memory is watchTree's.
// The SHA-256 of the output goes to sum.
func treeRun(o options, dir string, jobs int, sum *[sha256.Size]byte, flags ...string) (s, w sample, peak treePeak, err error) {
	out, err := os.CreateTemp(o.tmp, "out-*.jsonl")
	if err != nil {
		return s, w, peak, err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(o.bin, append(append([]string{"chunk", "--include-generated", "--include-vendored", "-j", strconv.Itoa(jobs)}, flags...), dir)...)
	cmd.Stdout = out
	cmd.Stderr = &stderr
	cmd.Env = benchEnv()
	var before, after syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &before); err != nil {
		return s, w, peak, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return s, w, peak, err
	}
	stop := watchTree(cmd.Process.Pid)
	err = cmd.Wait()
	wall := time.Since(start)
	peak = stop()
	if err != nil {
		if noInProcess(stderr.String()) {
			return s, w, peak, errNoInProcess(o.bin)
		}
		return s, w, peak, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, lastLines(stderr.String(), 10))
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &after); err != nil {
		return s, w, peak, err
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	s = sample{wall: wall, cpu: cpuOf(&after) - cpuOf(&before), rss: peak.rss}
	w = sample{cpu: cpuOf(ru)}
	if *sum, err = fileSum(out); err != nil {
		return s, w, peak, err
	}
	return s, w, peak, nil
}

// cpuOf is a rusage's user and system time.
func cpuOf(ru *syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
