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

// lookEvery is the longest the guard sleeps while calls follow each
// other without a pause: the floor of a file's deadline.
const lookEvery = deadlineFloor

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
// 128 bytes per byte below ExclusiveSize, exclusiveMemory from there, when
// the file runs alone.
func ForFile(size int) Limits {
	l := Limits{CPU: deadlineFloor + time.Duration(size)*deadlineRate}
	if size < ExclusiveSize {
		l.Memory = 256<<20 + 128*int64(size)
	} else {
		l.Memory = exclusiveMemory
	}
	return l
}

// exclusiveMemory is the ceiling of a file that runs alone: 1 GiB, which
// the generated 10 MB Python list of TestBadHugeInputs needs (it reached
// 768 MiB, tried as a ceiling to keep the process tree under 1 GB). With
// the idle workers closed first when they hold more than IdleMemory
// (Pool.CloseIdle) and the parent under 100 MiB, the tree peaks near 1 GB
// on the worst inputs (docs/performance.md, "What the isolation costs");
// denser code (10 MB of one-line C functions, of short JavaScript
// statements) reaches the ceiling and falls back to sliding windows.
const exclusiveMemory = 1 << 30

// IdleMemory is the most resident memory an idle worker may keep while a
// file runs alone under exclusiveMemory (Pool.CloseIdle).
const IdleMemory = 48 << 20

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

// Worker is one worker process. Calls may be made from several goroutines
// at once: each is sent as soon as it is made, so that the worker goes
// from one to the next without waiting for the parent (the round trip
// and the parent's own work on each file are no longer the worker's idle
// time), and it answers them in the order they were sent. The first call
// without an answer is the one the worker works on: it is held to its
// limits (guard), and when the worker dies it is that call's failure;
// the calls sent after it get ErrNotServed, and are made again on another
// worker.
type Worker struct {
	cmd    *exec.Cmd
	conn   *os.File // the parent's end of the socket pair
	out    *bufio.Writer
	enc    *gob.Encoder // on out, under sending
	dec    *gob.Decoder
	stderr *tail
	dead   atomic.Bool
	reaped sync.Once
	// sending orders the calls: each is queued and sent under it, so the
	// queue is in the order of the requests on the wire.
	sending sync.Mutex

	mu     sync.Mutex
	queue  []*call       // sent and not answered, in order
	cpuAt  time.Duration // its CPU time at its last answer (or when it was ready); -1 before
	served int           // calls it answered
	gone   bool          // lost (died, killed, retired or closed): no call is taken
	// killing is the call for which the guard killed the worker: a call
	// after it that the worker had not begun is not to blame.
	killing *call
	retire  atomic.Bool   // the worker said it exits
	kick    chan struct{} // the guard looks again: the first call changed, or the worker is gone
	// For the first call: one-time work under way, and the CPU time of
	// what ended, both exempt from the call's deadline.
	exempting atomic.Bool
	exempted  atomic.Int64
}

// call is one request sent to a worker and waiting for its answer.
type call struct {
	lim  Limits
	resp any
	done chan error // its outcome, once
	// When the worker began it (it became the first call): the worker's
	// CPU time then (its answer to the call before), and the time.
	startCPU time.Duration
	began    time.Time
	over     *Failure // the limit it broke, for which the guard killed the worker
}

// ErrNotServed is the outcome of a call that the worker was lost before
// it began (another call's failure, or its retirement after an answer):
// the call is to be made again on another worker, no fault of its own.
var ErrNotServed = errors.New("the worker process was lost before it took the file")

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

// CloseIdle closes every worker of the pool but keep that has no call in
// flight and holds more than max bytes of resident memory, so that a file
// about to run alone under a large ceiling has the memory: a worker that
// is closed is started again when next needed.
func (p *Pool) CloseIdle(keep *Worker, max int64) {
	p.mu.Lock()
	var idle []*Worker
	for _, w := range p.workers {
		if w == keep || w.dead.Load() {
			continue
		}
		w.mu.Lock()
		busy := len(w.queue) > 0 || w.gone
		w.mu.Unlock()
		if !busy && resident(w.cmd.Process.Pid) > max {
			idle = append(idle, w)
		}
	}
	p.mu.Unlock()
	for _, w := range idle {
		w.Close()
	}
}

// resident is a process's resident memory in bytes (0 when /proc cannot
// tell).
func resident(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
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
	w := &Worker{cmd: cmd, conn: conn, stderr: &tail{}, cpuAt: -1, kick: make(chan struct{}, 1)}
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
	w.out = bufio.NewWriterSize(conn, 64<<10)
	w.enc, w.dec = gob.NewEncoder(w.out), gob.NewDecoder(bufio.NewReaderSize(conn, 64<<10))
	if err := w.handshake(ctx, service, init); err != nil {
		return nil, err
	}
	go w.read()
	go w.guard()
	return w, nil
}

