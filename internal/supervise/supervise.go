// Package supervise owns castchunk's worker processes: castchunk started
// again as a child, fed requests over its standard input and answering
// over its standard output (gob), under limits that the child cannot
// escape. The grammars are third-party C code; whatever one does in a
// worker (an assertion, a segmentation fault, an endless loop, memory
// without end) ends that worker, never the run: the call that was in
// flight fails with a Failure that says why, and the caller starts
// another worker.
//
// The limits are a memory ceiling, which the worker sets on itself
// (setrlimit RLIMIT_DATA, and the Go runtime's soft limit under it), and a
// deadline in CPU time, which the parent checks from /proc: the CPU time a
// file takes depends on the file, hardly on the machine's load, so a file
// meets its deadline on a busy machine as on an idle one. A deadline in
// wall time, ten times longer, is the backstop for a worker that stops
// using the CPU without answering.
package supervise

import (
	"bufio"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// envWorker is set in a worker's environment: the process serves requests
// instead of running a command (IsWorker).
const envWorker = "CASTCHUNK_WORKER"

// hello is the first thing a worker says: a process that says anything
// else (a test binary without the dispatch, another program) is no worker.
const hello = "castchunk worker 1"

// helloWithin is how long a worker may take to say hello: a program that
// says nothing (stuck before its main) is killed.
const helloWithin = 30 * time.Second

// IsWorker reports whether this process was started as a worker by Start.
func IsWorker() bool { return os.Getenv(envWorker) != "" }

// Limits bound one call.
type Limits struct {
	CPU    time.Duration // CPU time the worker may spend on the call; 0: none
	Memory int64         // the worker's data segment in bytes at most (RLIMIT_DATA); 0: none
}

// ExclusiveSize is the size from which a file is given the bigger memory
// ceiling (ForFile); the caller runs such a file alone, no other worker
// busy meanwhile: its tree takes 50 to 100 bytes of memory per byte.
const ExclusiveSize = 1 << 20

// ForFile is the deadline and the memory ceiling of the grammar work on a
// file of size bytes. The deadline is CPU time: two seconds, and one more
// per 64 KiB, some 40 times what the slowest grammar takes on ordinary
// code (a 10 MiB Python file is chunked in under 4 s of CPU; its deadline
// is 162 s). The ceiling is on the worker's data segment: 256 MiB and 128
// bytes per byte below ExclusiveSize, 1 GiB from there, when the file runs
// alone (a 10 MiB file's tree takes 600 to 900 MiB of it). With a worker
// that holds over 160 MiB exiting after its answer, a run at -j 2 stays
// near 1 GB whatever a worker does.
func ForFile(size int) Limits {
	l := Limits{CPU: 2*time.Second + time.Duration(size)*time.Second/(64<<10)}
	if size < ExclusiveSize {
		l.Memory = 256<<20 + 128*int64(size)
	} else {
		l.Memory = 1 << 30
	}
	return l
}

// Wall is the backstop deadline in wall time for a call of CPU time c.
func (l Limits) Wall() time.Duration { return 10*l.CPU + 10*time.Second }

// Failure is why a call got no answer: the worker died or was killed. It
// is about the request in flight; the worker is gone.
type Failure struct {
	Reason string // for people: "killed by SIGABRT (…: Assertion … failed)", "ran past its deadline …"
	// Memory says the worker reached its memory ceiling. Its ceiling
	// counts what earlier calls left mapped, so a caller retries such a
	// file once in a fresh worker (Served) before giving up on it.
	Memory bool
	Served int // calls the worker answered before this one
}

func (f *Failure) Error() string { return "the worker process parsing and chunking it " + f.Reason }

// request and reply frame each call.
type request struct{ Memory int64 }
type reply struct {
	Retire bool          // the worker exits after this reply (it holds too much memory)
	CPU    time.Duration // the worker's CPU time so far, as it answers
}

// Worker is one worker process, used by one goroutine at a time.
type Worker struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	enc    *gob.Encoder
	dec    *gob.Decoder
	stderr *tail
	retire bool          // the worker said it exits
	cpuAt  time.Duration // its CPU time at its last answer; -1 before
	calls  int           // calls made to it
	dead   atomic.Bool
	reaped sync.Once
}

// Pool keeps every worker started through it, so that a run that is
// interrupted kills them all before it returns, whatever goroutine holds
// each one. The zero value is ready.
type Pool struct {
	mu      sync.Mutex
	workers []*Worker
	closed  bool
}

// Start starts a worker as Start does and keeps it; none after KillAll.
func (p *Pool) Start(service string, init any) (*Worker, error) {
	// The handshake is not under the lock (KillAll must not wait for a
	// start), but the process joins the pool as soon as it exists, so
	// that KillAll kills a worker still starting too.
	return start(service, init, p.join)
}

