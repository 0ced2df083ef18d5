package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
)

// refID computes the id recipe independently of ID and the Encoder.
func refID(path, content string, k int) string {
	sum := sha256.Sum256([]byte(path + "\x00" + content + "\x00" + strconv.Itoa(k)))
	return hex.EncodeToString(sum[:16])
}

// spansAt cuts src at the given offsets (which must include neither 0 nor
// len(src)) into tiling spans with correct sizes.
func spansAt(src string, cuts ...int) []chunk.Span {
	var out []chunk.Span
	start := 0
	for _, c := range append(cuts, len(src)) {
		out = append(out, span(src, start, c))
		start = c
	}
	return out
}

func span(src string, a, b int) chunk.Span {
	return chunk.Span{Start: a, End: b, Size: chunk.Size([]byte(src[a:b]))}
}

// line builds an expected record line; content is given already escaped.
func line(path string, index, sl, el, sb, eb, size int, raw, escaped string, k int) string {
	return fmt.Sprintf(`{"id":"%s","path":"%s","language":"python","method":"cast","index":%d,"start_line":%d,"end_line":%d,"start_byte":%d,"end_byte":%d,"size":%d,"languages":["python"],"content":"%s"}`+"\n",
		refID(path, raw, k), path, index, sl, el, sb, eb, size, escaped)
}

func encode(t *testing.T, path, src string, spans []chunk.Span) string {
	t.Helper()
	var e Encoder
	out, err := e.AppendFile(nil, File{Path: path, Language: "python", Method: "cast", Src: []byte(src)}, spans)
	if err != nil {
		t.Fatalf("AppendFile: %v", err)
	}
	return string(out)
}

