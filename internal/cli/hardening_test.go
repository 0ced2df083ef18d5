package cli

// Faults an adversarial pass found (issue "Hardening"): each case failed
// before it was fixed.

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/rlimit"
)

// TestOutputOverInputRefused: -o a.py, with a.py among the inputs, replaced
// the source with JSON.
func TestOutputOverInputRefused(t *testing.T) {
	const src = "x = 1\n"
	badSetup(t, map[string]string{"a.py": src, "b.py": "y = 2\n"})
	if err := os.Symlink("a.py", "link.jsonl"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"chunk", "-o", "a.py", "a.py"},
		{"chunk", "--no-ignore", "-o", "./a.py", "."},
		{"chunk", "--no-ignore", "-o", "link.jsonl", "."},
	} {
		out, stderr, code := run(t, "", args...)
		if code != ExitUsage || out != "" || !strings.Contains(stderr, "is one of the files to chunk (a.py)") {
			t.Errorf("%v: status %d, stderr %q", args, code, stderr)
		}
		if got, _ := os.ReadFile("a.py"); string(got) != src {
			t.Fatalf("%v: a.py was overwritten: %q", args, got)
		}
	}
	// Another file is fine.
	if _, stderr, code := run(t, "", "chunk", "-o", "out.jsonl", "a.py"); code != 0 || stderr != "" {
		t.Errorf("-o out.jsonl: status %d, stderr %q", code, stderr)
	}
}

// TestStaleTemporariesRemoved: a killed -o run left .FILE.tmp-* behind for
// good; a later run removes those whose process is gone, and only those.
func TestStaleTemporariesRemoved(t *testing.T) {
	badSetup(t, map[string]string{"a.py": "x = 1\n"})
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	stale := ".out.jsonl.tmp-" + strconv.Itoa(dead.Process.Pid) + "-123"
	alive := ".out.jsonl.tmp-" + strconv.Itoa(os.Getppid()) + "-456" // a run still going
	other := ".other.jsonl.tmp-" + strconv.Itoa(dead.Process.Pid) + "-789"
	for _, name := range []string{stale, alive, other} {
		if err := os.WriteFile(name, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, code := run(t, "", "chunk", "-o", "out.jsonl", "a.py"); code != 0 || stderr != "" {
		t.Fatalf("status %d, stderr %q", code, stderr)
	}
	entries, _ := os.ReadDir(".")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	got := strings.Join(names, " ")
	if want := strings.Join([]string{other, alive, "a.py", "out.jsonl"}, " "); got != want {
		t.Errorf("files %q, want %q", got, want)
	}
}

// TestSignalStopsBlockedOpen: -o FIFO with no reader, and --files-from a
// FIFO with no writer, block in open; one signal (here: the context) now
// ends the run.
func TestSignalStopsBlockedOpen(t *testing.T) {
	dir := badSetup(t, map[string]string{"a.py": "x = 1\n"})
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{{"chunk", "-o", fifo, "a.py"}, {"chunk", "--files-from", fifo}} {
		ctx, cancel := context.WithCancel(context.Background())
		var out, errOut strings.Builder
		done := make(chan int)
		go func() { done <- Main(ctx, args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}) }()
		cancel()
		if code := <-done; code != ExitInterrupted {
			t.Errorf("%v: status %d, stderr %q", args, code, errOut.String())
		}
	}
	// Release the opens left blocked in the background.
	for _, flag := range []int{os.O_RDONLY, os.O_WRONLY} {
		if f, err := os.OpenFile(fifo, flag|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}
}

// TestCrashIsNotAUsageError: the Go runtime ends a crashed process with
// status 2, castchunk's status for usage errors; with crashBySignal it ends
// by SIGABRT instead. The test runs itself as the crashing process.
func TestCrashIsNotAUsageError(t *testing.T) {
	if os.Getenv("CASTCHUNK_TEST_CRASH") == "1" {
		syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{}) // no core file in the package folder
		crashBySignal()
		done := make(chan struct{})
		go func() { panic("a bug in a goroutine") }()
		<-done
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashIsNotAUsageError$")
	cmd.Env = append(os.Environ(), "CASTCHUNK_TEST_CRASH=1", "GOTRACEBACK=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the crashing process: %v", err)
	}
	status := exit.Sys().(syscall.WaitStatus)
	if exit.ExitCode() == ExitUsage || !status.Signaled() || status.Signal() != syscall.SIGABRT {
		t.Errorf("crash: exit code %d, signaled %v (%v); want SIGABRT, never status 2", exit.ExitCode(), status.Signaled(), status.Signal())
	}
	if !strings.Contains(stderr.String(), "a bug in a goroutine") {
		t.Errorf("the crash does not say why: %.300s", stderr.String())
	}
}

// TestStartLimitsAgree: the start-up's least limit on open files, checked
// in C before the Go runtime starts, is the one the run reserves.
func TestStartLimitsAgree(t *testing.T) {
	files, procs := rlimit.Least()
	if files != pipeline.MinDescriptors {
		t.Errorf("the start-up accepts %d open files, the run needs %d", files, pipeline.MinDescriptors)
	}
	if procs < 1 {
		t.Errorf("the start-up accepts %d processes", procs)
	}
}
