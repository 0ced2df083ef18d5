package tokens

import (
	"slices"
	"strings"
	"testing"
)

// pieces is how e's pre-tokenizer splits text.
func pieces(e *Encoding, text string) []string {
	var out []string
	for i := 0; i < len(text); {
		j := e.next([]byte(text), i)
		out = append(out, text[i:j])
		i = j
	}
	return out
}

// splitCases are the corners of the split regexes, with the pieces each
// encoding must cut (written by hand from the patterns; the test also checks
// them against regexp2's interpreter).
var splitCases = []struct {
	text          string
	cl100k, o200k []string
}{
	// Contractions: cl100k takes them alone and first, o200k as a word's tail.
	{"it's", []string{"it", "'s"}, []string{"it's"}},
	{"IT'S", []string{"IT", "'S"}, []string{"IT'S"}},
	{"we'll x'LL", []string{"we", "'ll", " x", "'LL"}, []string{"we'll", " x'LL"}},
	{"don't", []string{"don", "'t"}, []string{"don't"}},
	{"'s", []string{"'s"}, []string{"'s"}},
	{"'ve'd", []string{"'ve", "'d"}, []string{"'ve'd"}},
	{"'x", []string{"'x"}, []string{"'x"}},
	{"a'l", []string{"a", "'l"}, []string{"a", "'l"}},
	// Digits: runs of at most three.
	{"12345678", []string{"123", "456", "78"}, []string{"123", "456", "78"}},
	{"1.5e10", []string{"1", ".", "5", "e", "10"}, []string{"1", ".", "5", "e", "10"}},
	{"ABC123", []string{"ABC", "123"}, []string{"ABC", "123"}},
	// Whitespace: \s*[\r\n]+ ends after the run's last newline; \s+(?!\S)
	// leaves the run's last space to the next piece, except at the end.
	{"\n\n   x", []string{"\n\n", "  ", " x"}, []string{"\n\n", "  ", " x"}},
	{"x  ", []string{"x", "  "}, []string{"x", "  "}},
	{"  \n", []string{"  \n"}, []string{"  \n"}},
	{"a  \nb", []string{"a", "  \n", "b"}, []string{"a", "  \n", "b"}},
	{"\n   \n\tx", []string{"\n   \n", "\tx"}, []string{"\n   \n", "\tx"}},
	{"a\r\n\r\nb", []string{"a", "\r\n\r\n", "b"}, []string{"a", "\r\n\r\n", "b"}},
	{"\t\tfoo", []string{"\t", "\tfoo"}, []string{"\t", "\tfoo"}},
	{"x 1", []string{"x", " ", "1"}, []string{"x", " ", "1"}},
	{" ", []string{" "}, []string{" "}},
	// Punctuation takes the newlines after it; o200k also slashes.
	{");\n\n", []string{");\n\n"}, []string{");\n\n"}},
	{"});\n  }", []string{"});\n", " ", " }"}, []string{"});\n", " ", " }"}},
	{"*/\n/*", []string{"*/\n", "/*"}, []string{"*/\n/", "*"}},
	{".\n//x", []string{".\n", "//", "x"}, []string{".\n//", "x"}},
	{"a//b", []string{"a", "//", "b"}, []string{"a", "//", "b"}},
	{"x ?", []string{"x", " ?"}, []string{"x", " ?"}},
	{` "x"`, []string{` "`, "x", `"`}, []string{` "`, "x", `"`}},
	{"<|endoftext|>", []string{"<|", "endoftext", "|>"}, []string{"<|", "endoftext", "|>"}},
	// o200k splits CamelCase before an upper-case letter followed by lower.
	{"getHTTPResponseCode", []string{"getHTTPResponseCode"}, []string{"get", "HTTPResponse", "Code"}},
	{"XMLHttpRequest", []string{"XMLHttpRequest"}, []string{"XMLHttp", "Request"}},
	{"_fooBar", []string{"_fooBar"}, []string{"_foo", "Bar"}},
	{" Foo", []string{" Foo"}, []string{" Foo"}},
	// Beyond ASCII: ſ folds with s; a mark is a letter's tail for o200k
	// only; NBSP and U+3000 are \s.
	{"'ſa", []string{"'ſ", "a"}, []string{"'ſa"}},
	{"e\u0301t", []string{"e", "\u0301t"}, []string{"e\u0301t"}},
	{"\u00a0x", []string{"\u00a0x"}, []string{"\u00a0x"}},
	{"a\u3000\u3000b", []string{"a", "\u3000", "\u3000b"}, []string{"a", "\u3000", "\u3000b"}},
	{"Größe", []string{"Größe"}, []string{"Größe"}},
}

func TestSplitCases(t *testing.T) {
	for _, name := range Names() {
		e := load(t, name)
		for _, tc := range splitCases {
			want := tc.cl100k
			if name == "o200k_base" {
				want = tc.o200k
			}
			if got := pieces(e, tc.text); !slices.Equal(got, want) {
				t.Errorf("%s %q: pieces %q, want %q", name, tc.text, got, want)
			}
			if ref := split(t, refs()[name].fixed, tc.text); !slices.Equal(ref, want) {
				t.Errorf("%s %q: regexp2 splits into %q, the case says %q", name, tc.text, ref, want)
			}
			checkText(t, e.NewCounter(), "case", []byte(tc.text))
		}
	}
}

// TestCounts pins a few counts outright.
func TestCounts(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       int
	}{
		{"cl100k_base", "", 0},
		{"cl100k_base", "hello world", 2},
		{"o200k_base", "hello world", 2},
		{"cl100k_base", "<|endoftext|>", 7},
		{"o200k_base", "<|endoftext|>", 7},
	} {
		if got := load(t, tc.name).NewCounter().Count([]byte(tc.text)); got != tc.want {
			t.Errorf("%s %q: Count = %d, want %d", tc.name, tc.text, got, tc.want)
		}
	}
}

// TestLoad: the names, the error, the sharing.
func TestLoad(t *testing.T) {
	if got := Names(); !slices.Equal(got, []string{"cl100k_base", "o200k_base"}) {
		t.Errorf("Names() = %q", got)
	}
	_, err := Load("p50k_base")
	if err == nil || !containsAll(err.Error(), "p50k_base", "cl100k_base", "o200k_base") {
		t.Errorf("Load(p50k_base) error %v should name it and the known tokenizers", err)
	}
	a, b := load(t, "o200k_base"), load(t, "o200k_base")
	if a != b || a.Name() != "o200k_base" {
		t.Errorf("Load returned %p (%s) then %p", a, a.Name(), b)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
