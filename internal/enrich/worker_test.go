package enrich

import (
	"bytes"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
	"github.com/castchunk/castchunk/internal/record"
)

// pySrc's definitions (from internal/lang/queries/python.scm):
//
//	class App          [11, 114)  line 3
//	method handle      [26, 79)   line 4
//	method other       [85, 114)  line 8
//	function top       [116, 139) line 11
const pySrc = "import os\n" + // [0, 10)
	"\n" + // [10, 11)
	"class App:\n" + // [11, 22)
	"    def handle(self, req):\n" + // [22, 49)
	"        x = 1\n" + // [49, 63)
	"        return x\n" + // [63, 80)
	"\n" + // [80, 81)
	"    def other(self):\n" + // [81, 102)
	"        pass\n" + // [102, 115)
	"\n" + // [115, 116)
	"def top():\n" + // [116, 127)
	"    return 2\n" // [127, 140)

// goSrc's definitions (from internal/lang/queries/go.scm; a type spec
// starts at its name, not at the "type" keyword):
//
//	struct T          [16, 35)  line 3
//	method T.Get      [37, 74)  line 7
//	function F        [76, 87)  line 11
const goSrc = "package p\n" + // [0, 10)
	"\n" + // [10, 11)
	"type T struct {\n" + // [11, 27)
	"\tA int\n" + // [27, 34)
	"}\n" + // [34, 36)
	"\n" + // [36, 37)
	"func (t *T) Get() int {\n" + // [37, 61)
	"\treturn t.A\n" + // [61, 73)
	"}\n" + // [73, 75)
	"\n" + // [75, 76)
	"func F() {}\n" // [76, 88)

// parsed parses src as the named language; the tree is closed when the
// test ends.
func parsed(t *testing.T, name, src string) (*lang.Language, *sitter.Tree) {
	t.Helper()
	l := lang.ByName(name)
	if l == nil {
		t.Fatalf("no language %q", name)
	}
	p := parse.New(0)
	t.Cleanup(p.Close)
	tree, err := p.Parse([]byte(src), l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tree.Close)
	return l, tree
}

// spansAt returns the spans [cuts[i], cuts[i+1]) of src with their sizes.
func spansAt(src string, cuts ...int) []chunk.Span {
	var out []chunk.Span
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		out = append(out, chunk.Span{Start: a, End: b, Size: chunk.Size([]byte(src[a:b]))})
	}
	return out
}

var (
	defApp    = record.Def{Kind: "class", Name: "App", Line: 3}
	defHandle = record.Def{Kind: "method", Name: "handle", Line: 4}
	defOther  = record.Def{Kind: "method", Name: "other", Line: 8}
	defTop    = record.Def{Kind: "function", Name: "top", Line: 11}
	defT      = record.Def{Kind: "struct", Name: "T", Line: 3}
	defGet    = record.Def{Kind: "method", Name: "T.Get", Line: 7}
	defF      = record.Def{Kind: "function", Name: "F", Line: 11}
)

// checkTokens checks that each chunk's Tokens is the count of its text,
// header then content, on a counter of its own.
func checkTokens(t *testing.T, src string, spans []chunk.Span, extras []record.Extra) {
	t.Helper()
	c := loadEncoding(t, "cl100k_base").NewCounter()
	for i, s := range spans {
		text := extras[i].Header + src[s.Start:s.End]
		if n := c.Count([]byte(text)); n != extras[i].Tokens {
			t.Errorf("chunk %d [%d,%d): Tokens = %d, but its text %q has %d", i, s.Start, s.End, extras[i].Tokens, text, n)
		}
	}
}

