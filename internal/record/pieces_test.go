package record

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
)

// piecesSrc is a class whose method bodies a chunk of pieces leaves out.
const piecesSrc = "class A:\n    x = 1\n    def f(self):\n        return 1\n    def g(self):\n        return 2\n"

// piecesSpans are the chunks of piecesSrc a declaration chunker makes: the
// header and field with f's signature, g's signature, and a whole chunk.
func piecesSpans(t testing.TB) []chunk.Span {
	t.Helper()
	at := func(sub string) chunk.Piece {
		i := strings.Index(piecesSrc, sub)
		if i < 0 {
			t.Fatalf("%q not in the source", sub)
		}
		return chunk.Piece{Start: i, End: i + len(sub)}
	}
	var sz chunk.Sizer
	sz.Reset([]byte(piecesSrc))
	decl := chunk.Join(&sz, []chunk.Piece{at("class A:\n    x = 1"), at("    def f(self):")})
	g := chunk.Join(&sz, []chunk.Piece{at("    def g(self):")})
	return []chunk.Span{decl, g}
}

func piecesFile() File {
	return File{Path: "a.py", Language: "python", Method: "declaration", Pieces: true, Src: []byte(piecesSrc)}
}

// TestEncodePieces: a chunk of pieces is written with ranges after
// end_byte, its content the pieces joined by a line feed, its size theirs,
// its lines those of its first and last byte and its id over the joined
// content; a whole chunk of the same method has one pair; a method
// without Pieces writes no ranges.
func TestEncodePieces(t *testing.T) {
	out, err := AppendFile(nil, piecesFile(), piecesSpans(t))
	if err != nil {
		t.Fatal(err)
	}
	joined := "class A:\n    x = 1\n    def f(self):"
	want := `{"id":"` + refID("a.py", joined, 0) + `","path":"a.py","language":"python","method":"declaration","index":0,"start_line":1,"end_line":3,"start_byte":0,"end_byte":35,"ranges":[[0,18],[19,35]],"size":21,"languages":["python"],"content":"class A:\n    x = 1\n    def f(self):"}` + "\n" +
		`{"id":"` + refID("a.py", "    def g(self):", 0) + `","path":"a.py","language":"python","method":"declaration","index":1,"start_line":5,"end_line":5,"start_byte":53,"end_byte":69,"ranges":[[53,69]],"size":11,"languages":["python"],"content":"    def g(self):"}` + "\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	f := piecesFile()
	f.Pieces = false
	out, err = AppendFile(nil, f, spansAt(piecesSrc, 18))
	if err != nil || bytes.Contains(out, []byte(`"ranges"`)) {
		t.Errorf("a method without pieces: %v\n%s", err, out)
	}
}

// TestEncodePiecesErrors: the encoder checks the pieces as it checks
// spans, and refuses pieces in a file whose records carry no ranges.
func TestEncodePiecesErrors(t *testing.T) {
	src := "ab\ncd\nef\né\n"
	p := func(ps ...chunk.Piece) chunk.Span {
		s := chunk.Span{Start: ps[0].Start, End: ps[len(ps)-1].End, Pieces: ps}
		for _, q := range ps {
			s.Size += chunk.Size([]byte(src[q.Start:q.End]))
		}
		return s
	}
	one := chunk.Span{Start: 0, End: 2, Size: 2, Pieces: []chunk.Piece{{Start: 0, End: 2}}}
	wrongSize := p(chunk.Piece{Start: 0, End: 2}, chunk.Piece{Start: 3, End: 5})
	wrongSize.Size = 5
	tests := []struct {
		name   string
		pieces bool
		span   chunk.Span
		want   string
	}{
		{"no ranges", false, p(chunk.Piece{Start: 0, End: 2}, chunk.Piece{Start: 3, End: 5}), "a.py: chunk 0 is made of 2 pieces, but method m makes chunks of one stretch"},
		{"one piece", true, one, "a.py: chunk 0: made of 1 piece"},
		{"touching", true, p(chunk.Piece{Start: 0, End: 2}, chunk.Piece{Start: 2, End: 5}), "a.py: chunk 0: piece 1 starts at byte 2"},
		{"ends differ", true, chunk.Span{Start: 0, End: 6, Size: 4, Pieces: []chunk.Piece{{Start: 0, End: 2}, {Start: 3, End: 5}}}, "pieces run from byte 0 to 5, the chunk from 0 to 6"},
		{"empty piece", true, chunk.Span{Start: 0, End: 5, Size: 2, Pieces: []chunk.Piece{{Start: 0, End: 2}, {Start: 3, End: 3}, {Start: 4, End: 5}}}, "piece 1 is empty"},
		{"size", true, wrongSize, "a.py: chunk 0 [0,5) has size 4, span says 5"},
		{"split code point", true, p(chunk.Piece{Start: 0, End: 2}, chunk.Piece{Start: 9, End: 10}), "a.py: not valid UTF-8 at byte 9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := File{Path: "a.py", Language: "python", Method: "m", Pieces: tc.pieces, Src: []byte(src)}
			out, err := AppendFile([]byte("x"), f, []chunk.Span{tc.span})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if string(out) != "x" {
				t.Errorf("output after error = %q", out)
			}
		})
	}
}