func TestExactLines(t *testing.T) {
	const p = "src/a.py"
	tests := []struct {
		name  string
		src   string
		spans []chunk.Span
		want  []string
	}{
		{
			name:  "CRLF",
			src:   "a\r\nb\r\n",
			spans: spansAt("a\r\nb\r\n", 3),
			want: []string{
				line(p, 0, 1, 1, 0, 3, 1, "a\r\n", `a\r\n`, 0),
				line(p, 1, 2, 2, 3, 6, 1, "b\r\n", `b\r\n`, 0),
			},
		},
		{
			name:  "tabs",
			src:   "\tx\ty\n",
			spans: spansAt("\tx\ty\n"),
			want:  []string{line(p, 0, 1, 1, 0, 5, 2, "\tx\ty\n", `\tx\ty\n`, 0)},
		},
		{
			// The BOM stays in chunk 0 as raw bytes EF BB BF (U+FEFF, which
			// is not whitespace, so it counts in size).
			name:  "BOM",
			src:   "\xEF\xBB\xBFimport os\nx = 1\n",
			spans: spansAt("\xEF\xBB\xBFimport os\nx = 1\n", 13),
			want: []string{
				line(p, 0, 1, 1, 0, 13, 9, "\xEF\xBB\xBFimport os\n", "\xEF\xBB\xBFimport os\\n", 0),
				line(p, 1, 2, 2, 13, 19, 3, "x = 1\n", `x = 1\n`, 0),
			},
		},
		{
			name:  "non-ASCII kept as UTF-8, <>& not escaped",
			src:   "s = \"é 世界\" # <a&b>\n",
			spans: spansAt("s = \"é 世界\" # <a&b>\n"),
			want:  []string{line(p, 0, 1, 1, 0, 24, 13, "s = \"é 世界\" # <a&b>\n", `s = \"é 世界\" # <a&b>\n`, 0)},
		},
		{
			// \x00 \x1f \x7f \b count as characters; \f and \v are
			// whitespace. DEL is legal in JSON and stays raw.
			name:  "control characters",
			src:   "a\x00b\x1fc\x7f\b\f\v\"\\",
			spans: spansAt("a\x00b\x1fc\x7f\b\f\v\"\\"),
			want:  []string{line(p, 0, 1, 1, 0, 11, 9, "a\x00b\x1fc\x7f\b\f\v\"\\", "a\\u0000b\\u001fc\x7f\\b\\f\\u000b\\\"\\\\", 0)},
		},
		{
			// U+2028 and U+2029 are escaped, are whitespace for size and
			// are not line breaks.
			name:  "U+2028 U+2029",
			src:   "x\u2028y\u2029z",
			spans: spansAt("x\u2028y\u2029z"),
			want:  []string{line(p, 0, 1, 1, 0, 9, 3, "x\u2028y\u2029z", `x\u2028y\u2029z`, 0)},
		},
		{
			name:  "no final newline",
			src:   "a\nb",
			spans: spansAt("a\nb", 2),
			want: []string{
				line(p, 0, 1, 1, 0, 2, 1, "a\n", `a\n`, 0),
				line(p, 1, 2, 2, 2, 3, 1, "b", `b`, 0),
			},
		},
		{
			// A chunk ending right after '\n' ends on the line of that
			// '\n'; one starting with '\n' starts on the line it ends.
			name:  "chunk ends after newline",
			src:   "ab\ncd\n\nef",
			spans: spansAt("ab\ncd\n\nef", 3, 6, 7),
			want: []string{
				line(p, 0, 1, 1, 0, 3, 2, "ab\n", `ab\n`, 0),
				line(p, 1, 2, 2, 3, 6, 2, "cd\n", `cd\n`, 0),
				line(p, 2, 3, 3, 6, 7, 0, "\n", `\n`, 0),
				line(p, 3, 4, 4, 7, 9, 2, "ef", `ef`, 0),
			},
		},
		{
			name:  "one-line file",
			src:   "x",
			spans: spansAt("x"),
			want:  []string{line(p, 0, 1, 1, 0, 1, 1, "x", `x`, 0)},
		},
		{
			name:  "lone CR is not a line break",
			src:   "a\rb\r\nc",
			spans: spansAt("a\rb\r\nc", 2, 5),
			want: []string{
				line(p, 0, 1, 1, 0, 2, 1, "a\r", `a\r`, 0),
				line(p, 1, 1, 1, 2, 5, 1, "b\r\n", `b\r\n`, 0),
				line(p, 2, 2, 2, 5, 6, 1, "c", `c`, 0),
			},
		},
		{
			// Sliding windows: overlapping ranges, repeated content.
			name: "overlap and repeats",
			src:  "x\nx\nx\nx\n",
			spans: []chunk.Span{
				span("x\nx\nx\nx\n", 0, 4), span("x\nx\nx\nx\n", 2, 6),
				span("x\nx\nx\nx\n", 4, 8), span("x\nx\nx\nx\n", 6, 8),
			},
			want: []string{
				line(p, 0, 1, 2, 0, 4, 2, "x\nx\n", `x\nx\n`, 0),
				line(p, 1, 2, 3, 2, 6, 2, "x\nx\n", `x\nx\n`, 1),
				line(p, 2, 3, 4, 4, 8, 2, "x\nx\n", `x\nx\n`, 2),
				line(p, 3, 4, 4, 6, 8, 1, "x\n", `x\n`, 0),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := encode(t, p, tc.src, tc.spans)
			if want := strings.Join(tc.want, ""); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			checkJSON(t, got, tc.src)
		})
	}
}

func TestEscapedPath(t *testing.T) {
	got := encode(t, "a \"b\"\\c\td.py", "x", spansAt("x"))
	want := `{"id":"` + refID("a \"b\"\\c\td.py", "x", 0) + `","path":"a \"b\"\\c\td.py",`
	if !strings.HasPrefix(got, want) {
		t.Errorf("got %s\nwant prefix %s", got, want)
	}
	checkJSON(t, got, "x")
}

// checkJSON decodes every line with encoding/json and checks it against
// the source and against Record.Check.
func checkJSON(t *testing.T, out, src string) {
	t.Helper()
	lines := strings.SplitAfter(out, "\n")
	if lines[len(lines)-1] != "" {
		t.Fatalf("output does not end in a newline")
	}
	for i, l := range lines[:len(lines)-1] {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d is not valid JSON: %v\n%s", i+1, err, l)
		}
		var r Record
		if err := json.Unmarshal([]byte(l), &struct {
			ID        *string `json:"id"`
			Path      *string `json:"path"`
			Language  *string `json:"language"`
			Method    *string `json:"method"`
			Index     *int    `json:"index"`
			StartLine *int    `json:"start_line"`
			EndLine   *int    `json:"end_line"`
			StartByte *int    `json:"start_byte"`
			EndByte   *int    `json:"end_byte"`
			Size      *int    `json:"size"`
			Content   *string `json:"content"`
		}{&r.ID, &r.Path, &r.Language, &r.Method, &r.Index, &r.StartLine, &r.EndLine, &r.StartByte, &r.EndByte, &r.Size, &r.Content}); err != nil {
			t.Fatal(err)
		}
		if len(m) != len(Default().Names())-4 { // no host_language, cell, end_cell nor ranges: these files have no embedded regions, are no notebooks and of no method of pieces
			t.Errorf("line %d has %d fields", i+1, len(m))
		}
		if r.Content != src[r.StartByte:r.EndByte] {
			t.Errorf("line %d: content %q, source has %q", i+1, r.Content, src[r.StartByte:r.EndByte])
		}
		if err := r.Check(); err != nil {
			t.Errorf("line %d: %v", i+1, err)
		}
	}
}

