package eval

import (
	"slices"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
)

// TestDocOfPieces: a chunk of several pieces (a class's header and its
// methods' signatures, as the declaration method makes) is indexed and put
// in the context as its pieces joined, as chunk writes it, and covers the
// lines of its pieces only: not the bodies between them, and of a piece
// the context cuts, only the lines it keeps.
func TestDocOfPieces(t *testing.T) {
	src := []byte("import os\n" + // 1
		"class Ledger:\n" + // 2
		"    def post(self, a):\n" + // 3
		"        self.total += a\n" + // 4
		"        return a\n" + // 5
		"    def void(self,\n" + // 6
		"             a):\n" + // 7
		"        self.total -= a\n") // 8
	off := func(line int) int { // the byte where line starts
		n := 0
		for l := 1; l < line; l++ {
			n += len(lines(src)[l-1]) + 1
		}
		return n
	}
	pieces := []chunk.Piece{{Start: off(2), End: off(4)}, {Start: off(6), End: off(8)}} // lines 2-3 and 6-7
	sp := chunk.Span{Start: pieces[0].Start, End: pieces[1].End, Pieces: pieces}
	prior := []docPiece{{start: 0, end: 1, first: 1}} // another document's
	d, all := newDoc(4, src, sp, 2, prior)
	if d.entry != 4 || d.first != 2 || d.last != 7 || d.pieces != 1 || d.npieces != 2 || d.header != -1 {
		t.Fatalf("doc %+v", d)
	}
	ps := piecesOf(d, all)
	if want := []docPiece{{int32(off(2)), int32(off(4)), 2}, {int32(off(6)), int32(off(8)), 6}}; !slices.Equal(ps, want) {
		t.Fatalf("pieces %v, want %v", ps, want)
	}
	content := appendContent([]byte("hdr\n"), src, d, ps)[4:]
	if string(content) != string(sp.Text(src)) {
		t.Fatalf("content %q, want chunk's text %q", content, sp.Text(src))
	}
	if got := keptLines(d, ps, content, len(content)); !slices.Equal(got, [][2]int{{2, 3}, {6, 7}}) {
		t.Errorf("whole: lines %v, want 2-3 and 6-7", got)
	}
	if r, _ := lineRecall([]goldFile{{Path: "a.py", Lines: []int{4, 5}}}, spansOf("a.py", keptLines(d, ps, content, len(content)))); r != 0 {
		t.Errorf("the bodies left out count: recall %v, want 0", r)
	}
	first := off(4) - off(2) // the first piece, its last line feed included
	for _, c := range []struct {
		kept int
		want [][2]int
	}{
		{0, nil},
		{first - 1, [][2]int{{2, 3}}},         // the first piece without its line feed
		{first, [][2]int{{2, 3}}},             // the first piece
		{first + 1, [][2]int{{2, 3}}},         // and the joiner: no line of the second
		{first + 2, [][2]int{{2, 3}, {6, 6}}}, // a byte of the second
		{first + 1 + len("    def void(self,\n"), [][2]int{{2, 3}, {6, 6}}}, // its first line
		{first + 2 + len("    def void(self,\n"), [][2]int{{2, 3}, {6, 7}}},
	} {
		if got := keptLines(d, ps, content, c.kept); !slices.Equal(got, c.want) {
			t.Errorf("kept %d: lines %v, want %v", c.kept, got, c.want)
		}
	}
	// A chunk of one stretch: its lines, as before.
	whole := chunk.Span{Start: off(2), End: off(6)}
	w, rest := newDoc(0, src, whole, 2, all)
	if len(rest) != len(all) || piecesOf(w, rest) != nil {
		t.Fatalf("a whole chunk added pieces: %+v", w)
	}
	wc := appendContent(nil, src, w, nil)
	if string(wc) != string(src[off(2):off(6)]) {
		t.Errorf("whole content %q", wc)
	}
	if got := keptLines(w, nil, wc, len(wc)); !slices.Equal(got, [][2]int{{2, 5}}) {
		t.Errorf("whole chunk: lines %v, want 2-5", got)
	}
}

func lines(src []byte) []string {
	var out []string
	eachLine(src, func(l []byte) { out = append(out, string(l)) })
	return out
}

func spansOf(path string, ls [][2]int) []lineSpan {
	var out []lineSpan
	for _, l := range ls {
		out = append(out, lineSpan{Path: path, First: l[0], Last: l[1]})
	}
	return out
}
