package outline

import (
	"fmt"
	"strings"
	"testing"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

// TestLocatorCorpus: the locator finds the node nodeAt finds (the
// outermost of the definition's range) its parent and grandparent, for every
// definition of every corpus file, asked in Find's order.
func TestLocatorCorpus(t *testing.T) {
	p, f := parse.New(0), NewFinder()
	defer p.Close()
	defer f.Close()
	n := 0
	for l, paths := range corpusFiles(t) {
		for _, path := range paths {
			src, defs := findFile(t, p, f, l, path)
			tree, err := p.Parse(src, l)
			if err != nil {
				t.Fatal(err)
			}
			loc := newLocator(tree)
			for _, d := range defs {
				want := nodeAt(tree, d.Start, d.End)
				got, up := loc.at(d.Start, d.End)
				n++
				if (want == nil) != (got == nil) || want != nil && (want.Id() != got.Id() || want.Kind() != got.Kind()) {
					t.Errorf("%s: %s %s at line %d: locator %v, nodeAt %v", path, d.Kind, d.Name, d.Line, got, want)
				}
				for i, k := 0, got; i < len(up) && k != nil; i++ {
					k = k.Parent()
					if (k == nil) != (up[i] == nil) || k != nil && k.Id() != up[i].Id() {
						t.Errorf("%s: %s %s at line %d: ancestor %d %v, want %v", path, d.Kind, d.Name, d.Line, i+1, up[i], k)
					}
				}
			}
			loc.close()
			tree.Close()
		}
	}
	if n == 0 {
		t.Fatal("no definitions in the corpus")
	}
}

// TestDeclareDeep: definitions nested 3,000 deep (issue 36: JavaScript
// functions, Ruby modules) get their bodies, and finding their nodes
// costs the locator a few moves per definition, not one per level of
// nesting above each (Declare took 1.6 s and 4.8 s on these files,
// DescendantForByteRange and Parent walking from the root for each).
func TestDeclareDeep(t *testing.T) {
	const depth = 3000
	var js, rb strings.Builder
	for i := range depth {
		fmt.Fprintf(&js, "function f%d() {\n", i)
		fmt.Fprintf(&rb, "module M%d\n", i)
	}
	js.WriteString("return 1;\n")
	rb.WriteString("X = 1\n")
	for range depth {
		js.WriteString("}\n")
		rb.WriteString("end\n")
	}
	p, f := parse.New(0), NewFinder()
	defer p.Close()
	defer f.Close()
	for _, tc := range []struct{ lang, src string }{{"javascript", js.String()}, {"ruby", rb.String()}} {
		l, src := lang.ByName(tc.lang), []byte(tc.src)
		tree, err := p.Parse(src, l)
		if err != nil {
			t.Fatal(err)
		}
		defs, err := f.Find(l, src, tree)
		if err != nil {
			t.Fatal(err)
		}
		if len(defs) != depth {
			t.Fatalf("%s: %d definitions, want %d", tc.lang, len(defs), depth)
		}
		Declare(l, src, tree, defs)
		for i, d := range defs {
			// The body of the i-th starts after its header's line and
			// ends at its end, before which stand the i ends of the
			// definitions it holds.
			if d.BodyStart < d.Start || d.BodyEnd > d.End || d.BodyEnd <= d.BodyStart || (i+1 < depth && d.BodyStart > defs[i+1].Start) {
				t.Fatalf("%s: definition %d [%d,%d) has the body [%d,%d)", tc.lang, i, d.Start, d.End, d.BodyStart, d.BodyEnd)
			}
		}
		loc := newLocator(tree)
		for _, d := range defs {
			if n, _ := loc.at(d.Start, d.End); n == nil {
				t.Fatalf("%s: no node at [%d,%d)", tc.lang, d.Start, d.End)
			}
		}
		loc.close()
		if loc.moves > 4*depth {
			t.Errorf("%s: the locator moved %d times for %d definitions nested %d deep", tc.lang, loc.moves, depth, depth)
		}
		t.Logf("%s: %d moves", tc.lang, loc.moves)
		tree.Close()
	}
}

// nodeAt returns the outermost node of tree whose range is [start, end),
// nil when none is, as Declare found it before the locator: from the root,
// the depth of the node each time.
func nodeAt(tree *sitter.Tree, start, end int) *sitter.Node {
	if tree == nil {
		return nil
	}
	n := tree.RootNode().DescendantForByteRange(uint(start), uint(end))
	if n == nil || int(n.StartByte()) != start || int(n.EndByte()) != end {
		return nil
	}
	for p := n.Parent(); p != nil && p.StartByte() == n.StartByte() && p.EndByte() == n.EndByte(); p = p.Parent() {
		n = p
	}
	return n
}
