package pipeline_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/function"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/walk"
)

// lineGroups is a throwaway method, declared the way a real one is: every
// `lines` lines make a chunk (cut to fit the budget). It shows that a new
// method needs nothing from the pipeline or the cache but its declaration.
var lineGroups = chunk.Method{
	Name:    "line-groups",
	Summary: "every N lines",
	Options: []chunk.Option{{Name: "lines", Default: 2, Help: "lines per chunk"}},
	Check: func(_ int, v chunk.Values) error {
		if v["lines"] < 1 {
			return errors.New("--lines must be at least 1")
		}
		return nil
	},
	New: func(_ int, v chunk.Values) chunk.Chunker { return &groups{lines: v["lines"]} },
}

type groups struct {
	lines int
	m     chunk.Measure
}

func (g *groups) Chunk(in chunk.Input) []chunk.Span {
	src := in.Src
	g.m.Reset(src, in.Budget, in.TokenStarts)
	var out []chunk.Span
	start, n := 0, 0
	for i, c := range src {
		if c == '\n' {
			n++
		}
		if n == g.lines || i == len(src)-1 {
			out = chunk.SplitText(out, &g.m, start, i+1, start)
			start, n = i+1, 0
		}
	}
	return out
}

func (g *groups) Close() {}

func TestFakeMethod(t *testing.T) {
	content := "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n"
	_, jobs := setup(t, []file{{"g.py", content}})
	// A method of the tests' own is not one a worker process can name.
	cfg := pipeline.Config{Jobs: 1, Setup: chunk.Setup{Method: &lineGroups, Budget: 100, Values: chunk.Values{"lines": 2}}, InProcess: true}
	if err := cfg.Setup.Check(); err != nil {
		t.Fatal(err)
	}
	r := run(t, jobs, cfg)[0]
	if r.Method != "line-groups" || r.Internal != nil {
		t.Fatalf("method %q, internal %v", r.Method, r.Internal)
	}
	checkTiles(t, r, content, "line-groups", 100)
	if got := strings.Count(string(r.Records), "\n"); got != 3 {
		t.Errorf("%d records, want 3 (2+2+1 lines)", got)
	}
	bad := chunk.Setup{Method: &lineGroups, Budget: 100, Values: chunk.Values{"lines": 0}}
	if err := bad.Check(); err == nil {
		t.Error("lines 0 passed the method's check")
	}
	unknown := chunk.Setup{Method: &lineGroups, Budget: 100, Values: chunk.Values{"stride": 1}}
	if err := unknown.Check(); err == nil || !strings.Contains(err.Error(), "no option --stride") {
		t.Errorf("an undeclared option: %v", err)
	}
}

// TestSetupKeyCoversEveryOption: for every registered method (and the fake
// one), changing any option or the budget changes the cache key, so the
// cache can never hand back chunks made with other options.
func TestSetupKeyCoversEveryOption(t *testing.T) {
	for _, m := range append(method.All(), &lineGroups) {
		base := chunk.Setup{Method: m, Budget: 100}
		keys := map[string]string{base.Key(): "defaults"}
		variants := []chunk.Setup{{Method: m, Budget: 101}}
		for _, o := range m.Options {
			variants = append(variants, chunk.Setup{Method: m, Budget: 100, Values: chunk.Values{o.Name: o.Default + 7}})
		}
		for _, v := range variants {
			k := v.Key()
			if prev, dup := keys[k]; dup {
				t.Errorf("%s: %v has the key of %s: %q", m.Name, v.Values, prev, k)
			}
			keys[k] = k
		}
		if d := (chunk.Setup{Method: m, Budget: 100, Values: chunk.Values{}}); len(m.Options) > 0 {
			d.Values[m.Options[0].Name] = m.Options[0].Default
			if d.Key() != base.Key() {
				t.Errorf("%s: a default given explicitly changes the key", m.Name)
			}
		}
	}
}