func TestID(t *testing.T) {
	// Fixed input, value from `printf 'src/a.py\0def f():\n    return 1\n\0000' | sha256sum`.
	const content = "def f():\n    return 1\n"
	if got, want := ID("", "src/a.py", []byte(content), 0), "6ad4f6c6cd2cf996165bcedb63a84a3d"; got != want {
		t.Errorf("ID = %s, want %s", got, want)
	}
	if got, want := ID("", "src/a.py", []byte(content), 12), refID("src/a.py", content, 12); got != want {
		t.Errorf("ID(k=12) = %s, want %s", got, want)
	}
}

func ids(t *testing.T, out string) []string {
	t.Helper()
	var r []string
	for _, l := range strings.SplitAfter(out, "\n") {
		if l != "" {
			r = append(r, l[len(`{"id":"`):len(`{"id":"`)+IDLen])
		}
	}
	return r
}

func TestIDStableWhenTextAboveChanges(t *testing.T) {
	const fn = "def f():\n    return 2\n"
	a := "x = 1\n" + fn
	b := "# a longer header\n\ny = 22\n" + fn
	idA := ids(t, encode(t, "m.py", a, spansAt(a, len(a)-len(fn))))
	idB := ids(t, encode(t, "m.py", b, spansAt(b, len(b)-len(fn))))
	if idA[1] != idB[1] {
		t.Errorf("id of the unchanged chunk changed: %s vs %s", idA[1], idB[1])
	}
	if idA[0] == idB[0] {
		t.Errorf("changed chunks share an id")
	}
	if want := ID("", "m.py", []byte(fn), 0); idA[1] != want {
		t.Errorf("encoder id %s, ID() %s", idA[1], want)
	}
	idC := ids(t, encode(t, "n.py", a, spansAt(a, len(a)-len(fn))))
	if idC[1] == idA[1] {
		t.Errorf("same content in another path has the same id")
	}
}

func TestIDUniqueForRepeats(t *testing.T) {
	src := strings.Repeat("pass\n", 50)
	var cuts []int
	for i := 5; i < len(src); i += 5 {
		cuts = append(cuts, i)
	}
	var e Encoder
	seen := map[string]bool{}
	// Twice with the same encoder: occurrence counts restart per file.
	for range 2 {
		out, err := e.AppendFile(nil, File{Path: "p.py", Language: "python", Method: "sliding", Src: []byte(src)}, spansAt(src, cuts...))
		if err != nil {
			t.Fatal(err)
		}
		got := ids(t, string(out))
		for k, id := range got {
			if want := refID("p.py", "pass\n", k); id != want {
				t.Fatalf("chunk %d: id %s, want %s", k, id, want)
			}
			seen[id] = true
		}
	}
	if len(seen) != 50 {
		t.Errorf("%d distinct ids for 50 chunks", len(seen))
	}
}

