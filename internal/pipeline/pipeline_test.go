package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castchunk/castchunk/internal/bytesize"
	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/cast"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/sliding"
)

type file struct {
	name    string // path under the temp dir, '/'-separated
	content string
}

// setup writes the files into a fresh temp dir and returns one job per file,
// in order; a name with no known extension is chunked as Python.
func setup(t *testing.T, files []file) (string, []pipeline.Job) {
	t.Helper()
	dir := t.TempDir()
	var jobs []pipeline.Job
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.content), 0o644); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job(dir, f.name))
	}
	return dir, jobs
}

func job(dir, name string) pipeline.Job {
	l := lang.ForPath(name)
	if l == nil {
		l = lang.ByName("python")
	}
	return pipeline.Job{File: plan.File{Path: name}, Decision: plan.Decision{Lang: l}, OSPath: filepath.Join(dir, filepath.FromSlash(name))}
}

const (
	methodCast    = "cast"
	methodSliding = "sliding"
)

func config(jobs, budget int) pipeline.Config {
	return pipeline.Config{Jobs: jobs, Setup: chunk.Setup{Method: &cast.Method, Budget: budget}}
}

// slidingConfig is config with the sliding method and these options.
func slidingConfig(jobs, budget int, v chunk.Values) pipeline.Config {
	return pipeline.Config{Jobs: jobs, Setup: chunk.Setup{Method: &sliding.Method, Budget: budget, Values: v}}
}

// result is a pipeline.Result with what the tests check spelled out: the
// records as the JSON Lines writer encodes them, the chunk sizes, the file
// size and the outcome's parts.
type result struct {
	pipeline.Result
	Records  []byte
	Sizes    []int
	Bytes    int
	Method   string
	Skip     plan.Fate // Chunked, a skip, or Failed
	Warning  string
	Internal error // the message of a Failed outcome
}

// run runs the pipeline and returns copies of the results, in the order the
// sink saw them.
func run(t *testing.T, jobs []pipeline.Job, cfg pipeline.Config) []result {
	t.Helper()
	var out []result
	err := pipeline.Run(context.Background(), jobs, cfg, func(r *pipeline.Result) error {
		c := result{Result: *r, Bytes: len(r.Src), Skip: r.Outcome, Warning: r.Message}
		c.Src = bytes.Clone(r.Src) // valid only until the sink returns
		if r.Method != nil {
			c.Method = r.Method.Name
		}
		if r.Outcome == plan.Failed {
			c.Internal = errors.New(r.Message)
			c.Skip, c.Warning = plan.Chunked, ""
		}
		if r.Outcome == plan.Chunked {
			f := record.File{Path: r.Job.Path, Language: r.Language, Method: c.Method, Pieces: r.Method != nil && r.Method.Pieces, Src: r.Src}
			var err error
			if c.Records, err = record.AppendFile(nil, f, r.Spans); err != nil {
				t.Errorf("%s: encode: %v", r.Job.Path, err)
			}
			for _, s := range r.Spans {
				c.Sizes = append(c.Sizes, s.Size)
			}
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(out) != len(jobs) {
		t.Fatalf("%d results for %d jobs", len(out), len(jobs))
	}
	return out
}

// serialize is everything a result says, for byte comparisons.
func serialize(rs []result) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%s|%s|%d|%v|%v|%d|%q|%v|%v|%v\n", r.Job.Path, r.Method, r.Bytes, r.Sizes, r.HasSyntaxErrors,
			r.Skip, r.Warning, r.Internal, r.Cached, r.CacheErr)
		b.Write(r.Records)
	}
	return b.String()
}

type rec struct {
	ID        string `json:"id"`
	Path      string `json:"path"`
	Language  string `json:"language"`
	Method    string `json:"method"`
	Index     int    `json:"index"`
	StartByte int    `json:"start_byte"`
	EndByte   int    `json:"end_byte"`
	Size      int    `json:"size"`
	Content   string `json:"content"`
}

