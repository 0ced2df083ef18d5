package enrich

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/record"
)

// formats are the header formats, in order.
func formats() []HeaderFormat {
	var out []HeaderFormat
	for _, c := range HeaderFormats() {
		out = append(out, c.Name)
	}
	return out
}

// TestHeaderFormatNames: the formats in order, each with a summary;
// ParseHeader takes their names and "" (the zero value, ScopeHeader) and
// refuses others, naming the formats; DefaultHeader is one of them.
func TestHeaderFormatNames(t *testing.T) {
	if got, want := formats(), []HeaderFormat{"scope", "path", "names", "signature", "lines"}; !slices.Equal(got, want) {
		t.Errorf("HeaderFormats = %v, want %v", got, want)
	}
	for _, c := range HeaderFormats() {
		if c.Summary == "" || strings.Contains(c.Summary, "\n") {
			t.Errorf("%s: summary %q is not one line", c.Name, c.Summary)
		}
		if f, err := ParseHeader(string(c.Name)); f != c.Name || err != nil {
			t.Errorf("ParseHeader(%q) = %q, %v", c.Name, f, err)
		}
	}
	if f, err := ParseHeader(""); f != ScopeHeader || err != nil {
		t.Errorf(`ParseHeader("") = %q, %v; want scope`, f, err)
	}
	for _, bad := range []string{"Scope", "sig", " path", "none"} {
		if _, err := ParseHeader(bad); err == nil || !strings.Contains(err.Error(), "scope, path, names, signature, lines") {
			t.Errorf("ParseHeader(%q): error %v, want one naming the formats", bad, err)
		}
	}
	if !slices.Contains(formats(), DefaultHeader) {
		t.Errorf("DefaultHeader %q is not a format", DefaultHeader)
	}
}

// TestKeyNamesHeaderFormat: the cache key names the header's format
// whenever there is a header and the format is not the one of the zero
// value (so keys made before formats had names still hit), and every
// format has a key of its own.
func TestKeyNamesHeaderFormat(t *testing.T) {
	seen := map[string]HeaderFormat{}
	for _, f := range formats() {
		key := (Options{Context: true, Text: true, Header: f}).Key()
		if other, ok := seen[key]; ok {
			t.Errorf("formats %s and %s share the key %q", f, other, key)
		}
		seen[key] = f
		want := "context embed-text embed-header=" + string(f)
		if f == ScopeHeader {
			want = "context embed-text"
		}
		if key != want {
			t.Errorf("%s: Key = %q, want %q", f, key, want)
		}
		// Without a header the format changes nothing.
		if got := (Options{Context: true, Header: f}).Key(); got != "context" {
			t.Errorf("%s without --embed-text: Key = %q, want \"context\"", f, got)
		}
	}
	if a, b := (Options{Text: true}).Key(), (Options{Text: true, Header: ScopeHeader}).Key(); a != b || a != "embed-text" {
		t.Errorf("the zero value's key %q and scope's %q: want both \"embed-text\"", a, b)
	}
}

// TestNeedsDefsByFormat: a header of the path alone needs no definitions.
func TestNeedsDefsByFormat(t *testing.T) {
	for _, f := range formats() {
		if got, want := (Options{Text: true, Header: f}).NeedsDefs(), f != PathHeader; got != want {
			t.Errorf("%s: NeedsDefs = %v, want %v", f, got, want)
		}
		if !(Options{Context: true, Text: true, Header: f}).NeedsDefs() {
			t.Errorf("%s with --context: NeedsDefs is false", f)
		}
	}
}

// tsSrc's definitions (from internal/lang/queries/typescript.scm; the
// class starts after "export ", but its defining line is the whole line):
//
//	class Server   [7, 93)   line 1
//	method handle  [24, 91)  line 2
const tsSrc = "export class Server {\n" + // [0, 22)
	"  handle(req: Request): Response {\n" + // [22, 57)
	"    const x = 1;\n" + // [57, 74)
	"    return x;\n" + // [74, 88)
	"  }\n" + // [88, 92)
	"}\n" // [92, 94)

