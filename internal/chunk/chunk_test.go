package chunk

import (
	"math/rand"
	"strings"
	"testing"
)

func TestSizerMatchesSize(t *testing.T) {
	alphabet := []string{"a", " ", "\t", "\n", "\r", "é", "中", "😀", "\u00a0", "\u2028", "\ufeff", "\xff", "\xe4\xb8", "\x80"}
	rng := rand.New(rand.NewSource(1))
	var sz Sizer
	for round := 0; round < 200; round++ {
		var b strings.Builder
		for i := rng.Intn(40); i > 0; i-- {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		src := []byte(b.String())
		sz.Reset(src)
		if got, want := sz.Size(0, len(src)), Size(src); got != want {
			t.Fatalf("%q: Sizer says %d, Size says %d", src, got, want)
		}
	}
}

func TestSizeCountsCodePointsNotBytes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{" \t\r\n\v\f", 0},
		{"a b", 2},
		{"é中😀", 3},
		{"\u00a0\u2028\u3000", 0}, // Unicode spaces are whitespace too
		{"\ufeffx", 2},            // a BOM is not whitespace
		{"\xff\xfe", 2},           // invalid bytes count one each
	} {
		if got := Size([]byte(tt.in)); got != tt.want {
			t.Errorf("Size(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestSplitText(t *testing.T) {
	for _, tt := range []struct {
		name          string
		in            string
		first, budget int
		want          []string
	}{
		{"whole lines while they fit", "ab\ncd\nef\n", 4, 4, []string{"ab\ncd\n", "ef\n"}},
		{"a long line is cut after budget characters", "abcdefg\n", 3, 3, []string{"abc", "def", "g\n"}},
		{"whitespace after a cut goes to the next piece", "ab  cd", 2, 2, []string{"ab", "  cd"}},
		{"cuts fall on code-point boundaries", "éüßö", 3, 3, []string{"éüß", "ö"}},
		{"a line over the budget fills the room left", "abcdef", 1, 3, []string{"a", "bcd", "ef"}},
		{"a line that fits is not cut to fill the room", "ab\ncd\n", 1, 3, []string{"ab\n", "cd\n"}},
		{"no room left starts a fresh piece", "abcd\n", 0, 3, []string{"abc", "d\n"}},
		{"no final newline", "ab\ncd", 3, 3, []string{"ab\n", "cd"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var sz Sizer
			sz.Reset([]byte(tt.in))
			var got []string
			pos := 0
			for _, s := range SplitText(nil, &sz, 0, len(tt.in), tt.first, tt.budget) {
				if s.Start != pos || s.Size != Size([]byte(tt.in[s.Start:s.End])) {
					t.Fatalf("bad span %+v at %d", s, pos)
				}
				pos = s.End
				got = append(got, tt.in[s.Start:s.End])
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckCatchesEachViolation(t *testing.T) {
	src := []byte("ab cd")
	var sz Sizer
	sz.Reset(src)
	good := []Span{{0, 3, 2}, {3, 5, 2}}
	if err := Check(&sz, good, 2); err != nil {
		t.Fatalf("good spans rejected: %v", err)
	}
	for name, spans := range map[string][]Span{
		"gap":         {{0, 2, 2}, {3, 5, 2}},
		"overlap":     {{0, 3, 2}, {2, 5, 2}},
		"short":       {{0, 3, 2}},
		"wrong size":  {{0, 3, 1}, {3, 5, 2}},
		"over budget": {{0, 5, 4}},
		"empty":       {{0, 0, 0}, {0, 3, 2}, {3, 5, 2}},
	} {
		budget := 2
		if err := Check(&sz, spans, budget); err == nil {
			t.Errorf("%s: not caught", name)
		}
	}
}