// handshake hears the worker's hello, sends it the service's name and
// init, and waits for its set-up under a deadline of its own (setupCPU).
// A worker that fails it is killed.
func (w *Worker) handshake(ctx context.Context, service string, init any) error {
	var said string
	stuck := time.AfterFunc(helloWithin, func() { w.cmd.Process.Kill() })
	err := w.dec.Decode(&said)
	stuck.Stop()
	if err != nil || said != hello {
		w.Kill()
		return &Failure{Start: true, Reason: fmt.Sprintf("could not be started: it did not answer as one (%s)", w.stderr.reason())}
	}
	err = w.enc.Encode(service)
	if err == nil {
		err = w.enc.Encode(init)
	}
	if err == nil {
		err = w.out.Flush()
	}
	if err != nil {
		return w.died(err, 0)
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
			return f
		}
		return err
	}
	return nil
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
// is lost: the caller starts another for the next call.
func (w *Worker) Retired() bool {
	if w.retire.Load() || w.dead.Load() {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gone
}

// Call sends req, with the limits the worker sets on itself, and decodes
// the answer into resp. It returns a *Failure when the worker died or was
// killed on the call (the worker is then gone), ErrNotServed when the
// worker was lost before it began the call (another call's failure, or it
// retired: make the call again on another), ctx's error when ctx was done
// first (the worker is killed). Calls from several goroutines are sent
// one after another without waiting for the answers (Worker).
func (w *Worker) Call(ctx context.Context, lim Limits, req, resp any) error {
	c := &call{lim: lim, resp: resp, done: make(chan error, 1), startCPU: -1}
	w.sending.Lock()
	w.mu.Lock()
	if w.gone || w.dead.Load() {
		w.mu.Unlock()
		w.sending.Unlock()
		return ErrNotServed
	}
	first := len(w.queue) == 0
	if first {
		w.begin(c)
	}
	w.queue = append(w.queue, c)
	w.mu.Unlock()
	err := w.enc.Encode(request{Memory: lim.Memory})
	if err == nil {
		err = w.enc.Encode(req)
	}
	if err == nil {
		err = w.out.Flush()
	}
	w.sending.Unlock()
	if first {
		w.poke()
	}
	if err != nil {
		// The worker is gone (its end closed), or the request cannot be
		// sent: either way the reader tells each call what came of it.
		w.cmd.Process.Kill()
	}
	select {
	case err := <-c.done:
		return err
	case <-ctx.Done():
		w.Kill()
		<-c.done
		return ctx.Err()
	}
}

// begin makes c the call the worker works on (under w.mu): its deadline
// counts from the worker's CPU time at its last answer.
func (w *Worker) begin(c *call) {
	c.startCPU, c.began = w.cpuAt, time.Now()
	w.exempting.Store(false)
	w.exempted.Store(0)
}

// poke has the guard look again.
func (w *Worker) poke() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// read reads the worker's frames and answers, for as long as it lives,
// and hands each call its outcome.
func (w *Worker) read() {
	for {
		var f frame
		err := w.dec.Decode(&f)
		if err == nil {
			switch f.Kind {
			case frameExemptBegin:
				w.exempting.Store(true)
				continue
			case frameExemptEnd:
				w.exempted.Add(int64(f.CPU))
				w.exempting.Store(false)
				continue
			case frameReply:
				w.mu.Lock()
				var c *call
				if len(w.queue) > 0 {
					c = w.queue[0]
				}
				w.mu.Unlock()
				if c == nil {
					err = errors.New("it answered a call that was not made")
					break
				}
				if err = w.dec.Decode(c.resp); err != nil {
					break
				}
				w.mu.Lock()
				w.queue = w.queue[1:]
				w.cpuAt = f.CPU
				w.served++
				if len(w.queue) > 0 {
					w.begin(w.queue[0])
				}
				w.mu.Unlock()
				if f.Retire {
					// It exits after this answer: the calls sent after it
					// go to another worker.
					w.retire.Store(true)
					w.wait()
					c.done <- nil
					w.lost(nil)
					return
				}
				c.done <- nil
				continue
			default:
				err = fmt.Errorf("it sent a frame of kind %d", f.Kind)
			}
		}
		w.lost(err)
		return
	}
}

// lost takes the worker out of service after its conversation broke on
// err (nil: it retired): the call it worked on gets why, the calls sent
// after it ErrNotServed.
func (w *Worker) lost(err error) {
	w.mu.Lock()
	queue, killing := w.queue, w.killing
	w.queue, w.gone = nil, true
	w.mu.Unlock()
	defer w.poke() // the guard stops
	if len(queue) == 0 {
		w.wait()
		return
	}
	head, rest := queue[0], queue[1:]
	switch {
	case err == nil:
		rest = queue
	case head.over != nil:
		w.wait()
		head.done <- head.over
	case killing != nil:
		// Killed for a call it had answered (it answered as it was
		// killed): this one is not to blame.
		w.wait()
		rest = queue
	default:
		head.done <- w.died(err, head.lim.Memory)
	}
	for _, c := range rest {
		c.done <- ErrNotServed
	}
}

// guard holds the call the worker works on to its limits, for as long as
// the worker lives: its CPU time from its answer to the call before, less
// what it exempted, within the call's deadline, and some CPU used at
// least every stallAfter unless it waits to run. A worker with no call
// is idle, and not watched.
func (w *Worker) guard() {
	t := time.NewTimer(time.Hour)
	t.Stop()
	var cur *call
	var lastCPU time.Duration
	var lastProgress time.Time
	var wait time.Duration
	for {
		w.mu.Lock()
		gone := w.gone
		var head *call
		if len(w.queue) > 0 {
			head = w.queue[0]
		}
		w.mu.Unlock()
		if gone {
			return
		}
		if head == nil {
			cur = nil
			<-w.kick // a call, or the worker is gone
			continue
		}
		if head != cur {
			// The worker began a call while the guard slept: it is looked
			// at now, if it began before the last look was due.
			fresh := cur == nil
			cur = head
			lastCPU, lastProgress = cur.startCPU, cur.began
			// The first look is after the call has had a chance to end:
			// most calls take milliseconds, and reading /proc for each
			// costs. The guard sleeps through the answers of the calls
			// that end before it looks (the reader does not wake it), so
			// it looks at least every lookEvery while calls follow each
			// other, and a call is not let run far past its deadline.
			wait = min(lookEvery, max(cur.lim.CPU, time.Millisecond))
			if cur.lim.CPU == 0 {
				wait = lookEvery
			}
			if !fresh {
				wait = max(0, wait-time.Since(cur.began))
			}
		}
		if wait > 0 {
			t.Reset(wait)
			select {
			case <-w.kick:
				t.Stop()
				continue
			case <-t.C:
			}
		}
		w.mu.Lock()
		still := len(w.queue) > 0 && w.queue[0] == cur && !w.gone
		w.mu.Unlock()
		if !still {
			wait = 0 // look at the call after it at once, if it is due
			continue
		}
		if over := w.check(cur, &lastCPU, &lastProgress, &wait); over != nil {
			w.mu.Lock()
			if len(w.queue) > 0 && w.queue[0] == cur && !w.gone {
				cur.over, w.killing = over, cur
				w.mu.Unlock()
				w.cmd.Process.Kill()
			} else {
				w.mu.Unlock()
			}
		}
	}
}

// check looks at the worker working on c and returns the limit it broke,
// if any; it sets when to look next.
func (w *Worker) check(c *call, lastCPU *time.Duration, lastProgress *time.Time, wait *time.Duration) *Failure {
	cpu, running := w.stat()
	now := time.Now()
	if cpu != *lastCPU || running || threadRunnable(w.cmd.Process.Pid) {
		*lastCPU, *lastProgress = cpu, now
	}
	*wait = lookEvery
	lim := c.lim
	switch {
	case cpu < 0 || c.startCPU < 0: // no /proc: the wall is all there is
		wall := 10*lim.CPU + 10*time.Second
		if lim.CPU > 0 && now.Sub(c.began) >= wall {
			return &Failure{Reason: fmt.Sprintf("gave no answer in %v (its deadline in wall time)", wall.Round(time.Second))}
		}
	case now.Sub(*lastProgress) >= stallAfter:
		return &Failure{Reason: fmt.Sprintf("used no CPU time for %v without answering", stallAfter)}
	case lim.CPU > 0:
		used := cpu - c.startCPU - time.Duration(w.exempted.Load())
		allowed := lim.CPU
		if w.exempting.Load() {
			allowed += exemptCPU
		}
		if used >= allowed {
			return &Failure{Reason: fmt.Sprintf("ran past its deadline of %v of CPU time for a file of this size", lim.CPU.Round(10*time.Millisecond))}
		}
		*wait = max(min(*wait, allowed-used), 5*time.Millisecond)
	}
	return nil
}

// watch runs exchange, the worker's set-up, in a goroutine, and holds the
// worker to lim meanwhile, as guard holds a call.
func (w *Worker) watch(ctx context.Context, lim Limits, exchange func() error) error {
	c := &call{lim: lim, startCPU: w.cpuAt, began: time.Now()}
	if c.startCPU < 0 {
		c.startCPU, _ = w.stat()
	}
	w.exempting.Store(false)
	w.exempted.Store(0)
	done := make(chan error, 1)
	go func() { done <- exchange() }()
	lastCPU, lastProgress := c.startCPU, time.Now()
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
			return nil
		case <-ctx.Done():
			t.Stop()
			w.Kill()
			<-done
			return ctx.Err()
		case <-t.C:
		}
		if over := w.check(c, &lastCPU, &lastProgress, &wait); over != nil {
			w.Kill()
			if err := <-done; err == nil {
				return nil // it answered as it was killed
			}
			return over
		}
	}
}

// Close ends the worker: its input closed, it exits once it has answered
// the calls sent; one that does not within a second is killed.
func (w *Worker) Close() {
	if w.dead.Load() {
		return
	}
	w.sending.Lock()
	syscall.Shutdown(int(w.conn.Fd()), syscall.SHUT_WR)
	w.sending.Unlock()
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
	w.mu.Lock()
	served := w.served
	w.mu.Unlock()
	f := &Failure{Reason: how, Served: served}
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