// mdSrc's definitions: section Guide [0, 37) line 1, section Install
// [17, 37) line 5.
const mdSrc = "# Guide\n" + // [0, 8)
	"\n" + // [8, 9)
	"Intro.\n" + // [9, 16)
	"\n" + // [16, 17)
	"## Install\n" + // [17, 28)
	"\n" + // [28, 29)
	"Run it.\n" // [29, 37)

// headers maps each format to a chunk's expected header; a format left
// out expects the path's line alone.
type headers map[HeaderFormat]string

// TestHeaderFormatsExact: every format's header of chunks of Python, Go,
// TypeScript and Markdown: outside any definition, starting at a
// definition's line (which is then not the chunk's scope), starting
// mid-line on its definition's line (the defining line is not repeated),
// inside a method of a class, and after a method ended.
func TestHeaderFormatsExact(t *testing.T) {
	for _, c := range []struct {
		name, lang, path, src string
		cuts                  []int
		want                  []headers
	}{
		{"python", "python", "src/app.py", pySrc, []int{0, 11, 17, 49, 63, 80, 116, 140}, []headers{
			{}, // import os
			{}, // "class " starts at App: App is defined here, not the scope
			// "App:" and the def line: in App, which starts on the chunk's first line
			{ScopeHeader: "src/app.py\nclass App\n", NamesHeader: "src/app.py\nApp\n", SignatureHeader: "src/app.py\nclass App\n"},
			{
				ScopeHeader:     "src/app.py\nclass App > method handle\n",
				NamesHeader:     "src/app.py\nApp > handle\n",
				SignatureHeader: "src/app.py\nclass App > method handle\ndef handle(self, req):\n",
				LinesHeader:     "src/app.py\nclass App:\ndef handle(self, req):\n",
			},
			{
				ScopeHeader:     "src/app.py\nclass App > method handle\n",
				NamesHeader:     "src/app.py\nApp > handle\n",
				SignatureHeader: "src/app.py\nclass App > method handle\ndef handle(self, req):\n",
				LinesHeader:     "src/app.py\nclass App:\ndef handle(self, req):\n",
			},
			// Anchored at "def other": in App, handle ended above.
			{ScopeHeader: "src/app.py\nclass App\n", NamesHeader: "src/app.py\nApp\n", SignatureHeader: "src/app.py\nclass App\nclass App:\n", LinesHeader: "src/app.py\nclass App:\n"},
			{}, // def top
		}},
		{"go", "go", "pkg/p.go", goSrc, []int{0, 11, 27, 37, 61, 76, 88}, []headers{
			{},
			{},
			// A type spec starts at its name; its defining line is the whole line.
			{ScopeHeader: "pkg/p.go\nstruct T\n", NamesHeader: "pkg/p.go\nT\n", SignatureHeader: "pkg/p.go\nstruct T\ntype T struct {\n", LinesHeader: "pkg/p.go\ntype T struct {\n"},
			{},
			{ScopeHeader: "pkg/p.go\nmethod T.Get\n", NamesHeader: "pkg/p.go\nT.Get\n", SignatureHeader: "pkg/p.go\nmethod T.Get\nfunc (t *T) Get() int {\n", LinesHeader: "pkg/p.go\nfunc (t *T) Get() int {\n"},
			{},
		}},
		{"typescript", "typescript", "web/server.ts", tsSrc, []int{0, 22, 57, 88, 94}, []headers{
			{},
			{ScopeHeader: "web/server.ts\nclass Server\n", NamesHeader: "web/server.ts\nServer\n", SignatureHeader: "web/server.ts\nclass Server\nexport class Server {\n", LinesHeader: "web/server.ts\nexport class Server {\n"},
			{
				ScopeHeader:     "web/server.ts\nclass Server > method handle\n",
				NamesHeader:     "web/server.ts\nServer > handle\n",
				SignatureHeader: "web/server.ts\nclass Server > method handle\nhandle(req: Request): Response {\n",
				LinesHeader:     "web/server.ts\nexport class Server {\nhandle(req: Request): Response {\n",
			},
			// "  }\n}\n": anchored at the method's "}", still in both.
			{
				ScopeHeader:     "web/server.ts\nclass Server > method handle\n",
				NamesHeader:     "web/server.ts\nServer > handle\n",
				SignatureHeader: "web/server.ts\nclass Server > method handle\nhandle(req: Request): Response {\n",
				LinesHeader:     "web/server.ts\nexport class Server {\nhandle(req: Request): Response {\n",
			},
		}},
		{"markdown", "markdown", "docs/guide.md", mdSrc, []int{0, 17, 29, 37}, []headers{
			{},
			{ScopeHeader: "docs/guide.md\nsection Guide\n", NamesHeader: "docs/guide.md\nGuide\n", SignatureHeader: "docs/guide.md\nsection Guide\n# Guide\n", LinesHeader: "docs/guide.md\n# Guide\n"},
			{
				ScopeHeader:     "docs/guide.md\nsection Guide > section Install\n",
				NamesHeader:     "docs/guide.md\nGuide > Install\n",
				SignatureHeader: "docs/guide.md\nsection Guide > section Install\n## Install\n",
				LinesHeader:     "docs/guide.md\n# Guide\n## Install\n",
			},
		}},
	} {
		l, tree := parsed(t, c.lang, c.src)
		for _, f := range formats() {
			o := Options{Text: true, Context: true, Header: f}
			w := NewWorker(o)
			b := chunk.Budget{Size: 1000}
			if _, err := w.Begin(c.path, l, []byte(c.src), tree, nil, b); err != nil {
				w.Close()
				t.Fatalf("%s %s: %v", c.name, f, err)
			}
			spans, extras, err := w.Finish(spansAt(c.src, c.cuts...), b, false)
			w.Close()
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, f, err)
			}
			if len(spans) != len(c.want) {
				t.Fatalf("%s %s: %d chunks, want %d", c.name, f, len(spans), len(c.want))
			}
			for i, x := range extras {
				want, ok := c.want[i][f]
				if !ok {
					want = c.path + "\n"
				}
				if x.Header != want {
					t.Errorf("%s %s chunk %d [%d,%d): header %q, want %q", c.name, f, i, spans[i].Start, spans[i].End, x.Header, want)
				}
			}
			if err := o.Check(c.path, []byte(c.src), spans, extras, b.Size); err != nil {
				t.Errorf("%s %s: Check refuses the worker's extras: %v", c.name, f, err)
			}
		}
	}
}

