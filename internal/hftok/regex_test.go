package hftok

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/google/go-cmp/cmp"
)

// backtrackingMatcher compiles pat for regexp2 whatever it is, skipping
// the scans and Go's engine, as compileRegex would if it had to.
func backtrackingMatcher(t testing.TB, pat string) matcher {
	t.Helper()
	bt, err := translateRegex(pat, backtracking)
	if err != nil {
		t.Fatalf("%q: %v", pat, err)
	}
	re, err := regexp2.Compile(bt, regexp2.None)
	if err != nil {
		t.Fatalf("%q as %q: %v", pat, bt, err)
	}
	re.MatchTimeout = regexTimeout
	return btRegex{re, pat}
}

// regexTexts are the adversarial strings of the reference test, the test
// corpus in 40-line slices, and long runs of each class.
func regexTexts(t testing.TB) []string {
	texts := append([]string(nil), hfrefAdversarial...)
	for _, d := range hfrefDivergences {
		texts = append(texts, d.text)
	}
	texts = append(texts, "it'\u017f IT'\u017fll 'S 'K \u212a 'LL 'Re",
		strings.Repeat(" ", 1<<17)+"x", strings.Repeat("a\u0301", 1<<16), strings.Repeat("9", 1<<17),
		strings.Repeat("\r\n \t", 1<<15), strings.Repeat("=", 1<<17)+"\n", strings.Repeat("Ab", 1<<16))
	filepath.WalkDir("../../testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(texts) > 3000 {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines := strings.SplitAfter(string(b), "\n")
		for i := 0; i < len(lines); i += 40 {
			texts = append(texts, strings.Join(lines[i:min(i+40, len(lines))], ""))
		}
		return nil
	})
	return texts
}

// TestBacktrackingMatchesScans holds the regexp2 path to the hand-written
// scans (held to the crate by the reference tests) on the three regexes
// they recognize, and to Go's engine on regexes both can run: the same
// matches, byte for byte, on every text.
func TestBacktrackingMatchesScans(t *testing.T) {
	cases := []struct{ name, pat string }{
		{"gpt2", gpt2Regex},
		{"llama3", llama3Rgx},
		{"qwen2", qwen2Regex},
		{"o200k", o200kRegex},
		{"classes", `\w+|\W|\s\d+|\S|\D+|\p{Han}|[^\p{L}]+|\p{^N}`},
		{"folded", `(?i:'s|'t|'re|'ve|'m|'ll|'d|k)|\x{4E2D}|\x41|[\p{Lu}\p{Lt}]+|\.`},
		{"anchors", `^\s+|\s+$|\A.|.\z`},
	}
	texts := regexTexts(t)
	for _, c := range cases {
		want, err := compileRegex(c.pat)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := backtrackingMatcher(t, c.pat)
		for _, text := range texts {
			w, g := want.find(nil, []byte(text)), got.find(nil, []byte(text))
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("%s %.80q: matches (-%T +regexp2):\n%.2000s", c.name, text, want, diff)
			}
		}
	}
}

// TestScansMatchBacktrackingRandom holds each scan to regexp2 on random
// strings over runes of every class the regexes tell apart: Lu, Ll, Lt,
// Lm, Lo, Mn, Mc, Nd, Nl, No, line ends, other white space (U+0085, NBSP),
// U+FEFF, apostrophes and contraction letters (S, U+017F, U+212A), slash,
// punctuation, symbols, astral letters.
func TestScansMatchBacktrackingRandom(t *testing.T) {
	runes := []rune("AaZz\u01c5\u02b0\u05d0\u4e2d\u0301\u0903\u0663\u2163\u00bd\n\r \t\u0085\u00a0\u3000\ufeff'''''sStTlLdDmMrReEvV\u017f\u212a//.,-=+$\U0001F600\U00010400\U00010428")
	rng := rand.New(rand.NewPCG(38, 1))
	for _, pat := range []string{gpt2Regex, llama3Rgx, qwen2Regex, o200kRegex} {
		scan, err := compileRegex(pat)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := scan.(tiling); !ok {
			t.Fatalf("%.30q: a %T, not a scan", pat, scan)
		}
		bt := backtrackingMatcher(t, pat)
		for range 4000 {
			b := make([]rune, rng.IntN(24))
			for i := range b {
				b[i] = runes[rng.IntN(len(runes))]
			}
			text := []byte(string(b))
			if diff := cmp.Diff(scan.find(nil, text), bt.find(nil, text)); diff != "" {
				t.Fatalf("%.30q on %+q: matches (-scan +regexp2):\n%s", pat, text, diff)
			}
		}
	}
}

