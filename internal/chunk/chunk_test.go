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
			// The chunk under way holds budget-first characters already.
			open := strings.Repeat("x", tt.budget-tt.first)
			src := open + tt.in
			var m Measure
			m.Reset([]byte(src), Budget{Size: tt.budget}, nil)
			var got []string
			pos := len(open)
			for _, s := range SplitText(nil, &m, len(open), len(src), 0) {
				if s.Start != pos || s.Size != Size([]byte(src[s.Start:s.End])) {
					t.Fatalf("bad span %+v at %d", s, pos)
				}
				pos = s.End
				got = append(got, src[s.Start:s.End])
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

// TestSplitTextTokens checks the token side of the budget: with the tokens
// starting at every space, a piece holds at most Budget.Tokens of them.
func TestSplitTextTokens(t *testing.T) {
	src := "aa bb cc dd\nee ff\n"
	var starts []int32
	for i := range src {
		if i == 0 || src[i-1] == ' ' || src[i-1] == '\n' {
			starts = append(starts, int32(i))
		}
	}
	var m Measure
	m.Reset([]byte(src), Budget{Size: 100, Tokens: 3}, starts)
	if got := m.Tokens(0, len(src)); got != 6 {
		t.Fatalf("Tokens = %d, want 6", got)
	}
	if got := m.Tokens(1, 4); got != 2 { // "a b": the cut token and "bb"
		t.Fatalf("Tokens(1, 4) = %d, want 2", got)
	}
	var got []string
	for _, s := range SplitText(nil, &m, 0, len(src), 0) {
		got = append(got, src[s.Start:s.End])
	}
	if want := []string{"aa bb cc", " dd\n", "ee ff\n"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRefit(t *testing.T) {
	src := "one two\nthree four five\nsix\n"
	var sz Sizer
	sz.Reset([]byte(src))
	words := func(a, b int) bool { return len(strings.Fields(src[a:b])) <= 2 }
	got, err := Refit(nil, &sz, []Span{{0, len(src), Size([]byte(src))}}, words)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	pos := 0
	for _, s := range got {
		if s.Start != pos || s.Size != Size([]byte(src[s.Start:s.End])) {
			t.Fatalf("bad span %+v at %d", s, pos)
		}
		pos = s.End
		parts = append(parts, src[s.Start:s.End])
	}
	if want := []string{"one two\n", "three four", " five\nsix\n"}; strings.Join(parts, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", parts, want)
	}
	if _, err := Refit(nil, &sz, []Span{{0, 3, 3}}, func(a, b int) bool { return false }); err == nil {
		t.Error("Refit accepted a budget no character fits")
	}
}

// TestWhitespaceRunsFillTheBudget: a run of spaces over a token budget was
// cut one space at a time (x = 1 and 2,000 spaces with --max-tokens 8 gave
// 1,058 records, 1,056 of them one space), re-tokenizing the rest each
// time. A stretch of whitespace alone is cut where the longest part that
// fits ends, by SplitText and by Refit.
func TestWhitespaceRunsFillTheBudget(t *testing.T) {
	src := []byte("x = 1" + strings.Repeat(" ", 2000) + "\n")
	var starts []int32 // a token every 4 bytes
	for i := 0; i < len(src); i += 4 {
		starts = append(starts, int32(i))
	}
	var m Measure
	m.Reset(src, Budget{Size: 2000, Tokens: 8}, starts)
	spans := SplitText(nil, &m, 0, len(src), 0)
	if err := CheckTiling(spans, len(src), 2000); err != nil {
		t.Fatal(err)
	}
	if len(spans) > len(src)/32+2 {
		t.Errorf("SplitText: %d pieces for %d bytes of 8 tokens of 4 bytes each", len(spans), len(src))
	}
	var sz Sizer
	sz.Reset(src)
	fits := func(a, b int) bool { return b-a <= 100 }
	out, err := Refit(nil, &sz, []Span{{0, len(src), sz.Size(0, len(src))}}, fits)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckTiling(out, len(src), 2000); err != nil {
		t.Fatal(err)
	}
	if len(out) > len(src)/100+2 {
		t.Errorf("Refit: %d pieces for %d bytes, 100 a piece", len(out), len(src))
	}
	for _, s := range out[1 : len(out)-1] {
		if s.End-s.Start != 100 {
			t.Errorf("Refit: a piece of %d bytes does not fill the budget of 100", s.End-s.Start)
		}
	}
}

// TestCheckPartial: a method whose chunks cover part of the file may leave
// gaps (before the first chunk, between, after the last) and may give no
// chunk, but its chunks stay in order, apart, within the file and budget.
func TestCheckPartial(t *testing.T) {
	src := []byte("ab cd ef")
	var sz Sizer
	sz.Reset(src)
	for name, spans := range map[string][]Span{
		"none":        nil,
		"gaps":        {{3, 5, 2}},
		"apart":       {{0, 2, 2}, {6, 8, 2}},
		"touching":    {{0, 3, 2}, {3, 5, 2}},
		"whole tiles": {{0, 3, 2}, {3, 6, 2}, {6, 8, 2}},
	} {
		if err := CheckWith(CheckPartial, &sz, spans, 2); err != nil {
			t.Errorf("%s: rejected: %v", name, err)
		}
	}
	for name, spans := range map[string][]Span{
		"overlap":      {{0, 3, 2}, {2, 5, 2}},
		"out of order": {{3, 5, 2}, {0, 2, 2}},
		"past the end": {{6, 9, 2}},
		"wrong size":   {{0, 3, 1}},
		"over budget":  {{0, 5, 4}},
		"empty":        {{3, 3, 0}},
	} {
		if err := CheckWith(CheckPartial, &sz, spans, 2); err == nil {
			t.Errorf("%s: not caught", name)
		}
	}
	m := Method{Partial: true}
	if m.CheckSpans([]Span{{3, 5, 2}}, len(src), 2) != nil || (&Method{}).CheckSpans([]Span{{3, 5, 2}}, len(src), 2) == nil {
		t.Error("CheckSpans does not follow Partial")
	}
}
