package tokens

import (
	"sync"
	"testing"
	"unicode/utf8"
)

// fuzzCounters are shared by FuzzCount's calls, which run one at a time in
// each fuzzing process, so that the piece cache sees many inputs too.
var fuzzCounters = sync.OnceValue(func() []*Counter {
	var cs []*Counter
	for _, name := range Names() {
		e, err := Load(name)
		if err != nil {
			panic(err)
		}
		cs = append(cs, e.NewCounter())
	}
	return cs
})

// FuzzCount compares Count and AppendStarts with the references (see
// ref_test.go) on any valid UTF-8: go test -fuzz FuzzCount ./internal/tokens/
func FuzzCount(f *testing.F) {
	for _, tc := range splitCases {
		f.Add(tc.text)
	}
	f.Add("func main() {\n\tfmt.Println(\"héllo, 世界\")\n}\n\n\n   \t\n")
	f.Add("\ufeff// BOM\r\n\u0085x\u2028y \U0001F600 ſ'ſ'S")
	f.Add("a\U0002EBF0's 1\U00010D4023 \u0628\u0897x") // Unicode 15.1 and 16.0
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			t.Skip("tokens counts valid UTF-8 only")
		}
		for _, c := range fuzzCounters() {
			checkText(t, c, "fuzz", []byte(text))
		}
	})
}
