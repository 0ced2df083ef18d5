package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/record"
)

// piecesOutput is the output of a method of pieces (no such method is
// registered yet) over two files: a.py's chunk of two pieces and a whole
// one, b.py's chunk of two pieces, whose field's value is edit (an edit of
// a body, which no chunk holds, would change no id).
func piecesOutput(t *testing.T, edit string) (a, b string) {
	t.Helper()
	enc := func(path, src string, pieces ...[]chunk.Piece) string {
		var sz chunk.Sizer
		sz.Reset([]byte(src))
		var spans []chunk.Span
		for _, p := range pieces {
			spans = append(spans, chunk.Join(&sz, p))
		}
		out, err := record.AppendFile(nil, record.File{Path: path, Language: "python", Method: "declaration", Pieces: true, Src: []byte(src)}, spans)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	srcA := "class A:\n    def f(self):\n        return 1\n    x = 2\ndef g():\n    pass\n"
	srcB := "class B:\n    def h(self):\n        return 1\n    y = " + edit + "\n"
	a = enc("a.py", srcA, []chunk.Piece{{Start: 0, End: 8}, {Start: 9, End: 25}}, []chunk.Piece{{Start: 53, End: 61}})
	b = enc("b.py", srcB, []chunk.Piece{{Start: 0, End: 8}, {Start: len(srcB) - 10, End: len(srcB) - 1}})
	return a, b
}

// TestPiecesThroughTools: records with ranges pass merge and diff byte for
// byte, and stats counts their sizes.
func TestPiecesThroughTools(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := piecesOutput(t, "3")
	if !strings.Contains(a, `"ranges":[[0,8],[9,25]]`) || !strings.Contains(a, `"ranges":[[53,61]]`) {
		t.Fatalf("records:\n%s", a)
	}
	out, stderr, code := run(t, "", "merge", write("2.jsonl", b), write("1.jsonl", a))
	if code != 0 || out != a+b {
		t.Fatalf("merge: status %d, %s\n%s\nwant\n%s", code, stderr, out, a+b)
	}
	old := write("old.jsonl", a+b)
	if out, stderr, code = run(t, "", "diff", old, old); code != 0 || out != "" {
		t.Errorf("diff of one output with itself: status %d, %s%s", code, stderr, out)
	}
	_, b2 := piecesOutput(t, "4")
	out, stderr, code = run(t, "", "diff", "--allow-mass-delete", old, write("new.jsonl", a+b2))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 2 || lines[1] != `{"op":"add",`+strings.TrimPrefix(strings.TrimSuffix(b2, "\n"), "{") {
		t.Errorf("diff: status %d, %s\n%s\nwant the add of\n%s", code, stderr, out, b2)
	}
	out, stderr, code = run(t, "", "stats", "--json", old)
	var report struct {
		Total struct {
			Chunks int `json:"chunks"`
			Sizes  struct {
				Min, Max int
			} `json:"sizes"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(out), &report); code != 0 || err != nil {
		t.Fatalf("stats: status %d, %v, %s\n%s", code, err, stderr, out)
	}
	// Sizes: "class A:" + "def f(self):" = 7+11; "def g():" = 7; "class B:" + "y = 3" = 7+3.
	if r := report.Total; r.Chunks != 3 || r.Sizes.Min != 7 || r.Sizes.Max != 18 {
		t.Errorf("stats: %s", out)
	}
}
