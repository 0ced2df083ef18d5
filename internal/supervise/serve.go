package supervise

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"
)

// retireAt is the resident memory past which a worker exits after answering,
// so that the memory of one big file is not held for the rest of the run
// and every call starts well under its limit: the Go runtime and glibc
// keep freed memory mapped.
const retireAt = 160 << 20

// Conn is a worker's end: it reads requests from, and writes answers to,
// its end of the socket pair (descriptor 3).
type Conn struct {
	enc    *gob.Encoder
	dec    *gob.Decoder
	out    *bufio.Writer
	memory int64  // the ceiling set last
	start  memory // when the worker began
	held   memory // what the service's set-up holds for good (Settled)
}

// Service is what a worker does: it reads its set-up with Conn.Init, then
// answers Conn.Next's requests until io.EOF.
type Service func(*Conn) error

// Serve is a worker's main: it runs the service the parent asked for and
// returns the process's exit status. Signals from the terminal are the
// parent's to handle (it kills its workers); the standard streams carry
// the calls.
func Serve(services map[string]Service) int {
	stop := profile()
	defer stop()
	exit = func(code int) { stop(); os.Exit(code) }
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	syscall.CloseOnExec(connFD)
	os.Unsetenv(envWorker)
	conn := os.NewFile(connFD, "parent")
	out := bufio.NewWriterSize(conn, 64<<10)
	c := &Conn{enc: gob.NewEncoder(out), dec: gob.NewDecoder(bufio.NewReaderSize(conn, 64<<10)), out: out, start: used()}
	err := c.enc.Encode(hello)
	if err == nil {
		err = out.Flush()
	}
	var name string
	if err == nil {
		err = c.dec.Decode(&name)
	}
	if err == nil {
		serve, ok := services[name]
		if !ok {
			err = fmt.Errorf("no service %q", name)
		} else if err = serve(c); errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "castchunk worker: %v\n", err)
		return 1
	}
	return 0
}

// Init reads the set-up the parent passed to Start into v.
func (c *Conn) Init(v any) error {
	if err := c.dec.Decode(v); err != nil {
		return fmt.Errorf("reading the set-up: %w", err)
	}
	return nil
}

// Settled tells the parent and the Conn that the service has loaded its
// set-up (a tokenizer.json's vocabulary, tens of megabytes): the parent
// waits for it, under a deadline of its own, before the first call, so
// that no file's deadline counts it. What the worker holds now is its own
// for good, and each call's memory ceiling and the size at
// which the worker retires count from there, not from nothing; otherwise
// a worker holding a large vocabulary would retire after every file and
// load it again.
func (c *Conn) Settled() error {
	var use syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &use)
	peak := use.Maxrss << 10 // the load's peak, which Reply's peak then starts from
	debug.FreeOSMemory()     // what loading took and let go is not held
	now := used()
	held := memory{resident: max(0, now.resident-c.start.resident, peak-c.start.resident-retireAt/2), data: max(0, now.data-c.start.data)}
	if held.resident >= settledMin { // a set-up of a few megabytes changes nothing
		c.held = held
	}
	return c.send(frame{Kind: frameReady, CPU: cpuTime()})
}

// Exempt runs f, one-time work of the worker's own that the file in hand
// only happens to be the first to need (compiling a language's queries),
// and tells the parent so, before and after: its CPU time is not charged
// to the call's deadline (up to exemptCPU).
func (c *Conn) Exempt(f func()) {
	if c.send(frame{Kind: frameExemptBegin}) != nil {
		f()
		return
	}
	before := cpuTime()
	f()
	c.send(frame{Kind: frameExemptEnd, CPU: cpuTime() - before})
}

// send sends a frame at once.
func (c *Conn) send(f frame) error {
	if err := c.enc.Encode(f); err != nil {
		return err
	}
	return c.out.Flush()
}

