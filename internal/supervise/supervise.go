// Package supervise owns castchunk's worker processes: the running
// castchunk image started again as a child (/proc/self/exe, so that a
// binary replaced or removed during the run changes nothing), handed one
// end of a socket pair as descriptor 3, over which it takes requests and
// answers them (gob), under limits that the child cannot escape. Only a
// castchunk parent can make a worker: the environment marks the child,
// and the socket's peer must be the child's parent (SO_PEERCRED), which
// no user's environment can fake. The grammars are third-party C code;
// whatever one does in a worker (an assertion, a segmentation fault, an
// endless loop, memory without end) ends that worker, never the run: the
// call that was in flight fails with a Failure that says why, and the
// caller starts another worker.
//
// The limits are a memory ceiling, which the worker sets on itself
// (setrlimit RLIMIT_DATA, and the Go runtime's soft limit under it), and a
// deadline in CPU time, which the parent checks from /proc: the CPU time a
// file takes depends on the file, hardly on the machine's load, so a file
// meets its deadline on a busy machine as on an idle one.
//
// The deadline counts the file's own work: what a worker does once for
// many files (loading a tokenizer.json at its start, compiling a
// language's queries the first time a file needs them: Conn.Exempt) is
// not charged to the file that happens to come first. And a worker that
// a CPU quota or a loaded machine starves is not a runaway: the backstop
// in wall time fires only when the worker has used no CPU at all for
// stallAfter while not waiting to run, so a file meets the same fate
// under any quota.
package supervise

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// envWorker marks a worker's environment. It is not enough to make a
// worker (IsWorker): a user who sets it gets castchunk as ever.
const envWorker = "CASTCHUNK_WORKER"

// connFD is the descriptor of a worker's end of the socket pair.
const connFD = 3

// hello is the first thing a worker says: a process that says anything
// else (a test binary without the dispatch, another program) is no worker.
const hello = "castchunk worker 2"

// helloWithin is how long a worker may take to say hello: a program that
// says nothing (stuck before its main) is killed.
const helloWithin = 30 * time.Second

// stallAfter is how long a worker may use no CPU at all, while not
// waiting to run, before it is taken for stuck (a lock that is never
// released, a read that never returns).
const stallAfter = 30 * time.Second

// setupCPU is the deadline of a worker's set-up (Conn.Settled): a
// tokenizer.json of 12 MB and 50,000 added tokens loads in 2.5 s.
const setupCPU = 60 * time.Second

// exemptCPU bounds the one-time work a call may exempt from its deadline
// (Conn.Exempt): compiling every query of every language takes a few
// seconds.
const exemptCPU = 30 * time.Second

// IsWorker reports whether this process was started as a worker by a
// castchunk parent (Start): its environment says so, and descriptor 3 is
// a socket whose peer is its parent process.
func IsWorker() bool {
	if os.Getenv(envWorker) == "" {
		return false
	}
	return peerIsParent(connFD)
}

// peerIsParent reports whether fd is a Unix socket made by this process's
// parent.
func peerIsParent(fd int) bool {
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	return err == nil && int(cred.Pid) == os.Getppid() && int(cred.Uid) == os.Getuid()
}

// Limits bound one call.
type Limits struct {
	CPU    time.Duration // CPU time the worker may spend on the call; 0: none
	Memory int64         // the worker's data segment in bytes at most (RLIMIT_DATA); 0: none
}

// ExclusiveSize is the size from which a file is given the bigger memory
// ceiling (ForFile); the caller runs such a file alone, no other worker
// busy meanwhile: its tree takes 50 to 100 bytes of memory per byte.
const ExclusiveSize = 1 << 20

// The deadline of a file's grammar work is deadlineFloor plus
// deadlineRate per byte (ForFile), set from the measured cost of every
// file of the Go, Python and Java standard libraries and of the test
// corpus, with every method, --context and a tokenizer (13,386 files,
// docs/deadline-measurements.md): each costs at most a tenth of its
// deadline, while a bad small file costs a third of a second.
const (
	deadlineFloor = 300 * time.Millisecond
	deadlineRate  = 6 * time.Second / (1 << 20) // per byte: 6 s per MiB
)

