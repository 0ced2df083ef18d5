package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/record"
)

// declLike is a method whose chunks may be of several pieces, as
// declaration's are (Partial, Pieces); castchunk registers none yet.
var declLike = &chunk.Method{Name: "decl", Partial: true, Pieces: true}

// piecesVerifier is a Verifier that knows declLike besides the registry.
func piecesVerifier(root string) *Verifier {
	return &Verifier{Root: root, Methods: func(name string) *chunk.Method {
		if name == declLike.Name {
			return declLike
		}
		return method.ByName(name)
	}}
}

// filePieces is a class and a function: chunks of pieces leave the bodies
// out.
const filePieces = "class A:\n    x = 1\n    def f(self):\n        return 1\n    def g(self):\n        return 2\n\ndef h():\n    pass\n"

// piecesRecords writes filePieces to root and returns the records of its
// chunks made by declLike: A's header, field and f's signature; g's
// signature alone (a whole chunk); h's signature.
func piecesRecords(t *testing.T, root string) []record.Record {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, "p.py"), []byte(filePieces), 0o644); err != nil {
		t.Fatal(err)
	}
	at := func(sub string) chunk.Piece {
		i := strings.Index(filePieces, sub)
		return chunk.Piece{Start: i, End: i + len(sub)}
	}
	var sz chunk.Sizer
	sz.Reset([]byte(filePieces))
	spans := []chunk.Span{
		chunk.Join(&sz, []chunk.Piece{at("class A:\n    x = 1"), at("    def f(self):")}),
		chunk.Join(&sz, []chunk.Piece{at("    def g(self):")}),
		chunk.Join(&sz, []chunk.Piece{at("def h():")}),
	}
	out, err := record.AppendFile(nil, record.File{Path: "p.py", Language: "python", Method: "decl", Pieces: true, Src: []byte(filePieces)}, spans)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, out)
}