func decode(t *testing.T, records []byte) []rec {
	t.Helper()
	var out []rec
	for _, line := range bytes.SplitAfter(records, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if line[len(line)-1] != '\n' {
			t.Fatalf("record without final newline: %q", line)
		}
		var r rec
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("bad record %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

// checkTiles checks that a result's records are those of its file, chunked
// without overlap: they tile the content.
func checkTiles(t *testing.T, r result, content, method string, budget int) {
	t.Helper()
	recs := decode(t, r.Records)
	var whole strings.Builder
	for i, c := range recs {
		if c.Path != r.Job.Path || c.Language != r.Lang.Name || c.Method != method || c.Index != i || c.Size > budget {
			t.Errorf("%s: record %d: path %q language %q method %q index %d size %d", r.Job.Path, i, c.Path, c.Language, c.Method, c.Index, c.Size)
		}
		if i < len(r.Sizes) && r.Sizes[i] != c.Size {
			t.Errorf("%s: Sizes[%d] = %d, record says %d", r.Job.Path, i, r.Sizes[i], c.Size)
		}
		whole.WriteString(c.Content)
	}
	if len(recs) != len(r.Sizes) {
		t.Errorf("%s: %d records, %d sizes", r.Job.Path, len(recs), len(r.Sizes))
	}
	if whole.String() != content {
		t.Errorf("%s: records do not give the file back:\n%q\nwant\n%q", r.Job.Path, whole.String(), content)
	}
}

// pythonFile returns a Python file of n small functions.
func pythonFile(n, seed int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "def f_%d_%d(a, b):\n    # helper %d\n    x = [a * %d for a in range(b)]\n    return sum(x)\n\n", seed, i, i, i+seed)
	}
	return b.String()
}

// corpus is files of very different sizes (the big ones first, so that later
// jobs finish earlier), in every language, with a few to skip.
func corpus() []file {
	files := []file{
		{"big.py", pythonFile(3000, 0)},
		{"empty.py", ""},
		{"A.java", "class A {\n    int x;\n    void f() {\n        x = 1;\n    }\n}\n"},
		{"a.ts", "export function f(x: number): number {\n  return x + 1;\n}\n"},
		{"b.tsx", "export const C = () => <div className=\"c\">hi</div>;\n"},
		{"P.cs", "namespace N {\n    class P {\n        int Y() { return 2; }\n    }\n}\n"},
		{"bin.py", "x = 1\x00\n"},
		{"bad.py", "x = '\xff'\n"},
		{"broken.py", "def f(:\n    return\n"},
		{"crlf.py", "a = 1\r\nb = 2\r\n"},
		{"bom.py", "\ufeffa = 1\n"},
	}
	for i := range 30 {
		files = append(files, file{fmt.Sprintf("pkg/m%02d.py", i), pythonFile(i%7*15+1, i)})
	}
	return files
}

func TestResultsInJobOrder(t *testing.T) {
	files := corpus()
	_, jobs := setup(t, files)
	var first string
	for _, n := range []int{1, 2, 8} {
		t.Run(fmt.Sprint("jobs=", n), func(t *testing.T) {
			rs := run(t, jobs, config(n, 200))
			for i, r := range rs {
				if r.Job != jobs[i] {
					t.Fatalf("result %d is for %q, want %q", i, r.Job.Path, jobs[i].Path)
				}
				if r.Internal != nil {
					t.Errorf("%s: internal error %v", r.Job.Path, r.Internal)
				}
				if r.Skip == plan.Chunked {
					checkTiles(t, r, files[i].content, methodCast, 200)
				}
			}
			if s := serialize(rs); first == "" {
				first = s
			} else if s != first {
				t.Errorf("results with %d jobs differ from those with 1", n)
			}
		})
	}
	// A few facts about the corpus, so the comparison above compares something.
	rs := run(t, jobs, config(3, 200))
	if len(decode(t, rs[0].Records)) < 100 {
		t.Errorf("big.py gave %d records", len(decode(t, rs[0].Records)))
	}
	if rs[6].Skip != plan.Binary || rs[7].Skip != plan.Encoding {
		t.Errorf("bin.py, bad.py: skips %v, %v", rs[6].Skip, rs[7].Skip)
	}
	if !rs[8].HasSyntaxErrors || rs[8].Method != methodCast || len(rs[8].Records) == 0 {
		t.Errorf("broken.py: syntax %v, method %q, %d bytes of records", rs[8].HasSyntaxErrors, rs[8].Method, len(rs[8].Records))
	}
	for i, r := range rs {
		if i != 8 && r.HasSyntaxErrors {
			t.Errorf("%s: syntax errors reported", r.Job.Path)
		}
	}
}

func TestSkips(t *testing.T) {
	probe := strings.Repeat("a", 7999)
	tests := []struct {
		name    string
		content *string // nil: the file does not exist
		path    string  // Job.Path, when not the file's name
		limit   int64
		skip    plan.Fate
		warning string
		bytes   int
	}{
		{name: "bin.py", content: ptr("x = 1\x00\n"), skip: plan.Binary,
			warning: "binary file (NUL byte); skipped", bytes: 7},
		{name: "nul-at-7999.py", content: ptr(probe + "\x00"), skip: plan.Binary,
			warning: "binary file (NUL byte); skipped", bytes: 8000},
		{name: "bad.py", content: ptr("x = 1\n\xff\n"), skip: plan.Encoding,
			warning: "not valid UTF-8 (bad byte at offset 6); skipped", bytes: 8},
		{name: "bom-bad.py", content: ptr("\ufeffx\xc3("), skip: plan.Encoding,
			warning: "not valid UTF-8 (bad byte at offset 4); skipped", bytes: 6},
		{name: "truncated.py", content: ptr("x = '\xc3"), skip: plan.Encoding,
			warning: "not valid UTF-8 (bad byte at offset 5); skipped", bytes: 6},
		{name: "latin1.py", content: ptr("s = 'caf\xe9'\n"), skip: plan.Encoding,
			warning: "not valid UTF-8 (bad byte at offset 8); skipped", bytes: 11},
		{name: "utf16le.py", content: ptr("\xff\xfex\x00 \x00=\x00\n\x00"), skip: plan.Encoding,
			warning: "UTF-16 text is not supported, only UTF-8; skipped", bytes: 10},
		{name: "utf16be.py", content: ptr("\xfe\xff\x00x\x00\n"), skip: plan.Encoding,
			warning: "UTF-16 text is not supported, only UTF-8; skipped", bytes: 6},
		{name: "missing.py", skip: plan.Unreadable,
			warning: "no such file or directory (did it vanish while castchunk ran?)"},
		{name: "big.py", content: ptr("x = 12345\n"), limit: 9, skip: plan.TooLarge,
			warning: "file too large (" + bytesize.Format(10) + " > " + bytesize.Format(9) + " limit); skipped"},
		{name: "name.py", content: ptr("x = 1\n"), path: "bad\xffname.py", skip: plan.Encoding,
			warning: "file name is not valid UTF-8; skipped"},
		// Not skipped.
		{name: "empty.py", content: ptr("")},
		{name: "nul-at-8000.py", content: ptr("#" + probe + "\x00\n"), bytes: 8002},
		{name: "bom.py", content: ptr("\ufeffx = 1\n"), bytes: 9},
		{name: "fits.py", content: ptr("x = 1234\n"), limit: 9, bytes: 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			j := job(dir, tt.name)
			if tt.content != nil {
				if err := os.WriteFile(j.OSPath, []byte(*tt.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.path != "" {
				j.Path = tt.path
				j.Decision = plan.Policy{Lang: j.Decision.Lang}.ByName(j.File)
			}
			cfg := config(1, 100)
			cfg.Plan.MaxFileSize = tt.limit
			r := run(t, []pipeline.Job{j}, cfg)[0]
			if r.Skip != tt.skip || r.Warning != tt.warning || r.Bytes != tt.bytes {
				t.Errorf("skip %v, warning %q, bytes %d; want %v, %q, %d", r.Skip, r.Warning, r.Bytes, tt.skip, tt.warning, tt.bytes)
			}
			if r.Internal != nil || r.Cached || r.CacheErr != nil {
				t.Errorf("internal %v, cached %v, cache error %v", r.Internal, r.Cached, r.CacheErr)
			}
			if tt.skip != plan.Chunked {
				if len(r.Records) != 0 || len(r.Sizes) != 0 {
					t.Errorf("skipped file has records %q, sizes %v", r.Records, r.Sizes)
				}
				return
			}
			if r.Method != methodCast {
				t.Errorf("method %q", r.Method)
			}
			checkTiles(t, r, *tt.content, methodCast, 100)
			if *tt.content == "" && (len(r.Records) != 0 || len(r.Sizes) != 0) {
				t.Errorf("empty file: records %q, sizes %v", r.Records, r.Sizes)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestUnreadableFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "dir.py"), 0o755); err != nil {
		t.Fatal(err)
	}
	jobs := []pipeline.Job{job(dir, "dir.py")}
	want := []string{"not a regular file (a directory)"}
	if os.Getuid() != 0 { // root reads anything
		if err := os.WriteFile(filepath.Join(dir, "locked.py"), []byte("x = 1\n"), 0o000); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job(dir, "locked.py"))
		want = append(want, "permission denied")
	}
	for i, r := range run(t, jobs, config(2, 100)) {
		if r.Skip != plan.Unreadable || r.Warning != want[i] || len(r.Records) != 0 {
			t.Errorf("%s: skip %v, warning %q, records %q; want unreadable, %q", r.Job.Path, r.Skip, r.Warning, r.Records, want[i])
		}
	}
}

func TestParseTimeoutFallsBackToSliding(t *testing.T) {
	content := pythonFile(400, 1)
	_, jobs := setup(t, []file{{"slow.py", content}, {"slow2.py", content}})
	cfg := config(2, 150)
	cfg.ParseTimeout = time.Nanosecond
	rs := run(t, jobs, cfg)

	slide := slidingConfig(2, 150, nil)
	want := run(t, jobs, slide)
	for i, r := range rs {
		if r.Method != methodSliding || r.Skip != plan.Chunked || r.Internal != nil || r.HasSyntaxErrors {
			t.Errorf("%s: method %q, skip %v, internal %v, syntax %v", r.Job.Path, r.Method, r.Skip, r.Internal, r.HasSyntaxErrors)
		}
		if r.Warning != "parse timed out after 1ns; chunked with the sliding method" {
			t.Errorf("%s: warning %q", r.Job.Path, r.Warning)
		}
		checkTiles(t, r, content, methodSliding, 150)
		if !bytes.Equal(r.Records, want[i].Records) || !slices.Equal(r.Sizes, want[i].Sizes) {
			t.Errorf("%s: fallback records differ from a sliding run", r.Job.Path)
		}
	}
	// Without the timeout the same file parses.
	cfg.ParseTimeout = time.Minute
	for _, r := range run(t, jobs, cfg) {
		if r.Method != methodCast || r.Warning != "" {
			t.Errorf("%s with a minute to parse: method %q, warning %q", r.Job.Path, r.Method, r.Warning)
		}
	}
}

// TestSlidingFixedWindowsOverBudget: the RepoCoder baseline (20-line windows
// every 10 lines) on lines long enough that a window is over the budget. The
// windows overlap; each is cut into pieces; the file must still be chunked.
func TestSlidingFixedWindowsOverBudget(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "value_%02d = %q\n", i, strings.Repeat("x", 90))
	}
	content := b.String()
	_, jobs := setup(t, []file{{"long.py", content}})
	cfg := slidingConfig(1, 2000, chunk.Values{"window-lines": 20, "stride": 10})
	r := run(t, jobs, cfg)[0]
	if r.Internal != nil || r.Skip != plan.Chunked {
		t.Fatalf("internal error %v, skip %v", r.Internal, r.Skip)
	}
	recs := decode(t, r.Records)
	if len(recs) == 0 || recs[len(recs)-1].EndByte != len(content) {
		t.Fatalf("%d records, not reaching the end of the file", len(recs))
	}
	for i, c := range recs {
		if c.Content != content[c.StartByte:c.EndByte] || c.Size > 2000 || c.Method != methodSliding {
			t.Errorf("record %d [%d,%d) size %d method %q is wrong", i, c.StartByte, c.EndByte, c.Size, c.Method)
		}
	}
}

func TestSlidingOverlapRecords(t *testing.T) {
	content := "a = 1\nb = 2\nc = 3\nd = 4\n"
	_, jobs := setup(t, []file{{"o.py", content}})
	cfg := slidingConfig(1, 6, chunk.Values{"overlap-lines": 1})
	r := run(t, jobs, cfg)[0]
	var got []string
	for _, c := range decode(t, r.Records) {
		got = append(got, c.Content)
	}
	want := []string{"a = 1\nb = 2\n", "b = 2\nc = 3\n", "c = 3\nd = 4\n"}
	if !slices.Equal(got, want) || r.Method != methodSliding || r.Internal != nil || !slices.Equal(r.Sizes, []int{6, 6, 6}) {
		t.Errorf("records %q (method %q, sizes %v, internal %v), want %q", got, r.Method, r.Sizes, r.Internal, want)
	}
}

func TestSinkErrorStopsTheRun(t *testing.T) {
	var files []file
	for i := range 40 {
		files = append(files, file{fmt.Sprintf("m%02d.py", i), pythonFile(20, i)})
	}
	_, jobs := setup(t, files)
	boom := errors.New("boom")
	for _, n := range []int{1, 4} {
		before := runtime.NumGoroutine()
		var seen []string
		err := pipeline.Run(context.Background(), jobs, config(n, 100), func(r *pipeline.Result) error {
			seen = append(seen, r.Job.Path)
			if len(seen) == 3 {
				return boom
			}
			return nil
		})
		if !errors.Is(err, boom) {
			t.Errorf("jobs=%d: Run returned %v, want %v", n, err, boom)
		}
		if want := []string{"m00.py", "m01.py", "m02.py"}; !slices.Equal(seen, want) {
			t.Errorf("jobs=%d: sink saw %q, want %q", n, seen, want)
		}
		checkGoroutines(t, before)
	}
}

// checkGoroutines waits a little for goroutines to end, then fails if more
// are left than before.
func checkGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Errorf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCancelledContext(t *testing.T) {
	var files []file
	for i := range 50 {
		files = append(files, file{fmt.Sprintf("m%02d.py", i), pythonFile(5, i)})
	}
	_, jobs := setup(t, files)

	t.Run("cancelled before the run", func(t *testing.T) {
		before := runtime.NumGoroutine()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		calls := 0
		err := pipeline.Run(ctx, jobs, config(2, 100), func(*pipeline.Result) error { calls++; return nil })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run returned %v after %d results, want %v", err, calls, context.Canceled)
		}
		checkGoroutines(t, before)
	})
	t.Run("deadline", func(t *testing.T) {
		before := runtime.NumGoroutine()
		ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
		defer cancel()
		<-ctx.Done()
		err := pipeline.Run(ctx, jobs, config(2, 100), func(*pipeline.Result) error { return nil })
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Run returned %v, want %v", err, context.DeadlineExceeded)
		}
		checkGoroutines(t, before)
	})
	t.Run("cancelled by the sink", func(t *testing.T) {
		before := runtime.NumGoroutine()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		calls := 0
		err := pipeline.Run(ctx, jobs, config(2, 100), func(*pipeline.Result) error {
			calls++
			if calls == 2 {
				cancel()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run returned %v after %d results, want %v", err, calls, context.Canceled)
		}
		checkGoroutines(t, before)
	})
}

// TestCancelStopsParsing: cancelling while big files are being parsed
// returns promptly: the parses under way are stopped, not waited for.
func TestCancelStopsParsing(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 12 MB of files")
	}
	big := pythonFile(16000, 0) // ~1.4 MB: about half a second to parse
	var files []file
	for i := range 8 {
		files = append(files, file{fmt.Sprintf("big%d.py", i), big})
	}
	_, jobs := setup(t, files)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelled time.Time
	timer := time.AfterFunc(150*time.Millisecond, func() { cancelled = time.Now(); cancel() })
	defer timer.Stop()
	err := pipeline.Run(ctx, jobs, config(2, 2000), func(*pipeline.Result) error { return nil })
	returned := time.Now()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v, want %v", err, context.Canceled)
	}
	if took := returned.Sub(cancelled); took > time.Second {
		t.Errorf("Run returned %v after the cancel", took)
	}
	checkGoroutines(t, before)
}

