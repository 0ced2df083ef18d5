package supervise

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain serves the test service when a test starts this binary as a
// worker, and runs the helper of TestWorkersOutliveTheirBinary when asked.
func TestMain(m *testing.M) {
	ServeIfWorker(map[string]Service{"spin": serveSpin})
	if os.Getenv(envRemovedHelper) != "" {
		os.Exit(removedHelper())
	}
	os.Exit(m.Run())
}

// spinSetup and spinRequest are the test service's: CPU time to burn in
// the set-up, in each call, and in each call's one-time work.
type spinSetup struct{ Setup time.Duration }
type spinRequest struct{ Work, OneOff time.Duration }

func serveSpin(c *Conn) error {
	var s spinSetup
	if err := c.Init(&s); err != nil {
		return err
	}
	burn(s.Setup)
	if err := c.Settled(); err != nil {
		return err
	}
	for {
		var req spinRequest
		if err := c.Next(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if req.OneOff > 0 {
			c.Exempt(func() { burn(req.OneOff) })
		}
		burn(req.Work)
		if err := c.Reply(&req); err != nil {
			return err
		}
	}
}

// burn uses d of this process's CPU time.
func burn(d time.Duration) {
	for end := cpuTime() + d; cpuTime() < end; {
		for i := range 1 << 16 {
			_ = i * i
		}
	}
}

// TestSetupAndOneOffWorkOutsideTheDeadline: a worker's set-up (a
// tokenizer.json's load) and a call's one-time work (a language's queries)
// take far longer than a call's deadline, and no call fails for it; the
// call's own work past the deadline does.
func TestSetupAndOneOffWorkOutsideTheDeadline(t *testing.T) {
	lim := Limits{CPU: 200 * time.Millisecond}
	w, err := Start(context.Background(), "spin", spinSetup{Setup: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var resp spinRequest
	for i := range 3 {
		if err := w.Call(context.Background(), lim, spinRequest{Work: 20 * time.Millisecond, OneOff: 600 * time.Millisecond}, &resp); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	err = w.Call(context.Background(), lim, spinRequest{Work: 2 * time.Second}, &resp)
	var f *Failure
	if !errors.As(err, &f) || !strings.Contains(f.Reason, "ran past its deadline of 200ms of CPU time") {
		t.Fatalf("a call past its deadline: %v", err)
	}
}

// TestStarvedWorkerIsNoRunaway: a worker that gets no CPU for longer than
// the wall backstop of old (ten times the deadline and ten seconds) is
// waited for, as a worker throttled by a CPU quota is, and answers.
func TestStarvedWorkerIsNoRunaway(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	w, err := Start(context.Background(), "spin", spinSetup{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	lim := Limits{CPU: 100 * time.Millisecond}
	pid := w.cmd.Process.Pid
	syscall.Kill(pid, syscall.SIGSTOP)
	resume := time.AfterFunc(12*time.Second, func() { syscall.Kill(pid, syscall.SIGCONT) })
	defer resume.Stop()
	var resp spinRequest
	if err := w.Call(context.Background(), lim, spinRequest{Work: 10 * time.Millisecond}, &resp); err != nil {
		t.Fatalf("a worker starved for 12 s: %v", err)
	}
}

// envRemovedHelper asks the test binary to run removedHelper.
const envRemovedHelper = "SUPERVISE_TEST_REMOVED_BINARY"

// TestWorkersOutliveTheirBinary: workers started after the binary was
// removed (an upgrade, a rebuild during the run) run the parent's own
// image.
func TestWorkersOutliveTheirBinary(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	bin := filepath.Join(t.TempDir(), "copy.test")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), envRemovedHelper+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// removedHelper removes its own binary, then starts a worker and calls it.
func removedHelper() int {
	self, err := os.Executable()
	if err == nil {
		err = os.Remove(self)
	}
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	for i := range 2 { // the second worker starts after the first is gone
		w, err := Start(context.Background(), "spin", spinSetup{})
		if err != nil {
			os.Stderr.WriteString("worker " + string(rune('0'+i)) + ": " + err.Error() + "\n")
			return 1
		}
		var resp spinRequest
		err = w.Call(context.Background(), Limits{CPU: time.Second}, spinRequest{}, &resp)
		w.Kill()
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 1
		}
	}
	return 0
}

// TestCallsSentAheadFailAlone: calls made at once from several goroutines
// are sent without waiting for each other's answers; the one that runs past
// its deadline fails, and the others are answered or, when the worker was
// lost before it took them, get ErrNotServed (never the other's failure)
// and are answered by another worker.
func TestCallsSentAheadFailAlone(t *testing.T) {
	var pool Pool
	defer pool.KillAll()
	ctx := context.Background()
	w, err := pool.Start(ctx, "spin", spinSetup{})
	if err != nil {
		t.Fatal(err)
	}
	lim := Limits{CPU: 300 * time.Millisecond}
	reqs := []spinRequest{{Work: 10 * time.Millisecond}, {Work: 3 * time.Second}, {Work: 10 * time.Millisecond}, {Work: 10 * time.Millisecond}}
	errs := make([]error, len(reqs))
	done := make(chan int)
	for i, req := range reqs {
		go func() {
			var resp spinRequest
			errs[i] = w.Call(ctx, lim, req, &resp)
			done <- i
		}()
	}
	for range reqs {
		<-done
	}
	var f *Failure
	if !errors.As(errs[1], &f) || !strings.Contains(f.Reason, "ran past its deadline") {
		t.Fatalf("the runaway call: %v", errs[1])
	}
	for i, err := range errs {
		if i == 1 || err == nil {
			continue
		}
		if !errors.Is(err, ErrNotServed) {
			t.Fatalf("call %d: %v, want an answer or ErrNotServed", i, err)
		}
		again, err := pool.Start(ctx, "spin", spinSetup{})
		if err != nil {
			t.Fatal(err)
		}
		var resp spinRequest
		if err := again.Call(ctx, lim, reqs[i], &resp); err != nil {
			t.Fatalf("call %d again: %v", i, err)
		}
		again.Close()
	}
	if !w.Retired() {
		t.Fatal("the worker that ran past a deadline is not retired")
	}
}