// TestWorkerPython: scope, defines, header and tokens of chunks around and
// inside a class's methods, when the spans fit (Finish keeps them).
func TestWorkerPython(t *testing.T) {
	l, tree := parsed(t, "python", pySrc)
	enc := loadEncoding(t, "cl100k_base")
	w := NewWorker(Options{Context: true, Encoding: enc, Text: true})
	defer w.Close()
	b := chunk.Budget{Size: 1000}
	in, err := w.Begin("src/app.py", l, []byte(pySrc), tree, nil, b)
	if err != nil {
		t.Fatal(err)
	}
	// The longest header is "src/app.py\nclass App > method handle\n": 31
	// characters. No token budget: no token starts.
	if in.Budget != (chunk.Budget{Size: 969}) || in.TokenStarts != nil || in.Tree != tree || string(in.Src) != pySrc {
		t.Errorf("Begin = budget %+v, %d token starts, tree %p, src %q", in.Budget, len(in.TokenStarts), in.Tree, in.Src)
	}
	spans := spansAt(pySrc, 0, 11, 49, 63, 80, 116, 140)
	got, extras, err := w.Finish(slices.Clone(spans), b, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(spans, got); diff != "" {
		t.Errorf("spans that fit were changed (-want +got):\n%s", diff)
	}
	const (
		top   = "src/app.py\n"
		inApp = "src/app.py\nclass App\n"
		inH   = "src/app.py\nclass App > method handle\n"
	)
	want := []record.Extra{
		// "import os": nothing encloses it or starts in it.
		{Scope: nil, Defines: nil, Tokens: 7, Header: top},
		// Starts at "class App:": App is defined here, not its scope.
		{Scope: nil, Defines: []record.Def{defApp, defHandle}, Tokens: 14, Header: top},
		// Inside the method's body.
		{Scope: []record.Def{defApp, defHandle}, Defines: nil, Tokens: 16, Header: inH},
		{Scope: []record.Def{defApp, defHandle}, Defines: nil, Tokens: 14, Header: inH},
		// Anchored at "def other": in App, not in handle (ended above) nor in other.
		{Scope: []record.Def{defApp}, Defines: []record.Def{defOther}, Tokens: 15, Header: inApp},
		{Scope: nil, Defines: []record.Def{defTop}, Tokens: 12, Header: top},
	}
	if diff := cmp.Diff(want, extras, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("extras (-want +got):\n%s", diff)
	}
	checkTokens(t, pySrc, got, extras)
}

// TestWorkerGo: a Go method's scope is named by its receiver's type; a
// chunk inside a struct's fields has the struct as its scope. No
// tokenizer: no token counts.
func TestWorkerGo(t *testing.T) {
	l, tree := parsed(t, "go", goSrc)
	w := NewWorker(Options{Context: true, Text: true})
	defer w.Close()
	b := chunk.Budget{Size: 500}
	in, err := w.Begin("pkg/p.go", l, []byte(goSrc), tree, nil, b)
	if err != nil {
		t.Fatal(err)
	}
	// Longest header: "pkg/p.go\nmethod T.Get\n", 8 + 11 characters.
	if in.Budget != (chunk.Budget{Size: 481}) {
		t.Errorf("Begin budget = %+v, want {481 0}", in.Budget)
	}
	spans := spansAt(goSrc, 0, 11, 27, 37, 61, 76, 88)
	got, extras, err := w.Finish(slices.Clone(spans), b, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(spans, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	const top, inT, inGet = "pkg/p.go\n", "pkg/p.go\nstruct T\n", "pkg/p.go\nmethod T.Get\n"
	want := []record.Extra{
		{Header: top},
		// Starts at the "type" keyword, before the spec: T starts inside.
		{Defines: []record.Def{defT}, Header: top},
		{Scope: []record.Def{defT}, Header: inT},
		{Defines: []record.Def{defGet}, Header: top},
		{Scope: []record.Def{defGet}, Header: inGet},
		{Defines: []record.Def{defF}, Header: top},
	}
	if diff := cmp.Diff(want, extras, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("extras (-want +got):\n%s", diff)
	}
}

// TestWorkerOptionsApart: each option adds only its own fields.
func TestWorkerOptionsApart(t *testing.T) {
	l, tree := parsed(t, "python", pySrc)
	enc := loadEncoding(t, "cl100k_base")
	spans := spansAt(pySrc, 0, 49, 80, 140)
	b := chunk.Budget{Size: 1000}
	for _, c := range []struct {
		name   string
		opt    Options
		budget chunk.Budget // from Begin
		want   []record.Extra
	}{
		{"context", Options{Context: true}, b, []record.Extra{
			{Scope: []record.Def{}, Defines: []record.Def{defApp, defHandle}},
			{Scope: []record.Def{defApp, defHandle}, Defines: []record.Def{}},
			{Scope: []record.Def{defApp}, Defines: []record.Def{defOther, defTop}},
		}},
		// The header needs the scope, but the record's fields stay empty.
		// The longest header, "a.py\nclass App > method handle\n", takes 25.
		{"embed-text", Options{Text: true}, chunk.Budget{Size: 975}, []record.Extra{
			{Header: "a.py\n"}, {Header: "a.py\nclass App > method handle\n"}, {Header: "a.py\nclass App\n"},
		}},
		// Counts of the content alone.
		{"tokenizer", Options{Encoding: enc}, b, []record.Extra{{Tokens: 13}, {Tokens: 10}, {Tokens: 17}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := NewWorker(c.opt)
			defer w.Close()
			in, err := w.Begin("a.py", l, []byte(pySrc), tree, nil, b)
			if err != nil {
				t.Fatal(err)
			}
			if in.Budget != c.budget {
				t.Errorf("Begin budget = %+v, want %+v", in.Budget, c.budget)
			}
			_, extras, err := w.Finish(slices.Clone(spans), b, false)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, extras); diff != "" {
				t.Errorf("extras (-want +got):\n%s", diff)
			}
			if c.opt.Encoding != nil {
				checkTokens(t, pySrc, spans, extras)
			}
		})
	}
}

// checkSplit checks pieces of a file split to fit b: they tile src, each
// text (header then content) fits both ceilings on its own count, and
// each piece but the last is as long as it can be in whole lines: with the
// next line too, it would be over (counted with the header the longer
// piece gets).
func checkSplit(t *testing.T, w *Worker, src string, spans []chunk.Span, extras []record.Extra, b chunk.Budget) {
	t.Helper()
	if err := chunk.CheckTiling(spans, len(src), b.Size); err != nil {
		t.Fatal(err)
	}
	c := loadEncoding(t, "cl100k_base").NewCounter()
	over := func(header, text string) bool {
		return chunk.Size([]byte(header+text)) > b.Size || b.Tokens > 0 && c.Count([]byte(header+text)) > b.Tokens
	}
	for i, s := range spans {
		if over(extras[i].Header, src[s.Start:s.End]) {
			t.Errorf("piece %d [%d,%d) is over %+v", i, s.Start, s.End, b)
		}
		if s.End == len(src) {
			continue
		}
		next := s.End + bytes.IndexByte([]byte(src[s.End:]), '\n') + 1
		if h := w.header(s.Start, next); !over(h, src[s.Start:next]) {
			t.Errorf("piece %d [%d,%d) could have taken the next line, up to %d", i, s.Start, s.End, next)
		}
	}
}

// TestFinishSplitsOnTokens: a file whose content is over the token budget
// is split by lines, each piece within the budget on its own count.
func TestFinishSplitsOnTokens(t *testing.T) {
	l, tree := parsed(t, "python", pySrc)
	enc := loadEncoding(t, "cl100k_base")
	w := NewWorker(Options{Encoding: enc, MaxTokens: 20})
	defer w.Close()
	b := chunk.Budget{Size: 1000, Tokens: 20}
	in, err := w.Begin("src/app.py", l, []byte(pySrc), tree, nil, b)
	if err != nil {
		t.Fatal(err)
	}
	// The token starts are the file's: 39 tokens.
	starts := enc.NewCounter().AppendStarts(nil, []byte(pySrc))
	if len(starts) != 39 || !slices.Equal(in.TokenStarts, starts) || in.Budget != b {
		t.Errorf("Begin = budget %+v, token starts %v; want %+v, %v", in.Budget, in.TokenStarts, b, starts)
	}
	got, extras, err := w.Finish(spansAt(pySrc, 0, 140), b, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []chunk.Span{{Start: 0, End: 63, Size: 40}, {Start: 63, End: 140, Size: 42}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]record.Extra{{Tokens: 19}, {Tokens: 20}}, extras); diff != "" {
		t.Errorf("extras (-want +got):\n%s", diff)
	}
	checkTokens(t, pySrc, got, extras)
	checkSplit(t, w, pySrc, got, extras, b)
}

// TestFinishSplitsWithHeaders: with the embedding text, the token budget
// covers each piece's own header, and the pieces are described again.
func TestFinishSplitsWithHeaders(t *testing.T) {
	l, tree := parsed(t, "python", pySrc)
	enc := loadEncoding(t, "cl100k_base")
	w := NewWorker(Options{Context: true, Encoding: enc, MaxTokens: 24, Text: true})
	defer w.Close()
	b := chunk.Budget{Size: 1000, Tokens: 24}
	in, err := w.Begin("src/app.py", l, []byte(pySrc), tree, nil, b)
	if err != nil {
		t.Fatal(err)
	}
	// The longest header takes 31 characters and 10 tokens.
	if in.Budget != (chunk.Budget{Size: 969, Tokens: 14}) {
		t.Errorf("Begin budget = %+v, want {969 14}", in.Budget)
	}
	got, extras, err := w.Finish(spansAt(pySrc, 0, 140), b, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []chunk.Span{{Start: 0, End: 63, Size: 40}, {Start: 63, End: 116, Size: 26}, {Start: 116, End: 140, Size: 16}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	wantExtras := []record.Extra{
		{Defines: []record.Def{defApp, defHandle}, Tokens: 23, Header: "src/app.py\n"},
		{Scope: []record.Def{defApp, defHandle}, Defines: []record.Def{defOther}, Tokens: 22, Header: "src/app.py\nclass App > method handle\n"},
		{Defines: []record.Def{defTop}, Tokens: 12, Header: "src/app.py\n"},
	}
	if diff := cmp.Diff(wantExtras, extras, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("extras (-want +got):\n%s", diff)
	}
	checkTokens(t, pySrc, got, extras)
	checkSplit(t, w, pySrc, got, extras, b)
}

// TestFinishSplitsOnSize: a span whose content fits --max-size but whose
// text does not is split; each piece gets the header of its own scope.
func TestFinishSplitsOnSize(t *testing.T) {
	l, tree := parsed(t, "go", goSrc)
	w := NewWorker(Options{Context: true, Text: true})
	defer w.Close()
	b := chunk.Budget{Size: 30}
	if _, err := w.Begin("p.go", l, []byte(goSrc), tree, nil, b); err != nil {
		t.Fatal(err)
	}
	got, extras, err := w.Finish(spansAt(goSrc, 0, 88), b, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []chunk.Span{{Start: 0, End: 37, Size: 25}, {Start: 37, End: 61, Size: 18}, {Start: 61, End: 76, Size: 10}, {Start: 76, End: 88, Size: 9}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	wantExtras := []record.Extra{
		{Defines: []record.Def{defT}, Header: "p.go\n"},
		{Defines: []record.Def{defGet}, Header: "p.go\n"},
		{Scope: []record.Def{defGet}, Header: "p.go\nmethod T.Get\n"},
		{Defines: []record.Def{defF}, Header: "p.go\n"},
	}
	if diff := cmp.Diff(wantExtras, extras, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("extras (-want +got):\n%s", diff)
	}
	checkSplit(t, w, goSrc, got, extras, b)
}

// TestFinishOverlapping: overlapping windows split by Finish come back in
// order, a piece that an earlier one already holds dropped.
func TestFinishOverlapping(t *testing.T) {
	src := "aaaa\nbbbb\ncccc\n"
	w := NewWorker(Options{Text: true})
	defer w.Close()
	b := chunk.Budget{Size: 12}
	if _, err := w.Begin("p.txt", nil, []byte(src), nil, nil, b); err != nil {
		t.Fatal(err)
	}
	// Two windows of two lines, overlapping by one: each text is 5+8 = 13.
	windows := []chunk.Span{{Start: 0, End: 10, Size: 8}, {Start: 5, End: 15, Size: 8}}
	got, extras, err := w.Finish(windows, b, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []chunk.Span{{Start: 0, End: 5, Size: 4}, {Start: 5, End: 10, Size: 4}, {Start: 10, End: 15, Size: 4}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	if len(extras) != len(got) {
		t.Fatalf("%d extras for %d spans", len(extras), len(got))
	}
	for i, e := range extras {
		if e.Header != "p.txt\n" {
			t.Errorf("piece %d: header %q", i, e.Header)
		}
	}
}

// TestBeginHeaderTooLong: a header that leaves no room for content fails
// the file, saying how much the header takes; one character (or four
// tokens) left is enough.
func TestBeginHeaderTooLong(t *testing.T) {
	l, tree := parsed(t, "python", pySrc)
	enc := loadEncoding(t, "cl100k_base")
	const why = "which leaves too little of the budget for content"
	for _, c := range []struct {
		name    string
		opt     Options
		path    string
		lang    bool // parse the file: headers get scopes
		b       chunk.Budget
		want    chunk.Budget // from Begin, when err is ""
		errWant string
	}{
		// "a/very/long/path/name.py" has 24 characters.
		{"path over", Options{Text: true}, "a/very/long/path/name.py", false, chunk.Budget{Size: 20}, chunk.Budget{},
			"the embedding text's header (path and scope) takes 24 characters and 0 tokens, " + why},
		{"path equal", Options{Text: true}, "a/very/long/path/name.py", false, chunk.Budget{Size: 24}, chunk.Budget{},
			"the embedding text's header (path and scope) takes 24 characters and 0 tokens, " + why},
		{"path plus one", Options{Text: true}, "a/very/long/path/name.py", false, chunk.Budget{Size: 25}, chunk.Budget{Size: 1}, ""},
		// The scope makes the longest header: 10 + 21 characters.
		{"scope equal", Options{Context: true, Text: true}, "src/app.py", true, chunk.Budget{Size: 31}, chunk.Budget{},
			"the embedding text's header (path and scope) takes 31 characters and 0 tokens, " + why},
		{"scope plus one", Options{Context: true, Text: true}, "src/app.py", true, chunk.Budget{Size: 32}, chunk.Budget{Size: 1}, ""},
		// Without a tree, no scope: only the path's 10 characters.
		{"unparsed", Options{Text: true}, "src/app.py", false, chunk.Budget{Size: 31}, chunk.Budget{Size: 21}, ""},
		// 10 tokens of header leave 3 of 13: fewer than one character may take.
		{"tokens short", Options{Encoding: enc, MaxTokens: 13, Text: true}, "src/app.py", true, chunk.Budget{Size: 1000, Tokens: 13}, chunk.Budget{},
			"the embedding text's header (path and scope) takes 31 characters and 10 tokens, " + why},
		{"tokens enough", Options{Encoding: enc, MaxTokens: 14, Text: true}, "src/app.py", true, chunk.Budget{Size: 1000, Tokens: 14}, chunk.Budget{Size: 969, Tokens: 4}, ""},
		// Without the embedding text there is no header to make room for.
		{"no text", Options{Context: true, Encoding: enc, MaxTokens: 8}, "a/very/long/path/name.py", true, chunk.Budget{Size: 2, Tokens: 8}, chunk.Budget{Size: 2, Tokens: 8}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := NewWorker(c.opt)
			defer w.Close()
			var ll *lang.Language
			var tr *sitter.Tree
			if c.lang {
				ll, tr = l, tree
			}
			in, err := w.Begin(c.path, ll, []byte(pySrc), tr, nil, c.b)
			if c.errWant != "" {
				if err == nil || err.Error() != c.errWant {
					t.Errorf("Begin error = %v, want %q", err, c.errWant)
				}
				if in.Src != nil || in.Budget != (chunk.Budget{}) {
					t.Errorf("Begin failed but returned input %+v", in.Budget)
				}
				return
			}
			if err != nil {
				t.Fatalf("Begin: %v", err)
			}
			if in.Budget != c.want {
				t.Errorf("Begin budget = %+v, want %+v", in.Budget, c.want)
			}
		})
	}
}

// TestFinishNothingFits: Finish with a budget that not one character fits
// besides the header fails, returning nothing.
func TestFinishNothingFits(t *testing.T) {
	w := NewWorker(Options{Text: true})
	defer w.Close()
	src := "abc\n"
	if _, err := w.Begin("p.txt", nil, []byte(src), nil, nil, chunk.Budget{Size: 100}); err != nil {
		t.Fatal(err)
	}
	spans, extras, err := w.Finish(spansAt(src, 0, 4), chunk.Budget{Size: 5}, false)
	if want := "not one character at byte 0 fits the budget"; err == nil || err.Error() != want {
		t.Errorf("Finish error = %v, want %q", err, want)
	}
	if spans != nil || extras != nil {
		t.Errorf("Finish failed but returned %v, %v", spans, extras)
	}
}

// TestWorkerReuse: a worker going from file to file keeps nothing of the
// previous file: definitions, header room, token starts.
func TestWorkerReuse(t *testing.T) {
	l, tree := parsed(t, "python", pySrc)
	enc := loadEncoding(t, "cl100k_base")
	w := NewWorker(Options{Context: true, Encoding: enc, MaxTokens: 64, Text: true})
	defer w.Close()
	b := chunk.Budget{Size: 100, Tokens: 64}
	for round := range 2 {
		in, err := w.Begin("src/app.py", l, []byte(pySrc), tree, nil, b)
		if err != nil {
			t.Fatal(err)
		}
		if in.Budget != (chunk.Budget{Size: 69, Tokens: 54}) || len(in.TokenStarts) != 39 {
			t.Errorf("round %d: python Begin = %+v, %d token starts", round, in.Budget, len(in.TokenStarts))
		}
		if _, _, err := w.Finish(spansAt(pySrc, 0, 49, 80, 140), b, false); err != nil {
			t.Fatal(err)
		}
		// Plain text: no definitions; the header is the path alone
		// ("notes.txt\n": 9 characters, 3 tokens).
		txt := "see App.handle\n"
		in, err = w.Begin("notes.txt", nil, []byte(txt), nil, nil, b)
		if err != nil {
			t.Fatal(err)
		}
		starts := enc.NewCounter().AppendStarts(nil, []byte(txt))
		if in.Budget != (chunk.Budget{Size: 91, Tokens: 61}) || !slices.Equal(in.TokenStarts, starts) {
			t.Errorf("round %d: text Begin = %+v, token starts %v, want %v", round, in.Budget, in.TokenStarts, starts)
		}
		spans, extras, err := w.Finish(spansAt(txt, 0, len(txt)), b, false)
		if err != nil {
			t.Fatal(err)
		}
		want := []record.Extra{{Scope: []record.Def{}, Defines: []record.Def{}, Tokens: 7, Header: "notes.txt\n"}}
		if diff := cmp.Diff(want, extras); diff != "" {
			t.Errorf("round %d: text extras (-want +got):\n%s", round, diff)
		}
		checkTokens(t, txt, spans, extras)
	}
}

// TestFinishNoSpans: an empty file has no chunk and nothing to describe.
func TestFinishNoSpans(t *testing.T) {
	w := NewWorker(Options{Context: true, Text: true})
	defer w.Close()
	if _, err := w.Begin("empty.py", nil, nil, nil, nil, chunk.Budget{Size: 100}); err != nil {
		t.Fatal(err)
	}
	spans, extras, err := w.Finish(nil, chunk.Budget{Size: 100}, false)
	if err != nil || len(spans) != 0 || len(extras) != 0 {
		t.Errorf("Finish(nil) = %v, %v, %v; want nothing", spans, extras, err)
	}
}
