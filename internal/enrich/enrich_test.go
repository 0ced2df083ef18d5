package enrich

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/outline"
)

func TestHeader(t *testing.T) {
	scope := []outline.Def{{Kind: "class", Name: "App"}, {Kind: "method", Name: "handle"}}
	for _, c := range []struct {
		path  string
		scope []outline.Def
		want  string
	}{
		{"a.py", nil, "a.py\n"},
		{"src/app.py", scope, "src/app.py\nclass App > method handle\n"},
		{"src/app.py", scope[:1], "src/app.py\nclass App\n"},
		// A line break in a name must not start a header line of its own.
		{"odd\nname.py", nil, "odd name.py\n"},
		{"odd\r\nname.py", scope[:1], "odd  name.py\nclass App\n"},
	} {
		if got := Header(c.path, c.scope); got != c.want {
			t.Errorf("Header(%q, %v) = %q, want %q", c.path, c.scope, got, c.want)
		}
	}
}

// TestKey: --context changes no chunk's boundaries, but a cache entry
// holds each chunk's scope and defines, so the key tells it apart: a run
// with --context must not be answered by an entry stored without it.
func TestKey(t *testing.T) {
	if on, off := (Options{Context: true}).Key(), (Options{}).Key(); on == off {
		t.Errorf("--context changes what the cache stores, but Key is %q either way", on)
	}
	if on, off := (Options{Context: true, Text: true}).Key(), (Options{Text: true}).Key(); on == off {
		t.Errorf("--context with --embed-text: Key is %q either way", on)
	}
	if a, b := (Options{Text: true}).Key(), (Options{}).Key(); a == b {
		t.Errorf("--embed-text changes the chunks, but Key is %q either way", a)
	}
}

// TestInOrder: after windows were split, starts and ends increase
// strictly; a piece inside the spans before it is dropped.
func TestInOrder(t *testing.T) {
	spans := []chunk.Span{{Start: 0, End: 5}, {Start: 5, End: 8}, {Start: 3, End: 10}, {Start: 5, End: 12}, {Start: 10, End: 12}, {Start: 11, End: 14}}
	want := []chunk.Span{{Start: 0, End: 5}, {Start: 3, End: 10}, {Start: 5, End: 12}, {Start: 11, End: 14}}
	if diff := cmp.Diff(want, inOrder(spans)); diff != "" {
		t.Errorf("inOrder (-want +got):\n%s", diff)
	}
}

// TestFinishRefits: a span whose content fits the budget but whose text
// (header included) does not is split, and every piece's text fits.
func TestFinishRefits(t *testing.T) {
	src := []byte("aaaa\nbbbb\ncccc\n")
	w := NewWorker(Options{Text: true})
	defer w.Close()
	b := chunk.Budget{Size: 12}
	if _, err := w.Begin("p.txt", nil, src, nil, nil, b); err != nil {
		t.Fatal(err)
	}
	spans := []chunk.Span{{Start: 0, End: len(src), Size: 12}}
	got, extras, err := w.Finish(spans, b, false)
	if err != nil {
		t.Fatal(err)
	}
	// "p.txt\n" takes 5 characters: 7 are left, one line of 4 per chunk.
	want := []chunk.Span{{Start: 0, End: 5, Size: 4}, {Start: 5, End: 10, Size: 4}, {Start: 10, End: 15, Size: 4}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	for i, e := range extras {
		if e.Header != "p.txt\n" {
			t.Errorf("chunk %d: header %q", i, e.Header)
		}
	}
}