// TestDefiningLine: a defining line is its line trimmed at both ends
// (CRLF's "\r" too), a BOM at the file's start left out, a lone "\r"
// inside written as a space, tabs inside kept, and a line of more than
// MaxLine bytes cut at a character boundary, with "…", to at most MaxLine
// bytes.
func TestDefiningLine(t *testing.T) {
	long := "def long_signature(" + strings.Repeat("argument, ", 30) + "last):"
	wide := "def f(" + strings.Repeat("é", 200) + "):"
	for _, c := range []struct {
		src  string
		line int
		want string
	}{
		{"\uFEFFclass A:\n    pass\n", 1, "class A:"},
		{"x\n\uFEFFclass A:\n", 2, "\uFEFFclass A:"}, // a BOM is a BOM only at the start
		{"a\r\n    def f(self):\r\n", 2, "def f(self):"},
		{"func\rf() {\n", 1, "func f() {"},
		{"\tint\tx = 1; \u00a0\n", 1, "int\tx = 1;"},
		{"only\n", 2, ""},   // the empty line after the last line break
		{"only\n", 3, ""},   // out of the file
		{"only\n", 0, ""},   // out of the file
		{"a\n   \n", 2, ""}, // white space alone
		{strings.Repeat("x", MaxLine) + "\n", 1, strings.Repeat("x", MaxLine)},
		{strings.Repeat("x", MaxLine+1), 1, strings.Repeat("x", MaxLine-3) + "…"},
		{"\n    " + long + "\n        return 1\n", 2, "def long_signature(" + strings.Repeat("argument, ", 9) + "argument…"},
		// 117 bytes would cut an "é" (bytes 6, 8, ...): cut at 116.
		{wide + "\n", 1, "def f(" + strings.Repeat("é", 55) + "…"},
		// White space at the cut is trimmed before the ellipsis.
		{strings.Repeat("x", 116) + "  yyy\n", 1, strings.Repeat("x", 116) + "…"},
	} {
		var l Lines
		l.Reset([]byte(c.src))
		got := l.Defining(c.line)
		if got != c.want {
			t.Errorf("Defining(%d) of %q = %q, want %q", c.line, c.src, got, c.want)
		}
		if len(got) > MaxLine || !utf8.ValidString(got) {
			t.Errorf("Defining(%d) of %q = %q: %d bytes, valid %v", c.line, c.src, got, len(got), utf8.ValidString(got))
		}
	}
}