func TestCache(t *testing.T) {
	files := corpus()
	dir, jobs := setup(t, files)
	c, err := cache.Open(t.TempDir(), "test salt")
	if err != nil {
		t.Fatal(err)
	}
	cfg := config(2, 200)
	cfg.Cache = c

	first := run(t, jobs, cfg)
	for _, r := range first {
		if r.Cached || r.CacheErr != nil || r.Internal != nil {
			t.Errorf("first run, %s: cached %v, cache error %v, internal %v", r.Job.Path, r.Cached, r.CacheErr, r.Internal)
		}
	}
	plain := cfg
	plain.Cache = nil
	if serialize(first) != serialize(run(t, jobs, plain)) {
		t.Error("a run with a cold cache differs from a run without a cache")
	}

	second := run(t, jobs, cfg)
	for i, r := range second {
		f := first[i]
		wantCached := r.Skip == plan.Chunked
		if r.Cached != wantCached || r.CacheErr != nil {
			t.Errorf("second run, %s: cached %v, want %v (cache error %v)", r.Job.Path, r.Cached, wantCached, r.CacheErr)
		}
		if !bytes.Equal(r.Records, f.Records) || r.Method != f.Method || r.HasSyntaxErrors != f.HasSyntaxErrors ||
			!slices.Equal(r.Sizes, f.Sizes) || r.Bytes != f.Bytes || r.Skip != f.Skip || r.Warning != f.Warning {
			t.Errorf("second run, %s: result differs from the first:\n%s\nwant\n%s", r.Job.Path,
				serialize([]result{r}), serialize([]result{f}))
		}
	}

	// A changed file misses; the others still hit.
	changed := "class B {\n    int y = 42;\n}\n"
	if err := os.WriteFile(jobs[2].OSPath, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	third := run(t, jobs, cfg)
	for i, r := range third {
		wantCached := r.Skip == plan.Chunked && i != 2
		if r.Cached != wantCached {
			t.Errorf("after a change, %s: cached %v, want %v", r.Job.Path, r.Cached, wantCached)
		}
	}
	fresh := run(t, jobs[2:3], plain)[0]
	if !bytes.Equal(third[2].Records, fresh.Records) || len(fresh.Records) == 0 {
		t.Errorf("changed file: records %q, want %q", third[2].Records, fresh.Records)
	}
	if r := run(t, jobs[2:3], cfg)[0]; !r.Cached || !bytes.Equal(r.Records, fresh.Records) {
		t.Errorf("changed file, next run: cached %v", r.Cached)
	}

	// The same content under another path hits, with records of the new path.
	if err := os.WriteFile(filepath.Join(dir, "copy.py"), []byte(files[0].content), 0o644); err != nil {
		t.Fatal(err)
	}
	moved := []pipeline.Job{job(dir, "copy.py")}
	r := run(t, moved, cfg)[0]
	if want := run(t, moved, plain)[0]; !r.Cached || !bytes.Equal(r.Records, want.Records) {
		t.Errorf("copied file: cached %v, records equal %v", r.Cached, bytes.Equal(r.Records, want.Records))
	}
	if !bytes.Contains(r.Records, []byte(`"path":"copy.py"`)) || bytes.Contains(r.Records, []byte(`"path":"big.py"`)) {
		t.Error("copied file: records carry the wrong path")
	}
}

// TestCacheSkipsFallbacks: a result of a failed parse is not stored, so the
// next run with time to parse chunks the file with cast.
func TestCacheSkipsFallbacks(t *testing.T) {
	_, jobs := setup(t, []file{{"slow.py", pythonFile(400, 3)}})
	c, err := cache.Open(t.TempDir(), "salt")
	if err != nil {
		t.Fatal(err)
	}
	cfg := config(1, 150)
	cfg.Cache = c
	cfg.ParseTimeout = time.Nanosecond
	if r := run(t, jobs, cfg)[0]; r.Method != methodSliding || r.Cached {
		t.Fatalf("with a 1ns timeout: method %q, cached %v", r.Method, r.Cached)
	}
	cfg.ParseTimeout = 0
	if r := run(t, jobs, cfg)[0]; r.Method != methodCast || r.Cached || r.Warning != "" {
		t.Errorf("after a fallback: method %q, cached %v, warning %q; want a fresh cast", r.Method, r.Cached, r.Warning)
	}
	if r := run(t, jobs, cfg)[0]; r.Method != methodCast || !r.Cached {
		t.Errorf("third run: method %q, cached %v", r.Method, r.Cached)
	}
}

func TestCacheSlidingOverlap(t *testing.T) {
	_, jobs := setup(t, []file{{"o.py", pythonFile(30, 4)}, {"e.py", ""}})
	c, err := cache.Open(t.TempDir(), "sliding salt")
	if err != nil {
		t.Fatal(err)
	}
	cfg := slidingConfig(2, 60, chunk.Values{"overlap-lines": 2})
	cfg.Cache = c
	first := run(t, jobs, cfg)
	second := run(t, jobs, cfg)
	if first[0].Cached || !second[0].Cached || first[0].Internal != nil {
		t.Errorf("cached %v then %v (internal %v)", first[0].Cached, second[0].Cached, first[0].Internal)
	}
	if len(first[0].Records) == 0 || !bytes.Equal(first[0].Records, second[0].Records) || !slices.Equal(first[0].Sizes, second[0].Sizes) {
		t.Error("cached overlapping windows differ from computed ones")
	}
	if len(first[1].Records) != 0 || len(second[1].Records) != 0 || first[1].Internal != nil || second[1].Internal != nil {
		t.Errorf("empty file: records %q then %q, internal %v then %v", first[1].Records, second[1].Records, first[1].Internal, second[1].Internal)
	}
}

// TestFIFONeverBlocks: a FIFO where a file was listed (replaced between
// listing and reading) is skipped at once, never read: opening it for
// reading would block until a writer came. The writer goroutine is there
// so that a regression fails instead of hanging: it lets a blocking open
// go through, and then the warning lacks the FIFO's name.
func TestFIFONeverBlocks(t *testing.T) {
	dir, jobs := setup(t, []file{{"a.py", "x = 1\n"}, {"b.py", "y = 2\n"}})
	fifo := filepath.Join(dir, "b.py")
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	writer := make(chan struct{})
	go func() {
		defer close(writer)
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
	}()
	rs := run(t, jobs, config(2, 100))
	if rs[0].Skip != plan.Chunked || rs[1].Skip != plan.Unreadable || rs[1].Warning != "not a regular file (a FIFO)" {
		t.Errorf("a.py: %v; b.py: %v %q", rs[0].Skip, rs[1].Skip, rs[1].Warning)
	}
	// Release the writer if nothing opened the FIFO for reading.
	if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		<-writer
		f.Close()
	}
}