// ForFile is the deadline and the memory ceiling of the grammar work on a
// file of size bytes. The deadline is CPU time (deadlineFloor and
// deadlineRate). The ceiling is on the worker's data segment: 256 MiB and
// 128 bytes per byte below ExclusiveSize, 1 GiB from there, when the file
// runs alone (a 10 MiB file's tree takes 600 to 900 MiB of it). With a
// worker that holds over 160 MiB exiting after its answer, a run at -j 2
// stays near 1 GB whatever a worker does.
func ForFile(size int) Limits {
	l := Limits{CPU: deadlineFloor + time.Duration(size)*deadlineRate}
	if size < ExclusiveSize {
		l.Memory = 256<<20 + 128*int64(size)
	} else {
		l.Memory = 1 << 30
	}
	return l
}

// Failure is why a call got no answer: the worker died or was killed. It
// is about the request in flight; the worker is gone.
type Failure struct {
	Reason string // for people: "killed by SIGABRT (…: Assertion … failed)", "ran past its deadline …"
	// Memory says the worker reached its memory ceiling. Its ceiling
	// counts what earlier calls left mapped, so a caller retries such a
	// file once in a fresh worker (Served) before giving up on it.
	Memory bool
	Served int // calls the worker answered before this one
	// Start says the worker could not be started (a limit on processes
	// or open files): the call was never made, the file is not to blame.
	Start bool
}

func (f *Failure) Error() string { return "the worker process parsing and chunking it " + f.Reason }

// request frames each call.
type request struct{ Memory int64 }

// frame is what a worker sends before an answer: the answer itself
// (frameReply, then the answer's value), that its set-up is done
// (frameReady), or that one-time work begins or ends (frameExempt*).
type frame struct {
	Kind   uint8
	CPU    time.Duration // the worker's CPU time so far (reply, ready); the exempt work's (exempt end)
	Retire bool          // reply: the worker exits after it (it holds too much memory)
}

const (
	frameReply uint8 = iota
	frameReady
	frameExemptBegin
	frameExemptEnd
)

// Worker is one worker process, used by one goroutine at a time.
type Worker struct {
	cmd    *exec.Cmd
	conn   *os.File // the parent's end of the socket pair
	enc    *gob.Encoder
	dec    *gob.Decoder
	stderr *tail
	retire bool          // the worker said it exits
	cpuAt  time.Duration // its CPU time at its last answer; -1 before
	calls  int           // calls made to it
	dead   atomic.Bool
	reaped sync.Once
	// During a call: one-time work under way, and the CPU time of what
	// ended, both exempt from the call's deadline.
	exempting atomic.Bool
	exempted  atomic.Int64
}

// Pool keeps every worker started through it, so that a run that is
// interrupted kills them all before it returns, whatever goroutine holds
// each one. The zero value is ready.
type Pool struct {
	mu      sync.Mutex
	workers []*Worker
	closed  bool
	// forking is held while a worker process is created, so that the
	// descriptors a start holds for a moment are held by one start at a
	// time (pipeline's reservation counts them once).
	forking sync.Mutex
}

// Start starts a worker as Start does and keeps it; none after KillAll.
func (p *Pool) Start(ctx context.Context, service string, init any) (*Worker, error) {
	// The handshake is not under the lock (KillAll must not wait for a
	// start), but the process joins the pool as soon as it exists, so
	// that KillAll kills a worker still starting too.
	return start(ctx, service, init, p.join, &p.forking)
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

// Start starts a worker (this program's image again, on a socket pair)
// for the named service, sends it init, which the service reads first
// (Conn.Init), and waits until the service has set itself up
// (Conn.Settled), under a deadline of its own.
func Start(ctx context.Context, service string, init any) (*Worker, error) {
	return start(ctx, service, init, func(*Worker) error { return nil }, new(sync.Mutex))
}

// image is the path that starts this process's own program again: the
// running image, even when its file was replaced or removed since
// (/proc/self/exe); where /proc is missing (an empty root), the file it
// was started from.
func image() (string, error) {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe", nil
	}
	if exe, err := os.Executable(); err == nil {
		return exe, nil
	}
	return exec.LookPath(os.Args[0])
}

