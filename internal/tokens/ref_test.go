package tokens

import (
	"slices"
	"sync"
	"testing"

	"github.com/dlclark/regexp2/v2"
	"github.com/tiktoken-go/tokenizer/codec"
)

// The references the tests hold Count to.
//
// The module's codec (github.com/tiktoken-go/tokenizer/codec) splits with
// code that regexp2cg generated from each encoding's pattern, and that code
// has one bug: backtracking `\s*[\r\n]+` stops at the FIRST newline of a
// whitespace run instead of the last, so "\n   \n" splits into "\n" and
// "   \n" where Python tiktoken (Rust fancy-regex), js-tiktoken (V8) and
// regexp2's own interpreter all keep one piece. Count follows tiktoken. So
// the tests compare with two references:
//
//   - fixedCount: the same patterns run by regexp2's interpreter (wrapping a
//     pattern in (?:...) keeps it from matching the generated engine that the
//     module registered for it), pieces merged by naiveMerge over the
//     module's vocabulary. It must equal Count on every text.
//   - the module's own Count, on every text where its split is the
//     interpreter's (the bug did not fire): its merge code is independent of
//     ours.

// patterns are the split regexes, as in the module's codec/*.go.
var patterns = map[string]string{
	"cl100k_base": `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
	"o200k_base":  `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

// refEncoding is one encoding's references.
type refEncoding struct {
	module *codec.Codec
	fixed  *regexp2.Regexp // the pattern, interpreted
	buggy  *regexp2.Regexp // the pattern, by the module's generated code
	ranks  map[string]int
}

var refs = sync.OnceValue(func() map[string]*refEncoding {
	m := map[string]*refEncoding{}
	for name, build := range map[string]func() *codec.Codec{"cl100k_base": codec.NewCl100kBase, "o200k_base": codec.NewO200kBase} {
		r := &refEncoding{
			module: build(),
			fixed:  regexp2.MustCompile(`(?:`+patterns[name]+`)`, regexp2.None),
			buggy:  regexp2.MustCompile(patterns[name], regexp2.None),
			ranks:  map[string]int{},
		}
		for id := 0; ; id++ {
			tok, err := r.module.Decode([]uint{uint(id)})
			if err != nil {
				break
			}
			r.ranks[tok] = id
		}
		m[name] = r
	}
	return m
})

// split returns the pieces re finds in text.
func split(t testing.TB, re *regexp2.Regexp, text string) []string {
	t.Helper()
	var pieces []string
	m, err := re.FindStringMatch(text)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		pieces = append(pieces, m.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	return pieces
}

// naiveMerge is tiktoken's _byte_pair_merge at its plainest: merge the
// leftmost lowest-ranked adjacent pair until none is in the vocabulary.
func naiveMerge(ranks map[string]int, piece string) []string {
	parts := make([]string, len(piece))
	for i := range len(piece) { // bytes, not runes
		parts[i] = piece[i : i+1]
	}
	for {
		best, at := -1, -1
		for i := 0; i+1 < len(parts); i++ {
			if r, ok := ranks[parts[i]+parts[i+1]]; ok && (best < 0 || r < best) {
				best, at = r, i
			}
		}
		if at < 0 {
			return parts
		}
		parts = slices.Replace(parts, at, at+2, parts[at]+parts[at+1])
	}
}

// fixedTokens is the reference tokenization of text.
func fixedTokens(t testing.TB, name, text string) []string {
	r := refs()[name]
	var toks []string
	for _, p := range split(t, r.fixed, text) {
		if _, ok := r.ranks[p]; ok {
			toks = append(toks, p)
		} else {
			toks = append(toks, naiveMerge(r.ranks, p)...)
		}
	}
	return toks
}

// moduleCount is the module's count of text, and whether its split is the
// interpreter's (so that the count is a reference).
func moduleCount(t testing.TB, name, text string) (int, bool) {
	r := refs()[name]
	if !slices.Equal(split(t, r.fixed, text), split(t, r.buggy, text)) {
		return 0, false
	}
	n, err := r.module.Count(text)
	if err != nil {
		t.Fatal(err)
	}
	return n, true
}

// TestModuleNewlineBug pins the module bug the references work around, so
// that a module upgrade that fixes it shows here (and moduleCount's
// exception can go).
func TestModuleNewlineBug(t *testing.T) {
	text := "\n   \n"
	for name, r := range refs() {
		if got := split(t, r.buggy, text); !slices.Equal(got, []string{"\n", "   \n"}) {
			t.Errorf("%s: the module's split of %q is %q: has the bug been fixed?", name, text, got)
		}
		if got := split(t, r.fixed, text); !slices.Equal(got, []string{text}) {
			t.Errorf("%s: the interpreted split of %q is %q", name, text, got)
		}
		if got := load(t, name).NewCounter().AppendStarts(nil, []byte(text)); len(got) != len(fixedTokens(t, name, text)) {
			t.Errorf("%s: %d tokens, want %d", name, len(got), len(fixedTokens(t, name, text)))
		}
	}
}
