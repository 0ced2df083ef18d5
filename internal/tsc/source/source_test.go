package source

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/tsc/tsctest"
)

// TestParseMatchesBinding checks that Source.Parse, which parses with the
// binding's parser through rawParser and hands back a tree made by
// wrapTree, yields the same tree as the binding's own Parse, and that the
// wrapped tree behaves as the binding's.
func TestParseMatchesBinding(t *testing.T) {
	src := NewSource()
	defer src.Free()
	p := sitter.NewParser()
	defer p.Close()
	for name, text := range tsctest.Samples {
		if err := p.SetLanguage(lang.ByName(name).Grammar()); err != nil {
			t.Fatal(err)
		}
		tree := src.Parse(p, []byte(text), 0)
		if tree == nil {
			t.Fatalf("%s: no tree", name)
		}
		ref := tsctest.BindingParse(t, name, text)
		got, want := tree.RootNode().ToSexp(), ref.RootNode().ToSexp()
		if got != want {
			t.Errorf("%s: bridge tree\n%s\nbinding tree\n%s", name, got, want)
		}
		if strings.Contains(got, "ERROR") {
			t.Errorf("%s: sample does not parse cleanly: %s", name, got)
		}
		if rawTree(wrapTree(rawTree(tree))) != rawTree(tree) {
			t.Errorf("%s: rawTree and wrapTree are not inverses", name)
		}
		if tree.Language().Inner != ref.Language().Inner {
			t.Errorf("%s: the bridge tree has another language than the binding's", name)
		}
		clone := tree.Clone()
		if got := clone.RootNode().ToSexp(); got != want {
			t.Errorf("%s: the bridge tree's clone is\n%s", name, got)
		}
		clone.Close()
		n := 0
		tsctest.EachNode(tree, func(*sitter.Node) { n++ })
		m := 0
		tsctest.EachNode(ref, func(*sitter.Node) { m++ })
		if n != m {
			t.Errorf("%s: %d nodes walked in the bridge tree, %d in the binding's", name, n, m)
		}
		ref.Close()
		tree.Close()
	}
}

// TestGuardedGrammars: every grammar with an external scanner is parsed
// through its guarded copy (SetLanguage), which must be the grammar's
// tables byte for byte but for the scanner's serialize: the same tree as
// the binding's for every corpus file, and the same answers from the
// language API (so the copy's layout is the core's).
func TestGuardedGrammars(t *testing.T) {
	src := NewSource()
	defer src.Free()
	p := sitter.NewParser()
	defer p.Close()
	files, err := filepath.Glob("../../../testdata/corpus/*/*")
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]bool{}
	for _, f := range files {
		l := lang.ForPath(f)
		if l == nil {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := src.SetLanguage(p, l.Grammar(), countAt(l)); err != nil {
			t.Fatal(err)
		}
		guarded, orig := p.Language(), l.Grammar()
		if src.c.serialize != nil {
			checked[l.Name] = true
			if guarded.Inner == orig.Inner {
				t.Errorf("%s: has a scanner, but the parser holds the grammar itself", l.Name)
			}
		}
		if guarded.AbiVersion() != orig.AbiVersion() || guarded.NodeKindCount() != orig.NodeKindCount() ||
			guarded.FieldCount() != orig.FieldCount() || guarded.ParseStateCount() != orig.ParseStateCount() ||
			guarded.NodeKindForId(1) != orig.NodeKindForId(1) || guarded.Version() != orig.Version() {
			t.Errorf("%s: the guarded copy answers differently from the grammar", l.Name)
		}
		tree := src.Parse(p, text, 0)
		if tree == nil || src.Overflowed() {
			t.Fatalf("%s: no tree (overflow %v)", f, src.Overflowed())
		}
		ref := tsctest.BindingParse(t, l.Name, string(text))
		if got, want := tree.RootNode().ToSexp(), ref.RootNode().ToSexp(); got != want {
			t.Errorf("%s: the guarded grammar's tree differs from the binding's", f)
		}
		tree.Close()
		ref.Close()
	}
	for _, name := range []string{"markdown", "yaml", "python", "html", "svelte", "xml", "swift", "haskell"} {
		if !checked[name] {
			t.Errorf("%s: no corpus file parsed through a guarded scanner", name)
		}
	}
}

// TestCancelledSource checks that a cancelled Source gives up and that the
// parser, once reset, parses again with a fresh Source. (Timeouts are
// checked in package parse.)
func TestCancelledSource(t *testing.T) {
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(lang.ByName("python").Grammar()); err != nil {
		t.Fatal(err)
	}
	src := NewSource()
	defer src.Free()
	src.Cancel()
	// tree-sitter checks the flag every hundred or so steps: a tiny text
	// could parse before the first check.
	big := []byte(strings.Repeat("x = [1, 2, 3]\n", 1000))
	if tree := src.Parse(p, big, 0); tree != nil {
		tree.Close()
		t.Fatal("a cancelled source parsed")
	}
	ResetParser(p)
	fresh := NewSource()
	defer fresh.Free()
	tree := fresh.Parse(p, []byte("x = 1\n"), 0)
	if tree == nil {
		t.Fatal("no tree after reset")
	}
	defer tree.Close()
	if got, want := tree.RootNode().ToSexp(), "(module (expression_statement (assignment left: (identifier) right: (integer))))"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	empty := fresh.Parse(p, nil, 0)
	if empty == nil || empty.RootNode().EndByte() != 0 {
		t.Error("empty text: no empty tree")
	}
	empty.Close()
}

// countAt is where l's scanner state holds its stack's count, as package
// parse passes it.
func countAt(l *lang.Language) int {
	switch {
	case l.HTMLScanner:
		return HTMLTagCount
	case l.XMLScanner:
		return XMLTagCount
	}
	return -1
}

// TestStackCountCounted: for the scanners that rebuild a stack of open tags
// from a count in their state (HTML's, Svelte's, XML's), the count is read
// where the state holds it: nested tags make Scanned grow with the depth
// on every token, beyond the bytes saved and restored alone (what a wrong
// place, reading 0, would give).
func TestStackCountCounted(t *testing.T) {
	src := NewSource()
	defer src.Free()
	p := sitter.NewParser()
	defer p.Close()
	const depth = 300
	for name, open := range map[string]string{"html": "<div>", "svelte": "<div>", "xml": "<a>"} {
		l := lang.ByName(name)
		closing := "</" + strings.TrimPrefix(open, "<")
		text := []byte(strings.Repeat(open, depth) + "x" + strings.Repeat(closing, depth) + "\n")
		scanned := func(countAt int) uint64 {
			if err := src.SetLanguage(p, l.Grammar(), countAt); err != nil {
				t.Fatal(err)
			}
			tree := src.Parse(p, text, 0)
			if tree == nil {
				t.Fatalf("%s: no tree", name)
			}
			tree.Close()
			return src.Scanned()
		}
		bytesOnly, counted := scanned(-1), scanned(countAt(l))
		if countAt(l) < 0 || counted < bytesOnly+depth*depth {
			t.Errorf("%s: scanned %d with the count at %d, %d without: want at least %d more (the open tags rebuilt)",
				name, counted, countAt(l), bytesOnly, depth*depth)
		}
	}
}
