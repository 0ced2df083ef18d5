package walk

import "testing"

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