// TestLineOf: a byte's line, its line break belonging to it.
func TestLineOf(t *testing.T) {
	var l Lines
	l.Reset([]byte("ab\n\ncd"))
	for off, want := range []int{1, 1, 1, 2, 3, 3} {
		if got := l.LineOf(off); got != want {
			t.Errorf("LineOf(%d) = %d, want %d", off, got, want)
		}
	}
}

// TestHeaderLongSignature: a chunk in the body of a function whose
// signature is one line of a megabyte gets its defining line cut to
// MaxLine bytes; the budget holds, the check accepts it, and the work is
// that of the file, not of its chunks times the line.
func TestHeaderLongSignature(t *testing.T) {
	sig := "def f(" + strings.Repeat("a, ", 1<<20/3) + "z):\n"
	src := sig + strings.Repeat("    x = 1\n", 400)
	l, tree := parsed(t, "python", src)
	want := sig[:MaxLine-3] + "…"
	if sig[MaxLine-4] == ' ' {
		want = sig[:MaxLine-4] + "…"
	}
	for _, f := range []HeaderFormat{SignatureHeader, LinesHeader} {
		o := Options{Text: true, Context: true, Header: f}
		w := NewWorker(o)
		b := chunk.Budget{Size: 300}
		if _, err := w.Begin("long.py", l, []byte(src), tree, nil, b); err != nil {
			t.Fatal(err)
		}
		var cuts []int
		for i := len(sig); i < len(src); i += 200 {
			cuts = append(cuts, i)
		}
		spans := spansAt(src, append(cuts, len(src))...)
		got, extras, err := w.Finish(spans, b, false)
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range extras {
			if !strings.HasSuffix(x.Header, "\n"+want+"\n") {
				t.Fatalf("%s chunk %d: header %q, want it to end with %q", f, i, x.Header, want)
			}
			if n := chunk.Size([]byte(x.Header)) + got[i].Size; n > b.Size {
				t.Errorf("%s chunk %d: text of %d characters, over %d", f, i, n, b.Size)
			}
		}
		if err := o.Check("long.py", []byte(src), got, extras, b.Size); err != nil {
			t.Errorf("%s: Check: %v", f, err)
		}
	}
}

// prettyJSON is n nested objects, one key a line: {"k0": {"k1": {…}}}.
func prettyJSON(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s{\"k%d\":\n", strings.Repeat(" ", i%8), i)
	}
	b.WriteString("1")
	b.WriteString(strings.Repeat("}", n))
	b.WriteString("\n")
	return b.String()
}