// TestCacheKeyedByOptions: two runs sharing a cache with different options
// of the same method do not reuse each other's entries.
func TestCacheKeyedByOptions(t *testing.T) {
	content := "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n"
	_, jobs := setup(t, []file{{"g.py", content}})
	dir := t.TempDir()
	runWith := func(lines int) result {
		s := chunk.Setup{Method: &lineGroups, Budget: 100, Values: chunk.Values{"lines": lines}}
		c, err := cache.Open(dir, "build|"+s.Key())
		if err != nil {
			t.Fatal(err)
		}
		return run(t, jobs, pipeline.Config{Jobs: 1, Setup: s, Cache: c, InProcess: true})[0]
	}
	first := runWith(2)
	other := runWith(1)
	again := runWith(2)
	if first.Cached || other.Cached || !again.Cached {
		t.Errorf("cached: %v, %v, %v; want false, false, true", first.Cached, other.Cached, again.Cached)
	}
	if len(other.Sizes) != 5 || len(again.Sizes) != 3 {
		t.Errorf("chunks: %d with 1 line each, %d with 2; want 5 and 3", len(other.Sizes), len(again.Sizes))
	}
}

// panicky is a method with a bug: it panics on a file that says "boom".
var panicky = chunk.Method{
	Name: "panicky",
	New: func(budget int, v chunk.Values) chunk.Chunker {
		return &boom{groups{lines: 1}}
	},
}

type boom struct{ groups }

func (b *boom) Chunk(in chunk.Input) []chunk.Span {
	if strings.Contains(string(in.Src), "boom") {
		panic("boom")
	}
	return b.groups.Chunk(in)
}

// TestChunkerPanicFailsOneFile: a chunker that panics on one file fails
// that file (reported, left out) and the run goes on with the others.
func TestChunkerPanicFailsOneFile(t *testing.T) {
	_, jobs := setup(t, []file{{"a.py", "x = 1\n"}, {"b.py", "boom\n"}, {"c.py", "y = 2\n"}})
	rs := run(t, jobs, pipeline.Config{Jobs: 1, Setup: chunk.Setup{Method: &panicky, Budget: 100}, InProcess: true})
	if rs[0].Internal != nil || rs[2].Internal != nil || len(rs[2].Sizes) != 1 {
		t.Errorf("a.py, c.py: %v, %v, %v", rs[0].Internal, rs[2].Internal, rs[2].Sizes)
	}
	if rs[1].Internal == nil || !strings.Contains(rs[1].Internal.Error(), "crashed on this file") || len(rs[1].Records) != 0 {
		t.Errorf("b.py: %v, records %q", rs[1].Internal, rs[1].Records)
	}
}

// TestDetection: a file whose name gives no grammar is read for a shebang
// (and, without one, whether it is binary);
// text files are chunked only when asked (Config.Text); generated files are
// left out unless asked for, named, or marked otherwise by attributes.
func TestDetection(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"bin/tool":          "#!/usr/bin/env python3\nprint('hi')\n",
		"notes.txt":         "just words\n",
		"Dockerfile":        "FROM debian\nRUN true\n",
		"gen/model.py":      "# Code generated by protoc-gen-go. DO NOT EDIT.\nx = 1\n",
		"package-lock.json": "{}\n",
		"photo.png":         "\x89PNG\r\n\x1a\n\x00\x00",
	}
	var jobs []pipeline.Job
	for _, name := range []string{"Dockerfile", "bin/tool", "gen/model.py", "notes.txt", "package-lock.json", "photo.png"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, pipeline.Job{File: plan.File{Path: name}, Decision: plan.Decision{Lang: lang.ForPath(name)}, OSPath: p})
	}
	summary := func(rs []result) string {
		var b strings.Builder
		for _, r := range rs {
			m := r.Method
			if r.Skip != plan.Chunked {
				m = ""
			}
			fmt.Fprintf(&b, "%s:%s:%s:%s ", r.Job.Path, r.Skip, r.Language, m)
		}
		return b.String()
	}
	cfg := config(1, 100)
	got := summary(run(t, jobs, cfg))
	want := "Dockerfile:unsupported:: bin/tool:chunked:python:cast gen/model.py:generated:python: notes.txt:unsupported:: package-lock.json:generated:json: photo.png:binary:: " // its head says binary, as its whole bytes do
	if got != want {
		t.Errorf("default:\n got %s\nwant %s", got, want)
	}
	cfg.Plan.Text, cfg.Plan.KeepGenerated = true, true
	got = summary(run(t, jobs, cfg))
	want = "Dockerfile:chunked:dockerfile:sliding bin/tool:chunked:python:cast gen/model.py:chunked:python:cast notes.txt:chunked:text:sliding package-lock.json:chunked:json:cast photo.png:binary:: "
	if got != want {
		t.Errorf("--all-text --include-generated:\n got %s\nwant %s", got, want)
	}
	// Attributes and naming override the rules.
	cfg = config(1, 100)
	jobs[2].Attrs.Generated = walk.No // gen/model.py: linguist-generated=false
	jobs[4].Named = true              // package-lock.json named on the command line
	got = summary(run(t, jobs[2:5], cfg))
	want = "gen/model.py:chunked:python:cast notes.txt:unsupported:: package-lock.json:chunked:json:cast "
	if got != want {
		t.Errorf("attributes:\n got %s\nwant %s", got, want)
	}
}