// start starts a worker, hands it to join as soon as its process exists
// (a join that fails kills it), then says hello, sends init and waits for
// the set-up.
func start(ctx context.Context, service string, init any, join func(*Worker) error, forking *sync.Mutex) (*Worker, error) {
	if IsWorker() {
		return nil, errors.New("a worker cannot start workers")
	}
	exe, err := image()
	if err != nil {
		return nil, startFailure(err)
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, startFailure(err)
	}
	syscall.SetNonblock(fds[0], true) // served by the poller, not a thread per read
	conn, child := os.NewFile(uintptr(fds[0]), "worker"), os.NewFile(uintptr(fds[1]), "parent")
	cmd := exec.Command(exe)
	cmd.Args = []string{os.Args[0]}
	// One file at a time takes one processor: GOMAXPROCS=1 spares the
	// threads that a limit on processes counts.
	cmd.Env = append(withoutWorker(os.Environ()), envWorker+"="+nonce(), "GOMAXPROCS=1")
	cmd.ExtraFiles = []*os.File{child} // descriptor 3
	// Its standard input is the socket too, which it never reads: no
	// /dev/null to open (an empty root has none), one descriptor less.
	cmd.Stdin = child
	// A worker dies with the parent, even by SIGKILL.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	w := &Worker{cmd: cmd, conn: conn, stderr: &tail{}, cpuAt: -1}
	// What a grammar prints goes with the worker's last words, never into
	// the run's output.
	cmd.Stdout, cmd.Stderr = w.stderr, w.stderr
	forking.Lock()
	err = cmd.Start()
	child.Close()
	forking.Unlock()
	if err != nil {
		conn.Close()
		return nil, startFailure(err)
	}
	if err := join(w); err != nil {
		w.Kill()
		return nil, err
	}
	w.enc, w.dec = gob.NewEncoder(conn), gob.NewDecoder(bufio.NewReaderSize(conn, 64<<10))
	var said string
	stuck := time.AfterFunc(helloWithin, func() { cmd.Process.Kill() })
	err = w.dec.Decode(&said)
	stuck.Stop()
	if err != nil || said != hello {
		w.Kill()
		return nil, &Failure{Start: true, Reason: fmt.Sprintf("could not be started: it did not answer as one (%s)", w.stderr.reason())}
	}
	err = w.enc.Encode(service)
	if err == nil {
		err = w.enc.Encode(init)
	}
	if err != nil {
		return nil, w.died(err, 0)
	}
	var ready frame
	err = w.watch(ctx, Limits{CPU: setupCPU}, func() error {
		if err := w.dec.Decode(&ready); err != nil {
			return err
		}
		if ready.Kind != frameReady {
			return fmt.Errorf("it said %d where it should say it is ready", ready.Kind)
		}
		w.cpuAt = ready.CPU
		return nil
	})
	if err != nil {
		w.Kill()
		var f *Failure
		if errors.As(err, &f) {
			f.Start = true
			f.Reason = "could not be set up: it " + f.Reason
			return nil, f
		}
		return nil, err
	}
	return w, nil
}

// startFailure is a worker that could not be started.
func startFailure(err error) *Failure {
	return &Failure{Start: true, Reason: "could not be started: " + err.Error()}
}

// Unstartable reports whether err says a worker could not be started for
// want of a resource the limits ration (processes, threads, open files,
// memory), which a run meets under a strict ulimit or a container's pids
// limit: the caller then does the work itself.
func Unstartable(err error) bool {
	var f *Failure
	if !errors.As(err, &f) || !f.Start {
		return false
	}
	for _, e := range []error{syscall.EAGAIN, syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM} {
		if strings.Contains(f.Reason, e.Error()) {
			return true
		}
	}
	return strings.Contains(f.Reason, "pthread_create failed") || strings.Contains(f.Reason, "newosproc")
}

// withoutWorker is env without envWorker and GOMAXPROCS.
func withoutWorker(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, envWorker+"=") && !strings.HasPrefix(kv, "GOMAXPROCS=") {
			out = append(out, kv)
		}
	}
	return out
}

