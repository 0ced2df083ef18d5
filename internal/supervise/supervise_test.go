package supervise

import (
	"os"
	"strings"
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

// TestForFile: the deadline grows with the file, two seconds at least;
// the ceiling too, up to the file that runs alone.
func TestForFile(t *testing.T) {
	for _, c := range []struct {
		size int
		cpu  time.Duration
		mem  int64
	}{
		{0, 2 * time.Second, 256 << 20},
		{64 << 10, 3 * time.Second, 256<<20 + 128*(64<<10)},
		{ExclusiveSize - 1, 2*time.Second + time.Duration(ExclusiveSize-1)*time.Second/(64<<10), 256<<20 + 128*int64(ExclusiveSize-1)},
		{10 << 20, 162 * time.Second, 1 << 30},
	} {
		l := ForFile(c.size)
		if l.CPU != c.cpu || l.Memory != c.mem {
			t.Errorf("ForFile(%d) = %v, %d; want %v, %d", c.size, l.CPU, l.Memory, c.cpu, c.mem)
		}
	}
}

// TestProcessCPU: the CPU time of a process grows as it works.
func TestProcessCPU(t *testing.T) {
	before := processCPU(os.Getpid())
	if before < 0 {
		t.Skip("no /proc")
	}
	for deadline := time.Now().Add(10 * time.Second); processCPU(os.Getpid()) <= before+10*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatal("10 s of work and no CPU time counted")
		}
		for i := range 1 << 20 {
			_ = i * i
		}
	}
}

// TestNoNestedWorkers: a worker cannot start workers, so a test binary
// without the dispatch cannot start itself over and over.
func TestNoNestedWorkers(t *testing.T) {
	t.Setenv(envWorker, "1")
	if _, err := Start("chunk", struct{}{}); err == nil || !strings.Contains(err.Error(), "cannot start workers") {
		t.Errorf("Start in a worker: %v", err)
	}
}
