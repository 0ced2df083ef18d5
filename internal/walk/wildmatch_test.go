package walk

import (
	"math/rand"
	"os"
	"strings"
	"testing"
)

// wildmatchCases is git's t/t3070-wildmatch.sh table: the "glob" column is
// wildmatch with WM_PATHNAME, the "pathmatch" column without it.
var wildmatchCases = []struct {
	glob, pathmatch bool
	text, pattern   string
}{
	// Basic wildmatch features
	{true, true, `foo`, `foo`},
	{false, false, `foo`, `bar`},
	{true, true, ``, ``},
	{true, true, `foo`, `???`},
	{false, false, `foo`, `??`},
	{true, true, `foo`, `*`},
	{true, true, `foo`, `f*`},
	{false, false, `foo`, `*f`},
	{true, true, `foo`, `*foo*`},
	{true, true, `foobar`, `*ob*a*r*`},
	{true, true, `aaaaaaabababab`, `*ab`},
	{true, true, `foo*`, `foo\*`},
	{false, false, `foobar`, `foo\*bar`},
	{true, true, `f\oo`, `f\\oo`},
	{true, true, `ball`, `*[al]?`},
	{false, false, `ten`, `[ten]`},
	{true, true, `ten`, `**[!te]`},
	{false, false, `ten`, `**[!ten]`},
	{true, true, `ten`, `t[a-g]n`},
	{false, false, `ten`, `t[!a-g]n`},
	{true, true, `ton`, `t[!a-g]n`},
	{true, true, `ton`, `t[^a-g]n`},
	{true, true, `a]b`, `a[]]b`},
	{true, true, `a-b`, `a[]-]b`},
	{true, true, `a]b`, `a[]-]b`},
	{false, false, `aab`, `a[]-]b`},
	{true, true, `aab`, `a[]a-]b`},
	{true, true, `]`, `]`},

	// Extended slash-matching features
	{false, true, `foo/baz/bar`, `foo*bar`},
	{false, true, `foo/baz/bar`, `foo**bar`},
	{true, true, `foobazbar`, `foo**bar`},
	{true, true, `foo/baz/bar`, `foo/**/bar`},
	{true, false, `foo/baz/bar`, `foo/**/**/bar`},
	{true, true, `foo/b/a/z/bar`, `foo/**/bar`},
	{true, true, `foo/b/a/z/bar`, `foo/**/**/bar`},
	{true, false, `foo/bar`, `foo/**/bar`},
	{true, false, `foo/bar`, `foo/**/**/bar`},
	{false, true, `foo/bar`, `foo?bar`},
	{false, true, `foo/bar`, `foo[/]bar`},
	{false, true, `foo/bar`, `foo[^a-z]bar`},
	{false, true, `foo/bar`, `f[^eiu][^eiu][^eiu][^eiu][^eiu]r`},
	{true, true, `foo-bar`, `f[^eiu][^eiu][^eiu][^eiu][^eiu]r`},
	{true, false, `foo`, `**/foo`},
	{true, true, `XXX/foo`, `**/foo`},
	{true, true, `bar/baz/foo`, `**/foo`},
	{false, true, `bar/baz/foo`, `*/foo`},
	{false, true, `foo/bar/baz`, `**/bar*`},
	{true, true, `deep/foo/bar/baz`, `**/bar/*`},
	{false, true, `deep/foo/bar/baz/`, `**/bar/*`},
	{true, true, `deep/foo/bar/baz/`, `**/bar/**`},
	{false, false, `deep/foo/bar`, `**/bar/*`},
	{true, true, `deep/foo/bar/`, `**/bar/**`},
	{false, true, `foo/bar/baz`, `**/bar**`},
	{true, true, `foo/bar/baz/x`, `*/bar/**`},
	{false, true, `deep/foo/bar/baz/x`, `*/bar/**`},
	{true, true, `deep/foo/bar/baz/x`, `**/bar/*/*`},

	// Various additional tests
	{false, false, `acrt`, `a[c-c]st`},
	{true, true, `acrt`, `a[c-c]rt`},
	{false, false, `]`, `[!]-]`},
	{true, true, `a`, `[!]-]`},
	{false, false, ``, `\`},
	{false, false, `\`, `\`},
	{false, false, `XXX/\`, `*/\`},
	{true, true, `XXX/\`, `*/\\`},
	{true, true, `foo`, `foo`},
	{true, true, `@foo`, `@foo`},
	{false, false, `foo`, `@foo`},
	{true, true, `[ab]`, `\[ab]`},
	{true, true, `[ab]`, `[[]ab]`},
	{true, true, `[ab]`, `[[:]ab]`},
	{false, false, `[ab]`, `[[::]ab]`},
	{true, true, `[ab]`, `[[:digit]ab]`},
	{true, true, `[ab]`, `[\[:]ab]`},
	{true, true, `?a?b`, `\??\?b`},
	{true, true, `abc`, `\a\b\c`},
	{false, false, `foo`, ``},
	{true, true, `foo/bar/baz/to`, `**/t[o]`},

	// Character class tests
	{true, true, `a1B`, `[[:alpha:]][[:digit:]][[:upper:]]`},
	{false, false, `a`, `[[:digit:][:upper:][:space:]]`},
	{true, true, `A`, `[[:digit:][:upper:][:space:]]`},
	{true, true, `1`, `[[:digit:][:upper:][:space:]]`},
	{false, false, `1`, `[[:digit:][:upper:][:spaci:]]`},
	{true, true, ` `, `[[:digit:][:upper:][:space:]]`},
	{false, false, `.`, `[[:digit:][:upper:][:space:]]`},
	{true, true, `.`, `[[:digit:][:punct:][:space:]]`},
	{true, true, `5`, `[[:xdigit:]]`},
	{true, true, `f`, `[[:xdigit:]]`},
	{true, true, `D`, `[[:xdigit:]]`},
	{true, true, `_`, `[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:upper:][:xdigit:]]`},
	{true, true, `.`, `[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]`},
	{true, true, `5`, `[a-c[:digit:]x-z]`},
	{true, true, `b`, `[a-c[:digit:]x-z]`},
	{true, true, `y`, `[a-c[:digit:]x-z]`},
	{false, false, `q`, `[a-c[:digit:]x-z]`},

	// Additional tests, including some malformed wildmatch patterns
	{true, true, `]`, `[\\-^]`},
	{false, false, `[`, `[\\-^]`},
	{true, true, `-`, `[\-_]`},
	{true, true, `]`, `[\]]`},
	{false, false, `\]`, `[\]]`},
	{false, false, `\`, `[\]]`},
	{false, false, `ab`, `a[]b`},
	{false, false, `a[]b`, `a[]b`},
	{false, false, `ab[`, `ab[`},
	{false, false, `ab`, `[!`},
	{false, false, `ab`, `[-`},
	{true, true, `-`, `[-]`},
	{false, false, `-`, `[a-`},
	{false, false, `-`, `[!a-`},
	{true, true, `-`, `[--A]`},
	{true, true, `5`, `[--A]`},
	{true, true, ` `, `[ --]`},
	{true, true, `$`, `[ --]`},
	{true, true, `-`, `[ --]`},
	{false, false, `0`, `[ --]`},
	{true, true, `-`, `[---]`},
	{true, true, `-`, `[------]`},
	{false, false, `j`, `[a-e-n]`},
	{true, true, `-`, `[a-e-n]`},
	{true, true, `a`, `[!------]`},
	{false, false, `[`, `[]-a]`},
	{true, true, `^`, `[]-a]`},
	{false, false, `^`, `[!]-a]`},
	{true, true, `[`, `[!]-a]`},
	{true, true, `^`, `[a^bc]`},
	{true, true, `-b]`, `[a-]b]`},
	{false, false, `\`, `[\]`},
	{true, true, `\`, `[\\]`},
	{false, false, `\`, `[!\\]`},
	{true, true, `G`, `[A-\\]`},
	{false, false, `aaabbb`, `b*a`},
	{false, false, `aabcaa`, `*ba*`},
	{true, true, `,`, `[,]`},
	{true, true, `,`, `[\\,]`},
	{true, true, `\`, `[\\,]`},
	{true, true, `-`, `[,-.]`},
	{false, false, `+`, `[,-.]`},
	{false, false, `-.]`, `[,-.]`},
	{true, true, `2`, `[\1-\3]`},
	{true, true, `3`, `[\1-\3]`},
	{false, false, `4`, `[\1-\3]`},
	{true, true, `\`, `[[-\]]`},
	{true, true, `[`, `[[-\]]`},
	{true, true, `]`, `[[-\]]`},
	{false, false, `-`, `[[-\]]`},

	// Test recursion
	{true, true, `-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1`, `-*-*-*-*-*-*-12-*-*-*-m-*-*-*`},
	{false, false, `-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1`, `-*-*-*-*-*-*-12-*-*-*-m-*-*-*`},
	{false, false, `-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1`, `-*-*-*-*-*-*-12-*-*-*-m-*-*-*`},
	{true, true, `XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1`, `XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*`},
	{false, false, `XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1`, `XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*`},
	{true, true, `abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt`, `**/*a*b*g*n*t`},
	{false, false, `abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz`, `**/*a*b*g*n*t`},
	{false, false, `foo`, `*/*/*`},
	{false, false, `foo/bar`, `*/*/*`},
	{true, true, `foo/bba/arr`, `*/*/*`},
	{false, true, `foo/bb/aa/rr`, `*/*/*`},
	{true, true, `foo/bb/aa/rr`, `**/**/**`},
	{true, true, `abcXdefXghi`, `*X*i`},
	{false, true, `ab/cXd/efXg/hi`, `*X*i`},
	{true, true, `ab/cXd/efXg/hi`, `*/*X*/*/*i`},
	{true, true, `ab/cXd/efXg/hi`, `**/*X*/**/*i`},

	// Extra pathmatch tests
	{false, false, `foo`, `fo`},
	{true, true, `foo/bar`, `foo/bar`},
	{true, true, `foo/bar`, `foo/*`},
	{false, true, `foo/bba/arr`, `foo/*`},
	{true, true, `foo/bba/arr`, `foo/**`},
	{false, true, `foo/bba/arr`, `foo*`},
	{false, true, `foo/bba/arr`, `foo**`},
	{false, true, `foo/bba/arr`, `foo/*arr`},
	{false, true, `foo/bba/arr`, `foo/**arr`},
	{false, false, `foo/bba/arr`, `foo/*z`},
	{false, false, `foo/bba/arr`, `foo/**z`},
	{false, true, `foo/bar`, `foo?bar`},
	{false, true, `foo/bar`, `foo[/]bar`},
	{false, true, `foo/bar`, `foo[^a-z]bar`},
	{false, true, `ab/cXd/efXg/hi`, `*Xg*i`},

	// Extra case-sensitivity tests (case-sensitive columns)
	{false, false, `a`, `[A-Z]`},
	{true, true, `A`, `[A-Z]`},
	{false, false, `A`, `[a-z]`},
	{true, true, `a`, `[a-z]`},
	{false, false, `a`, `[[:upper:]]`},
	{true, true, `A`, `[[:upper:]]`},
	{false, false, `A`, `[[:lower:]]`},
	{true, true, `a`, `[[:lower:]]`},
	{false, false, `A`, `[B-Za]`},
	{true, true, `a`, `[B-Za]`},
	{false, false, `A`, `[B-a]`},
	{true, true, `a`, `[B-a]`},
	{false, false, `z`, `[Z-y]`},
	{true, true, `Z`, `[Z-y]`},
}

// TestWildmatch checks the port against git's own wildmatch test table.
func TestWildmatch(t *testing.T) {
	for _, c := range wildmatchCases {
		if got := wildmatch(c.pattern, c.text, true); got != c.glob {
			t.Errorf("wildmatch(%q, %q, pathname) = %v, want %v", c.pattern, c.text, got, c.glob)
		}
		if got := wildmatch(c.pattern, c.text, false); got != c.pathmatch {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", c.pattern, c.text, got, c.pathmatch)
		}
	}
}

// TestTrimTrailingSpaces follows git's trim_trailing_spaces.
func TestTrimTrailingSpaces(t *testing.T) {
	cases := map[string]string{
		"a":        "a",
		"a  ":      "a",
		`a\ `:      `a\ `,
		`a\  `:     `a\ `,
		"a\t":      "a\t",
		`a\`:       `a\`,
		"a b ":     "a b",
		`\ \ `:     `\ \ `,
		"   ":      "",
		`a\\ `:     `a\\`,
		"a \\  b ": "a \\  b",
	}
	for in, want := range cases {
		if got := trimTrailingSpaces(in); got != want {
			t.Errorf("trimTrailingSpaces(%q) = %q, want %q", in, got, want)
		}
	}
}

// memoisedWildmatch runs the memoised search from the start, as wildmatch
// does once the plain one has run out of steps.
func memoisedWildmatch(pattern, text string, pathname bool) bool {
	m := wildMatcher{p: pattern, t: text, pathname: pathname}
	m.memo, m.loops = map[int][]int8{}, map[int][]int8{}
	return m.dowild(0, 0) == wmMatch
}

// TestWildmatchMemoised checks the memoised search against git's table.
func TestWildmatchMemoised(t *testing.T) {
	for _, c := range wildmatchCases {
		if got := memoisedWildmatch(c.pattern, c.text, true); got != c.glob {
			t.Errorf("memoised wildmatch(%q, %q, pathname) = %v, want %v", c.pattern, c.text, got, c.glob)
		}
		if got := memoisedWildmatch(c.pattern, c.text, false); got != c.pathmatch {
			t.Errorf("memoised wildmatch(%q, %q) = %v, want %v", c.pattern, c.text, got, c.pathmatch)
		}
	}
}

// TestWildmatchHostile: patterns that make git's search (and the plain
// port's) exponential in the number of stars, such as
// "*a*a*a*a*a*a*a*a*a*a*a*ab" against a name of a's that does not end in
// "ab", are answered within a number of steps linear in the pattern times
// the text. The plain port is run alongside with a cap, to show the
// blow-up (its steps are logged), and must agree where it finishes.
func TestWildmatchHostile(t *testing.T) {
	a := strings.Repeat
	type hostile struct {
		pattern, text string
		pathname      bool
	}
	var cases []hostile
	for _, k := range []int{3, 8, 12, 30} {
		stars := a("*a", k) + "b"
		for _, text := range []string{a("a", 121), a("a", 120) + "c", a("a", 117) + ".txt", a("a", 60) + "b" + a("a", 60)} {
			cases = append(cases, hostile{stars, text, false}, hostile{stars, text, true}, hostile{"d/" + stars, "d/" + text, true})
		}
		cases = append(cases,
			hostile{a("**/a", k) + "/b", a("a/", 60) + "c", true},
			hostile{a("a**", k) + "b", a("a", 120) + "c", true},
			hostile{a("*a?", k) + "b", a("a", 120) + "c", false},
			hostile{a("*[a]", k) + "b", a("a", 120) + "c", false},
			hostile{a("**a", k) + "b", a("a/", 60) + "c", false},
		)
	}
	const refLimit = 1_000_000
	blowups := 0
	for _, c := range cases {
		// dowild calls and loop positions: a few per (pattern, text)
		// position, after the plain search's budget.
		bound := plainBudget(c.text) + 8*(len(c.pattern)+1)*(len(c.text)+1)
		m := wildMatcher{p: c.pattern, t: c.text, pathname: c.pathname, limit: bound}
		got := m.match()
		if m.over {
			t.Errorf("wildmatch(%q, %q, pathname %v) needed more than %d steps", c.pattern, c.text, c.pathname, bound)
			continue
		}
		ref := refSearch{limit: refLimit}
		want := ref.wildmatch(c.pattern, c.text, c.pathname)
		if ref.over {
			blowups++
			t.Logf("%d steps, the plain port more than %d: wildmatch(%.20q…, %.20q…, pathname %v)", m.steps, refLimit, c.pattern, c.text, c.pathname)
			continue
		}
		if (got == wmMatch) != want {
			t.Errorf("wildmatch(%q, %q, pathname %v) = %v, the plain port says %v", c.pattern, c.text, c.pathname, got == wmMatch, want)
		}
	}
	if blowups == 0 {
		t.Error("no case made the plain port blow up: the test tests nothing")
	}
}

