package pipeline_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/function"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/record"
)

// ends is a throwaway method of pieces, as declaration is (a tree method,
// Partial, Pieces): one chunk of a file's first and last lines, its
// pieces, and nothing of the lines between. Its chunker reuses its pieces
// between files and scribbles over the last ones first, as a chunker may:
// the spans handed back must not share them.
var ends = chunk.Method{
	Name: "ends", Summary: "first and last line", NeedsTree: true, Partial: true, Pieces: true,
	New: func(int, chunk.Values) chunk.Chunker { return &endsChunker{} },
}

type endsChunker struct {
	pieces []chunk.Piece
	sz     chunk.Sizer
}

func (c *endsChunker) Chunk(in chunk.Input) []chunk.Span {
	for i := range c.pieces {
		c.pieces[i] = chunk.Piece{Start: -1, End: -1}
	}
	src := in.Src
	first := strings.IndexByte(string(src), '\n')
	last := strings.LastIndexByte(string(src[:len(src)-1]), '\n')
	if first < 0 || last <= first {
		return nil
	}
	c.pieces = append(c.pieces[:0], chunk.Piece{Start: 0, End: first}, chunk.Piece{Start: last + 1, End: len(src) - 1})
	c.sz.Reset(src)
	return []chunk.Span{chunk.Join(&c.sz, c.pieces)}
}

func (c *endsChunker) Close() {}

// encodePieces writes r's records as chunk does: ranges by its method,
// cells for a notebook.
func encodePieces(t *testing.T, r result) []record.Record {
	t.Helper()
	f := record.File{Path: r.Job.Path, Language: r.Language, Method: r.Method, Pieces: r.Result.Method.Pieces, Src: r.Src, Cells: r.Cells, Regions: r.Regions}
	out, err := record.AppendFile(nil, f, r.Spans)
	if err != nil {
		t.Fatalf("%s: %v", r.Job.Path, err)
	}
	var recs []record.Record
	d := record.NewDecoder(strings.NewReader(string(out)))
	d.Strict = true
	for {
		var rec record.Record
		if err := d.Decode(&rec); err != nil {
			break
		}
		recs = append(recs, rec)
	}
	return recs
}

// TestPiecesMethod: the pipeline hands a method's spans of pieces on
// exactly, in copies of their own, and caches them: the second run's
// records are the first's.
func TestPiecesMethod(t *testing.T) {
	a := "class A:\n    def f(self):\n        return 1\n    x = 2\n"
	b := "def g():\n    pass\n    return 3\n\nG = g()\n"
	_, jobs := setup(t, []file{{"a.py", a}, {"b.py", b}})
	c, err := cache.Open(t.TempDir(), "pieces salt")
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.Config{Jobs: 1, Setup: chunk.Setup{Method: &ends, Budget: 100}, InProcess: true, Cache: c}
	want := []chunk.Piece{{Start: 0, End: 8}, {Start: 43, End: 52}}
	var first [][]record.Record
	for pass := range 2 {
		rs := run(t, jobs, cfg)
		if rs[0].Internal != nil || len(rs[0].Spans) != 1 || !reflect.DeepEqual(rs[0].Spans[0].Pieces, want) {
			t.Fatalf("pass %d: a.py: %v, spans %+v; want pieces %v", pass, rs[0].Internal, rs[0].Spans, want)
		}
		if pass == 1 && (!rs[0].Cached || !rs[1].Cached) {
			t.Errorf("the second run did not use the cache")
		}
		var recs [][]record.Record
		for _, r := range rs {
			recs = append(recs, encodePieces(t, r))
		}
		if got := recs[0][0].Content; got != "class A:\n    x = 2" {
			t.Errorf("pass %d: content %q", pass, got)
		}
		if pass == 0 {
			first = recs
		} else if !reflect.DeepEqual(recs, first) {
			t.Errorf("cached records differ:\n%+v\n%+v", recs, first)
		}
	}
}

// TestPiecesCacheOfOtherMethod: a cache entry of pieces for a method that
// makes none is not trusted: its records would lack their ranges.
func TestPiecesCacheOfOtherMethod(t *testing.T) {
	src := "def add(a, b):\n    return a + b\n"
	_, jobs := setup(t, []file{{"f.py", src}})
	c, err := cache.Open(t.TempDir(), "function salt")
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.Config{Jobs: 1, Setup: chunk.Setup{Method: &function.Method, Budget: 100}, InProcess: true, Cache: c}
	run(t, jobs, cfg)
	key := c.Key("python", []byte(src))
	e, ok := c.Get(key)
	if !ok || len(e.Spans) != 1 {
		t.Fatalf("entry %v %+v", ok, e)
	}
	var sz chunk.Sizer
	sz.Reset([]byte(src))
	e.Spans = []chunk.Span{chunk.Join(&sz, []chunk.Piece{{Start: 0, End: 14}, {Start: 19, End: 31}})}
	if err := c.Put(key, e); err != nil {
		t.Fatal(err)
	}
	if r := run(t, jobs, cfg)[0]; r.Cached || r.Spans[0].Pieces != nil {
		t.Errorf("an entry of pieces for method function was trusted: %+v", r.Spans)
	}
}

