package enrich

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/inject"
	"github.com/castchunk/castchunk/internal/parse"
	"github.com/castchunk/castchunk/internal/record"
)

// TestWorkerEnclosingRegions: a chunk starting inside an embedded region
// has what encloses the region in its scope, then the region's own
// definitions: a Svelte component (named by its file name, the whole
// file), a Markdown fence's sections. The longest header counts the
// component's entry.
func TestWorkerEnclosingRegions(t *testing.T) {
	svelte := "<script>\n" + // [0, 9)
		"  function increment() {\n" + // [9, 34)
		"    count += 1;\n" + // [34, 50)
		"  }\n" + // [50, 54)
		"</script>\n" + // [54, 64)
		"<p>{count}</p>\n" // [64, 79)
	md := "# Guide\n" + // [0, 8)
		"## Install\n" + // [8, 19)
		"```python\n" + // [19, 29)
		"import sys\n" + // [29, 40)
		"def f():\n" + // [40, 49)
		"    return 1\n" + // [49, 62)
		"```\n" // [62, 66)
	comp := record.Def{Kind: "component", Name: "Counter", Line: 1}
	inc := record.Def{Kind: "function", Name: "increment", Line: 2}
	guide := record.Def{Kind: "section", Name: "Guide", Line: 1}
	install := record.Def{Kind: "section", Name: "Install", Line: 2}
	f := record.Def{Kind: "function", Name: "f", Line: 5}
	for _, c := range []struct {
		name, path, src string
		cuts            []int
		longest         string
		want            []record.Extra
	}{
		{"svelte", "src/Counter.svelte", svelte, []int{0, 9, 34, 64, 79},
			"src/Counter.svelte\ncomponent Counter > function increment\n",
			[]record.Extra{
				{Defines: []record.Def{comp}},
				{Scope: []record.Def{comp}, Defines: []record.Def{inc}},
				{Scope: []record.Def{comp, inc}},
				{Scope: []record.Def{comp}},
			}},
		{"markdown", "guide.md", md, []int{0, 8, 29, 40, 49, 66},
			"guide.md\nsection Guide > section Install > function f\n",
			[]record.Extra{
				{Defines: []record.Def{guide}},
				{Scope: []record.Def{guide}, Defines: []record.Def{install}},
				{Scope: []record.Def{guide, install}},
				{Scope: []record.Def{guide, install}, Defines: []record.Def{f}},
				{Scope: []record.Def{guide, install, f}},
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, tree := parsed(t, c.name, c.src)
			p := parse.New(0)
			defer p.Close()
			finder := inject.NewFinder()
			defer finder.Close()
			regions, err := finder.Regions(p, l, []byte(c.src), tree)
			if err != nil {
				t.Fatal(err)
			}
			defer inject.Close(regions)
			if len(regions) == 0 {
				t.Fatal("no embedded region")
			}
			w := NewWorker(Options{Context: true, Text: true})
			defer w.Close()
			b := chunk.Budget{Size: 1000}
			in, err := w.Begin(c.path, l, []byte(c.src), tree, regions, b)
			if err != nil {
				t.Fatal(err)
			}
			if want := b.Size - chunk.Size([]byte(c.longest)); in.Budget.Size != want {
				t.Errorf("budget %d, want %d (the longest header %q)", in.Budget.Size, want, c.longest)
			}
			_, extras, err := w.Finish(spansAt(c.src, c.cuts...), b, false)
			if err != nil {
				t.Fatal(err)
			}
			for i := range extras {
				var names []string
				for _, d := range c.want[i].Scope {
					names = append(names, d.Kind+" "+d.Name)
				}
				c.want[i].Header = c.path + "\n"
				if len(names) > 0 {
					c.want[i].Header += strings.Join(names, " > ") + "\n"
				}
			}
			if diff := cmp.Diff(c.want, extras, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("extras (-want +got):\n%s", diff)
			}
		})
	}
}