// TestBacktrackingRegexes checks the constructs only regexp2 runs on
// small cases whose matches Oniguruma's semantics fix.
func TestBacktrackingRegexes(t *testing.T) {
	cases := []struct {
		pat, text string
		want      []string
	}{
		{`\s+(?!\S)|\s+`, "a   b  ", []string{"  ", " ", "  "}},
		{`(?<=a)b|(?<!a)c`, "ab cb ac c", []string{"b", "c", "c"}},
		{`(?>a+)b|a+`, "aaab aa", []string{"aaab", "aa"}},
		{`\d+\Z`, "12\n", []string{"12"}},
		{`\b\w+\b`, "caf\u00e9 na\u0301ive x_y", []string{"caf\u00e9", "na\u0301ive", "x_y"}},
		{`(?P<x>a)(?=b)`, "ab aa", []string{"a"}},
		{`\_+(?=\#)`, "__# _", []string{"__"}},
		{`(?i:'s)(?!x)`, "'S 'sx '\u017f", []string{"'S", "'\u017f"}},
		{`\p{^L}+(?=z)`, "12z ab", []string{"12"}},
	}
	for _, c := range cases {
		m, err := compileRegex(c.pat)
		if err != nil {
			t.Errorf("%q: %v", c.pat, err)
			continue
		}
		if _, ok := m.(btRegex); !ok {
			t.Errorf("%q: a %T, not regexp2", c.pat, m)
		}
		var got []string
		for _, r := range m.find(nil, []byte(c.text)) {
			got = append(got, c.text[r[0]:r[1]])
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%q on %q (-want +got):\n%s", c.pat, c.text, diff)
		}
	}
}

// TestRegexRefusals: what neither engine runs exactly is refused at load,
// naming the construct.
func TestRegexRefusals(t *testing.T) {
	cases := []struct{ pat, want string }{
		{`a++`, "possessive quantifier (++)"},
		{`(a)\1`, `uses \1`},
		{`(a)\k<x>`, `uses \k`},
		{`(?i)a`, `inline option or group "(?i)"`},
		{`(?m:a.)`, `inline option or group "(?m:"`},
		{`(?~ab)`, `inline option or group "(?~a"`},
		{`(?i:[a-z])`, `case-insensitive group (?i:...) holding '['`},
		{`(?i:class)`, `"ss", which Oniguruma also matches to one character`},
		{`(?i:caf\u00e9)`, `case-insensitive group (?i:...) holding an escape`},
		{`(?i:é)`, `case-insensitive group (?i:...) holding a non-ASCII character`},
		{`(a+)+(?=b)`, `repeats a group holding a repetition or an alternation (+)`},
		{`(?:a|ab)*c\Z`, `repeats a group holding a repetition or an alternation (*)`},
		{`(?:(?:x)y|z){2,}(?<=y)`, `repeats a group holding a repetition or an alternation ({n,m})`},
		{`[a[b]]`, "nested class"},
		{`[a&&b]`, "class intersection"},
		{`[^\S]`, `\S inside a class`},
		{`\p{Alnum}`, `\p{Alnum}, a property castchunk does not translate`},
		{`\pL`, `\p without {name}`},
		{`\xE9`, `a byte of UTF-8 to Oniguruma`},
		{`\h+`, `uses \h`},
		{`\R`, `uses \R`},
		{`a{,3}`, `{,n}`},
		{`(a`, "unclosed group"},
		{`a)`, "unmatched )"},
	}
	for _, c := range cases {
		_, err := compileRegex(c.pat)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to say %q", c.pat, err, c.want)
		}
	}
	// Repeating a plain group, or making a risky one optional, is fine.
	for _, pat := range []string{`(?:ab)+(?!c)`, `(?:a+|b)?(?=c)`, `(?i:'s|'t)?(?!x)`, `(?:a|b){0,1}(?=c)`} {
		if _, err := compileRegex(pat); err != nil {
			t.Errorf("%q: %v", pat, err)
		}
	}
}

// TestBacktrackingTimeout: a match that runs past regexTimeout ends the
// count with a panic naming the regex, never a count. translateRegex
// refuses this pattern (exponential backtracking), so it is compiled
// directly.
func TestBacktrackingTimeout(t *testing.T) {
	pat := `(?:a|aa)*(?!.)`
	if _, err := compileRegex(pat); err == nil {
		t.Errorf("%q compiled", pat)
	}
	re := regexp2.MustCompile(pat, regexp2.None)
	re.MatchTimeout = 50 * time.Millisecond
	start := time.Now()
	msg := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		btRegex{re, pat}.find(nil, []byte(strings.Repeat("a", 3000)+"c"))
		return "no panic"
	}()
	if !strings.Contains(msg, pat) || !strings.Contains(msg, "timeout") || len(msg) > 400 {
		t.Errorf("panic %q, want it to name the regex and the timeout, briefly", msg)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// BenchmarkSplitRegex compares the paths a split regex can take on this
// package's source: Llama 3's and GPT-4o's regexes by their scans and by
// regexp2.
func BenchmarkSplitRegex(b *testing.B) {
	src := benchSource(b)
	scan, err := compileRegex(llama3Rgx)
	if err != nil {
		b.Fatal(err)
	}
	o200k, err := compileRegex(o200kRegex)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    matcher
	}{
		{"llama3-scan", scan}, {"llama3-regexp2", backtrackingMatcher(b, llama3Rgx)},
		{"o200k-scan", o200k}, {"o200k-regexp2", backtrackingMatcher(b, o200kRegex)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			var ms [][2]int
			for b.Loop() {
				ms = c.m.find(ms[:0], src)
			}
		})
	}
}
