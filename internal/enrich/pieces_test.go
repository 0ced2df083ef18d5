package enrich

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/record"
)

// TestWorkerPieces: a chunk of pieces (App's header and other's signature,
// handle left out) defines what starts in its pieces only, and its tokens
// are those of its header and joined text.
func TestWorkerPieces(t *testing.T) {
	l, tree := parsed(t, "python", pySrc)
	enc := loadEncoding(t, "cl100k_base")
	w := NewWorker(Options{Context: true, Encoding: enc, Text: true})
	defer w.Close()
	b := chunk.Budget{Size: 1000}
	if _, err := w.Begin("src/app.py", l, []byte(pySrc), tree, nil, b); err != nil {
		t.Fatal(err)
	}
	var sz chunk.Sizer
	sz.Reset([]byte(pySrc))
	s := chunk.Join(&sz, []chunk.Piece{{Start: 11, End: 21}, {Start: 81, End: 101}})
	_, extras, err := w.Finish([]chunk.Span{s}, b, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]record.Def{defApp, defOther}, extras[0].Defines); diff != "" {
		t.Errorf("defines (-want +got):\n%s", diff)
	}
	text := extras[0].Header + string(s.Text([]byte(pySrc)))
	if n := enc.NewCounter().Count([]byte(text)); extras[0].Tokens != n {
		t.Errorf("tokens %d, the text %q has %d", extras[0].Tokens, text, n)
	}
}
