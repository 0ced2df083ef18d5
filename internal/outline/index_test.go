package outline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

// randomDefs returns nested definitions over n bytes of source, sorted as
// Find returns them: a random forest, with chains deeper than MaxScope and
// definitions that share a start or an end with the one around them.
func randomDefs(r *rand.Rand, n int) []Def {
	var all []found
	stop := 6 // one in stop definitions holds none
	if r.IntN(2) == 0 {
		stop = 40
	}
	var grow func(start, end, depth int)
	grow = func(start, end, depth int) {
		for pos := start; pos < end; {
			a := pos + r.IntN(min(3, end-pos))
			b := a + 1 + r.IntN(end-a)
			if r.IntN(2) == 0 {
				b = max(a+1, end-r.IntN(2)) // long chains
			}
			all = append(all, found{Def: Def{Kind: "function", Name: fmt.Sprint("f", len(all)), Start: a, End: b, Line: a + 1}})
			if depth < 60 && r.IntN(stop) > 0 {
				s := min(a+r.IntN(2), b)
				grow(s, max(s, b-r.IntN(2)), depth+1)
			}
			pos = b + r.IntN(2)
		}
	}
	grow(0, n, 0)
	return sortDedup(all)
}

// TestIndexScopeIsBoundedScope: Index.Scope is the whole chain (Scope)
// bounded as the package documents it, for every chunk of random nests,
// asked in any order.
func TestIndexScopeIsBoundedScope(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 1))
	deepRuns := 0
	for range 200 {
		n := 1 + r.IntN(400)
		src := []byte(strings.Repeat("x", n))
		for i := range src {
			if r.IntN(5) == 0 {
				src[i] = ' '
			}
		}
		defs := randomDefs(r, n)
		x := NewIndex(defs)
		deep := false
		for range 300 {
			start := r.IntN(n + 1)
			end := start + r.IntN(n-start+1)
			want := bounded(Scope(nil, defs, src, start, end))
			got := x.Scope(nil, src, start, end)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("[%d,%d) of %v:\nIndex.Scope %v\nwant        %v", start, end, defs, got, want)
			}
		}
		for i, d := range defs {
			var chain []Def // d's ancestors, then d
			for _, e := range defs[:i+1] {
				if e.Start <= d.Start && d.End <= e.End {
					chain = append(chain, e)
				}
			}
			if got, want := x.Chain(nil, i), bounded(chain); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("Chain(%d) = %v, want %v", i, got, want)
			}
			deep = deep || len(chain) > MaxScope
		}
		if deep {
			deepRuns++
		}
	}
	if deepRuns < 20 {
		t.Errorf("only %d of 200 nests deeper than %d", deepRuns, MaxScope)
	}
}

// TestScopeOfDeepJSON: in 3,000 nested JSON objects, the innermost value's
// scope names the 4 outermost keys, an elided entry counting those left
// out and the 12 innermost: 17 entries, however deep. (The innermost key,
// whose value is 1, is not a definition: 2,999 keys enclose the value.)
func TestScopeOfDeepJSON(t *testing.T) {
	const depth = 3000
	var b strings.Builder
	for range depth {
		b.WriteString("{\"a\":\n")
	}
	b.WriteString("1")
	for range depth {
		b.WriteString("}\n")
	}
	src := []byte(b.String())
	l := lang.ByName("json")
	p, f := parse.New(0), NewFinder()
	defer p.Close()
	defer f.Close()
	tree, err := p.Parse(src, l)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	defs, err := f.Find(l, src, tree)
	if err != nil {
		t.Fatal(err)
	}
	const keys = depth - 1
	if len(defs) != keys {
		t.Fatalf("%d definitions, want %d", len(defs), keys)
	}
	x := NewIndex(defs)
	windows := lineWindows(src, 1)
	checkWindows(t, "deep.json", src, defs, windows)
	// The line of the innermost value: all the keys enclose it.
	got := x.Scope(nil, src, windows[depth][0], windows[depth][1])
	if len(got) != MaxScope+1 {
		t.Fatalf("scope of %d entries, want %d: %v", len(got), MaxScope+1, got)
	}
	want := Def{Kind: Elided, Name: fmt.Sprint(keys - MaxScope), Start: defs[ScopeOuter].Start, End: defs[ScopeOuter].End, Line: ScopeOuter + 1}
	if got[ScopeOuter] != want {
		t.Errorf("entry %d is %+v, want %+v", ScopeOuter, got[ScopeOuter], want)
	}
	for i, d := range got {
		if i != ScopeOuter && (d.Kind != "key" || d.Name != "a") {
			t.Errorf("entry %d is %+v, want key a", i, d)
		}
	}
	if got[0].Line != 1 || got[ScopeOuter-1].Line != ScopeOuter || got[ScopeOuter+1].Line != keys-ScopeInner+1 || got[MaxScope].Line != keys {
		t.Errorf("lines %d..%d, %d..%d, want 1..%d, %d..%d", got[0].Line, got[ScopeOuter-1].Line, got[ScopeOuter+1].Line, got[MaxScope].Line, ScopeOuter, keys-ScopeInner+1, keys)
	}
}