// cpuTime is the CPU time of this process so far.
func cpuTime() time.Duration {
	var use syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &use)
	return time.Duration(use.Utime.Nano() + use.Stime.Nano())
}

// settledMin is the least a set-up must hold for the ceilings to count
// from it: below, a worker's limits are the calls' own, as before.
const settledMin = 32 << 20

// memory is what the process holds: its resident bytes, and its data
// segment's (what RLIMIT_DATA bounds: the Go heap's arenas stay mapped
// after the collector gives their pages back).
type memory struct{ resident, data int64 }

// used reads the process's memory from /proc/self/statm; zero when it
// cannot be read.
func used() memory {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return memory{}
	}
	var size, rss, shared, text, lib, data int64
	if _, err := fmt.Sscan(string(b), &size, &rss, &shared, &text, &lib, &data); err != nil {
		return memory{}
	}
	page := int64(os.Getpagesize())
	return memory{resident: rss * page, data: data * page}
}

// Next reads the next request into req and sets the call's memory
// ceiling. It returns io.EOF when the parent has closed the input.
func (c *Conn) Next(req any) error {
	var r request
	if err := c.dec.Decode(&r); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return io.EOF
		}
		return err
	}
	if err := c.dec.Decode(req); err != nil {
		return err
	}
	if r.Memory == c.memory {
		return nil
	}
	c.memory = r.Memory
	if r.Memory <= 0 {
		return setMemory(r.Memory)
	}
	return setMemory(r.Memory + c.held.data)
}

// Reply sends the answer to the last request. When the worker holds more
// memory than retireAt, it says so and exits once the answer is sent.
func (c *Conn) Reply(resp any) error {
	var use syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &use)
	// Its peak resident memory is a bound of what it holds mapped, read
	// without opening /proc at every answer.
	retire := use.Maxrss<<10 > retireAt+c.held.resident
	cpu := time.Duration(use.Utime.Nano() + use.Stime.Nano())
	if err := c.enc.Encode(frame{Kind: frameReply, Retire: retire, CPU: cpu}); err != nil {
		return err
	}
	if err := c.enc.Encode(resp); err != nil {
		return err
	}
	if err := c.out.Flush(); err != nil {
		return err
	}
	if retire {
		exit(0)
	}
	return nil
}

// exit ends the worker (Reply, when it retires): it stops the profile
// first (profile).
var exit = os.Exit

// profile writes a CPU profile of the worker, when the parent's
// environment asks for one of itself (CASTCHUNK_CPUPROFILE, a development
// aid; see the README): to that path with ".worker.PID" added. It returns
// what stops it.
func profile() func() {
	path := os.Getenv("CASTCHUNK_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path + ".worker." + strconv.Itoa(os.Getpid()))
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "castchunk worker: CASTCHUNK_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// setMemory sets the ceiling of the worker's data segment (RLIMIT_DATA:
// the Go heap, C's malloc, every private writable mapping) to limit bytes,
// and the Go heap's soft limit under it, so that the collector works
// harder before an allocation fails. An allocation over the ceiling
// fails: tree-sitter's allocator says so and aborts, Go's runtime says
// "out of memory"; either way the parent names the limit.
func setMemory(limit int64) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_DATA, &lim); err != nil {
		return fmt.Errorf("worker: reading its memory limit: %w", err)
	}
	soft := uint64(limit)
	if limit <= 0 || soft > lim.Max || raceBuild {
		soft = lim.Max
	}
	lim.Cur = soft
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &lim); err != nil {
		return fmt.Errorf("worker: setting its memory limit: %w", err)
	}
	if limit > 0 {
		debug.SetMemoryLimit(limit / 2)
	}
	return nil
}

// ServeIfWorker serves, when this process was started as a worker, and
// exits; otherwise it returns at once. A program's main (and the TestMain
// of a package whose tests run pipelines) calls it first.
func ServeIfWorker(services map[string]Service) {
	if IsWorker() {
		os.Exit(Serve(services))
	}
}
