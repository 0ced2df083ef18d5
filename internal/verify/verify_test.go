package verify

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/record"
)

// The files of the clean output. Chunks are cut at the given line starts.
var (
	fileA = "import os\n\ndef f(x):\n    return x + 1\n\ndef g(y):\n    return y * 2\n\nclass C:\n    pass\n"
	cutsA = []string{"def f", "def g", "class C"} // 4 chunks
	fileB = "x = 1\ny = 2\nz = 3\n"
	cutsB = []string{"y = 2", "z = 3"} // 3 chunks
	fileS = "l1 = 1\nl2 = 2\nl3 = 3\nl4 = 4\nl5 = 5\nl6 = 6\n"
)

// fixture is a root holding a.py and b.py and their clean records.
type fixture struct {
	root string
	src  map[string][]byte
	recs []record.Record // a.py's 4 records, then b.py's 3
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	fx := &fixture{root: t.TempDir(), src: map[string][]byte{}}
	var out []byte
	for _, f := range []struct {
		path, text string
		cuts       []string
	}{{"a.py", fileA, cutsA}, {"b.py", fileB, cutsB}} {
		fx.write(t, f.path, f.text)
		out = encode(t, out, f.path, "cast", []byte(f.text), lineSpans(t, f.text, f.cuts...))
	}
	fx.recs = decode(t, out)
	if len(fx.recs) != 7 {
		t.Fatalf("clean output has %d records, want 7", len(fx.recs))
	}
	return fx
}

func (fx *fixture) write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(fx.root, path), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	fx.src[path] = []byte(text)
}

// clone returns a copy of the clean records to corrupt.
func (fx *fixture) clone() []record.Record { return slices.Clone(fx.recs) }

// remake moves r to [start, end) of its file and recomputes every field that
// follows from the range (content, lines, size), so that the only thing
// wrong with it is where it lies. The id is recomputed by fixIDs.
func (fx *fixture) remake(r *record.Record, start, end int) {
	src := fx.src[r.Path]
	r.StartByte, r.EndByte = start, end
	r.Content = string(src[start:end])
	r.StartLine = 1 + strings.Count(string(src[:start]), "\n")
	r.EndLine = r.StartLine + strings.Count(r.Content[:len(r.Content)-1], "\n")
	r.Size = chunk.Size([]byte(r.Content))
}

// fixIDs gives every record the id the recipe gives it at its place in recs.
func fixIDs(recs []record.Record) {
	seen := map[string]int{}
	for i := range recs {
		key := recs[i].Path + "\x00" + recs[i].Content
		recs[i].ID = record.ID("", recs[i].Path, []byte(recs[i].Content), seen[key])
		seen[key]++
	}
}

// lineSpans cuts text before each of the given (unique) substrings.
func lineSpans(t *testing.T, text string, cuts ...string) []chunk.Span {
	t.Helper()
	var spans []chunk.Span
	start := 0
	for _, c := range cuts {
		at := strings.Index(text, c)
		if at <= start {
			t.Fatalf("cut %q not found after byte %d", c, start)
		}
		spans = append(spans, chunk.Span{Start: start, End: at, Size: chunk.Size([]byte(text[start:at]))})
		start = at
	}
	return append(spans, chunk.Span{Start: start, End: len(text), Size: chunk.Size([]byte(text[start:]))})
}

// lineAt returns the byte offset of the start of 1-based line n of text.
func lineAt(text string, n int) int {
	at := 0
	for ; n > 1; n-- {
		at += strings.IndexByte(text[at:], '\n') + 1
	}
	return at
}

func encode(t *testing.T, dst []byte, path, method string, src []byte, spans []chunk.Span) []byte {
	t.Helper()
	out, err := record.AppendFile(dst, record.File{Path: path, Language: "python", Method: method, Src: src}, spans)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func decode(t *testing.T, out []byte) []record.Record {
	t.Helper()
	dec := record.NewDecoder(strings.NewReader(string(out)))
	var recs []record.Record
	for {
		var r record.Record
		err := dec.Decode(&r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return recs
			}
			t.Fatalf("decode: %v", err)
		}
		recs = append(recs, r)
	}
}

