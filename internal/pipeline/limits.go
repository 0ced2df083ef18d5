package pipeline

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/castchunk/castchunk/internal/cache"
)

// The limits on open files (ulimit -n) and on processes (ulimit -u, or a
// container's pids limit, which counts threads alike) decide how many
// worker processes a run has: as many as both allow, up to --jobs. When
// they allow none, the grammars run in this process, one file at a time,
// and the run says so once; the output is the same either way.

// ReservedDescriptors is how many open files the process needs for itself
// besides its workers' and the cache's: the standard streams, the Go
// runtime's own (its poller and its event, the cgroup files it watches),
// the output and the manifest.
const ReservedDescriptors = 10

// startDescriptors is what starting a worker process holds for a moment
// besides what the worker keeps: the child's end of the socket pair, its
// standard input, both ends of its stderr pipe and the pipe that carries
// an exec error. Workers start one at a time (supervise.Pool).
const startDescriptors = 5

// workerDescriptors is how many open files a worker process costs: the
// source files being read by the callsPerWorker goroutines that share it,
// and its socket, stderr pipe and pidfd.
const workerDescriptors = callsPerWorker + 3

// MinDescriptors is the lowest limit on open files (ulimit -n) a run
// accepts: the process's own and one worker's.
const MinDescriptors = ReservedDescriptors + startDescriptors + workerDescriptors

// The threads, which the limit on processes counts: a worker process has
// at most five (GOMAXPROCS=1 in it: its main thread, the thread the parse
// runs on, the runtime's monitor and two for the collector and blocking
// calls), and this process up to GOMAXPROCS and eight more.
const (
	workerThreads = 6
	parentThreads = 8
)

// workers is how many pipeline workers a run of n files has, and whether
// they run the grammars in this process: --jobs at most, one per file at
// most, and as many worker processes as the limits allow; none allowed,
// one worker here (said: Config.Notice), for each file parsed here would
// take a thread of its own.
func (c Config) workers(n int) (int, bool) {
	workers := min(max(c.Jobs, 1), n)
	if c.InProcess {
		return workers, true
	}
	fit, why := workersAllowed(c.Cache)
	if fit == 0 {
		c.Notice(why + ": the grammars run in castchunk's own process, one file at a time, without isolation")
		return 1, true
	}
	return min(workers, fit), false
}

// workersAllowed is how many worker processes the limits allow (at most
// 1<<20), and when none, why.
func workersAllowed(c *cache.Cache) (int, string) {
	files, fileLimit := descriptorWorkers(c)
	procs, procLimit := processWorkers()
	switch {
	case files == 0:
		return 0, fmt.Sprintf("the limit on open files (ulimit -n %d) leaves no room for a worker process", fileLimit)
	case procs == 0:
		return 0, fmt.Sprintf("the limit on processes (ulimit -u %d) leaves no room for a worker process", procLimit)
	}
	return min(files, procs), ""
}

// descriptorWorkers is how many workers the limit on open files allows,
// with the cache's descriptors set aside, and the limit.
func descriptorWorkers(c *cache.Cache) (int, uint64) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur > 1<<20 {
		return 1 << 20, 0
	}
	free := int(lim.Cur) - ReservedDescriptors - startDescriptors
	if c != nil {
		free -= c.Descriptors()
	}
	return max(0, free/workerDescriptors), lim.Cur
}

// rlimitNproc is RLIMIT_NPROC, which package syscall does not name.
const rlimitNproc = 6

// processWorkers is how many workers the limit on processes allows, and
// the limit. The limit counts every thread of the user's processes (root's
// are not counted), so what the user runs besides is set aside.
func processWorkers() (int, uint64) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(rlimitNproc, &lim); err != nil || lim.Cur > 1<<20 || os.Geteuid() == 0 {
		return 1 << 20, 0
	}
	others := userThreads(os.Getuid()) - selfThreads()
	free := int(lim.Cur) - others - runtime.GOMAXPROCS(0) - parentThreads
	return max(0, free/workerThreads), lim.Cur
}

// userThreads counts the threads of uid's processes, from /proc.
func userThreads(uid int) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		if owner, threads := procStatus("/proc/" + e.Name() + "/status"); owner == uid {
			n += threads
		}
	}
	return n
}

// selfThreads is how many threads this process has now.
func selfThreads() int {
	_, n := procStatus("/proc/self/status")
	return n
}

// procStatus reads a process's real user id and thread count from its
// status file; -1 and 0 when it cannot.
func procStatus(path string) (uid, threads int) {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1, 0
	}
	uid = -1
	for _, line := range strings.Split(string(b), "\n") {
		key, value, _ := strings.Cut(line, ":")
		fields := strings.Fields(value)
		if len(fields) == 0 {
			continue
		}
		switch key {
		case "Uid":
			uid, _ = strconv.Atoi(fields[0])
		case "Threads":
			threads, _ = strconv.Atoi(fields[0])
		}
	}
	return uid, threads
}