// join adds a worker just started to the pool; once the pool is closed,
// it refuses it.
func (p *Pool) join(w *Worker) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("the run is over")
	}
	live := p.workers[:0]
	for _, o := range p.workers {
		if !o.dead.Load() {
			live = append(live, o)
		}
	}
	p.workers = append(live, w)
	return nil
}

// KillAll kills and reaps every worker of the pool, and lets no new one
// start.
func (p *Pool) KillAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, w := range p.workers {
		w.Kill()
	}
	p.workers = nil
}

// Start starts a worker (this program again, with envWorker set) for the
// named service and sends it init, which the service reads first
// (Conn.Init).
func Start(service string, init any) (*Worker, error) {
	return start(service, init, func(*Worker) error { return nil })
}

// start starts a worker, hands it to join as soon as its process exists
// (a join that fails kills it), then says hello and sends init.
func start(service string, init any, join func(*Worker) error) (*Worker, error) {
	if IsWorker() {
		return nil, errors.New("a worker cannot start workers")
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("starting a worker process: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envWorker+"=1")
	// A worker dies with the parent, even by SIGKILL.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	w := &Worker{cmd: cmd, stderr: &tail{}, cpuAt: -1}
	cmd.Stderr = w.stderr
	if w.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting a worker process: %w", err)
	}
	if err := join(w); err != nil {
		w.Kill()
		return nil, err
	}
	w.enc, w.dec = gob.NewEncoder(w.stdin), gob.NewDecoder(bufio.NewReaderSize(stdout, 64<<10))
	var said string
	stuck := time.AfterFunc(helloWithin, func() { cmd.Process.Kill() })
	err = w.dec.Decode(&said)
	stuck.Stop()
	if err != nil || said != hello {
		w.Kill()
		return nil, fmt.Errorf("starting a worker process: it did not answer as one (%s)", w.stderr.reason())
	}
	err = w.enc.Encode(service)
	if err == nil {
		err = w.enc.Encode(init)
	}
	if err != nil {
		return nil, w.died(err, 0)
	}
	return w, nil
}

// Retired reports whether the worker has exited after its last answer, or
// died: the caller starts another for the next call.
func (w *Worker) Retired() bool { return w.retire || w.dead.Load() }

// Call sends req, with the limits the worker sets on itself, and decodes
// the answer into resp. It returns a *Failure when the worker died or was
// killed on the way (the worker is then gone), ctx's error when ctx was
// done first (the worker is killed).
func (w *Worker) Call(ctx context.Context, lim Limits, req, resp any) error {
	if w.dead.Load() {
		return &Failure{Reason: "was gone before the call"}
	}
	// The call's CPU time counts from the worker's last answer (it is idle
	// between calls), which saves reading /proc for every call.
	start, startCPU := time.Now(), w.cpuAt
	if startCPU < 0 {
		startCPU = w.cpu()
	}
	w.calls++
	done := make(chan error, 1)
	go func() {
		err := w.enc.Encode(request{Memory: lim.Memory})
		if err == nil {
			err = w.enc.Encode(req)
		}
		var r reply
		if err == nil {
			err = w.dec.Decode(&r)
		}
		if err == nil {
			err = w.dec.Decode(resp)
		}
		w.retire = r.Retire
		if err == nil {
			w.cpuAt = r.CPU
		}
		done <- err
	}()
	wall := lim.Wall()
	for {
		wait := wall - time.Since(start)
		if lim.CPU > 0 && startCPU >= 0 {
			wait = min(wait, lim.CPU-(w.cpu()-startCPU))
		}
		if lim.CPU == 0 {
			wait = time.Hour
		}
		if wait <= 0 {
			w.Kill()
			if err := <-done; err == nil {
				return nil // it answered as it was killed
			}
			if time.Since(start) >= wall {
				return &Failure{Reason: fmt.Sprintf("gave no answer in %v (its deadline in wall time)", wall.Round(time.Second))}
			}
			return &Failure{Reason: fmt.Sprintf("ran past its deadline of %v of CPU time for a file of this size", lim.CPU.Round(100*time.Millisecond))}
		}
		t := time.NewTimer(max(wait, 5*time.Millisecond))
		select {
		case err := <-done:
			t.Stop()
			if err != nil {
				return w.died(err, lim.Memory)
			}
			if w.retire {
				w.wait()
			}
			return nil
		case <-ctx.Done():
			t.Stop()
			w.Kill()
			<-done
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Close ends the worker: its input closed, it exits; one that does not
// within a second is killed.
func (w *Worker) Close() {
	if w.dead.Load() {
		return
	}
	w.stdin.Close()
	exited := make(chan struct{})
	go func() { w.wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(time.Second):
		w.Kill()
		<-exited
	}
}

// Kill kills the worker at once and waits for it. It may be called from
// any goroutine (Pool.KillAll), also while a call is in flight.
func (w *Worker) Kill() {
	if !w.dead.Load() {
		w.cmd.Process.Kill()
	}
	w.wait()
}

// wait reaps the worker, once; a second caller waits for the first.
func (w *Worker) wait() {
	w.reaped.Do(func() {
		w.stdin.Close()
		w.cmd.Wait()
		w.dead.Store(true)
	})
}

// died reaps a worker whose pipe broke on err and says why it died; an
// allocation that failed is put down to its memory limit of memory bytes.
func (w *Worker) died(err error, memory int64) *Failure {
	w.wait()
	st := w.cmd.ProcessState
	why := w.stderr.reason()
	var how string
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		how = "was killed by " + signalName(ws.Signal())
	} else if st.Exited() {
		how = fmt.Sprintf("exited with status %d", st.ExitCode())
	} else {
		how = fmt.Sprintf("stopped answering (%v)", err)
	}
	if why != "" {
		how += " (" + why + ")"
	}
	f := &Failure{Reason: how, Served: w.calls - 1}
	if memory > 0 && (outOfMemory(why) || nearCeiling(st, memory)) {
		f.Memory = true
		f.Reason = fmt.Sprintf("reached its memory limit of %d MiB and %s", memory>>20, how)
	}
	return f
}

// cpu is the CPU time the worker has used, -1 when /proc cannot tell.
func (w *Worker) cpu() time.Duration {
	return processCPU(w.cmd.Process.Pid)
}

// processCPU reads a process's CPU time, all its threads', from /proc:
// stat's utime and stime (clock ticks, 100 a second on Linux). (schedstat
// would count the main thread alone, and the parse runs on another.)
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // the name may hold spaces
	if len(f) < 13 {
		return -1
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(u+k) * 10 * time.Millisecond
}

func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGABRT: "SIGABRT", syscall.SIGSEGV: "SIGSEGV", syscall.SIGBUS: "SIGBUS",
		syscall.SIGKILL: "SIGKILL", syscall.SIGILL: "SIGILL", syscall.SIGFPE: "SIGFPE",
		syscall.SIGTRAP: "SIGTRAP", syscall.SIGTERM: "SIGTERM", syscall.SIGXCPU: "SIGXCPU",
	}
	if n, ok := names[s]; ok {
		return n
	}
	return fmt.Sprintf("signal %d (%v)", int(s), s)
}

// tail keeps the first and the last bytes a worker wrote on stderr: its
// last words (an assertion's text, a Go panic, the runtime's "out of
// memory") come first, before a trace of every goroutine.
type tail struct {
	mu   sync.Mutex
	head []byte
	buf  []byte
}

const headSize, tailSize = 4 << 10, 8 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if room := headSize - len(t.head); room > 0 {
		k := min(room, len(p))
		t.head, p = append(t.head, p[:k]...), p[k:]
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return n, nil
}

// reason picks the line that says why the worker died: an assertion, a
// panic, a fatal error, an allocation that failed; else the last line.
func (t *tail) reason() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.head)+string(t.buf)), "\n")
	for _, l := range lines {
		// Go's report of a signal in C code: "SIGSEGV: segmentation violation".
		if name, _, ok := strings.Cut(l, ": "); ok && strings.HasPrefix(name, "SIG") && strings.ToUpper(name) == name && !strings.Contains(name, " ") {
			return clip(l)
		}
		for _, mark := range []string{"Assertion", "failed to allocate", "out of memory", "pthread_create failed", "fatal error:", "panic:", "memory limit"} {
			if strings.Contains(l, mark) {
				return clip(l)
			}
		}
	}
	return clip(lines[len(lines)-1])
}

// nearCeiling reports whether a dead worker's peak resident memory came
// within a quarter of its ceiling: a scanner that does not check what
// malloc returns dies of SIGSEGV there, saying nothing.
func nearCeiling(st *os.ProcessState, memory int64) bool {
	use, ok := st.SysUsage().(*syscall.Rusage)
	return ok && use.Maxrss<<10 >= memory/4*3
}

// outOfMemory reports whether a worker's last words say an allocation
// failed: tree-sitter's allocator, the Go runtime, glibc.
func outOfMemory(why string) bool {
	// A thread's stack counts in the data segment too: a thread that
	// cannot start at the ceiling is the ceiling's doing.
	for _, mark := range []string{"failed to allocate", "out of memory", "cannot allocate memory", "memory allocation failed", "pthread_create failed"} {
		if strings.Contains(strings.ToLower(why), mark) {
			return true
		}
	}
	return false
}

func clip(s string) string {
	s = strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
	if len(s) > 240 {
		s = strings.ToValidUTF8(s[:240], "") + "…"
	}
	return s
}