// TestCacheEntryWithWrongSpans: an entry whose checksum holds but whose
// spans are wrong for the file (sizes that lie, a gap) made every later run
// fail; it is now removed and recomputed, and the output is that of a run
// without the cache.
func TestCacheEntryWithWrongSpans(t *testing.T) {
	content := pythonFile(40, 3)
	_, jobs := setup(t, []file{{"a.py", content}})
	c, err := cache.Open(t.TempDir(), "salt")
	if err != nil {
		t.Fatal(err)
	}
	cfg := config(1, 200)
	plain := run(t, jobs, cfg)[0]
	cfg.Cache = c
	run(t, jobs, cfg) // stores the right entry
	key := c.Key("python", []byte(content))
	right, ok := c.Get(key)
	if !ok || len(right.Spans) < 2 {
		t.Fatalf("no entry stored: %v %+v", ok, right)
	}
	lies := []func(e *cache.Entry){
		func(e *cache.Entry) { e.Spans[0].Size++ },                       // a size that lies
		func(e *cache.Entry) { e.Spans = e.Spans[1:] },                   // a gap at the start
		func(e *cache.Entry) { e.Spans[0].End = 1; e.Spans[0].Size = 1 }, // a gap after it
		func(e *cache.Entry) { e.Spans[0].Size = 201 },                   // over the budget
	}
	for i, lie := range lies {
		bad := cache.Entry{Method: right.Method, Syntax: right.Syntax, Spans: slices.Clone(right.Spans)}
		lie(&bad)
		if err := c.Put(key, bad); err != nil {
			t.Fatal(err)
		}
		r := run(t, jobs, cfg)[0]
		if r.Cached || r.Internal != nil || !bytes.Equal(r.Records, plain.Records) {
			t.Errorf("lie %d: cached %v, internal %v, same records as uncached %v", i, r.Cached, r.Internal, bytes.Equal(r.Records, plain.Records))
		}
		if again := run(t, jobs, cfg)[0]; !again.Cached || !bytes.Equal(again.Records, plain.Records) {
			t.Errorf("lie %d: the entry was not replaced by the right one", i)
		}
	}
}
