package enrich

import (
	"fmt"
	"testing"

	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/tokens"
)

func loadEncoding(t testing.TB, name string) *tokens.Encoding {
	t.Helper()
	enc, err := tokens.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestOptions checks Any, NeedsDefs and Key on every combination of the
// four flags that the command line accepts (--max-tokens needs
// --tokenizer): --context, --embed-text, and no tokenizer, a tokenizer
// alone, or a tokenizer with --max-tokens. Every flag changes what a cache
// entry holds (the spans, or what is stored beside them), so every
// combination has a key of its own.
func TestOptions(t *testing.T) {
	enc := loadEncoding(t, "cl100k_base")
	type tok int
	const (
		noTok tok = iota
		countOnly
		bounded
	)
	for _, c := range []struct {
		context, text bool
		tok           tok
		any, defs     bool
		key           string
	}{
		{false, false, noTok, false, false, ""},
		{true, false, noTok, true, true, "context"},
		{false, true, noTok, true, true, "embed-text"},
		{true, true, noTok, true, true, "context embed-text"},
		{false, false, countOnly, true, false, "tokenizer=cl100k_base"},
		{true, false, countOnly, true, true, "context tokenizer=cl100k_base"},
		{false, true, countOnly, true, true, "tokenizer=cl100k_base embed-text"},
		{true, true, countOnly, true, true, "context tokenizer=cl100k_base embed-text"},
		{false, false, bounded, true, false, "tokenizer=cl100k_base max-tokens=64"},
		{true, false, bounded, true, true, "context tokenizer=cl100k_base max-tokens=64"},
		{false, true, bounded, true, true, "tokenizer=cl100k_base max-tokens=64 embed-text"},
		{true, true, bounded, true, true, "context tokenizer=cl100k_base max-tokens=64 embed-text"},
	} {
		o := Options{Context: c.context, Text: c.text}
		if c.tok >= countOnly {
			o.Encoding = enc
		}
		if c.tok == bounded {
			o.MaxTokens = 64
		}
		name := fmt.Sprintf("context=%v text=%v tok=%d", c.context, c.text, c.tok)
		if got := o.Any(); got != c.any {
			t.Errorf("%s: Any = %v, want %v", name, got, c.any)
		}
		if got := o.NeedsDefs(); got != c.defs {
			t.Errorf("%s: NeedsDefs = %v, want %v", name, got, c.defs)
		}
		if got := o.Key(); got != c.key {
			t.Errorf("%s: Key = %q, want %q", name, got, c.key)
		}
	}
}

// TestKeyNamesTokenizerAndBudget: the cache key tells apart what changes
// the chunks' boundaries: the tokenizer and the token budget.
func TestKeyNamesTokenizerAndBudget(t *testing.T) {
	cl, o200 := loadEncoding(t, "cl100k_base"), loadEncoding(t, "o200k_base")
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Encoding: o200, MaxTokens: 64}, "tokenizer=o200k_base max-tokens=64"},
		{Options{Encoding: cl, MaxTokens: 8}, "tokenizer=cl100k_base max-tokens=8"},
		{Options{Encoding: cl, MaxTokens: 8, Text: true}, "tokenizer=cl100k_base max-tokens=8 embed-text"},
	} {
		if got := c.o.Key(); got != c.want {
			t.Errorf("Key(%s, %d, text=%v) = %q, want %q", c.o.Encoding.Name(), c.o.MaxTokens, c.o.Text, got, c.want)
		}
	}
}

// TestHeaderScopes: the scope line joins every entry, outermost first,
// as "kind name" with " > "; the path line always comes first.
func TestHeaderScopes(t *testing.T) {
	ns := outline.Def{Kind: "namespace", Name: "Outer"}
	cls := outline.Def{Kind: "class", Name: "Inner"}
	m := outline.Def{Kind: "method", Name: "Run"}
	fn := outline.Def{Kind: "function", Name: "helper"}
	for _, c := range []struct {
		path  string
		scope []outline.Def
		want  string
	}{
		{"x.cs", nil, "x.cs\n"},
		{"x.cs", []outline.Def{}, "x.cs\n"}, // empty, not nil: no scope line either
		{"x.cs", []outline.Def{ns, cls, m, fn}, "x.cs\nnamespace Outer > class Inner > method Run > function helper\n"},
		{"x.cs", []outline.Def{fn}, "x.cs\nfunction helper\n"},
		{"deep/er/dir/main.go", []outline.Def{{Kind: "method", Name: "T.Get"}}, "deep/er/dir/main.go\nmethod T.Get\n"},
		// Names are written as they are: outline has already collapsed their whitespace.
		{"a.rs", []outline.Def{{Kind: "impl", Name: "Display for Ini"}}, "a.rs\nimpl Display for Ini\n"},
		{"naïve/ünï.py", []outline.Def{{Kind: "class", Name: "Café"}}, "naïve/ünï.py\nclass Café\n"},
		{"", nil, "\n"},
	} {
		if got := Header(c.path, c.scope); got != c.want {
			t.Errorf("Header(%q, %v) = %q, want %q", c.path, c.scope, got, c.want)
		}
	}
}

// TestHeaderPathOnOneLine: every "\r" and "\n" of a path becomes one
// space (none is collapsed with another), so the path stays on the
// header's first line; other control characters are not line breaks to
// castchunk (docs/design.md, "Lines") and stay as they are.
func TestHeaderPathOnOneLine(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"a\nb", "a b\n"},
		{"a\rb", "a b\n"},
		{"a\n\nb\r\n", "a  b  \n"},
		{"\nlead", " lead\n"},
		{"tab\there", "tab\there\n"},
		{"esc\x1b[0m.py", "esc\x1b[0m.py\n"},
	} {
		if got := Header(c.path, nil); got != c.want {
			t.Errorf("Header(%q, nil) = %q, want %q", c.path, got, c.want)
		}
	}
	// With a scope, the scope is still the second line, and the only
	// other one.
	got := Header("x\ny.py", []outline.Def{{Kind: "class", Name: "A"}})
	if want := "x y.py\nclass A\n"; got != want {
		t.Errorf("Header with scope = %q, want %q", got, want)
	}
	if got := oneLine("plain/path.go"); got != "plain/path.go" {
		t.Errorf("oneLine changed a plain path: %q", got)
	}
}
