package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// castMethod is castchunk's default method: its figures are (b)'s, not
// measured again.
const castMethod = "cast"

// methodResult is (m) for one method: `castchunk chunk -j 1 --method M`.
type methodResult struct {
	name string
	runs samples
}

// parseMethods reads the -methods list: names separated by commas, each
// once. An empty list measures no method.
func parseMethods(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var names []string
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		name := strings.TrimSpace(f)
		if !validMethodName(name) {
			return nil, fmt.Errorf("-methods %q: %q is not a method name (lower-case letters, digits and -, starting with a letter)", s, name)
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names, nil
}

// validMethodName keeps a name from reading as a flag of castchunk's.
func validMethodName(name string) bool {
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for _, c := range name {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// methodKnown decides from the exit status of a trial run whether the
// binary knows the method: 2 is its usage error (an unknown method), 0
// and 4 (some file fell back) are runs; any other status is a failure.
func methodKnown(status int) (bool, error) {
	switch status {
	case 0, 4:
		return true, nil
	case 2:
		return false, nil
	}
	return false, fmt.Errorf("exit status %d", status)
}

// probeMethods tries each method once on one small file and returns those
// the binary knows, printing a line for each one skipped: a binary from
// before a method was written is measured for the others.
func probeMethods(o options) ([]string, error) {
	dir, err := os.MkdirTemp(o.tmp, "methods-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "probe.py")
	if err := os.WriteFile(file, []byte("def probe():\n    return 1\n"), 0o644); err != nil {
		return nil, err
	}
	var known []string
	for _, m := range o.methods {
		cmd := exec.Command(o.bin, "chunk", "-j", "1", "--method", m, file)
		cmd.Env = benchEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run() // stdout: /dev/null
		status := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			status = exit.ExitCode()
		} else if err != nil {
			return nil, fmt.Errorf("%s: %v", strings.Join(cmd.Args, " "), err)
		}
		ok, err := methodKnown(status)
		if err != nil {
			return nil, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, lastLines(stderr.String(), 5))
		}
		if !ok {
			fmt.Printf("  (m) --method %s skipped: the binary does not take it (%s)\n", m, firstLine(stderr.String()))
			continue
		}
		known = append(known, m)
	}
	return known, nil
}

// methodSamples are the runs of method m: (b)'s for cast.
func (r *corpusResult) methodSamples(m methodResult) samples {
	if m.name == castMethod {
		return r.seq
	}
	return m.runs
}

// methodRatio is method k over (a), in time, as (b)/(a) is for cast.
func (r *corpusResult) methodRatio(k int) float64 {
	return r.methodSamples(r.methods[k]).best().Seconds() / r.parse.best().Seconds()
}

// measureMethods runs one repetition of (m) for each method but cast.
func (r *corpusResult) measureMethods(o options, dir string) error {
	for k := range r.methods {
		m := &r.methods[k]
		if m.name == castMethod {
			continue
		}
		s, err := chunkRun(o, dir, 1, false, nil, "--method", m.name)
		if err != nil {
			return err
		}
		m.runs = append(m.runs, s)
	}
	return nil
}

// reportMethods prints (m) beside (a), as the report prints (b), and the
// ratio in CPU time too, which a busy machine stretches less than wall time.
func (r *corpusResult) reportMethods() {
	for k, m := range r.methods {
		s, label := r.methodSamples(m), "--method "+m.name
		if m.name == castMethod {
			label += " = (b)"
		}
		fmt.Printf("  (m) -j 1 %-22s %-20s %7.2f MB/s   cpu %s   %.3fx (a) (target <= %.2f: %s), in CPU time %.3fx (a)\n",
			label, s.times(), s.rate(r.bytes), secs(s.bestCPU()), r.methodRatio(k), targetOverhead, verdict(r.methodRatio(k) <= targetOverhead),
			s.bestCPU().Seconds()/r.parse.bestCPU().Seconds())
	}
}

// methodsSummary is the summary line of (m) for the corpus, if measured.
func (r *corpusResult) methodsSummary() {
	if len(r.methods) == 0 {
		return
	}
	fmt.Printf("  %-20s (a) %.2f MB/s;", r.dir, r.parse.rate(r.bytes))
	for k, m := range r.methods {
		fmt.Printf(" %s %.2f MB/s %.3fx (a) %s;", m.name, r.methodSamples(m).rate(r.bytes), r.methodRatio(k), verdict(r.methodRatio(k) <= targetOverhead))
	}
	fmt.Printf(" (target: each method <= %.2fx (a))\n", targetOverhead)
}
