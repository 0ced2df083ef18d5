package cache_test

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/cast"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan"
)

// The corpus of samples, one or more per language.
const corpus = "../../testdata/corpus"

// corpusJobs lists the files of the corpus that have a grammar.
func corpusJobs() ([]pipeline.Job, error) {
	var jobs []pipeline.Job
	err := filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(corpus, p)
		rel = filepath.ToSlash(rel)
		if l := lang.ForPath(rel); l != nil {
			jobs = append(jobs, pipeline.Job{File: plan.File{Path: rel}, Decision: plan.Decision{Lang: l}, OSPath: p})
		}
		return nil
	})
	return jobs, err
}

// chunkCorpus runs the pipeline over jobs with c (nil: none), as castchunk
// chunk does, and returns what the run's output is made of (the records
// are a function of the path, the language, the file, the method and the
// spans), and how many files came from the cache.
func chunkCorpus(jobs []pipeline.Job, c *cache.Cache, workers int) (string, int, error) {
	var b strings.Builder
	cached := 0
	cfg := pipeline.Config{Jobs: workers, Setup: chunk.Setup{Method: &cast.Method, Budget: 300}, Cache: c}
	err := pipeline.Run(context.Background(), jobs, cfg, func(r *pipeline.Result) error {
		method := ""
		if r.Method != nil {
			method = r.Method.Name
		}
		fmt.Fprintf(&b, "%s|%s|%d|%q|%s|%v|%v\n", r.Job.Path, r.Language, r.Outcome, r.Message, method, r.HasSyntaxErrors, r.Spans)
		if r.Cached {
			cached++
		}
		if r.CacheErr != nil {
			return r.CacheErr
		}
		return nil
	})
	return b.String(), cached, err
}

// runForever chunks the corpus again and again, each pass with a cache of
// its own salt (so that every pass writes), printing "start N" before pass
// N and "done N" once its cache is closed, until it is killed.
func runForever() int {
	dir := os.Getenv("CASTCHUNK_CACHE_TEST_DIR")
	jobs, err := corpusJobs()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for pass := 0; ; pass++ {
		fmt.Printf("start %d\n", pass)
		c, err := cache.Open(dir, "pass "+strconv.Itoa(pass))
		if err == nil {
			_, _, err = chunkCorpus(jobs, c, 2)
			err = cmp(err, c.Close())
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("done %d\n", pass)
	}
}

func cmp(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// TestKillDuringARunThenTheSameOutput kills (SIGKILL) a process chunking
// the corpus with a cache, in the middle of its run, then runs again with
// that cache: the output is byte-identical to a run without a cache, for
// the run that was killed (partly cached) and for the passes before it
// (wholly cached).
func TestKillDuringARunThenTheSameOutput(t *testing.T) {
	jobs, err := corpusJobs()
	if err != nil || len(jobs) < 10 {
		t.Fatalf("%d files in the corpus: %v", len(jobs), err)
	}
	want, _, err := chunkCorpus(jobs, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 5))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), cache.ChildEnv+"=run-forever", "CASTCHUNK_CACHE_TEST_DIR="+dir)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it at a random moment of its second or third pass, as long
	// as the first took.
	sc := bufio.NewScanner(stdout)
	stop := fmt.Sprintf("start %d", 1+r.IntN(2))
	var began time.Time
	var took time.Duration
	for sc.Scan() && sc.Text() != stop {
		switch sc.Text() {
		case "start 0":
			began = time.Now()
		case "done 0":
			took = time.Since(began)
		}
	}
	time.Sleep(time.Duration(r.Int64N(int64(took) + 1)))
	cmd.Process.Signal(syscall.SIGKILL)
	last := -1
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "start "); ok {
			last, _ = strconv.Atoi(n)
		}
	}
	cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("the child was not killed: %v", cmd.ProcessState)
	}
	if last < 0 {
		last, _ = strconv.Atoi(strings.TrimPrefix(stop, "start "))
	}
	for pass := range last + 1 {
		c, err := cache.Open(dir, "pass "+strconv.Itoa(pass))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Repaired(); err != nil {
			t.Errorf("pass %d: kill -9 damaged the cache: %v", pass, err)
		}
		got, cached, err := chunkCorpus(jobs, c, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("pass %d: the output with the cache differs from the output without:\n%s\nwant\n%s", pass, got, want)
		}
		if pass < last && cached == 0 {
			t.Errorf("pass %d, which ended before the kill: nothing came from the cache", pass)
		}
		t.Logf("pass %d of %d (killed): %d of %d files from the cache", pass, last, cached, len(jobs))
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
