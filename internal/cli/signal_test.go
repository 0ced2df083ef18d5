package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalStopsEveryCommand: every command that reads records, and chunk
// --files-from, stops at the first signal (status 130) while its input is
// a FIFO with no writer (the open waits) or with a writer that says
// nothing (the read waits), and diff and merge while -o is a FIFO with no
// reader. diff, merge and stats used to ignore the first signal there.
func TestSignalStopsEveryCommand(t *testing.T) {
	dir := badSetup(t, map[string]string{"a.py": "x = 1\n"})
	good, _, code := run(t, "", "chunk", "a.py")
	if code != 0 {
		t.Fatal("chunk a.py failed")
	}
	if err := os.WriteFile("good.jsonl", []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	// Each case has a FIFO of its own: the opens and reads a stopped run
	// leaves in the background hold theirs open.
	n := 0
	mkfifo := func(t *testing.T) string {
		n++
		fifo := filepath.Join(dir, fmt.Sprintf("fifo%d", n))
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skip(err)
		}
		return fifo
	}
	commands := func(fifo string) [][]string {
		return [][]string{
			{"diff", fifo, "good.jsonl"},
			{"diff", "good.jsonl", fifo},
			{"merge", "good.jsonl", fifo},
			{"stats", fifo},
			{"verify", fifo},
			{"chunk", "--files-from", fifo},
		}
	}
	outputs := func(fifo string) [][]string { // -o FIFO: the open waits for a reader
		return [][]string{
			{"diff", "-o", fifo, "good.jsonl", "good.jsonl"},
			{"merge", "-o", fifo, "good.jsonl"},
			{"chunk", "-o", fifo, "a.py"},
		}
	}
	stops := func(t *testing.T, args []string) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var out, errOut strings.Builder
		done := make(chan int, 1)
		go func() { done <- Main(ctx, args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}) }()
		time.Sleep(50 * time.Millisecond) // let it reach the open or the read
		cancel()
		select {
		case code := <-done:
			if code != ExitInterrupted {
				t.Errorf("%v: status %d, stderr %q; want %d", args, code, errOut.String(), ExitInterrupted)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%v: still running 10 s after the signal", args)
		}
	}
	// release lets the opens and reads left waiting in the background end.
	release := func(fifo string) {
		for _, flag := range []int{os.O_RDONLY, os.O_WRONLY} {
			if f, err := os.OpenFile(fifo, flag|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
	}
	t.Run("no writer", func(t *testing.T) {
		for i := range commands("") {
			fifo := mkfifo(t)
			stops(t, commands(fifo)[i])
			release(fifo)
		}
	})
	t.Run("stalled writer", func(t *testing.T) {
		for i := range commands("") {
			// A descriptor open for reading and writing counts as a writer
			// that never writes: opening the FIFO does not wait, reading does.
			fifo := mkfifo(t)
			w, err := os.OpenFile(fifo, os.O_RDWR, 0)
			if err != nil {
				t.Skip(err)
			}
			stops(t, commands(fifo)[i])
			w.Close()
		}
	})
	t.Run("no reader", func(t *testing.T) {
		for i := range outputs("") {
			fifo := mkfifo(t)
			stops(t, outputs(fifo)[i])
			release(fifo)
		}
	})
}
