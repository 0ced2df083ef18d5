package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// benchStartup times `castchunk chunk -j 1` on one small file: the CPU
// time (user+sys) the child took, which the target is about, and the wall
// time, which other work on the machine stretches.
func benchStartup(o options) (samples, error) {
	dir, err := os.MkdirTemp(o.tmp, "startup-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	const small = "import os\n\n\ndef main():\n    \"\"\"Print the working folder.\"\"\"\n    print(os.getcwd())\n"
	file := filepath.Join(dir, "small.py")
	if err := os.WriteFile(file, []byte(small), 0o644); err != nil {
		return nil, err
	}
	var s samples
	for range o.startupRuns {
		cmd := exec.Command(o.bin, "chunk", "-j", "1", file)
		cmd.Env = benchEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil { // stdout: /dev/null
			return nil, fmt.Errorf("%v\n%s", err, lastLines(stderr.String(), 5))
		}
		ps := cmd.ProcessState
		s = append(s, sample{wall: time.Since(start), cpu: ps.UserTime() + ps.SystemTime()})
	}
	fmt.Printf("\nstart-up: `castchunk chunk -j 1 small.py` (%d bytes), stdout to /dev/null, over %d runs: CPU (user+sys) median %s, min %s (target < %v: %s); wall median %s, min %s\n",
		len(small), len(s),
		ms(s.medianCPU()), ms(s.bestCPU()), targetStartup, verdict(s.medianCPU() < targetStartup), ms(s.median()), ms(s.best()))
	return s, nil
}
