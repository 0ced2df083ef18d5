package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// embedRuns are the runs with the embedding flags, (d) to (g): the
// targeted ones first.
var embedRuns = [...]struct {
	name, label string
	args        []string
	targeted    bool
}{
	{"d", "--context", []string{"--context"}, true},
	{"e", "--tokenizer cl100k_base", []string{"--tokenizer", "cl100k_base"}, true},
	{"f", "--context --tokenizer", []string{"--context", "--tokenizer", "cl100k_base"}, true},
	{"g", "all, --max-tokens 512", []string{"--context", "--tokenizer", "cl100k_base", "--max-tokens", "512", "--embed-text"}, false},
}

// chunkRun runs `castchunk chunk -j N dir` with stdout to a file on disk.
// With check, the output must hold records for exactly the jobs' paths.
// Generated and vendored files are chunked too: the parse-only run parses
// every file, and both must measure the same bytes.
func chunkRun(o options, dir string, jobs int, check bool, want []job, flags ...string) (sample, error) {
	return chunkRunSum(o, dir, jobs, check, want, nil, flags...)
}

// chunkRunSum is chunkRun that also writes the SHA-256 of the run's output
// to sum, unless sum is nil.
func chunkRunSum(o options, dir string, jobs int, check bool, want []job, sum *[sha256.Size]byte, flags ...string) (sample, error) {
	out, err := os.CreateTemp(o.tmp, "out-*.jsonl")
	if err != nil {
		return sample{}, err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(o.bin, append(append([]string{"chunk", "--include-generated", "--include-vendored", "-j", strconv.Itoa(jobs)}, flags...), dir)...)
	cmd.Stdout = out
	cmd.Stderr = &stderr
	cmd.Env = benchEnv()
	floor := resetPeak()
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, lastLines(stderr.String(), 10))
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	s := sample{
		wall:  wall,
		cpu:   time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		rss:   ru.Maxrss << 10, // KiB on Linux
		floor: floor,
	}
	if sum != nil {
		if *sum, err = fileSum(out); err != nil {
			return sample{}, err
		}
	}
	if check {
		if err := checkOutput(out, dir, want); err != nil {
			return sample{}, fmt.Errorf("%s: %v", strings.Join(cmd.Args, " "), err)
		}
		if n := strings.Count(stderr.String(), "\n"); n > 0 {
			fmt.Printf("  castchunk wrote %d lines to stderr, first: %s\n", n, firstLine(stderr.String()))
		}
	}
	return s, nil
}

// fileSum is the SHA-256 of f's content, read from its start.
func fileSum(f *os.File) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return sum, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	h.Sum(sum[:0])
	return sum, nil
}

// benchEnv is the environment of the measured runs: castchunk's cache off.
func benchEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CASTCHUNK_CACHE=") {
			env = append(env, kv)
		}
	}
	return env
}

// checkOutput reads the records back and compares the files they cover with
// the files (a) parses, those of the corpus dir.
func checkOutput(f *os.File, dir string, want []job) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	records := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var rec struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("record %d: %v", records+1, err)
		}
		seen[rec.Path] = true
		records++
	}
	if err := sc.Err(); err != nil {
		return err
	}
	missing, extra := compareFiles(seen, dir, want)
	fmt.Printf("  output of (b): %d records, %.1f MB, covering %d files", records, mb(int(info.Size())), len(seen))
	if len(missing) == 0 && len(extra) == 0 {
		fmt.Printf(": the same files as (a)\n")
		return nil
	}
	fmt.Println()
	return fmt.Errorf("castchunk did not chunk the files (a) parses: %d missing (%s), %d extra (%s)",
		len(missing), head(missing, 5), len(extra), head(extra, 5))
}

// compareFiles lists, sorted, the jobs no record path names and the record
// paths that name no job. A record's path is relative to castchunk's root:
// the corpus folder itself when it is outside git or ignored there (as
// bench/ is), or the repository's top, here taken to be the current
// folder, where the job's listed path is the same; either names the job.
func compareFiles(seen map[string]bool, dir string, want []job) (missing, extra []string) {
	wanted := map[string]bool{}
	for _, j := range want {
		rel, err := filepath.Rel(dir, j.osPath)
		if err != nil {
			rel = j.path
		}
		rel = filepath.ToSlash(rel)
		wanted[j.path], wanted[rel] = true, true
		if !seen[j.path] && !seen[rel] {
			missing = append(missing, j.path)
		}
	}
	for p := range seen {
		if !wanted[p] {
			extra = append(extra, p)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return missing, extra
}