// check runs a Verifier over recs and returns its problem lines.
func check(root string, budget int, recs []record.Record) (*Verifier, []string) {
	var lines []string
	v := &Verifier{Root: root, Budget: budget, Report: func(p Problem) { lines = append(lines, p.String()) }}
	for i := range recs {
		r := recs[i]
		v.Add(&r)
	}
	v.Finish()
	return v, lines
}

func TestVerifyCleanOutput(t *testing.T) {
	fx := newFixture(t)
	v, lines := check(fx.root, 0, fx.clone())
	if len(lines) != 0 || v.Problems != 0 {
		t.Fatalf("clean output: %d problems:\n%s", v.Problems, strings.Join(lines, "\n"))
	}
	if v.Records != 7 || v.Files != 2 {
		t.Errorf("Records, Files = %d, %d; want 7, 2", v.Records, v.Files)
	}
	// The budget check passes at the largest chunk's size.
	largest := 0
	for _, r := range fx.recs {
		largest = max(largest, r.Size)
	}
	if v, lines := check(fx.root, largest, fx.clone()); v.Problems != 0 {
		t.Errorf("budget %d (the largest chunk): %s", largest, strings.Join(lines, "\n"))
	}
}

// TestVerifyCorrupted corrupts the clean output one way at a time. Each
// case lists the problem lines it must produce, as prefix "PATH: chunk N: "
// (or "PATH: " for a problem with the whole file) plus a fragment of the
// message; with exact, no other line may be reported.
func TestVerifyCorrupted(t *testing.T) {
	type want struct{ prefix, fragment string }
	cases := []struct {
		name    string
		budget  int
		corrupt func(fx *fixture, recs []record.Record) []record.Record
		want    []want
		exact   bool
	}{
		{
			name: "changed content byte",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				// "def f" -> "def h": same length, same size, other bytes.
				recs[1].Content = strings.Replace(recs[1].Content, "def f", "def h", 1)
				return recs
			},
			want:  []want{{"a.py: chunk 1: ", "content differs"}, {"a.py: chunk 1: ", "id is"}},
			exact: true,
		},
		{
			name: "changed content byte with a consistent id",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				recs[1].Content = strings.Replace(recs[1].Content, "def f", "def h", 1)
				fixIDs(recs)
				return recs
			},
			want:  []want{{"a.py: chunk 1: ", "content differs"}},
			exact: true,
		},
		{
			name: "missing middle chunk",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				return slices.Delete(recs, 1, 2)
			},
			want:  []want{{"a.py: chunk 2: ", "index is 2, expected 1"}, {"a.py: chunk 2: ", "are in no chunk"}},
			exact: true,
		},
		{
			name: "missing last chunk",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				return slices.Delete(recs, 3, 4)
			},
			want:  []want{{"a.py: ", "chunks are missing at the end"}},
			exact: true,
		},
		{
			name: "missing last chunk of the last file",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				return recs[:len(recs)-1]
			},
			want:  []want{{"b.py: ", "chunks are missing at the end"}},
			exact: true,
		},
		{
			name: "missing first chunk",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				return slices.Delete(recs, 0, 1)
			},
			want:  []want{{"a.py: chunk 1: ", "index is 1, expected 0"}, {"a.py: chunk 1: ", "first chunk starts at byte 11, not 0"}},
			exact: true,
		},
		{
			name: "overlap (cast)",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				fx.remake(&recs[2], recs[2].StartByte-2, recs[2].EndByte)
				fixIDs(recs)
				return recs
			},
			want:  []want{{"a.py: chunk 2: ", "overlaps the previous chunk by 2 bytes"}},
			exact: true,
		},
		{
			name: "gap",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				fx.remake(&recs[2], recs[2].StartByte+4, recs[2].EndByte)
				fixIDs(recs)
				return recs
			},
			want:  []want{{"a.py: chunk 2: ", fmt.Sprintf("bytes [%d,%d) are in no chunk", strings.Index(fileA, "def g"), strings.Index(fileA, "def g")+4)}},
			exact: true,
		},
		{
			name: "wrong size",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				recs[1].Size++
				return recs
			},
			want:  []want{{"a.py: chunk 1: ", "size is"}},
			exact: true,
		},
		{
			name: "wrong end_line",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				recs[1].EndLine++
				return recs
			},
			want:  []want{{"a.py: chunk 1: ", "end_line is"}},
			exact: true,
		},
		{
			name: "wrong start_line (end_line shifted with it)",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				recs[1].StartLine++
				recs[1].EndLine++
				return recs
			},
			want:  []want{{"a.py: chunk 1: ", "start_line is 4, byte 11 is on line 3"}},
			exact: true,
		},
		{
			name: "duplicated record",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				return slices.Insert(recs, 2, recs[1])
			},
			want: []want{
				{"a.py: chunk 1: ", "index is 1, expected 2"},
				{"a.py: chunk 1: ", "overlaps the previous chunk"},
				{"a.py: chunk 1: ", "id is"},
			},
			exact: true,
		},
		{
			name: "swapped pair",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				recs[1], recs[2] = recs[2], recs[1]
				return recs
			},
			want: []want{
				{"a.py: chunk 2: ", "index is 2, expected 1"},
				{"a.py: chunk 2: ", "are in no chunk"},
				{"a.py: chunk 1: ", "overlaps the previous chunk"},
			},
		},
		{
			name: "id altered",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				recs[1].ID = record.ID("", "a.py", []byte("something else"), 0)
				return recs
			},
			want:  []want{{"a.py: chunk 1: ", "id is " + record.ID("", "a.py", []byte("something else"), 0)}},
			exact: true,
		},
		{
			name: "id of another path",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				recs[1].ID = record.ID("", "b.py", []byte(recs[1].Content), 0)
				return recs
			},
			want:  []want{{"a.py: chunk 1: ", "the recipe gives"}},
			exact: true,
		},
		{
			name:   "over-budget chunk",
			budget: 10,
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				return recs
			},
			// a.py's chunks have sizes 8, 17, 17, 11; b.py's 3, 3, 3.
			want: []want{
				{"a.py: chunk 1: ", "size 17 is over the budget of 10"},
				{"a.py: chunk 2: ", "size 17 is over the budget of 10"},
				{"a.py: chunk 3: ", "size 11 is over the budget of 10"},
			},
			exact: true,
		},
		{
			name: "file no longer exists",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				if err := os.Remove(filepath.Join(fx.root, "b.py")); err != nil {
					t.Fatal(err)
				}
				return recs
			},
			want:  []want{{"b.py: ", "cannot read the file"}},
			exact: true,
		},
		{
			name: "file grew since it was chunked",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				fx.write(t, "b.py", fileB+"w = 4\n")
				return recs
			},
			want:  []want{{"b.py: ", "chunks end at byte 18, the file has 24 bytes"}},
			exact: true,
		},
		{
			name: "file shrank since it was chunked",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				fx.write(t, "b.py", fileB[:14])
				return recs
			},
			want:  []want{{"b.py: chunk 2: ", "runs past the end of the file (14 bytes)"}, {"b.py: ", "chunks end at byte 12, the file has 14 bytes"}},
			exact: true,
		},
		{
			name: "records of one file split by another file's records",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				// a0 a1 b0 b1 b2 a2 a3
				return slices.Concat(recs[0:2], recs[4:7], recs[2:4])
			},
			want: []want{
				{"a.py: ", "chunks are missing at the end"},
				{"a.py: ", "its records are not together"},
				{"a.py: chunk 2: ", "index is 2, expected 0"},
			},
		},
		{
			name: "a second copy of a file's records",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				return slices.Concat(recs, recs[0:4])
			},
			want: []want{{"a.py: ", "its records are not together"}},
		},
		{
			name: "cast record that overlaps as if it were a sliding window",
			corrupt: func(fx *fixture, recs []record.Record) []record.Record {
				fx.remake(&recs[2], lineAt(fileA, 4), recs[2].EndByte)
				fixIDs(recs)
				return recs
			},
			want:  []want{{"a.py: chunk 2: ", "overlaps the previous chunk"}},
			exact: true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fx := newFixture(t)
			recs := c.corrupt(fx, fx.clone())
			v, lines := check(fx.root, c.budget, recs)
			if v.Problems != len(lines) {
				t.Errorf("Problems = %d, but %d lines were reported", v.Problems, len(lines))
			}
			for _, w := range c.want {
				found := false
				for _, l := range lines {
					if strings.HasPrefix(l, w.prefix) && strings.Contains(l, w.fragment) &&
						(strings.Contains(w.prefix, "chunk") || !strings.Contains(l, ": chunk ")) {
						found = true
					}
				}
				if !found {
					t.Errorf("no problem line %q…%q", w.prefix, w.fragment)
				}
			}
			if c.exact && len(lines) != len(c.want) {
				t.Errorf("%d problem lines, want exactly %d", len(lines), len(c.want))
			}
			if t.Failed() {
				t.Logf("reported:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}

// TestVerifySlidingOverlap: sliding windows that share lines are accepted,
// as long as each starts after the previous one; a sliding window that does
// not move forward is not.
func TestVerifySlidingOverlap(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "s.py"), []byte(fileS), 0o644); err != nil {
		t.Fatal(err)
	}
	span := func(a, b int) chunk.Span { // lines [a, b), 1-based; b == 7: to the end
		s, e := lineAt(fileS, a), lineAt(fileS, b)
		if b == 7 {
			e = len(fileS)
		}
		return chunk.Span{Start: s, End: e, Size: chunk.Size([]byte(fileS[s:e]))}
	}
	build := func(method string, spans ...chunk.Span) []record.Record {
		return decode(t, encode(t, nil, "s.py", method, []byte(fileS), spans))
	}
	// Windows of 3 lines, one line of overlap: lines 1-3, 3-5, 5-6.
	overlapping := []chunk.Span{span(1, 4), span(3, 6), span(5, 7)}
	if _, lines := check(root, 0, build("sliding", overlapping...)); len(lines) != 0 {
		t.Errorf("sliding windows with overlap rejected:\n%s", strings.Join(lines, "\n"))
	}
	// RepoCoder-style windows: 4 lines every 2, the last ones shrinking.
	stride := []chunk.Span{span(1, 5), span(3, 7), span(5, 7)}
	if _, lines := check(root, 0, build("sliding", stride...)); len(lines) != 0 {
		t.Errorf("fixed windows with a stride rejected:\n%s", strings.Join(lines, "\n"))
	}
	// The same windows, labelled cast: overlap is not allowed.
	if _, lines := check(root, 0, build("cast", overlapping...)); len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "s.py: chunk 1: overlaps") || !strings.HasPrefix(lines[1], "s.py: chunk 2: overlaps") {
		t.Errorf("cast chunks that overlap: got\n%s", strings.Join(lines, "\n"))
	}
	// A window that starts where the previous one started does not move forward.
	same := build("sliding", span(1, 4), span(1, 5), span(5, 7))
	if _, lines := check(root, 0, same); len(lines) != 1 || !strings.HasPrefix(lines[0], "s.py: chunk 1: overlaps") {
		t.Errorf("sliding window that does not move forward: got\n%s", strings.Join(lines, "\n"))
	}
	// A window that starts before the previous one (the encoder refuses to
	// write it, so build it by hand): rejected too.
	back := build("sliding", span(1, 4), span(3, 5), span(5, 7))
	fx := &fixture{root: root, src: map[string][]byte{"s.py": []byte(fileS)}}
	fx.remake(&back[2], lineAt(fileS, 2), len(fileS)) // lines 2-6: starts before its predecessor (line 3)
	fixIDs(back)
	if _, lines := check(root, 0, back); len(lines) != 1 || !strings.HasPrefix(lines[0], "s.py: chunk 2: overlaps") {
		t.Errorf("sliding window that moves backwards: got\n%s", strings.Join(lines, "\n"))
	}
	// A gap between sliding windows is a gap.
	gap := build("sliding", span(1, 3), span(4, 7))
	if _, lines := check(root, 0, gap); len(lines) != 1 || !strings.HasPrefix(lines[0], "s.py: chunk 1: bytes [") {
		t.Errorf("sliding windows with a gap: got\n%s", strings.Join(lines, "\n"))
	}
}