// TestHeaderFormatsDeepNest: in nested JSON objects, one a line (each key
// its own defining line) and all on one line, every format's headers stay
// bounded: at most the path, a scope line of 17 entries and a defining
// line, or 17 lines of at most MaxLine bytes; the budgets hold and the
// check accepts them. LinesHeader keeps the 4 outermost keys' lines, an
// elided count, and the 12 innermost above the chunk.
func TestHeaderFormatsDeepNest(t *testing.T) {
	const depth = 3000
	for _, c := range []struct {
		name, src string
		pretty    bool
	}{{"one a line", prettyJSON(depth), true}, {"one line", deepJSON(depth), false}} {
		l, tree := parsed(t, "json", c.src)
		for _, f := range formats() {
			o := Options{Context: true, Text: true, Header: f}
			w := NewWorker(o)
			b := chunk.Budget{Size: 600}
			if _, err := w.Begin("d.json", l, []byte(c.src), tree, nil, b); err != nil {
				w.Close()
				t.Fatal(err)
			}
			var cuts []int
			for i := 0; i < len(c.src); i += 400 {
				cuts = append(cuts, i)
			}
			spans, extras, err := w.Finish(spansAt(c.src, append(cuts, len(c.src))...), b, false)
			w.Close()
			if err != nil {
				t.Fatal(err)
			}
			if err := o.Check("d.json", []byte(c.src), spans, extras, b.Size); err != nil {
				t.Errorf("%s %s: Check refuses the worker's extras: %v", c.name, f, err)
			}
			elided := 0
			for i, x := range extras {
				lines := strings.Split(strings.TrimSuffix(x.Header, "\n"), "\n")
				if len(lines) > 1+f.mostLines() || len(x.Header) > len("d.json\n")+17*(MaxLine+1) {
					t.Fatalf("%s %s chunk %d: a header of %d lines, %d bytes", c.name, f, i, len(lines), len(x.Header))
				}
				if chunk.Size([]byte(x.Header))+spans[i].Size > b.Size {
					t.Fatalf("%s %s chunk %d: over the budget", c.name, f, i)
				}
				if f != LinesHeader || !c.pretty || len(x.Scope) <= outline.MaxScope {
					continue
				}
				elided++
				first := 1 + strings.Count(c.src[:spans[i].Start], "\n")
				want := []string{"d.json", `{"k0":`, `{"k1":`, `{"k2":`, `{"k3":`, "elided " + x.Scope[outline.ScopeOuter].Name}
				for _, d := range x.Scope[outline.ScopeOuter+1:] {
					if d.Line < first {
						want = append(want, fmt.Sprintf(`{"%s":`, d.Name))
					}
				}
				if !slices.Equal(lines, want) {
					t.Fatalf("chunk %d: header lines %q, want %q", i, lines, want)
				}
			}
			if f == LinesHeader && c.pretty && elided < 10 {
				t.Errorf("only %d chunks deep enough to elide", elided)
			}
		}
	}
}