// TestLinesRandom compares incremental line numbers with a direct count on
// random files and random sorted, possibly overlapping spans.
func TestLinesRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", " ", "\n", "\r", "\t", "é", "\r\n", "世"}
	var e Encoder
	for iter := 0; iter < 300; iter++ {
		var sb strings.Builder
		for n := 1 + rng.IntN(60); n > 0; n-- {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		src := sb.String()
		// Character boundaries, so spans never split a code point.
		var bounds []int
		for i := range src {
			bounds = append(bounds, i)
		}
		bounds = append(bounds, len(src))
		var spans []chunk.Span
		si := 0
		for si < len(bounds)-1 {
			ei := si + 1 + rng.IntN(len(bounds)-1-si)
			spans = append(spans, span(src, bounds[si], bounds[ei]))
			if rng.IntN(2) == 0 { // overlap: next start inside this span
				si += 1 + rng.IntN(ei-si)
			} else {
				si = ei
			}
		}
		out, err := e.AppendFile(nil, File{Path: "r", Language: "l", Method: "sliding", Src: []byte(src)}, spans)
		if err != nil {
			t.Fatal(err)
		}
		d := NewDecoder(bytes.NewReader(out))
		for i, s := range spans {
			var r Record
			if err := d.Decode(&r); err != nil {
				t.Fatalf("%q span %d: %v", src, i, err)
			}
			wantStart := 1 + strings.Count(src[:s.Start], "\n")
			wantEnd := 1 + strings.Count(src[:s.End-1], "\n")
			if r.StartLine != wantStart || r.EndLine != wantEnd {
				t.Fatalf("%q span %d [%d,%d): lines %d-%d, want %d-%d", src, i, s.Start, s.End, r.StartLine, r.EndLine, wantStart, wantEnd)
			}
			if r.Content != src[s.Start:s.End] || r.Index != i || r.Size != s.Size {
				t.Fatalf("%q span %d: record %+v", src, i, r)
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	srcs := []string{
		"\xEF\xBB\xBFclass A {\r\n\tint x = 1; // é\r\n}\r\n",
		"a\x00\x01\x1f\"\\/\u2028\u2029\U0001F600<>&\x7f\n\n\n",
		strings.Repeat("line with some text\n", 10000) + "no newline",
		"\uFFFD is a real replacement character, valid UTF-8\n",
	}
	var out []byte
	var e Encoder
	for i, src := range srcs {
		var cuts []int
		for c := 7; c < len(src); c += 7 + c%13 {
			for !utf8Start(src, c) {
				c++
			}
			if c < len(src) {
				cuts = append(cuts, c)
			}
		}
		var err error
		out, err = e.AppendFile(out, File{Path: fmt.Sprintf("dir/f%d.java", i), Language: "java", Method: "cast", Src: []byte(src)}, spansAt(src, cuts...))
		if err != nil {
			t.Fatal(err)
		}
	}
	d := NewDecoder(bytes.NewReader(out))
	n := 0
	for {
		var r Record
		err := d.Decode(&r)
		if err != nil {
			if err == io.EOF {
				break
			}
			t.Fatal(err)
		}
		n++
		var fi int
		fmt.Sscanf(r.Path, "dir/f%d.java", &fi)
		if src := srcs[fi]; r.Content != src[r.StartByte:r.EndByte] {
			t.Fatalf("line %d: content %q, want %q", n, r.Content, src[r.StartByte:r.EndByte])
		}
		if err := r.Check(); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
	}
	if n != bytes.Count(out, []byte("\n")) {
		t.Errorf("decoded %d records of %d lines", n, bytes.Count(out, []byte("\n")))
	}
	for i, src := range srcs {
		checkJSON(t, string(filterPath(out, fmt.Sprintf("dir/f%d.java", i))), src)
	}
}

func utf8Start(s string, i int) bool { return i >= len(s) || s[i]&0xC0 != 0x80 }

func filterPath(out []byte, path string) []byte {
	var r []byte
	for _, l := range bytes.SplitAfter(out, []byte("\n")) {
		if bytes.Contains(l, []byte(`"path":"`+path+`"`)) {
			r = append(r, l...)
		}
	}
	return r
}

func TestEncoderErrors(t *testing.T) {
	src := "ab\ncd\n"
	good := span(src, 0, 3)
	tests := []struct {
		name  string
		path  string
		src   string
		spans []chunk.Span
		want  string
	}{
		{"empty span", "a.py", src, []chunk.Span{good, {Start: 3, End: 3}}, "a.py: chunk 1 is empty"},
		{"unsorted", "a.py", src, []chunk.Span{span(src, 3, 6), good}, "spans must be sorted"},
		{"past end", "a.py", src, []chunk.Span{{Start: 3, End: 7, Size: 2}}, "outside the file's 6 bytes"},
		{"negative", "a.py", src, []chunk.Span{{Start: -1, End: 2, Size: 2}}, "outside"},
		{"wrong size", "a.py", src, []chunk.Span{good, {Start: 3, End: 6, Size: 5}}, "a.py: chunk 1 [3,6) has size 2, span says 5"},
		{"invalid UTF-8", "b.py", "ok\nx\xffy\n", spansAt("ok\nx\xffy\n", 3), "b.py: not valid UTF-8 at byte 4"},
		{"split code point", "c.py", "é", []chunk.Span{{Start: 0, End: 1, Size: 1}, {Start: 1, End: 2, Size: 1}}, "c.py: not valid UTF-8 at byte 0"},
		{"invalid path", "d\xfe.py", "x", spansAt("x"), "path is not valid UTF-8 (byte 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prev := []byte("earlier output\n")
			out, err := AppendFile(prev, File{Path: tc.path, Language: "python", Method: "cast", Src: []byte(tc.src)}, tc.spans)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if string(out) != "earlier output\n" {
				t.Errorf("output after error = %q, want the earlier output only", out)
			}
		})
	}
	var u *InvalidUTF8Error
	_, err := AppendFile(nil, File{Path: "b.py", Src: []byte("x\xff")}, []chunk.Span{{Start: 0, End: 2, Size: 2}})
	if !errors.As(err, &u) || u.Offset != 1 || u.Path != "b.py" {
		t.Errorf("err = %#v, want *InvalidUTF8Error at 1", err)
	}
	if out, err := AppendFile([]byte("x"), File{Path: "e"}, nil); err != nil || string(out) != "x" {
		t.Errorf("no spans: %q, %v", out, err)
	}
}

// TestSizeMatchesChunkSize checks the size the escaper counts against the
// definition, on every interesting code point.
func TestSizeMatchesChunkSize(t *testing.T) {
	var b []byte
	for r := rune(0); r < 0x3100; r++ {
		if r >= 0xD800 && r < 0xE000 {
			continue
		}
		b = fmt.Appendf(b[:0], "%c", r)
		_, size, bad := appendEscaped(nil, b)
		if bad >= 0 || size != chunk.Size(b) {
			t.Fatalf("U+%04X: size %d bad %d, chunk.Size %d", r, size, bad, chunk.Size(b))
		}
	}
	for _, r := range []rune{0xFEFF, 0xFFFD, 0x10FFFF, 0x1F600} {
		b = fmt.Appendf(b[:0], "%c", r)
		if _, size, _ := appendEscaped(nil, b); size != chunk.Size(b) {
			t.Errorf("U+%04X: size %d, chunk.Size %d", r, size, chunk.Size(b))
		}
	}
}

func TestEscapeDecodesBack(t *testing.T) {
	// Every single code point in the ranges that matter, and every byte
	// value below 0x80, must decode back to itself through encoding/json.
	var s []byte
	for r := rune(0); r < 0x3100; r++ {
		if r < 0xD800 || r >= 0xE000 {
			s = fmt.Appendf(s, "%c", r)
		}
	}
	q, _, bad := appendEscaped([]byte{'"'}, s)
	if bad >= 0 {
		t.Fatal("valid UTF-8 rejected")
	}
	q = append(q, '"')
	var got string
	if err := json.Unmarshal(q, &got); err != nil {
		t.Fatal(err)
	}
	if got != string(s) {
		t.Error("escaped text does not decode back to itself")
	}
	for _, forbidden := range []string{"\u2028", "\u2029", "\n", "\r"} {
		if bytes.Contains(q, []byte(forbidden)) {
			t.Errorf("output contains raw %q", forbidden)
		}
	}
}

func TestZeroAllocs(t *testing.T) {
	src, spans := benchInput(64 << 10)
	var e Encoder
	buf, _ := e.AppendFile(nil, File{Path: "pkg/bench.go", Language: "go", Method: "cast", Src: src}, spans)
	allocs := testing.AllocsPerRun(20, func() {
		var err error
		buf, err = e.AppendFile(buf[:0], File{Path: "pkg/bench.go", Language: "go", Method: "cast", Src: src}, spans)
		if err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per file in steady state, want 0", allocs)
	}
}

// benchInput builds about n bytes of source-like text (tabs, quotes,
// backslashes, non-ASCII, CRLF here and there) cut into budget-2000 chunks.
func benchInput(n int) ([]byte, []chunk.Span) {
	const unit = "func (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n" +
		"\tif r.Method != \"GET\" { // only reads\r\n" +
		"\t\thttp.Error(w, \"méthode non autorisée\\n\", 405)\n" +
		"\t\treturn\n\t}\n" +
		"\tfmt.Fprintf(w, \"%s → %d\\t<ok>\", r.URL.Path, len(s.items))\n}\n\n"
	src := bytes.Repeat([]byte(unit), n/len(unit)+1)
	// Whole lines up to 2000 characters, as the sliding chunker would.
	var spans []chunk.Span
	start, size := 0, 0
	for pos := 0; pos < len(src); {
		end := pos + bytes.IndexByte(src[pos:], '\n') + 1
		ls := chunk.Size(src[pos:end])
		if size+ls > 2000 {
			spans = append(spans, chunk.Span{Start: start, End: pos, Size: size})
			start, size = pos, 0
		}
		size += ls
		pos = end
	}
	return src, append(spans, chunk.Span{Start: start, End: len(src), Size: size})
}

func BenchmarkAppendFile(b *testing.B) {
	src, spans := benchInput(1 << 20)
	var e Encoder
	f := File{Path: "pkg/server/bench.go", Language: "go", Method: "cast", Src: src}
	buf, _ := e.AppendFile(nil, f, spans)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf, _ = e.AppendFile(buf[:0], f, spans)
	}
}

// TestNotebookCells: a notebook's chunk over several cells says the cells
// it starts and ends in, and is in its code cells' language when it holds
// some of their text, else in its first cell's; AppendRecord writes a
// decoded record back byte for byte.
func TestNotebookCells(t *testing.T) {
	src := []byte("# T\n\nx = 1\n## U\n  \n")
	f := File{Path: "nb.ipynb", Language: "jupyter-notebook", Method: "cast", Src: src,
		Regions: []Region{{0, 5, 0, 5, "markdown"}, {5, 11, 5, 11, "python"}, {11, 16, 11, 16, "markdown"}, {16, 19, 16, 19, "python"}},
		Cells: []NotebookCell{{0, 5, 0, "markdown", false}, {5, 11, 2, "python", true}, {11, 16, 3, "markdown", false},
			{16, 19, 4, "python", true}}}
	out, err := AppendFile(nil, f, []chunk.Span{{Start: 0, End: 11, Size: 5}, {Start: 11, End: 19, Size: 3}})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	for i, want := range []string{`"language":"python","host_language":"jupyter-notebook","cell":0,"end_cell":2,`,
		`"language":"markdown","host_language":"jupyter-notebook","cell":3,"end_cell":4,`} { // cell 4 is blank
		if !strings.Contains(lines[i], want) {
			t.Errorf("record %d: %s\nwant %s", i, lines[i], want)
		}
		var r Record
		if err := NewDecoder(strings.NewReader(lines[i] + "\n")).Decode(&r); err != nil {
			t.Fatal(err)
		}
		var e Encoder
		back, err := e.AppendRecord(nil, &r)
		if err != nil || string(back) != lines[i]+"\n" {
			t.Errorf("record %d written back: %s, %v", i, back, err)
		}
	}
}

// TestLanguagesAt: a chunk names language first, then the host's when it
// holds prose outside every construct, then each region whose code it
// holds, in the order they come; a fence's marks alone are no region's.
func TestLanguagesAt(t *testing.T) {
	f := File{Language: "markdown", Src: []byte(fenceMD), Regions: fenceRegions}
	at := func(sub string) (int, int) {
		i := strings.Index(fenceMD, sub)
		if i < 0 {
			t.Fatalf("%q not in the file", sub)
		}
		return i, i + len(sub)
	}
	cases := []struct {
		sub  string
		want string
	}{
		{fenceMD, "markdown rust python"},
		{"prose\n", "markdown"},
		{"```rust\nfn a() {}\n```\n", "rust"},
		{"fn a() {}\n```\nmore\n```py\nx = 1\n", "markdown rust python"},
		{"```\nmore\n```py\nx = 1\n", "markdown python"},
		{"```\nmore\n", "markdown"},
		{"```\n", "markdown"}, // a fence's closing marks alone
		{"x = 1\n```\nend\n", "markdown python"},
	}
	for _, c := range cases {
		start, end := at(c.sub)
		l := f.LanguageAt(start, end)
		got := strings.Join(f.LanguagesAt(nil, start, end, l), " ")
		if got != c.want {
			t.Errorf("%q: languages %q, want %q", c.sub, got, c.want)
		}
		if !strings.HasPrefix(got, l) {
			t.Errorf("%q: languages %q do not start with language %q", c.sub, got, l)
		}
	}
	plain := File{Language: "python", Src: []byte("x = 1\n")}
	if got := plain.LanguagesAt(nil, 0, 6, "python"); len(got) != 1 || got[0] != "python" {
		t.Errorf("a plain file: %q", got)
	}
}
