package tokens

import (
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// TestClassesMatchRegexp2: for every rune, each class bit agrees with the
// character class regexp2 (the module's engine) gives the same notation.
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
			if (c&class.bit != 0) != in[r] && bad < 5 {
				bad++
				t.Errorf("%s: U+%04X: ours %v, regexp2 %v", class.pattern, r, c&class.bit != 0, in[r])
			}
		}
	}
}