// TestPiecesNotebook: a notebook's cells are chunked one by one and their
// spans of pieces moved into the notebook's text whole, pieces too; a
// method of pieces merges no cells, and each record names its cell.
func TestPiecesNotebook(t *testing.T) {
	nb, err := json.Marshal(map[string]any{"nbformat": 4, "nbformat_minor": 5, "metadata": map[string]any{"kernelspec": map[string]any{"language": "python"}},
		"cells": []map[string]any{
			{"cell_type": "code", "metadata": map[string]any{}, "outputs": []any{}, "source": "def f():\n    y = 1\n    return 1\nf()\n"},
			{"cell_type": "code", "metadata": map[string]any{}, "outputs": []any{}, "source": "def g():\n    z = 2\n    return 2\ng()\n"},
		}})
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := setup(t, []file{{"a.ipynb", string(nb)}})
	jobs := []pipeline.Job{job(dir, "a.ipynb")}
	jobs[0].Decision = plan.Decision{Notebook: true}
	r := run(t, jobs, pipeline.Config{Jobs: 1, Setup: chunk.Setup{Method: &ends, Budget: 1000}, InProcess: true})[0]
	if r.Internal != nil || r.Skip != plan.Chunked {
		t.Fatalf("notebook: %v, %v", r.Skip, r.Internal)
	}
	recs := encodePieces(t, r)
	var got []string
	for _, rec := range recs {
		got = append(got, rec.Content)
		if !rec.HasCell || rec.Cell != rec.Index || rec.EndCell != rec.Index || len(rec.Ranges) != 2 {
			t.Errorf("record %d: cell %d..%d, ranges %v", rec.Index, rec.Cell, rec.EndCell, rec.Ranges)
		}
	}
	if want := []string{"def f():\nf()", "def g():\ng()"}; !reflect.DeepEqual(got, want) {
		t.Errorf("contents %q, want %q", got, want)
	}
}

// TestPiecesBodyRefused: a piece that holds a character of a function's
// body (chunk.Bodies, as verify finds them: a comment the body holds
// included, not one after it) fails the file with an internal error
// before anything is written, as any broken guarantee does (issue 36: the
// run exited 0 and verify failed), in a file and in a notebook's cell;
// the pipeline finds the definitions for the check of a method of pieces
// that does not read them.
func TestPiecesBodyRefused(t *testing.T) {
	nb, err := json.Marshal(map[string]any{"nbformat": 4, "nbformat_minor": 5, "metadata": map[string]any{"kernelspec": map[string]any{"language": "python"}},
		"cells": []map[string]any{
			{"cell_type": "code", "metadata": map[string]any{}, "outputs": []any{}, "source": "def f():\n    y = 1\n    return 1\n"},
		}})
	if err != nil {
		t.Fatal(err)
	}
	dir, jobs := setup(t, []file{
		{"body.py", "def g():\n    pass\n    return 3\n"},
		{"comment.py", "def g():\n    pass\n    # the end\n"},
		{"outside.py", "def g():\n    pass\n\n# the end\n"},
		{"a.ipynb", string(nb)},
	})
	jobs[3] = job(dir, "a.ipynb")
	jobs[3].Decision = plan.Decision{Notebook: true}
	rs := run(t, jobs, pipeline.Config{Jobs: 1, Setup: chunk.Setup{Method: &ends, Budget: 100}, InProcess: true})
	for i, want := range []string{"chunk 0: range [18,30) holds part of the body [8,30) of a function (line 1): a declaration leaves bodies out", "range [18,31) holds part of the body [8,31)", "", "on a notebook: chunk 0: range "} {
		r := rs[i]
		switch {
		case want == "" && r.Internal != nil:
			t.Errorf("%s: %v", r.Job.Path, r.Internal)
		case want != "" && (r.Internal == nil || !strings.Contains(r.Internal.Error(), want)):
			t.Errorf("%s: error %v, want one saying %q", r.Job.Path, r.Internal, want)
		}
	}
}
