package eval

import (
	"maps"
	"slices"
	"testing"
)

// TestLineRecallCases: LineRecall is gold lines in the context over gold
// lines, across files; FileHit is 1 as soon as any content of a gold file
// is in the context, whether or not it holds a gold line.
func TestLineRecallCases(t *testing.T) {
	gold := []goldFile{{"a.go", []int{1, 2, 3, 4}}, {"b.go", []int{10, 20, 30, 40}}}
	for _, tc := range []struct {
		name      string
		gold      []goldFile
		spans     []lineSpan
		recall, f float64
	}{
		{"no gold", nil, []lineSpan{{"a.go", 1, 9}}, 0, 0},
		{"no context", gold, nil, 0, 0},
		{"one file whole", gold, []lineSpan{{"a.go", 1, 100}}, 0.5, 1},
		// Overlapping spans count a line once.
		{"overlaps", gold, []lineSpan{{"a.go", 1, 3}, {"a.go", 2, 4}, {"a.go", 3, 3}}, 0.5, 1},
		// Span ends are inclusive.
		{"ends inclusive", gold, []lineSpan{{"b.go", 10, 10}, {"b.go", 40, 40}}, 0.25, 1},
		{"between gold lines", gold, []lineSpan{{"b.go", 11, 19}}, 0, 1},
		// A span that holds no line (cut to nothing) is no content of the file.
		{"empty span", gold, []lineSpan{{"b.go", 21, 20}}, 0, 0},
		// Paths must be equal, not prefixes of one another.
		{"other paths", gold, []lineSpan{{"a.go.orig", 1, 4}, {"x/a.go", 1, 4}, {"A.go", 1, 4}}, 0, 0},
		{"both files", gold, []lineSpan{{"b.go", 1, 25}, {"a.go", 4, 4}}, 3.0 / 8, 1},
		{"all", gold, []lineSpan{{"a.go", 1, 4}, {"b.go", 10, 40}}, 1, 1},
	} {
		r, f := lineRecall(tc.gold, tc.spans)
		if r != tc.recall || f != tc.f {
			t.Errorf("%s: lineRecall = %v, %v; want %v, %v", tc.name, r, f, tc.recall, tc.f)
		}
	}
}

// TestNonTrivial: a non-trivial line has 8 non-whitespace characters or
// more (code points, inner spaces not counted), one of them a letter; it
// is returned trimmed.
func TestNonTrivial(t *testing.T) {
	text := "}\n" +
		"} else {\n" + // 6
		"  return x;  \n" + // 9
		"a b c d e f g\n" + // 7
		"a b c d e f g h\n" + // 8
		"12345678\n" + // no letter
		"x1234567\n" + // 8, a letter
		"\t\tééééééé\r\n" + // 7 code points, 14 bytes
		"ééééééé1\n" + // 8 code points
		"\n" +
		"last_line_no_newline"
	want := []string{"return x;", "a b c d e f g h", "x1234567", "ééééééé1", "last_line_no_newline"}
	if got := nonTrivial([]byte(text)); !slices.Equal(got, want) {
		t.Errorf("nonTrivial = %q, want %q", got, want)
	}
	if got := nonTrivial(nil); got != nil {
		t.Errorf("nonTrivial(nil) = %q", got)
	}
}

// TestAnsLineCases: AnsLine matches whole lines, white space at both ends
// aside, never parts of lines; repeated gold lines count each time.
func TestAnsLineCases(t *testing.T) {
	gold := []string{"total = add(a, b)", "return total", "return total", "log.Print(total)"}
	for _, tc := range []struct {
		name string
		ctx  string
		want float64
	}{
		{"empty", "", 0},
		{"all", "total = add(a, b)\nreturn total\nlog.Print(total)\n", 1},
		// A repeated gold line is held (or not) each time it is counted.
		{"repeats", "\treturn total\n", 0.5},
		{"trimmed, CRLF", "   total = add(a, b)  \r\n", 0.25},
		{"part of a line", "x := total = add(a, b)\nreturn totals\nlog.Print(total) // done\n", 0},
		{"inner spaces matter", "total  =  add(a, b)\n", 0},
		{"no final newline", "log.Print(total)", 0.25},
	} {
		if got := ansLine(gold, []byte(tc.ctx)); got != tc.want {
			t.Errorf("%s: ansLine = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestIdRecallCases: IdRecall matches whole identifiers, case-sensitive.
func TestIdRecallCases(t *testing.T) {
	gold := []string{"total", "addCents", "rate"}
	for _, tc := range []struct {
		name string
		ctx  string
		want float64
	}{
		{"none", "", 0},
		{"all, anywhere", "rate*2 // addCents(total)", 1},
		{"parts of identifiers", "subtotal addCentsFast rates", 0},
		{"case", "Total ADDCENTS rate", 1.0 / 3},
		{"repeats count once", "total total total", 1.0 / 3},
		{"after a digit-led run", "9total total", 1.0 / 3},
	} {
		if got := idRecall(gold, []byte(tc.ctx)); got != tc.want {
			t.Errorf("%s: idRecall = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestEachLine: lines end after "\n", which is left out; a final "\n"
// starts no line; a blank line is a line.
func TestEachLine(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"", nil},
		{"\n", []string{""}},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\n\nb", []string{"a", "", "b"}},
		{"a\r\nb\n", []string{"a\r", "b"}},
	} {
		var got []string
		eachLine([]byte(tc.text), func(l []byte) { got = append(got, string(l)) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("eachLine(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	set := trimmedLines([]byte("  a \n\tb\r\n\na\n"))
	if keys := slices.Sorted(maps.Keys(set)); !slices.Equal(keys, []string{"", "a", "b"}) {
		t.Errorf("trimmedLines = %q", keys)
	}
}

func TestCountNonBlank(t *testing.T) {
	for text, want := range map[string]int{
		"":                  0,
		"\n\n":              0,
		" \t\r\n\u00a0\n":   0, // U+00A0 is white space to unicode.IsSpace
		"a":                 1,
		"a\n\n  b  \n\t\nc": 3,
		"}\n":               1,
	} {
		if got := countNonBlank([]byte(text)); got != want {
			t.Errorf("countNonBlank(%q) = %d, want %d", text, got, want)
		}
	}
}

// TestLineAt: every byte of a line, its "\n" included, is on that line.
func TestLineAt(t *testing.T) {
	src := []byte("ab\n\ncd\n")
	starts := lineStarts(nil, src)
	if !slices.Equal(starts, []int{0, 3, 4}) {
		t.Fatalf("lineStarts = %v", starts)
	}
	for off, want := range []int{1, 1, 1, 2, 3, 3, 3} {
		if got := lineAt(starts, off); got != want {
			t.Errorf("lineAt(%d) = %d, want %d", off, got, want)
		}
	}
	// The buffer is reused.
	buf := make([]int, 0, 8)
	if got := lineStarts(buf, []byte("x")); !slices.Equal(got, []int{0}) || &got[0] != &buf[:1][0] {
		t.Errorf("lineStarts(buf, %q) = %v, not in buf", "x", got)
	}
	if got := lineStarts(nil, nil); !slices.Equal(got, []int{0}) {
		t.Errorf("lineStarts of nothing = %v, want [0]", got)
	}
}