// TestLinesSharedLine: definitions that start on one line show it once;
// after the elided entry, the innermost definitions' first line is shown
// even when it is the line of the definition before it (left out).
func TestLinesSharedLine(t *testing.T) {
	src := `{"a": {"b": {` + "\n" + `  "c": 1` + "\n}}}\n"
	l, tree := parsed(t, "json", src)
	o := Options{Context: true, Text: true, Header: LinesHeader}
	w := NewWorker(o)
	defer w.Close()
	b := chunk.Budget{Size: 100}
	if _, err := w.Begin("d.json", l, []byte(src), tree, nil, b); err != nil {
		t.Fatal(err)
	}
	_, extras, err := w.Finish(spansAt(src, 0, 14, len(src)), b, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := "d.json\n{\"a\": {\"b\": {\n"; extras[1].Header != want {
		t.Errorf("header %q, want %q", extras[1].Header, want)
	}
	// Two keys a line, 42 keys (41 definitions: the last key's value is
	// not an object): the chain's 4 outermost are on lines 1 and 2; the
	// innermost 12 start with the second key of line 15, whose first is
	// left out.
	var sb strings.Builder
	for i := range 42 {
		fmt.Fprintf(&sb, `{"k%d": `, i)
		if i%2 == 1 {
			sb.WriteString("\n")
		}
	}
	src = sb.String() + "1" + strings.Repeat("}", 42) + "\n"
	l, tree = parsed(t, "json", src)
	b = chunk.Budget{Size: 1000}
	if _, err := w.Begin("d.json", l, []byte(src), tree, nil, b); err != nil {
		t.Fatal(err)
	}
	last := strings.LastIndex(src, "\n1") + 1
	_, extras, err = w.Finish(spansAt(src, 0, last, len(src)), b, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "d.json\n" + `{"k0": {"k1":` + "\n" + `{"k2": {"k3":` + "\nelided 25\n"
	for i := 28; i < 42; i += 2 {
		want += fmt.Sprintf(`{"k%d": {"k%d":`, i, i+1) + "\n"
	}
	if got := extras[1].Header; got != want {
		t.Errorf("header\n%s\nwant\n%s", got, want)
	}
	if size, _ := w.longestHeader(); size < chunk.Size([]byte(want)) {
		t.Errorf("longest header %d characters, under the header's %d", size, chunk.Size([]byte(want)))
	}
}

// TestLongestHeaderAddsUpFormats is TestLongestHeaderAddsUp for every
// format, on files of random lines (long ones cut, white space at their
// ends) that the random nests' definitions start on, several on a line
// at times: the longest header summed up from its entries is the largest
// size and token count of the headers themselves, each defining line
// shown (a chunk below them all). o200k's pre-tokenizer joins a "/" that
// starts a line to the punctuation that ends the line before, so lines
// never start with "/" here (see longestHeader).
func TestLongestHeaderAddsUpFormats(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 5))
	pieces := []string{"a", "Z", "x1", "7", "123", "'s", "'", "\"", ".", "::", "->", ">", "{", "}", "(", ")", "[", "]",
		"@media", "#", "$", "_", "-", "/", "é", "中文", "🙂", "\u00a0", ",", ";", "=", "*", "?", "|", "`", "\t", "\r"}
	word := func(max int) string {
		var b strings.Builder
		for range 1 + r.IntN(max) {
			b.WriteString(pieces[r.IntN(len(pieces))])
			if r.IntN(4) == 0 {
				b.WriteString(" ")
			}
		}
		return strings.TrimSpace(b.String())
	}
	kinds := []string{"class", "method", "function", "key", "section", "component"}
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		enc := loadEncoding(t, name)
		counter := enc.NewCounter()
		for run := range 80 {
			// The file: lines of words, some long, some indented.
			var lines []string
			for range 80 {
				line := word(8)
				if r.IntN(6) == 0 {
					line += strings.Repeat(" "+word(3), 40)
				}
				line = strings.TrimLeftFunc(line, func(r rune) bool { return r == '/' || unicode.IsSpace(r) })
				if line == "" {
					line = "x"
				}
				lines = append(lines, strings.Repeat(" ", r.IntN(3))+line+strings.Repeat(" ", r.IntN(2)))
			}
			src := strings.Join(lines, "\n") + "\n"
			var defs []outline.Def
			var open []int
			pos, line := 0, 1
			for range 1 + r.IntN(60) {
				for len(open) > 0 && r.IntN(5) == 0 {
					pos++
					defs[open[len(open)-1]].End = pos
					open = open[:len(open)-1]
				}
				pos++
				line = min(line+r.IntN(3), len(lines))
				defs = append(defs, outline.Def{Kind: kinds[r.IntN(len(kinds))], Name: word(5), Start: pos, Line: line})
				open = append(open, len(defs)-1)
			}
			for len(open) > 0 {
				pos++
				defs[open[len(open)-1]].End = pos
				open = open[:len(open)-1]
			}
			x := outline.NewIndex(defs)
			for _, f := range formats() {
				w := NewWorker(Options{Text: true, Encoding: enc, MaxTokens: 1 << 20, Header: f})
				w.path = word(6) + ".x"
				w.defs = defs
				w.lines.Reset([]byte(src))
				size, toks := w.longestHeader()
				h := f.Build(w.path, nil, &w.lines, math.MaxInt)
				wantSize, wantToks := chunk.Size([]byte(h)), counter.Count([]byte(h))
				for i := range defs {
					h := f.Build(w.path, x.Chain(nil, i), &w.lines, math.MaxInt)
					wantSize, wantToks = max(wantSize, chunk.Size([]byte(h))), max(wantToks, counter.Count([]byte(h)))
				}
				if size != wantSize || toks != wantToks {
					t.Fatalf("%s %s run %d: longest header %d characters, %d tokens; the headers' largest are %d, %d", name, f, run, size, toks, wantSize, wantToks)
				}
				w.Close()
			}
		}
	}
}