// TestVerifyPartial: the function method's chunks cover part of the file:
// gaps before, between and after them are no problem, an overlap still is,
// and the same gaps under cast are.
func TestVerifyPartial(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "s.py"), []byte(fileS), 0o644); err != nil {
		t.Fatal(err)
	}
	span := func(a, b int) chunk.Span { // lines [a, b), 1-based
		s, e := lineAt(fileS, a), lineAt(fileS, b)
		return chunk.Span{Start: s, End: e, Size: chunk.Size([]byte(fileS[s:e]))}
	}
	build := func(method string, spans ...chunk.Span) []record.Record {
		return decode(t, encode(t, nil, "s.py", method, []byte(fileS), spans))
	}
	gaps := []chunk.Span{span(2, 3), span(4, 6)}
	if _, lines := check(root, 0, build("function", gaps...)); len(lines) != 0 {
		t.Errorf("function chunks with gaps rejected:\n%s", strings.Join(lines, "\n"))
	}
	if _, lines := check(root, 0, build("cast", gaps...)); len(lines) != 3 {
		t.Errorf("cast chunks with gaps: got\n%s", strings.Join(lines, "\n"))
	}
	if _, lines := check(root, 0, build("function", span(2, 4), span(3, 5))); len(lines) != 1 || !strings.HasPrefix(lines[0], "s.py: chunk 1: overlaps") {
		t.Errorf("function chunks that overlap: got\n%s", strings.Join(lines, "\n"))
	}
}

