// Package tsctest holds what the tests of package tsc and its subpackages
// share: samples that parse cleanly, and the binding's own parse and walk
// to compare the bridges with.
package tsctest

import (
	"testing"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/lang"
)

// Samples parse cleanly, one per language, and hold named, anonymous and
// extra nodes, a BOM and C#'s preprocessor lines that end with their '\n'.
var Samples = map[string]string{
	"python":     "\ufeffimport os\n\n@dec\ndef f(x):\n    return x  # c\n",
	"java":       "class A { /* c */ @Override public int f() { return 1; } }\n",
	"typescript": "// c\nexport const f = (x: number): number => x + 1;\n",
	"tsx":        "export function C() { return <div>{1}</div>; }\n",
	"csharp":     "[Obsolete] class A { #region r\n int F() => 1;\n#endregion\n /// d\n int G() => 2; }\n",
}

// BindingParse parses src with the binding's own Parse.
func BindingParse(t testing.TB, name, src string) *sitter.Tree {
	t.Helper()
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(lang.ByName(name).Grammar()); err != nil {
		t.Fatal(err)
	}
	tree := p.Parse([]byte(src), nil)
	if tree == nil {
		t.Fatalf("%s: the binding did not parse", name)
	}
	return tree
}

// EachNode calls fn on every node of tree, in pre-order, walking with the
// binding's cursor.
func EachNode(tree *sitter.Tree, fn func(n *sitter.Node)) {
	c := tree.Walk()
	defer c.Close()
	for {
		fn(c.Node())
		if c.GotoFirstChild() || c.GotoNextSibling() {
			continue
		}
		for {
			if !c.GotoParent() {
				return
			}
			if c.GotoNextSibling() {
				break
			}
		}
	}
}
