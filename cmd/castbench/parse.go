package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

// parseResult is what a parse worker reports.
type parseResult struct {
	Wall, CPU time.Duration
	PerLang   map[string]time.Duration // time per language, summed over the goroutines
	Failed    int                      // parses that timed out
}

// writeJobList writes the files for a parse worker: language, tab, path.
func writeJobList(dir string, jobs []job) (string, error) {
	f, err := os.CreateTemp(dir, "jobs-*.txt")
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(f)
	for _, j := range jobs {
		fmt.Fprintf(w, "%s\t%s\t%s\n", j.lang.Name, j.path, j.osPath)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	return f.Name(), f.Close()
}

// parseRun runs a parse worker over the list with n goroutines: (a).
func parseRun(o options, list string, n int) (parseResult, sample, error) {
	self, err := os.Executable()
	if err != nil {
		return parseResult{}, sample{}, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(self, "-parse-worker", list, "-jobs", strconv.Itoa(n))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	floor := resetPeak()
	if err := cmd.Run(); err != nil {
		return parseResult{}, sample{}, fmt.Errorf("parse worker: %v\n%s", err, lastLines(stderr.String(), 10))
	}
	var res parseResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return parseResult{}, sample{}, fmt.Errorf("parse worker: %v", err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return res, sample{wall: res.Wall, cpu: res.CPU, rss: ru.Maxrss << 10, floor: floor}, nil
}

// parseWorker is the child side of parseRun: it reads and parses every file
// of the list with n goroutines, each with its own parser, and prints a
// parseResult as JSON.
func parseWorker(list string, n int) error {
	data, err := os.ReadFile(list)
	if err != nil {
		return err
	}
	var jobs []job
	for line := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 3 || lang.ByName(f[0]) == nil {
			return fmt.Errorf("bad line in %s: %q", list, line)
		}
		jobs = append(jobs, job{lang: lang.ByName(f[0]), path: f[1], osPath: f[2]})
	}
	res := parseResult{PerLang: map[string]time.Duration{}}
	cpu0 := selfCPU()
	start := time.Now()
	var next atomic.Int64
	type outcome struct {
		perLang map[string]time.Duration
		failed  int
		err     error
	}
	done := make(chan outcome, n)
	for range n {
		go func() {
			p := parse.New(parseTimeout)
			defer p.Close()
			out := outcome{perLang: map[string]time.Duration{}}
			defer func() { done <- out }()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) {
					return
				}
				t0 := time.Now()
				src, err := os.ReadFile(jobs[i].osPath)
				if err != nil {
					out.err = err
					return
				}
				tree, err := p.Parse(src, jobs[i].lang)
				switch {
				case errors.Is(err, parse.ErrTimeout):
					out.failed++
				case err != nil:
					out.err = fmt.Errorf("%s: %v", jobs[i].path, err)
					return
				default:
					tree.Close()
				}
				out.perLang[jobs[i].lang.Name] += time.Since(t0)
			}
		}()
	}
	for range n {
		out := <-done
		if out.err != nil {
			return out.err
		}
		res.Failed += out.failed
		for name, d := range out.perLang {
			res.PerLang[name] += d // with n > 1: time summed over the goroutines
		}
	}
	res.Wall, res.CPU = time.Since(start), selfCPU()-cpu0
	return json.NewEncoder(os.Stdout).Encode(res)
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
