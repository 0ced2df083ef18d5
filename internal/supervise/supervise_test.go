package supervise

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReason: a worker's last words are found in the head of its stderr
// even when a trace of every goroutine follows, kilobytes long.
func TestReason(t *testing.T) {
	var tl tail
	tl.Write([]byte("castchunk: scanner.c:160: deserialize: Assertion `size == length' failed.\nSIGABRT: abort\n"))
	for range 2000 {
		tl.Write([]byte("goroutine 1 [running]:\n\truntime.main()\n"))
	}
	tl.Write([]byte("gs     0x0\n"))
	if got, want := tl.reason(), "castchunk: scanner.c:160: deserialize: Assertion `size == length' failed."; got != want {
		t.Errorf("reason %q, want %q", got, want)
	}
	var quiet tail
	quiet.Write([]byte("one\nlast line\n"))
	if got := quiet.reason(); got != "last line" {
		t.Errorf("reason %q, want the last line", got)
	}
	long := tail{}
	long.Write([]byte("panic: " + strings.Repeat("x", 1000)))
	if got := long.reason(); len(got) > 250 || !strings.HasPrefix(got, "panic: xxx") {
		t.Errorf("a long line is not clipped: %d bytes", len(got))
	}
}

func TestOutOfMemory(t *testing.T) {
	for why, want := range map[string]bool{
		"tree-sitter failed to allocate 1024 bytes":                            true,
		"fatal error: runtime: out of memory":                                  true,
		"runtime/cgo: pthread_create failed: Resource temporarily unavailable": true,
		"deserialize: Assertion `size == length' failed.":                      false,
		"": false,
	} {
		if got := outOfMemory(why); got != want {
			t.Errorf("outOfMemory(%q) = %v", why, got)
		}
	}
}

// TestForFile: the deadline grows with the file from a floor; the
// ceiling too, up to the file that runs alone.
func TestForFile(t *testing.T) {
	for _, c := range []struct {
		size int
		cpu  time.Duration
		mem  int64
	}{
		{0, deadlineFloor, 256 << 20},
		{64 << 10, deadlineFloor + (64<<10)*deadlineRate, 256<<20 + 128*(64<<10)},
		{ExclusiveSize - 1, deadlineFloor + (ExclusiveSize-1)*deadlineRate, 256<<20 + 128*int64(ExclusiveSize-1)},
		{10 << 20, deadlineFloor + (10<<20)*deadlineRate, exclusiveMemory},
	} {
		l := ForFile(c.size)
		if l.CPU != c.cpu || l.Memory != c.mem {
			t.Errorf("ForFile(%d) = %v, %d; want %v, %d", c.size, l.CPU, l.Memory, c.cpu, c.mem)
		}
	}
	if small := ForFile(200).CPU; small >= 500*time.Millisecond {
		t.Errorf("a small file's deadline is %v: a bad one costs that much", small)
	}
}

// TestProcessStat: the CPU time of a process grows as it works, and a
// process that works is running.
func TestProcessStat(t *testing.T) {
	before, _ := processStat(os.Getpid())
	if before < 0 {
		t.Skip("no /proc")
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		cpu, _ := processStat(os.Getpid())
		if cpu > before+10*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("10 s of work and no CPU time counted")
		}
		for i := range 1 << 20 {
			_ = i * i
		}
	}
}

// TestEnvironmentMakesNoWorker: the variable that marks a worker's
// environment, set by a user, changes nothing: without the parent's
// socket on descriptor 3 the process is no worker.
func TestEnvironmentMakesNoWorker(t *testing.T) {
	t.Setenv(envWorker, "1")
	if IsWorker() {
		t.Fatal("CASTCHUNK_WORKER alone made a worker")
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	if peerIsParent(fds[1]) {
		t.Error("a socket this process made passes for its parent's")
	}
}
