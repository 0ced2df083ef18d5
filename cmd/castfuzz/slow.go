// Slow inputs: the ones a grammar takes long on without running past its
// deadline.
//
// A batch's run says only how much CPU time all its inputs took together.
// When that is more than slowBatch, each input that was not a fallback is
// run again alone (castchunk chunk -j 1 on the one file, in a fresh
// folder), and one that takes slowInput of CPU time or more (the parent's
// and its worker's) is kept under -out/slow/LANG/ with its time: these are
// the inputs a regression test of a grammar's speed wants, and the ones a
// smaller deadline would turn into fallbacks.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"time"
)

const (
	slowBatch = 1500 * time.Millisecond // a batch's CPU time over which its inputs are timed one by one
	slowInput = 500 * time.Millisecond  // an input's CPU time from which it is slow
	slowWall  = 2 * time.Minute         // wall time one input's run may take
)

// slowFound is one slow input kept in the findings folder.
type slowFound struct {
	lang, path, how string
	size, batch     int
	cpu             time.Duration
}

// timeAlone runs bin on each input of the batch that is not a fallback,
// one at a time, and returns the slow ones with their CPU times.
func timeAlone(ctx context.Context, bin string, inputs []input, v *verdict) ([]input, []time.Duration) {
	fell := map[string]bool{}
	for _, fb := range v.fallbacks {
		fell[fb.in.name] = true
	}
	var slow []input
	var took []time.Duration
	for _, in := range inputs {
		if fell[in.name] || !v.reached[in.name] || ctx.Err() != nil {
			continue
		}
		cpu, ok := timeOne(ctx, bin, in)
		if ok && cpu >= slowInput {
			slow = append(slow, in)
			took = append(took, cpu)
		}
	}
	return slow, took
}

// timeOne is the CPU time castchunk and its worker take on one input.
func timeOne(ctx context.Context, bin string, in input) (time.Duration, bool) {
	dir, err := os.MkdirTemp("", "castfuzz-one-")
	if err != nil {
		return 0, false
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, in.name), in.data, 0o644); err != nil {
		return 0, false
	}
	ctx, cancel := context.WithTimeout(ctx, slowWall)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "chunk", "-j", "1", "--no-ignore", "--include-generated", "-o", "out.jsonl", in.name)
	cmd.Dir = dir
	cmd.Env = environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Run()
	if cmd.ProcessState == nil {
		return 0, false
	}
	reapGroup(cmd.Process.Pid)
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), true
}

// saveSlow keeps one slow input and a note beside it.
func (f *findings) saveSlow(batch int, name string, in input, cpu time.Duration) error {
	dir := filepath.Join(f.out, "slow", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, fmt.Sprintf("b%05d_%s", batch, in.name))
	if err := os.WriteFile(path, in.data, 0o644); err != nil {
		return err
	}
	note := fmt.Sprintf("language: %s\nCPU time alone: %v (castchunk chunk -j 1 on this one file: the parent and its worker)\nsize: %d bytes\nmade by: %s\nbatch %d of the run with -seed %d\n",
		name, cpu.Round(time.Millisecond), len(in.data), in.how, batch, f.seed)
	if err := os.WriteFile(path+".txt", []byte(note), 0o644); err != nil {
		return err
	}
	f.slow = append(f.slow, slowFound{lang: name, path: path, how: in.how, size: len(in.data), batch: batch, cpu: cpu})
	return nil
}

// slowest returns the slow inputs, slowest first.
func (f *findings) slowest() []slowFound {
	list := append([]slowFound(nil), f.slow...)
	sort.SliceStable(list, func(i, j int) bool { return list[i].cpu > list[j].cpu })
	return list
}