// TestVerifyPieces: verify accepts the records of a method of pieces as
// the encoder writes them, and finds each way one can be wrong.
func TestVerifyPieces(t *testing.T) {
	root := t.TempDir()
	clean := piecesRecords(t, root)
	if len(clean) != 3 || len(clean[0].Ranges) != 2 || len(clean[1].Ranges) != 1 {
		t.Fatalf("records %+v", clean)
	}
	if _, lines := checkWith(piecesVerifier(root), clean); len(lines) != 0 {
		t.Fatalf("clean records of pieces: %s", strings.Join(lines, "\n"))
	}
	tests := []struct {
		name   string
		budget int
		mod    func(recs []record.Record)
		want   []string // the problem lines, each a fragment, in order
	}{
		{"content", 0, func(recs []record.Record) {
			recs[0].Content = strings.Replace(recs[0].Content, "x = 1", "x = 2", 1)
		}, []string{"p.py: chunk 0: content differs from the file's bytes of its 2 ranges joined by a line feed"}},
		{"ranges moved", 0, func(recs []record.Record) {
			recs[0].Ranges = []chunk.Piece{recs[0].Ranges[0], {Start: recs[0].Ranges[1].Start + 1, End: recs[0].Ranges[1].End + 1}}
			recs[0].EndByte++
		}, []string{"p.py: chunk 0: content differs from the file's bytes of its 2 ranges"}},
		{"end line", 0, func(recs []record.Record) { recs[0].EndLine = 2 }, []string{"p.py: chunk 0: end_line is 2, its last byte (34) is on line 3"}},
		{"start line", 0, func(recs []record.Record) { recs[2].StartLine, recs[2].EndLine = 7, 7 }, []string{"p.py: chunk 2: start_line is 7, byte 88 is on line 8"}},
		{"size", 0, func(recs []record.Record) { recs[0].Size++ }, []string{"p.py: chunk 0: size is 22, content has 21"}},
		{"budget", 20, func([]record.Record) {}, []string{"p.py: chunk 0: size 21 is over the budget of 20"}},
		{"no ranges", 0, func(recs []record.Record) { recs[1].Ranges = nil }, []string{"p.py: chunk 1: no ranges: the records of method decl, whose chunks may be of several pieces, carry them"}},
		{"ranges of cast", 0, func(recs []record.Record) {
			for i := range recs {
				recs[i].Method = "cast"
			}
			recs[1].Ranges, recs[2].Ranges = nil, nil
		}, []string{"p.py: chunk 0: ranges is set, but method cast makes chunks of one stretch", "p.py: chunk 1: bytes [35,53) are in no chunk",
			"p.py: chunk 2: bytes [69,88) are in no chunk", "p.py: chunks end at byte 96, the file has 106 bytes"}},
		{"overlap", 0, func(recs []record.Record) {
			// g's chunk moved to start inside A's: its pieces are apart
			// from A's, but chunks never overlap from first to last byte.
			recs[1] = recs[0]
			recs[1].Index = 1
			recs[1].StartByte, recs[1].EndByte = recs[0].Ranges[1].Start, recs[0].Ranges[1].End
			recs[1].Ranges = []chunk.Piece{recs[0].Ranges[1]}
			recs[1].Content, recs[1].Size, recs[1].StartLine, recs[1].EndLine = "    def f(self):", 11, 3, 3
		}, []string{"p.py: chunk 1: overlaps the previous chunk by 16 bytes"}},
		{"past the end", 0, func(recs []record.Record) {
			recs[2].Ranges = []chunk.Piece{recs[2].Ranges[0], {Start: len(filePieces) + 2, End: len(filePieces) + 4}}
			recs[2].EndByte = len(filePieces) + 4
			recs[2].Content += "\nxy"
			recs[2].Size += 2
		}, []string{"p.py: chunk 2: byte range [88,110) runs past the end of the file (106 bytes)"}},
		{"pieces touch", 0, func(recs []record.Record) {
			// Built by hand (the decoder refuses it): no panic, Check says why.
			recs[0].Ranges = []chunk.Piece{{Start: 0, End: 18}, {Start: 18, End: 35}}
		}, []string{"p.py: chunk 0: ranges: piece 1 starts at byte 18, not after the previous one ends at 18"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs := piecesRecords(t, root)
			tc.mod(recs)
			fixIDs(recs)
			v := piecesVerifier(root)
			v.Budget = tc.budget
			_, lines := checkWith(v, recs)
			if len(lines) != len(tc.want) {
				t.Fatalf("problems:\n%s\nwant %d: %q", strings.Join(lines, "\n"), len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(lines[i], w) {
					t.Errorf("problem %d: %s\nwant %q", i, lines[i], w)
				}
			}
		})
	}
}

// TestVerifyBodyComment: a comment above a function's first statement is
// part of its body, as the declaration chunker leaves it out (issue 36:
// verify read the body as the grammar's body field, which starts at the
// statement, so a record whose extra piece was that comment passed).
func TestVerifyBodyComment(t *testing.T) {
	root := t.TempDir()
	const src = "class A:\n    def f(self):\n        # the first step\n        return 1\n\ndef g():\n    pass\n"
	if err := os.WriteFile(filepath.Join(root, "c.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	at := func(sub string) chunk.Piece {
		i := strings.Index(src, sub)
		return chunk.Piece{Start: i, End: i + len(sub)}
	}
	var sz chunk.Sizer
	sz.Reset([]byte(src))
	records := func(first []chunk.Piece) []record.Record {
		spans := []chunk.Span{chunk.Join(&sz, first), chunk.Join(&sz, []chunk.Piece{at("def g():")})}
		out, err := record.AppendFile(nil, record.File{Path: "c.py", Language: "python", Method: "decl", Pieces: true, Src: []byte(src)}, spans)
		if err != nil {
			t.Fatal(err)
		}
		return decode(t, out)
	}
	if _, lines := checkWith(piecesVerifier(root), records([]chunk.Piece{at("class A:"), at("    def f(self):")})); len(lines) != 0 {
		t.Fatalf("clean records: %s", strings.Join(lines, "\n"))
	}
	tampered := records([]chunk.Piece{at("class A:"), at("    def f(self):"), at("        # the first step")})
	_, lines := checkWith(piecesVerifier(root), tampered)
	want := "c.py: chunk 0: range [26,50) holds part of the body [25,67) of a function (line 2): a declaration leaves bodies out"
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("problems:\n%s\nwant\n%s", strings.Join(lines, "\n"), want)
	}
}
