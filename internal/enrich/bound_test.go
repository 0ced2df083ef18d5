package enrich

import (
	"fmt"
	"math/rand/v2"
	"runtime"
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

// allocated returns the bytes f allocates on the Go heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
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
			if _, err := w.Begin("d.json", l, []byte(src), tree, nil, b); err != nil {
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

// TestDeepNestLinearWork: the work of Begin (the longest header) and of
// Finish (the scope of every chunk, and of every piece Refit tries) grows
// with the file, not with chunks × depth: a nest of JSON objects four
// times as deep allocates about four times as much, not sixteen. With
// whole chains (and budgets large enough not to refuse their headers),
// Begin allocated 86 MB for 2,000 nested objects (12 KB) and 1.4 GB for
// 8,000; Finish, without splitting, 2.5 and 32 MB.
func TestDeepNestLinearWork(t *testing.T) {
	enc := loadEncoding(t, "cl100k_base")
	opt := Options{Context: true, Text: true, Encoding: enc, MaxTokens: 100}
	b := chunk.Budget{Size: 300, Tokens: 100}
	work := func(depth int) (begin, finish uint64) {
		src := deepJSON(depth)
		begin, finish, chunks, spans := beginFinish(t, opt, b, src, 500)
		if chunks <= spans {
			t.Fatalf("%d chunks from %d: Finish did not split", chunks, spans)
		}
		t.Logf("%d nested objects (%d bytes): Begin allocates %d bytes, Finish %d (%d chunks)", depth, len(src), begin, finish, chunks)
		return begin, finish
	}
	work(100) // the encoding's tables load on first use
	b1, f1 := work(2000)
	b2, f2 := work(8000)
	if b2 > b1*6 || f2 > f1*6 {
		t.Errorf("four times as deep, Begin allocates %.1f times as much and Finish %.1f: want at most 6", float64(b2)/float64(b1), float64(f2)/float64(f1))
	}
}

// beginFinish runs a worker of opt over the JSON src, cut every step
// bytes: the bytes Begin and Finish allocate, the chunks Finish gives and
// the spans it was given.
func beginFinish(t *testing.T, opt Options, b chunk.Budget, src string, step int) (begin, finish uint64, chunks, spans int) {
	t.Helper()
	l, tree := parsed(t, "json", src)
	w := NewWorker(opt)
	defer w.Close()
	var cuts []int
	for i := 0; i < len(src); i += step {
		cuts = append(cuts, i)
	}
	in := spansAt(src, append(cuts, len(src))...)
	var err error
	begin = allocated(func() { _, err = w.Begin("d.json", l, []byte(src), tree, nil, b) })
	if err != nil {
		t.Fatal(err)
	}
	var out []chunk.Span
	finish = allocated(func() { out, _, err = w.Finish(in, b, false) })
	if err != nil {
		t.Fatal(err)
	}
	return begin, finish, len(out), len(in)
}

// TestLongestHeaderAddsUp: the longest header, summed up from its
// entries, is the largest size and token count of the headers themselves,
// for every definition's bounded chain: on random nests of names of
// letters, digits, punctuation, spaces and other scripts, on paths of the
// like, in both encodings.
func TestLongestHeaderAddsUp(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 2))
	pieces := []string{"a", "Z", "x1", "7", "123", "4567", "'s", "'", "\"", ".", "::", "->", ">", "<", "{", "}", "(", ")", "[", "]",
		"@media", "#", "$", "_", "-", "/", "\\", "é", "中文", "ß", "🙂", "Ω", "\u00a0", "ـ", ",", ";", "=", "*", "?", "!", "%", "&", "|", "~", "`"}
	word := func(max int) string {
		var b strings.Builder
		for range 1 + r.IntN(max) {
			b.WriteString(pieces[r.IntN(len(pieces))])
			if r.IntN(4) == 0 {
				b.WriteString(" ")
			}
		}
		return strings.TrimSpace(b.String())
	}
	kinds := []string{"class", "method", "function", "key", "section", "rule", "namespace", "impl"}
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		enc := loadEncoding(t, name)
		counter := enc.NewCounter()
		for run := range 150 {
			w := NewWorker(Options{Text: true, Encoding: enc, MaxTokens: 1 << 20})
			w.path = word(6) + ".x"
			if run%5 == 0 {
				w.path = "src/" + w.path + "\n" + word(3)
			}
			// A random nest, as brackets: each definition opens inside the
			// open ones, or after some closed; chains up to 60 deep.
			var defs []outline.Def
			var open []int
			pos := 0
			for range 1 + r.IntN(60) {
				for len(open) > 0 && r.IntN(5) == 0 {
					pos++
					defs[open[len(open)-1]].End = pos
					open = open[:len(open)-1]
				}
				pos++
				defs = append(defs, outline.Def{Kind: kinds[r.IntN(len(kinds))], Name: word(5), Start: pos, Line: pos})
				open = append(open, len(defs)-1)
			}
			for len(open) > 0 {
				pos++
				defs[open[len(open)-1]].End = pos
				open = open[:len(open)-1]
			}
			w.defs = defs
			size, toks := w.longestHeader()
			x := outline.NewIndex(defs)
			wantSize, wantToks := chunk.Size([]byte(Header(w.path, nil))), counter.Count([]byte(Header(w.path, nil)))
			for i := range defs {
				h := Header(w.path, x.Chain(nil, i))
				wantSize, wantToks = max(wantSize, chunk.Size([]byte(h))), max(wantToks, counter.Count([]byte(h)))
			}
			if size != wantSize || toks != wantToks {
				t.Fatalf("%s: longest header %d characters, %d tokens; the headers' largest are %d, %d (path %q, defs %+v)", name, size, toks, wantSize, wantToks, w.path, defs)
			}
			w.Close()
		}
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
	if _, err := w.Begin("d.json", l, []byte(src), tree, nil, b); err != nil {
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

// TestLongestHeaderWork: the longest header costs work in proportion to
// the definitions and their names, not to the length of each header: with
// four 200-character keys outside 4,000 nested ones and a long path, every
// bounded header is over a kilobyte, and building and counting each
// allocated 19 MB, 770 times the file; summed up from the entries, the
// longest header allocates less than the file (15 KB).
func TestLongestHeaderWork(t *testing.T) {
	var b strings.Builder
	for _, c := range "bcde" {
		b.WriteString(`{"` + strings.Repeat(string(c), 200) + `":`)
	}
	src := b.String() + deepJSON(4000) + strings.Repeat("}", 4)
	l, tree := parsed(t, "json", src)
	enc := loadEncoding(t, "cl100k_base")
	path := strings.Repeat("long/", 60) + "d.json"
	w := NewWorker(Options{Text: true, Encoding: enc, MaxTokens: 1 << 20})
	defer w.Close()
	if _, err := w.Begin(path, l, []byte(src), tree, nil, chunk.Budget{Size: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	var size, toks int
	n := allocated(func() { size, toks = w.longestHeader() })
	t.Logf("%d bytes, %d definitions: the longest header (%d characters, %d tokens) allocates %d bytes", len(src), len(w.defs), size, toks, n)
	if size < 1000 {
		t.Fatalf("the longest header has %d characters: the test wants long ones", size)
	}
	if limit := uint64(64 * len(src)); n > limit {
		t.Errorf("the longest header allocates %d bytes for a file of %d: over %d", n, len(src), limit)
	}
}
