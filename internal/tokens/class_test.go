package tokens

import (
	"slices"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// TestClassesMatchRegexp2: for every rune, each class bit agrees with the
// character class regexp2 (the module's engine) gives the same notation,
// except on the runes newerClasses lists: regexp2 has Go's unicode tables,
// which are older than tiktoken's (see TestNewerClasses).
// The scans are hand-written over these bits, so a wrong table would split
// wrongly only on the rare runes that fuzzing seldom reaches.
func TestClassesMatchRegexp2(t *testing.T) {
	var all []rune
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if utf8.ValidRune(r) {
			all = append(all, r)
		}
	}
	text := string(all)
	b := []byte(text)
	bmpClassOnce.Do(initClasses)
	for _, class := range []struct {
		bit     uint8
		pattern string
	}{
		{cLetter, `\p{L}+`},
		{cNumber, `\p{N}+`},
		{cSpace, `\s+`},
		{cNewline, `[\r\n]+`},
		{cUpper, `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+`},
		{cLower, `[\p{Ll}\p{Lm}\p{Lo}\p{M}]+`},
	} {
		in := make(map[rune]bool)
		re := regexp2.MustCompile(class.pattern, regexp2.None)
		m, err := re.FindStringMatch(text)
		for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
			for _, r := range m.Runes() {
				in[r] = true
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		for i, r := range text {
			c, _ := classAt(b, i)
			want, from := in[r], "regexp2"
			if nc, ok := newerClass(r); ok {
				want, from = nc&class.bit != 0, "Unicode "+unicodeVersion
			}
			if (c&class.bit != 0) != want && bad < 5 {
				bad++
				t.Errorf("%s: U+%04X: ours %v, %s %v", class.pattern, r, c&class.bit != 0, from, want)
			}
		}
	}
}

// TestNewerClasses checks unicode_table.go's shape, and that it was made for
// the unicode tables this Go has: a Go whose tables are newer would give
// runes new since then their class unamended (right, if the version is
// unicodeVersion, but the table would be partly redundant), so regenerate
// the table then (see unicode_gen_test.go).
func TestNewerClasses(t *testing.T) {
	if unicode.Version != goUnicodeVersion {
		t.Errorf("Go's unicode tables are %s, unicode_table.go amends %s: regenerate it (see unicode_gen_test.go)", unicode.Version, goUnicodeVersion)
	}
	if unicodeVersion != "16.0.0" {
		t.Errorf("unicodeVersion %s: docs/design.md and the package doc say 16.0.0", unicodeVersion)
	}
	bmpClassOnce.Do(initClasses)
	for i, cr := range newerClasses {
		if cr.lo > cr.hi || i > 0 && cr.lo <= newerClasses[i-1].hi {
			t.Fatalf("newerClasses[%d] = %+v: not sorted and disjoint", i, cr)
		}
		for r := cr.lo; r <= cr.hi; r++ {
			if goClass(r) == cr.class {
				t.Errorf("U+%04X: newerClasses gives Go's own class", r)
			}
			if c, _ := classAt([]byte(string(r)), 0); c != cr.class {
				t.Errorf("U+%04X: classAt %08b, newerClasses %08b", r, c, cr.class)
			}
		}
	}
	// U+2EBF0 opens CJK Unified Ideographs Extension I (Unicode 15.1): a
	// letter (Lo), so both word heads and tails for o200k.
	if c, ok := newerClass(0x2EBF0); !ok || c != cLetter|cUpper|cLower {
		t.Errorf("U+2EBF0: class %08b (listed %v), want a letter", c, ok)
	}
}

// newerUnicodeCases are texts whose split needs Unicode 16's classes, with
// each encoding's pieces and js-tiktoken's counts (node 20.20.2, Unicode
// 17.0, which agrees with 16.0 on these runes). With Go's tables alone the
// pieces differ and so, but for the first and the Arabic mark, do the counts:
// one too many around a new letter, one too few after a new digit.
var newerUnicodeCases = []struct {
	text          string
	cl100k, o200k []string
	count         int // the same in both encodings
}{
	// CJK Ext I (15.1): the letter joins the word (Go: "a", "\U0002EBF0b").
	{"a\U0002EBF0b", []string{"a\U0002EBF0b"}, []string{"a\U0002EBF0b"}, 6},
	// ... so a contraction after it is one (Go: "a", "\U0002EBF0'", "s": 7).
	{"a\U0002EBF0's", []string{"a\U0002EBF0", "'s"}, []string{"a\U0002EBF0's"}, 6},
	// Garay digit zero (16.0) is \p{N} (Go: "1", "\U00010D40", "23": 6).
	{"1\U00010D4023", []string{"1\U00010D402", "3"}, []string{"1\U00010D402", "3"}, 7},
	// Arabic pepet (16.0) is a mark: o200k's word tail (Go: "ب", "\u0897x").
	{"\u0628\u0897x", []string{"\u0628", "\u0897x"}, []string{"\u0628\u0897x"}, 5},
	// A Latin capital (16.0) in the BMP table (Go: "x", "\uA7CB'", "s": 6).
	{"x\uA7CB's", []string{"x\uA7CB", "'s"}, []string{"x", "\uA7CB's"}, 5},
}

// TestNewerUnicode pins the counts and pieces of newerUnicodeCases.
func TestNewerUnicode(t *testing.T) {
	for _, name := range Names() {
		e := load(t, name)
		c := e.NewCounter()
		for _, tc := range newerUnicodeCases {
			want := tc.cl100k
			if name == "o200k_base" {
				want = tc.o200k
			}
			if got := pieces(e, tc.text); !slices.Equal(got, want) {
				t.Errorf("%s %+q: pieces %+q, want %+q", name, tc.text, got, want)
			}
			if got := c.Count([]byte(tc.text)); got != tc.count {
				t.Errorf("%s %+q: Count = %d, js-tiktoken says %d", name, tc.text, got, tc.count)
			}
			if got := len(c.AppendStarts(nil, []byte(tc.text))); got != tc.count {
				t.Errorf("%s %+q: %d starts, want %d", name, tc.text, got, tc.count)
			}
		}
	}
}