// TestDecodePieces: the decoder reads ranges (Strict too), Check accepts
// the record, and AppendRecord writes it back byte for byte.
func TestDecodePieces(t *testing.T) {
	out, err := AppendFile(nil, piecesFile(), piecesSpans(t))
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder(bytes.NewReader(out))
	d.Strict = true
	var back []byte
	var got [][]chunk.Piece
	for {
		var r Record
		if err := d.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if err := r.Check(); err != nil {
			t.Errorf("record %d: %v", r.Index, err)
		}
		got = append(got, r.Ranges)
		if back, err = new(Encoder).AppendRecord(back, &r); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 2 || len(got[0]) != 2 || got[0][1] != (chunk.Piece{Start: 19, End: 35}) || len(got[1]) != 1 {
		t.Errorf("ranges %v", got)
	}
	if !bytes.Equal(back, out) {
		t.Errorf("AppendRecord\n%s\nencoder\n%s", back, out)
	}
}

// TestDecodeRangesRejects: a malformed ranges is a LineError naming the
// field.
func TestDecodeRangesRejects(t *testing.T) {
	out, err := AppendFile(nil, piecesFile(), piecesSpans(t)[:1])
	if err != nil {
		t.Fatal(err)
	}
	good := string(out)
	for _, tc := range []struct{ ranges, want string }{
		{`"x"`, `field "ranges": want an array of [start, end] pairs, got a string`},
		{`[]`, `field "ranges": an empty array`},
		{`[5]`, `field "ranges": want an array of [start, end] pairs, got an element that is not a pair`},
		{`[[0]]`, `field "ranges": want an array of [start, end] pairs, got an element that is not a pair`},
		{`[[0,1,2]]`, `field "ranges": want an array of [start, end] pairs, got an element that is not a pair`},
		{`[[0,"a"]]`, `field "ranges": want an array of [start, end] pairs, got a pair holding a string`},
		{`[[-1,3]]`, `field "ranges": -1 is negative`},
		{`[[0,1.5]]`, `field "ranges": 1.5 is not an integer`},
		{`[[4,4]]`, `field "ranges": [4,4] is an empty or reversed range`},
		{`[[0,18],[18,35]]`, `field "ranges": [18,35] does not start after [0,18] ends`},
		{`[[0 18]]`, `malformed JSON at column`},
	} {
		line := strings.Replace(good, `"ranges":[[0,18],[19,35]]`, `"ranges":`+tc.ranges, 1)
		var r Record
		err := NewDecoder(strings.NewReader(line)).Decode(&r)
		var le *LineError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ranges %s: err = %v, want a LineError with %q", tc.ranges, err, tc.want)
		}
	}
}

// TestRecordCheckPieces: Check holds a record of ranges to them: from
// start_byte to end_byte, and a content of their bytes joined by a line
// feed; a single range is the chunk's.
func TestRecordCheckPieces(t *testing.T) {
	good := Record{ID: strings.Repeat("0", 32), Path: "a.py", Language: "python", Method: "declaration",
		StartLine: 1, EndLine: 3, StartByte: 0, EndByte: 12, Size: 4,
		Ranges: []chunk.Piece{{Start: 0, End: 3}, {Start: 10, End: 12}}, Content: "ab\n\ncd"}
	if err := good.Check(); err != nil {
		t.Fatalf("good record: %v", err)
	}
	for _, tc := range []struct {
		name string
		mod  func(*Record)
		want string
	}{
		{"start", func(r *Record) { r.StartByte = 1 }, "ranges: pieces run from byte 0 to 12, the chunk from 1 to 12"},
		{"no joiner", func(r *Record) { r.Content = "ab\nxcd" }, "content is not its 2 ranges joined by a line feed (no line feed at byte 3)"},
		{"length", func(r *Record) { r.Content = "ab\n\ncde" }, "content has 7 bytes, its 2 ranges and the line feeds between them 6"},
		{"size", func(r *Record) { r.Size = 6 }, "size is 6, content has 4"},
		{"end line", func(r *Record) { r.EndLine = 0 }, "end_line 0 is before start_line 1"},
		{"one range", func(r *Record) { r.Ranges = []chunk.Piece{{Start: 0, End: 11}} }, "ranges is [[0,11]], the chunk is [0,12)"},
	} {
		r := good
		tc.mod(&r)
		if err := r.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestParquetPieces: a chunk of pieces's row holds its ranges, a whole
// chunk's one pair, and a file of another method's an empty list, each
// row equal to its JSON Lines record.
func TestParquetPieces(t *testing.T) {
	plain := File{Path: "b.py", Language: "python", Method: "cast", Src: []byte("x = 1\n")}
	files := []pqFile{{piecesFile(), piecesSpans(t)}, {plain, spansAt("x = 1\n")}}
	jl, _ := writeFormat(t, "jsonl", Default(), files)
	pq, _ := writeFormat(t, "parquet", Default(), files)
	_, got := goRows(t, pq)
	sameRows(t, "parquet-go", got, jsonlRows(t, jl))
	if len(got) != 3 || !strings.Contains(got[0], `"ranges":[{"end":18,"start":0},{"end":35,"start":19}]`) ||
		!strings.Contains(got[2], `"ranges":[]`) {
		t.Errorf("rows:\n%s", strings.Join(got, "\n"))
	}
}

// TestLanguagesOfPieces: a chunk of pieces holds the languages of its
// pieces, not of the gaps between them.
func TestLanguagesOfPieces(t *testing.T) {
	f := File{Language: "markdown", Src: []byte(fenceMD), Regions: fenceRegions}
	prose, end := strings.Index(fenceMD, "prose\n"), strings.Index(fenceMD, "end\n")
	ranges := []chunk.Piece{{Start: prose, End: prose + 6}, {Start: end, End: end + 4}}
	if got := strings.Join(f.LanguagesOf(nil, ranges, "markdown"), " "); got != "markdown" {
		t.Errorf("languages of pieces around two fences: %q, want markdown", got)
	}
	py := strings.Index(fenceMD, "x = 1")
	ranges[1] = chunk.Piece{Start: py, End: py + 5}
	if got := strings.Join(f.LanguagesOf(nil, ranges, "markdown"), " "); got != "markdown python" {
		t.Errorf("languages of prose and the Python fence's code: %q", got)
	}
}
