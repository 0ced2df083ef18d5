package enrich

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/record"
)

// deepJSON is n nested objects on one line, {"a":{"a":…1}…}: n-1 keys are
// definitions (the innermost key's value is not an object).
func deepJSON(n int) string {
	return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) + "\n"
}

// TestDeepNestBounded: in 5,000 nested JSON objects, every chunk's scope
// and header name at most 17 entries (the 4 outermost keys, an elided
// count, the 12 innermost) instead of the thousands that enclose it, the
// budgets hold, and the cache's check accepts what the worker made.
func TestDeepNestBounded(t *testing.T) {
	const depth = 5000
	src := deepJSON(depth)
	l, tree := parsed(t, "json", src)
	enc := loadEncoding(t, "cl100k_base")
	for _, o := range []Options{
		{Context: true},
		{Text: true},
		{Context: true, Text: true},
		{Context: true, Text: true, Encoding: enc, MaxTokens: 200},
	} {
		t.Run(o.Key(), func(t *testing.T) {
			w := NewWorker(o)
			defer w.Close()
			b := chunk.Budget{Size: 400}
			if _, err := w.Begin("d.json", l, []byte(src), tree, b); err != nil {
				t.Fatal(err)
			}
			var cuts []int
			for i := 0; i < len(src); i += 300 {
				cuts = append(cuts, i)
			}
			spans, extras, err := w.Finish(spansAt(src, append(cuts, len(src))...), chunk.Budget{Size: 400, Tokens: o.MaxTokens}, false)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.Check("d.json", []byte(src), spans, extras, b.Size); err != nil {
				t.Errorf("Check refuses the worker's extras: %v", err)
			}
			deepest := 0
			for i, x := range extras {
				if n := len(x.Scope); n > outline.MaxScope+1 {
					t.Fatalf("chunk %d: scope of %d entries", i, n)
				}
				if n := strings.Count(x.Header, " > "); n > outline.MaxScope {
					t.Fatalf("chunk %d: header of %d entries: %.200q…", i, n+1, x.Header)
				}
				// The whole chain, bounded.
				full := outline.Scope(nil, w.defs, []byte(src), spans[i].Start, spans[i].End)
				deepest = max(deepest, len(full))
				want := full
				if len(full) > outline.MaxScope {
					want = slices.Concat(full[:outline.ScopeOuter], []outline.Def{outline.ElidedEntry(full[outline.ScopeOuter], len(full)-outline.MaxScope)}, full[len(full)-outline.ScopeInner:])
				}
				if o.Context && !slices.Equal(x.Scope, recordDefs(want)) {
					t.Errorf("chunk %d: scope %v, want %v", i, x.Scope, recordDefs(want))
				}
				if o.Text && x.Header != Header("d.json", want) {
					t.Errorf("chunk %d: header %q, want %q", i, x.Header, Header("d.json", want))
				}
			}
			if deepest < depth-100 {
				t.Errorf("the deepest chunk is inside %d keys, want about %d", deepest, depth-1)
			}
		})
	}
}

// TestCheckBoundedScope: a cache entry's scope must be bounded as outline
// bounds it; an elided entry stands only between the 4 outermost and the
// 12 innermost, counting at least one, and never in defines.
func TestCheckBoundedScope(t *testing.T) {
	src := deepJSON(100)
	l, tree := parsed(t, "json", src)
	o := Options{Context: true}
	w := NewWorker(o)
	defer w.Close()
	b := chunk.Budget{Size: 1000}
	if _, err := w.Begin("d.json", l, []byte(src), tree, b); err != nil {
		t.Fatal(err)
	}
	spans, right, err := w.Finish(spansAt(src, 0, 300, len(src)), b, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Check("d.json", []byte(src), spans, right, b.Size); err != nil {
		t.Fatalf("right extras refused: %v", err)
	}
	if len(right[1].Scope) != outline.MaxScope+1 || right[1].Scope[outline.ScopeOuter].Name != "44" {
		t.Fatalf("chunk 1's scope: %v", right[1].Scope)
	}
	key := right[1].Scope[0]
	for _, c := range []struct {
		name string
		lie  func(x *record.Extra)
	}{
		{"a whole chain", func(x *record.Extra) {
			x.Scope = slices.Insert(x.Scope, outline.ScopeOuter+1, key, key)
		}},
		{"no elided entry", func(x *record.Extra) { x.Scope[outline.ScopeOuter] = key }},
		{"elided elsewhere", func(x *record.Extra) {
			x.Scope[outline.ScopeOuter], x.Scope[outline.ScopeOuter+1] = x.Scope[outline.ScopeOuter+1], x.Scope[outline.ScopeOuter]
		}},
		{"elided in a short chain", func(x *record.Extra) { x.Scope = slices.Delete(x.Scope, 0, 1) }},
		{"elided none", func(x *record.Extra) { x.Scope[outline.ScopeOuter].Name = "0" }},
		{"elided not a count", func(x *record.Extra) { x.Scope[outline.ScopeOuter].Name = "many" }},
		{"elided 044", func(x *record.Extra) { x.Scope[outline.ScopeOuter].Name = "044" }},
		{"elided in defines", func(x *record.Extra) {
			x.Defines = append(x.Defines[:0:0], record.Def{Kind: outline.Elided, Name: "3", Line: 1})
		}},
	} {
		extras := slices.Clone(right)
		for j := range extras {
			extras[j].Scope, extras[j].Defines = slices.Clone(extras[j].Scope), slices.Clone(extras[j].Defines)
		}
		c.lie(&extras[1])
		if err := o.Check("d.json", []byte(src), spans, extras, b.Size); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
}

// TestScopeFieldNamesTheBound: the scope field's help, in package record
// (which cannot import outline), states outline's bound.
func TestScopeFieldNamesTheBound(t *testing.T) {
	want := fmt.Sprintf("of a chain deeper than %d, the %d outermost and the %d innermost, with an entry of kind `%s` between them",
		outline.MaxScope, outline.ScopeOuter, outline.ScopeInner, outline.Elided)
	for _, f := range record.All().Fields() {
		if f.Name == "scope" && !strings.Contains(f.Help, want) {
			t.Errorf("the scope field's help %q does not say %q", f.Help, want)
		}
	}
}