// TestFunctionMethod: the function method gets the file's definitions from
// the pipeline (in a worker process too), its chunks cover part of the file
// and pass the pipeline's check of its guarantee, a file without a function
// is chunked into no record, and a cache entry of it is kept unless it
// overlaps.
func TestFunctionMethod(t *testing.T) {
	withFuncs := "import os\n\n# adds\ndef add(a, b):\n    return a + b\n\nX = add(1, 2)\n\nclass C:\n    def m(self):\n        return 1\n"
	_, jobs := setup(t, []file{{"f.py", withFuncs}, {"none.py", "X = 1\nprint(X)\n"}})
	c, err := cache.Open(t.TempDir(), "function salt")
	if err != nil {
		t.Fatal(err)
	}
	for _, inProcess := range []bool{true, false} {
		cfg := pipeline.Config{Jobs: 2, Setup: chunk.Setup{Method: &function.Method, Budget: 100}, InProcess: inProcess, Cache: c}
		for pass := range 2 {
			rs := run(t, jobs, cfg)
			var got []string
			for _, r := range decode(t, rs[0].Records) {
				got = append(got, r.Content)
				if withFuncs[r.StartByte:r.EndByte] != r.Content || r.Method != "function" {
					t.Errorf("record %+v is not the file's bytes", r)
				}
			}
			want := []string{"# adds\ndef add(a, b):\n    return a + b", "    def m(self):\n        return 1"}
			if !slices.Equal(got, want) || rs[0].Internal != nil {
				t.Errorf("in process %v, pass %d: got %q (internal %v), want %q", inProcess, pass, got, rs[0].Internal, want)
			}
			if rs[1].Skip != plan.Chunked || len(rs[1].Records) != 0 || rs[1].Internal != nil {
				t.Errorf("none.py: %v, records %q, internal %v", rs[1].Skip, rs[1].Records, rs[1].Internal)
			}
			if pass == 1 && !rs[0].Cached {
				t.Error("the second run did not use the cache")
			}
		}
	}
	key := c.Key("python", []byte(withFuncs))
	e, ok := c.Get(key)
	if !ok || len(e.Spans) != 2 {
		t.Fatalf("entry %v %+v", ok, e)
	}
	e.Spans[1].Start = e.Spans[0].End - 1 // overlaps the chunk before
	e.Spans[1].Size = chunk.Size([]byte(withFuncs[e.Spans[1].Start:e.Spans[1].End]))
	if err := c.Put(key, e); err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.Config{Jobs: 1, Setup: chunk.Setup{Method: &function.Method, Budget: 100}, InProcess: true, Cache: c}
	if r := run(t, jobs, cfg)[0]; r.Cached {
		t.Error("an entry whose chunks overlap was trusted")
	}
}