// TestVerifyRepeatedContent: chunks with identical content get ids with
// increasing k, and verify accepts them (sliding windows repeat content).
func TestVerifyRepeatedContent(t *testing.T) {
	root := t.TempDir()
	text := "pass\npass\npass\n"
	if err := os.WriteFile(filepath.Join(root, "r.py"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	spans := []chunk.Span{{Start: 0, End: 5, Size: 4}, {Start: 5, End: 10, Size: 4}, {Start: 10, End: 15, Size: 4}}
	recs := decode(t, encode(t, nil, "r.py", "cast", []byte(text), spans))
	if recs[0].ID == recs[1].ID || recs[1].ID == recs[2].ID {
		t.Fatalf("repeated content got repeated ids")
	}
	if _, lines := check(root, 0, recs); len(lines) != 0 {
		t.Errorf("repeated content rejected:\n%s", strings.Join(lines, "\n"))
	}
	// Swapping two identical chunks' ids is caught: k is part of the id.
	swapped := slices.Clone(recs)
	swapped[0].ID, swapped[1].ID = swapped[1].ID, swapped[0].ID
	if _, lines := check(root, 0, swapped); len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "r.py: chunk 0: id is") || !strings.HasPrefix(lines[1], "r.py: chunk 1: id is") {
		t.Errorf("swapped ids of repeated content: got\n%s", strings.Join(lines, "\n"))
	}
	// One record with a wrong size is one problem: the records after it,
	// which are right, are not blamed (their index, place and k are right).
	bad := slices.Clone(recs)
	bad[0].Size = 5
	if _, lines := check(root, 0, bad); len(lines) != 1 || !strings.HasPrefix(lines[0], "r.py: chunk 0: size is 5") {
		t.Errorf("a wrong size in the first of repeated chunks: got\n%s", strings.Join(lines, "\n"))
	}
}

// TestVerifyAbsolutePaths: `castchunk chunk /abs/dir` writes absolute
// paths; verify reads them when they lie under the root, or anywhere with
// AllowOutsideRoot, and refuses them otherwise.
func TestVerifyAbsolutePaths(t *testing.T) {
	dir := t.TempDir()
	text := "a = 1\nb = 2\n"
	abs := filepath.ToSlash(filepath.Join(dir, "a.py"))
	if err := os.WriteFile(filepath.Join(dir, "a.py"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	recs := decode(t, encode(t, nil, abs, "cast", []byte(text), lineSpans(t, text)))
	if v, lines := checkWith(&Verifier{Root: "somewhere/else", AllowOutsideRoot: true}, recs); v.Problems != 0 {
		t.Errorf("absolute paths, AllowOutsideRoot: %d problems: %q", v.Problems, lines)
	}
	for _, root := range []string{dir, filepath.Dir(dir), "/"} {
		if v, lines := checkWith(&Verifier{Root: root}, recs); v.Problems != 0 {
			t.Errorf("absolute paths under the root %s: %d problems: %q", root, v.Problems, lines)
		}
	}
	want := abs + ": path is outside --root; pass --allow-outside-root to read it"
	if _, lines := checkWith(&Verifier{Root: t.TempDir()}, recs); len(lines) != 1 || lines[0] != want {
		t.Errorf("absolute path outside the root: got %q, want %q", lines, want)
	}
}

// checkWith runs v over recs and returns its problem lines.
func checkWith(v *Verifier, recs []record.Record) (*Verifier, []string) {
	var lines []string
	v.Report = func(p Problem) { lines = append(lines, p.String()) }
	for i := range recs {
		r := recs[i]
		v.Add(&r)
	}
	v.Finish()
	return v, lines
}

// recordsOf returns the clean records of text cut at the given lines, as
// the encoder writes them for path.
func recordsOf(t *testing.T, path, language, method, text string, cuts ...string) []record.Record {
	t.Helper()
	out, err := record.AppendFile(nil, record.File{Path: path, Language: language, Method: method, Src: []byte(text)}, lineSpans(t, text, cuts...))
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, out)
}

// TestVerifyOutsideRoot: records are input like any other, so a record
// must not make verify read a file outside --root (/etc/shadow) and tell,
// by its messages, its size or whether guessed content matches. Such a
// file is one problem line, and it is not opened.
func TestVerifyOutsideRoot(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	secretDir := filepath.Join(base, "secret")
	for _, d := range []string{filepath.Join(root, "sub"), secretDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := "password = 'hunter2'\n"
	if err := os.WriteFile(filepath.Join(secretDir, "s.py"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	inside := "x = 1\n"
	if err := os.WriteFile(filepath.Join(root, "sub", "in.py"), []byte(inside), 0o644); err != nil {
		t.Fatal(err)
	}
	// A record that guesses the secret right, and one that guesses wrong:
	// verify must answer both the same way.
	absSecret := filepath.ToSlash(filepath.Join(secretDir, "s.py"))
	outside := "path is outside --root; pass --allow-outside-root to read it"
	throughLink := "path leads outside --root through a symbolic link (or an absolute one); pass --allow-outside-root to read it"
	cases := []struct {
		name, path string
		want       string // the one problem line's message; "" for none
	}{
		{"absolute", absSecret, outside},
		{"dot-dot", "../secret/s.py", outside},
		{"dot-dot after a folder", "sub/../../secret/s.py", outside},
		{"dot-dot that stays inside", "sub/../sub/in.py", ""},
		{"relative symlink out", "sub/link.py", throughLink},
		{"absolute symlink out", "sub/abslink.py", throughLink},
		{"symlink to a folder out", "sub/dirlink/s.py", throughLink},
		{"symlink inside", "sub/inlink.py", ""},
	}
	for _, l := range []struct{ name, target string }{
		{"link.py", "../../secret/s.py"},
		{"abslink.py", filepath.Join(secretDir, "s.py")},
		{"dirlink", "../../secret"},
		{"inlink.py", "in.py"},
	} {
		if err := os.Symlink(l.target, filepath.Join(root, "sub", l.name)); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := secret
			if c.want == "" {
				text = inside
			}
			right := recordsOf(t, c.path, "python", "cast", text)
			wrong := recordsOf(t, c.path, "python", "cast", strings.Replace(text, "'", "\"", -1)+"# more\n")
			var got [2][]string
			for i, recs := range [][]record.Record{right, wrong} {
				_, got[i] = checkWith(&Verifier{Root: root}, recs)
			}
			if c.want == "" {
				if len(got[0]) != 0 {
					t.Errorf("a file inside the root: %q", got[0])
				}
				return
			}
			want := []string{c.path + ": " + c.want}
			for i := range got {
				if !slices.Equal(got[i], want) {
					t.Errorf("record %d: got %q, want %q", i, got[i], want)
				}
			}
			// With AllowOutsideRoot the file is read.
			if _, lines := checkWith(&Verifier{Root: root, AllowOutsideRoot: true}, right); len(lines) != 0 {
				t.Errorf("AllowOutsideRoot: %q", lines)
			}
		})
	}
}

// TestVerifyTooLarge: a file over MaxFileSize is one problem and is not
// read; a file that grows past it while read is not read past it.
func TestVerifyTooLarge(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	for i := range 15 {
		fmt.Fprintf(&b, "v%02d = 1\n", i)
	}
	text := b.String() // 120 bytes
	if err := os.WriteFile(filepath.Join(root, "big.py"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	recs := recordsOf(t, "big.py", "python", "cast", text, "v10")
	_, lines := checkWith(&Verifier{Root: root, MaxFileSize: 100}, recs[len(recs)-1:])
	want := "big.py: file too large (120 B > 100 B limit); a larger --max-file-size reads it"
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("got %q, want %q", lines, want)
	}
	for _, limit := range []int64{0, 120, 1 << 20} {
		if _, lines := checkWith(&Verifier{Root: root, MaxFileSize: limit}, recs); len(lines) != 0 {
			t.Errorf("limit %d: %q", limit, lines)
		}
	}

	// A file that grows as it is read (endless, like /dev/zero).
	data, err := readBounded(endless{}, 10, 1000)
	if err == nil || !strings.Contains(err.Error(), "grew past the 1000 B limit") || data != nil {
		t.Errorf("endless file: %d bytes, %v", len(data), err)
	}
	if data, err := readBounded(strings.NewReader(text), 50, 0); err != nil || string(data) != text {
		t.Errorf("no limit, a file larger than its size said: %d bytes, %v", len(data), err)
	}
}

// endless reads as endless 'x' bytes, counting what is asked of it.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestVerifyLanguage: the language must be one castchunk has, the one
// the extension gives (or the one --lang gives, for records made with
// chunk --lang), and the same for all records of a file.
func TestVerifyLanguage(t *testing.T) {
	root := t.TempDir()
	text := "x = 1\ny = 2\n"
	for _, name := range []string{"a.py", "notes.txt", "run"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	known := fmt.Sprint(lang.Names())
	cases := []struct {
		name, path, language, lang string
		relabel                    string // the second record's language, when set
		want                       string // the problem line; "" for none
	}{
		{"right", "a.py", "python", "", "", ""},
		{"unknown", "a.py", "cobol", "", "", `a.py: chunk 0: language "cobol" is not one of ` + known},
		{"other extension's", "a.py", "java", "", "", `a.py: chunk 0: language is "java", but a.py is python by its name (if the records were made with chunk --lang java, verify with --lang java)`},
		{"--lang says so", "a.py", "java", "java", "", ""},
		{"--lang says otherwise", "a.py", "python", "java", "", `a.py: chunk 0: language is "python", not "java" as --lang says`},
		{"unknown with --lang", "a.py", "cobol", "cobol", "", `a.py: chunk 0: language "cobol" is not one of ` + known},
		{"no known extension", "notes.txt", "csharp", "", "", ""},
		{"no extension", "run", "python", "", "", ""},
		{"no known extension, unknown language by cast", "notes.txt", "cobol", "", "", `notes.txt: chunk 0: language "cobol" has no grammar, so method cast cannot have made this chunk`},
		{"unknown language with --lang", "notes.txt", "cobol", "python", "", `notes.txt: chunk 0: language "cobol" is not one of ` + known},
		{"two languages in a file", "notes.txt", "python", "", "java", `notes.txt: chunk 1: language "java" differs from the file's first chunk (python)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs := recordsOf(t, c.path, c.language, "cast", text, "y = 2")
			if c.relabel != "" {
				recs[1].Language, recs[1].Languages = c.relabel, []string{c.relabel}
			}
			_, lines := checkWith(&Verifier{Root: root, Lang: c.lang}, recs)
			if c.want == "" && len(lines) != 0 || c.want != "" && (len(lines) != 1 || lines[0] != c.want) {
				t.Errorf("got %q, want %q", lines, c.want)
			}
		})
	}
}

// TestVerifyRelabelledMethod: the tiling rule is the method's, so a record
// relabelled "sliding" must not hide an overlap of cast chunks, whichever
// record carries the label.
func TestVerifyRelabelledMethod(t *testing.T) {
	for _, c := range []struct {
		name    string
		relabel int // the record relabelled sliding
		want    []string
	}{
		{"the overlapping record", 2, []string{
			`a.py: chunk 2: method "sliding" differs from the file's first chunk (cast)`,
			"a.py: chunk 2: overlaps the previous chunk by",
		}},
		{"the first record", 0, []string{
			`a.py: chunk 1: method "cast" differs from the file's first chunk (sliding)`,
			`a.py: chunk 2: method "cast" differs from the file's first chunk (sliding)`,
			"a.py: chunk 2: overlaps the previous chunk by",
			`a.py: chunk 3: method "cast" differs from the file's first chunk (sliding)`,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fx := newFixture(t)
			recs := fx.clone()[:4]
			fx.remake(&recs[2], lineAt(fileA, 4), recs[2].EndByte) // starts inside chunk 1
			fixIDs(recs)
			recs[c.relabel].Method = "sliding"
			_, lines := check(fx.root, 0, recs)
			if len(lines) != len(c.want) {
				t.Fatalf("got\n%s\nwant %d lines", strings.Join(lines, "\n"), len(c.want))
			}
			for i, w := range c.want {
				if !strings.HasPrefix(lines[i], w) {
					t.Errorf("line %d: %q, want %q…", i, lines[i], w)
				}
			}
		})
	}
}

// TestVerifyTextLanguage: text that chunk --all-text names as GitHub does
// (dockerfile, text) verifies when a method without a tree made it.
func TestVerifyTextLanguage(t *testing.T) {
	root := t.TempDir()
	text := "FROM debian\nRUN true\n"
	if err := os.WriteFile(filepath.Join(root, "Dockerfile"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	recs := recordsOf(t, "Dockerfile", "dockerfile", "sliding", text, "RUN true")
	if _, lines := checkWith(&Verifier{Root: root}, recs); len(lines) != 0 {
		t.Errorf("text records: %q", lines)
	}
}

// TestVerifyLanguages: languages is checked as chunk computes it, with the
// file's regions found again: a section of prose around a small Rust fence
// holds markdown and rust; a plain file's records name their language only.
func TestVerifyLanguages(t *testing.T) {
	root := t.TempDir()
	md := "# Title\n\nSome prose.\n\n```rust\nfn main() {}\n```\n\nMore prose.\n"
	py := "x = 1\n"
	for name, text := range map[string]string{"a.md": md, "a.py": py} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	whole := func(path, language, host, text string, languages ...string) record.Record {
		r := recordsOf(t, path, language, "cast", text)[0]
		r.HostLanguage, r.Languages = host, languages
		return r
	}
	cases := []struct {
		name string
		rec  record.Record
		want string
	}{
		{"markdown and rust", whole("a.md", "markdown", "markdown", md, "markdown", "rust"), ""},
		{"the fence's language left out", whole("a.md", "markdown", "markdown", md, "markdown"),
			`a.md: chunk 0: languages is ["markdown"], the file gives ["markdown","rust"] (language first, then the host's and the regions' the chunk holds text of, in order)`},
		{"out of order", whole("a.md", "markdown", "markdown", md, "rust", "markdown"),
			`a.md: chunk 0: languages is ["rust","markdown"], the file gives ["markdown","rust"] (language first, then the host's and the regions' the chunk holds text of, in order)`},
		{"plain", whole("a.py", "python", "", py, "python"), ""},
		{"plain with another", whole("a.py", "python", "", py, "python", "rust"),
			`a.py: chunk 0: languages is ["python","rust"], the file gives ["python"] (language first, then the host's and the regions' the chunk holds text of, in order)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, lines := checkWith(&Verifier{Root: root}, []record.Record{c.rec})
			if c.want == "" && len(lines) != 0 || c.want != "" && (len(lines) != 1 || lines[0] != c.want) {
				t.Errorf("got %q, want %q", lines, c.want)
			}
		})
	}
}
