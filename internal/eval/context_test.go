package eval

import (
	"slices"
	"testing"
)

// feed hands out texts in rank order and counts how many were asked for.
type feed struct {
	texts []string
	asked int
}

func (f *feed) next() ([]byte, bool) {
	if f.asked == len(f.texts) {
		return nil, false
	}
	f.asked++
	return []byte(f.texts[f.asked-1]), true
}

// TestAssembleFromRanking: the context is filled from the best-ranked
// chunks, each whole while it fits, the first that does not cut to its
// leading whole lines; nothing is asked for after it.
func TestAssembleFromRanking(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget int
		texts  []string
		want   []int
		asked  int // texts asked for
	}{
		{"stops after the cut", 10, []string{"abcd\n", "efgh\nijkl\n", "never\n"}, []int{5, 5}, 2},
		// Characters, not bytes: "é" is one character of two bytes.
		{"code points", 4, []string{"éé\n", "éé\néé\n"}, []int{5, 5}, 2},
		// With budget 0 only white space fits: a blank chunk is taken
		// whole, and the blank lines that lead a chunk are kept.
		{"budget 0", 0, []string{"\n\t\n", "\n\nab\n"}, []int{3, 2}, 2},
		// A full context still takes a chunk of white space, and ends at
		// the next one with a character.
		{"full, then blank", 2, []string{"ab", "  \n", "c"}, []int{2, 3, 0}, 3},
		// A header counts like content: "p.go\n" takes 4 of the 13.
		{"headers count", 13, []string{"p.go\nfunc A\n", "p.go\nfunc B\n"}, []int{12, 5}, 2},
		// The cut is after a line's "\n"; a last line without one is
		// left out whole.
		{"cut before a line without newline", 6, []string{"ab\ncd", "ef\ngh"}, []int{5, 3}, 2},
		// Fewer chunks than the budget holds: all of them.
		{"runs out", 100, []string{"a\n", "b\n"}, []int{2, 2}, 2},
	} {
		f := &feed{texts: tc.texts}
		got := Assemble(tc.budget, f.next)
		if !slices.Equal(got, tc.want) || f.asked != tc.asked {
			t.Errorf("%s: Assemble = %v after %d texts, want %v after %d", tc.name, got, f.asked, tc.want, tc.asked)
		}
	}
}

// TestAssembleFromIndex fills a context from an index's ranking, as eval
// scores a query: the best chunk whole, the next one cut, the one
// that holds no query term never ranked.
func TestAssembleFromIndex(t *testing.T) {
	chunks := []string{
		"func unrelated() {\n\treturn\n}\n",
		"func parseConfig(path string) {\n\tread(path)\n\tcheck(path)\n}\n",
		"// parseConfig is documented here.\n// it reads a config.\n",
	}
	x := NewIndex()
	for _, c := range chunks {
		x.SetLive(x.Add([]byte(c)), true)
	}
	r := x.Search("parse config path")
	var order []int
	// 80 characters: chunk 1 (50) whole, then the first line of chunk 2
	// (30 characters, 35 bytes) fits in the 30 left, its second (17) not.
	kept := Assemble(80, func() ([]byte, bool) {
		h, ok := r.Next()
		if !ok {
			return nil, false
		}
		order = append(order, h.Doc)
		return []byte(chunks[h.Doc]), true
	})
	if !slices.Equal(order, []int{1, 2}) || !slices.Equal(kept, []int{len(chunks[1]), 35}) {
		t.Errorf("ranked %v, kept %v; want [1 2], [%d 35]", order, kept, len(chunks[1]))
	}
}