// nonce is a value of envWorker: any non-empty value marks a worker; a
// random one says that no one is meant to guess or set it.
func nonce() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
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
	w.calls++
	return w.watch(ctx, lim, func() error {
		err := w.enc.Encode(request{Memory: lim.Memory})
		if err == nil {
			err = w.enc.Encode(req)
		}
		for err == nil {
			var f frame
			if err = w.dec.Decode(&f); err != nil {
				break
			}
			switch f.Kind {
			case frameExemptBegin:
				w.exempting.Store(true)
			case frameExemptEnd:
				w.exempted.Add(int64(f.CPU))
				w.exempting.Store(false)
			case frameReply:
				w.retire = f.Retire
				if err = w.dec.Decode(resp); err == nil {
					w.cpuAt = f.CPU
				}
				return err
			default:
				err = fmt.Errorf("it sent a frame of kind %d", f.Kind)
			}
		}
		return err
	})
}

// watch runs exchange, the conversation of one call, in a goroutine, and
// holds the worker to lim meanwhile: its CPU time from its last answer
// (it is idle between calls), less what it exempted, within lim.CPU, and
// some CPU used at least every stallAfter unless it waits to run.
func (w *Worker) watch(ctx context.Context, lim Limits, exchange func() error) error {
	startCPU := w.cpuAt
	if startCPU < 0 {
		startCPU, _ = w.stat()
	}
	w.exempting.Store(false)
	w.exempted.Store(0)
	done := make(chan error, 1)
	go func() { done <- exchange() }()
	start, lastCPU, lastProgress := time.Now(), startCPU, time.Now()
	// The first look is after the call has had a chance to end: most
	// calls take milliseconds, and reading /proc for each costs.
	wait := min(2*time.Second, max(lim.CPU, time.Millisecond))
	if lim.CPU == 0 {
		wait = 2 * time.Second
	}
	for {
		t := time.NewTimer(wait)
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
		cpu, running := w.stat()
		now := time.Now()
		if cpu != lastCPU || running || threadRunnable(w.cmd.Process.Pid) {
			lastCPU, lastProgress = cpu, now
		}
		wait = 2 * time.Second
		var over *Failure
		switch {
		case cpu < 0 || startCPU < 0: // no /proc: the wall is all there is
			wall := 10*lim.CPU + 10*time.Second
			if lim.CPU > 0 && now.Sub(start) >= wall {
				over = &Failure{Reason: fmt.Sprintf("gave no answer in %v (its deadline in wall time)", wall.Round(time.Second))}
			}
		case now.Sub(lastProgress) >= stallAfter:
			over = &Failure{Reason: fmt.Sprintf("used no CPU time for %v without answering", stallAfter)}
		case lim.CPU > 0:
			used := cpu - startCPU - time.Duration(w.exempted.Load())
			allowed := lim.CPU
			if w.exempting.Load() {
				allowed += exemptCPU
			}
			if used >= allowed {
				over = &Failure{Reason: fmt.Sprintf("ran past its deadline of %v of CPU time for a file of this size", lim.CPU.Round(10*time.Millisecond))}
			}
			wait = max(min(wait, allowed-used), 5*time.Millisecond)
		}
		if over != nil {
			w.Kill()
			if err := <-done; err == nil {
				return nil // it answered as it was killed
			}
			return over
		}
	}
}

// Close ends the worker: its input closed, it exits; one that does not
// within a second is killed.
func (w *Worker) Close() {
	if w.dead.Load() {
		return
	}
	syscall.Shutdown(int(w.conn.Fd()), syscall.SHUT_WR)
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
		w.cmd.Wait()
		w.conn.Close()
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

// stat is the CPU time the worker has used (-1 when /proc cannot tell),
// and whether one of its threads is running or waiting to run.
func (w *Worker) stat() (time.Duration, bool) {
	return processStat(w.cmd.Process.Pid)
}

// processStat reads a process's CPU time, all its threads', from /proc:
// stat's utime and stime (clock ticks, 100 a second on Linux). (schedstat
// would count the main thread alone, and the parse runs on another.) It
// reports too whether the process is running or runnable (state R): a
// process that a CPU quota throttles waits in that state, one that is
// stuck sleeps.
func processStat(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1, false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // the name may hold spaces
	if len(f) < 13 {
		return -1, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1, false
	}
	return time.Duration(u+k) * 10 * time.Millisecond, f[0] == "R"
}

// threadRunnable reports whether a thread of the process other than its
// main one is running or waiting to run: the parse runs on one of them.
func threadRunnable(pid int) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 0 && f[0] == "R" {
			return true
		}
	}
	return false
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