// legacyHeader is the header as castchunk wrote it before formats had
// names (the code, verbatim but for its name): ScopeHeader must stay it,
// byte for byte.
func legacyHeader(path string, n int, def func(i int) (kind, name string)) string {
	var b strings.Builder
	b.WriteString(oneLine(path))
	b.WriteByte('\n')
	for i := range n {
		if i > 0 {
			b.WriteString(" > ")
		}
		kind, name := def(i)
		b.WriteString(kind)
		b.WriteByte(' ')
		b.WriteString(name)
	}
	if n > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

// TestScopeHeaderUnchanged: the zero value and ScopeHeader make the same
// extras and the same budgets as each other, and headers byte for byte as
// castchunk wrote them before formats had names, on the test inputs and
// deep nests, with and without a token budget.
func TestScopeHeaderUnchanged(t *testing.T) {
	enc := loadEncoding(t, "cl100k_base")
	for _, c := range []struct{ path, lang, src string }{
		{"src/app.py", "python", pySrc},
		{"odd\nname.go", "go", goSrc},
		{"web/server.ts", "typescript", tsSrc},
		{"docs/guide.md", "markdown", mdSrc},
		{"d.json", "json", deepJSON(300)},
		{"p.json", "json", prettyJSON(300)},
	} {
		l, tree := parsed(t, c.lang, c.src)
		for _, base := range []Options{{Context: true, Text: true}, {Text: true, Encoding: enc, MaxTokens: 400}} {
			var got [2][]record.Extra
			var budgets [2]chunk.Budget
			for k, f := range []HeaderFormat{"", ScopeHeader} {
				o := base
				o.Header = f
				w := NewWorker(o)
				b := chunk.Budget{Size: 1500, Tokens: o.MaxTokens}
				in, err := w.Begin(c.path, l, []byte(c.src), tree, nil, b)
				if err != nil {
					w.Close()
					t.Fatal(err)
				}
				budgets[k] = in.Budget
				var cuts []int
				for i := 0; i < len(c.src); i += 17 {
					cuts = append(cuts, i)
				}
				spans, extras, err := w.Finish(spansAt(c.src, append(cuts, len(c.src))...), b, false)
				if err != nil {
					w.Close()
					t.Fatal(err)
				}
				got[k] = extras
				for i, s := range spans {
					scope := w.index.Scope(nil, w.src, s.Start, s.End)
					want := legacyHeader(c.path, len(scope), func(i int) (string, string) { return scope[i].Kind, scope[i].Name })
					if extras[i].Header != want {
						t.Errorf("%s %q chunk %d: header %q, the old one %q", c.path, f, i, extras[i].Header, want)
					}
				}
				w.Close()
			}
			if budgets[0] != budgets[1] || !slices.EqualFunc(got[0], got[1], func(a, b record.Extra) bool {
				return a.Header == b.Header && a.Tokens == b.Tokens && slices.Equal(a.Scope, b.Scope) && slices.Equal(a.Defines, b.Defines)
			}) {
				t.Errorf("%s: the zero value and scope differ: budgets %+v", c.path, budgets)
			}
		}
	}
}

// TestCheckHeaderFormats: the cache's check takes each format's own
// headers and refuses another format's, a defining line that is not the
// file's, and (without --context) headers of more lines than the format
// adds.
func TestCheckHeaderFormats(t *testing.T) {
	l, tree := parsed(t, "python", pySrc)
	b := chunk.Budget{Size: 1000}
	made := map[HeaderFormat][]record.Extra{}
	var spans []chunk.Span
	for _, f := range formats() {
		o := Options{Context: true, Text: true, Header: f}
		w := NewWorker(o)
		if _, err := w.Begin("a.py", l, []byte(pySrc), tree, nil, b); err != nil {
			t.Fatal(err)
		}
		var err error
		spans, made[f], err = w.Finish(spansAt(pySrc, 0, 49, 63, 80, 140), b, false)
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range formats() {
		for _, g := range formats() {
			err := (Options{Context: true, Text: true, Header: f}).Check("a.py", []byte(pySrc), spans, made[g], b.Size)
			if (err == nil) != (f == g) {
				t.Errorf("format %s, extras made with %s: Check error %v", f, g, err)
			}
		}
	}
	// A defining line that is not the file's.
	x := slices.Clone(made[SignatureHeader])
	x[1].Header = strings.Replace(x[1].Header, "def handle(self, req):", "def handle(self):", 1)
	if err := (Options{Context: true, Text: true, Header: SignatureHeader}).Check("a.py", []byte(pySrc), spans, x, b.Size); err == nil {
		t.Error("signature: a changed defining line accepted")
	}
	// Without --context: the shape only.
	for _, c := range []struct {
		f      HeaderFormat
		header string
		ok     bool
	}{
		{PathHeader, "a.py\n", true},
		{PathHeader, "a.py\nclass App\n", false},
		{NamesHeader, "a.py\nApp > handle\n", true},
		{NamesHeader, "a.py\nApp\nhandle\n", false},
		{SignatureHeader, "a.py\nclass App\ndef x():\n", true},
		{SignatureHeader, "a.py\nclass App\n", true},
		{SignatureHeader, "a.py\nclass App\ndef x():\nmore\n", false},
		{SignatureHeader, "a.py\nApp\n", false},
		{SignatureHeader, "a.py\nclass App\n" + strings.Repeat("x", MaxLine+1) + "\n", false},
		{LinesHeader, "a.py\nclass App:\n    def handle(self, req):\n", true},
		{LinesHeader, "a.py\n" + strings.Repeat("line\n", outline.MaxScope+1), true},
		{LinesHeader, "a.py\n" + strings.Repeat("line\n", outline.MaxScope+2), false},
		{LinesHeader, "a.py\nclass App:\n\n", false},
		{LinesHeader, "a.py\n" + strings.Repeat("x", MaxLine+1) + "\n", false},
		{ScopeHeader, "a.py\nApp\n", false},
	} {
		err := c.f.CheckShape(c.header, "a.py")
		if (err == nil) != c.ok {
			t.Errorf("%s: CheckShape(%q) = %v, want ok %v", c.f, c.header, err, c.ok)
		}
	}
}

// TestBeginHeaderTooLongFormats: the error of a header too long names what
// the format puts in it; a header of the path alone leaves the most room.
func TestBeginHeaderTooLongFormats(t *testing.T) {
	l, tree := parsed(t, "python", pySrc)
	for _, c := range []struct {
		f    HeaderFormat
		want string // the error, or the budget left as "%d"
	}{
		{PathHeader, "22"},  // "src/app.py": 10
		{NamesHeader, "12"}, // + "App>handle": 20
		{ScopeHeader, "1"},  // + "classApp>methodhandle": 31
		{SignatureHeader, "header (path, scope and defining line) takes 51 characters"}, // + "defhandle(self,req):"
		{LinesHeader, "header (path and defining lines) takes 39 characters"},           // "src/app.py", "classApp:", "defhandle(self,req):"
	} {
		w := NewWorker(Options{Text: true, Header: c.f})
		in, err := w.Begin("src/app.py", l, []byte(pySrc), tree, nil, chunk.Budget{Size: 32})
		w.Close()
		got := fmt.Sprint(in.Budget.Size)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: Begin gives %q, want %q", c.f, got, c.want)
		}
	}
	w := NewWorker(Options{Text: true, Header: "sig"})
	defer w.Close()
	if _, err := w.Begin("src/app.py", l, []byte(pySrc), tree, nil, chunk.Budget{Size: 100}); err == nil {
		t.Error("an unknown format: no error")
	}
}

// TestHeaderFormatsLinearWork: TestDeepNestLinearWork for every format,
// on nests of one key a line (each its own defining line) and all on one
// line: four times as deep, Begin and Finish allocate about four times as
// much, not sixteen.
func TestHeaderFormatsLinearWork(t *testing.T) {
	enc := loadEncoding(t, "cl100k_base")
	for _, nest := range []func(int) string{prettyJSON, deepJSON} {
		for _, f := range formats() {
			opt := Options{Context: true, Text: true, Encoding: enc, MaxTokens: 300, Header: f}
			work := func(depth int) (begin, finish uint64) {
				begin, finish, _, _ = beginFinish(t, opt, chunk.Budget{Size: 600, Tokens: 300}, nest(depth), 1000)
				return begin, finish
			}
			if f == ScopeHeader {
				work(100) // the encoding's tables load on first use
			}
			b1, f1 := work(2000)
			b2, f2 := work(8000)
			if b2 > b1*6 || f2 > f1*6 {
				t.Errorf("%s: four times as deep, Begin allocates %.1f times as much and Finish %.1f: want at most 6", f, float64(b2)/float64(b1), float64(f2)/float64(f1))
			}
		}
	}
}