// randomGlob is a pattern or text over a small alphabet that is rich in
// the characters wildmatch treats specially.
func randomGlob(rng *rand.Rand, max int, alphabet []string) string {
	var b strings.Builder
	for n := rng.Intn(max + 1); n > 0; n-- {
		b.WriteString(alphabet[rng.Intn(len(alphabet))])
	}
	return b.String()
}

var (
	globPieces = []string{"a", "a", "b", "/", "*", "*", "*", "**", "?", "[", "]", "!", "^", "-", `\`, "[:alpha:]", "[a-b]", "[!a]", "**/", "/**"}
	textPieces = []string{"a", "a", "a", "b", "/", "/", "[", "]", "-", `\`, "*", "?"}
)

// TestWildmatchAgainstPlain compares wildmatch, and the memoised search
// alone, with the plain port on random patterns and texts. The seed is
// fixed so a failure reproduces.
func TestWildmatchAgainstPlain(t *testing.T) {
	rng := rand.New(rand.NewSource(19))
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	failures := 0
	for i := 0; i < n && failures < 10; i++ {
		p := randomGlob(rng, 10, globPieces)
		text := randomGlob(rng, 16, textPieces)
		pathname := rng.Intn(2) == 0
		if !agreeWithPlain(t, p, text, pathname) {
			failures++
		}
	}
}

// agreeWithPlain reports whether wildmatch and the memoised search agree
// with the plain port (when that finishes in a million steps).
func agreeWithPlain(t *testing.T, p, text string, pathname bool) bool {
	t.Helper()
	ref := refSearch{limit: 1_000_000}
	want := ref.wildmatch(p, text, pathname)
	if ref.over {
		return true
	}
	got, memo := wildmatch(p, text, pathname), memoisedWildmatch(p, text, pathname)
	if got != want || memo != want {
		t.Errorf("wildmatch(%q, %q, pathname %v) = %v, memoised %v, the plain port %v", p, text, pathname, got, memo, want)
		return false
	}
	return true
}

// FuzzWildmatch compares wildmatch and the memoised search with the plain
// port.
func FuzzWildmatch(f *testing.F) {
	for _, c := range wildmatchCases {
		f.Add(c.pattern, c.text, true)
	}
	f.Add(strings.Repeat("*a", 5)+"b", strings.Repeat("a", 40)+"c", false)
	f.Fuzz(func(t *testing.T, p, text string, pathname bool) {
		if len(p) > 64 || len(text) > 64 {
			return
		}
		agreeWithPlain(t, p, text, pathname)
	})
}

// TestMemoisedAgainstGit runs the git-differential tests of ignore rules
// and attributes with every search memoised from the start (the random
// ones with 12 seeds unless WALK_RANDOM_N says otherwise).
func TestMemoisedAgainstGit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the git-differential tests run once, with the usual search")
	}
	if os.Getenv("WALK_RANDOM_N") == "" {
		t.Setenv("WALK_RANDOM_N", "12")
	}
	saved := plainBudget
	plainBudget = func(string) int { return 1 }
	defer func() { plainBudget = saved }()
	t.Run("TestWildmatch", TestWildmatch)
	t.Run("TestMatchesGit", TestMatchesGit)
	t.Run("TestRandomAgainstGit", TestRandomAgainstGit)
	t.Run("TestAttrsMatchGit", TestAttrsMatchGit)
	t.Run("TestRandomAttrsAgainstGit", TestRandomAttrsAgainstGit)
}
