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
	good := []Span{{Start: 0, End: 3, Size: 2}, {Start: 3, End: 5, Size: 2}}
	if err := Check(&sz, good, 2); err != nil {
		t.Fatalf("good spans rejected: %v", err)
	}
	for name, spans := range map[string][]Span{
		"gap":         {{Start: 0, End: 2, Size: 2}, {Start: 3, End: 5, Size: 2}},
		"overlap":     {{Start: 0, End: 3, Size: 2}, {Start: 2, End: 5, Size: 2}},
		"short":       {{Start: 0, End: 3, Size: 2}},
		"wrong size":  {{Start: 0, End: 3, Size: 1}, {Start: 3, End: 5, Size: 2}},
		"over budget": {{Start: 0, End: 5, Size: 4}},
		"empty":       {{Start: 0, End: 0, Size: 0}, {Start: 0, End: 3, Size: 2}, {Start: 3, End: 5, Size: 2}},
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
	words := func(s Span) bool { return len(strings.Fields(string(s.Text([]byte(src))))) <= 2 }
	got, err := Refit(nil, &sz, []Span{{Start: 0, End: len(src), Size: Size([]byte(src))}}, words)
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
	if _, err := Refit(nil, &sz, []Span{{Start: 0, End: 3, Size: 3}}, func(Span) bool { return false }); err == nil {
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
	fits := func(s Span) bool { return s.End-s.Start <= 100 }
	out, err := Refit(nil, &sz, []Span{{Start: 0, End: len(src), Size: sz.Size(0, len(src))}}, fits)
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
		"gaps":        {{Start: 3, End: 5, Size: 2}},
		"apart":       {{Start: 0, End: 2, Size: 2}, {Start: 6, End: 8, Size: 2}},
		"touching":    {{Start: 0, End: 3, Size: 2}, {Start: 3, End: 5, Size: 2}},
		"whole tiles": {{Start: 0, End: 3, Size: 2}, {Start: 3, End: 6, Size: 2}, {Start: 6, End: 8, Size: 2}},
	} {
		if err := CheckWith(CheckPartial, &sz, spans, 2); err != nil {
			t.Errorf("%s: rejected: %v", name, err)
		}
	}
	for name, spans := range map[string][]Span{
		"overlap":      {{Start: 0, End: 3, Size: 2}, {Start: 2, End: 5, Size: 2}},
		"out of order": {{Start: 3, End: 5, Size: 2}, {Start: 0, End: 2, Size: 2}},
		"past the end": {{Start: 6, End: 9, Size: 2}},
		"wrong size":   {{Start: 0, End: 3, Size: 1}},
		"over budget":  {{Start: 0, End: 5, Size: 4}},
		"empty":        {{Start: 3, End: 3, Size: 0}},
	} {
		if err := CheckWith(CheckPartial, &sz, spans, 2); err == nil {
			t.Errorf("%s: not caught", name)
		}
	}
	m := Method{Partial: true}
	if m.CheckSpans([]Span{{Start: 3, End: 5, Size: 2}}, len(src), 2) != nil || (&Method{}).CheckSpans([]Span{{Start: 3, End: 5, Size: 2}}, len(src), 2) == nil {
		t.Error("CheckSpans does not follow Partial")
	}
}

// TestPieces: a chunk of pieces has the pieces' bytes joined by a line feed
// as its text and their sizes summed; Refit packs them into runs that fit,
// cutting a piece that fails alone as text; CheckPartial rejects pieces
// that are not as Span.Pieces says.
func TestPieces(t *testing.T) {
	src := []byte("class A:\n    def f(self):\n        return 1\n    def g(self): pass\n")
	var sz Sizer
	sz.Reset(src)
	pieces := []Piece{{0, 8}, {13, 25}, {47, 59}}
	s := Join(&sz, pieces)
	if got, want := string(s.Text(src)), "class A:\ndef f(self):\ndef g(self):"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if s.Start != 0 || s.End != 59 || s.Size != Size([]byte("class A:def f(self):def g(self):")) || sz.SizeOf(s) != s.Size {
		t.Errorf("Join = %+v", s)
	}
	if one := Join(&sz, pieces[:1]); one.Pieces != nil || one.End != 8 {
		t.Errorf("Join of one piece = %+v, want a whole span", one)
	}
	if err := CheckPartial([]Span{s}, len(src), 100); err != nil {
		t.Error(err)
	}
	fits := func(s Span) bool { return len(s.Text(src)) <= 22 }
	out, err := Refit(nil, &sz, []Span{s}, fits)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, o := range out {
		texts = append(texts, string(o.Text(src)))
	}
	if want := []string{"class A:\ndef f(self):", "def g(self):"}; strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("Refit = %q, want %q", texts, want)
	}
	narrow := func(s Span) bool { return len(s.Text(src)) <= 6 }
	if out, err = Refit(nil, &sz, []Span{s}, narrow); err != nil || CheckPartial(out, len(src), 100) != nil || len(out) < 4 {
		t.Errorf("Refit to 6 bytes: %v, %+v", err, out)
	}
	for name, bad := range map[string]Span{
		"one piece":    {Start: 0, End: 8, Size: 6, Pieces: []Piece{{0, 8}}},
		"touching":     {Start: 0, End: 25, Size: 17, Pieces: []Piece{{0, 8}, {8, 25}}},
		"out of order": {Start: 13, End: 8, Size: 17, Pieces: []Piece{{13, 25}, {0, 8}}},
		"wrong bounds": {Start: 0, End: 59, Size: 17, Pieces: []Piece{{0, 8}, {13, 25}}},
		"empty piece":  {Start: 0, End: 25, Size: 17, Pieces: []Piece{{0, 8}, {10, 10}, {13, 25}}},
	} {
		if err := CheckPartial([]Span{bad}, len(src), 100); err == nil {
			t.Errorf("%s: CheckPartial accepted %+v", name, bad)
		}
	}
	if err := CheckTiling([]Span{{Start: 0, End: len(src), Size: 1, Pieces: pieces}}, len(src), 100); err == nil {
		t.Error("CheckTiling accepted a chunk of pieces")
	}
}
