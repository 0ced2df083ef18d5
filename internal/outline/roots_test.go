package outline

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

// TestPatternRoots checks the reading of a pattern's root kinds.
func TestPatternRoots(t *testing.T) {
	for _, c := range []struct {
		text  string
		kinds []string // nil: not understood
	}{
		{`(function_definition name: (identifier) @name) @definition.function`, []string{"function_definition"}},
		{"(a\n  ; a comment with ( and \" in it\n  b: (c) @name) @definition.x", []string{"a"}},
		{`(a (b) @name (#eq? @name "x)\"[")) @definition.x`, []string{"a"}},
		{`(program (method name: (_) @name) @definition.function)`, []string{"program"}},
		{`[(a) (b name: (c) @name)] @definition.x`, []string{"a", "b"}},
		{`[(a) @x [(b) (c)]] @definition.x`, []string{"a", "b", "c"}},
		{`((a name: (b) @name) @definition.x (#eq? @name "y"))`, []string{"a"}},
		{`(table . [(bare_key) (dotted_key)] @name) @definition.table`, []string{"table"}},
		{`(_ name: (b) @name) @definition.x`, nil},
		{`_ @definition.x`, nil},
		{`"class" @definition.x`, nil},
		{`(ERROR (a) @name) @definition.x`, nil},
		{`(MISSING identifier) @definition.x`, nil},
		{`(expression/identifier) @definition.x`, nil},
		{`(a)+ @definition.x`, nil},
		{`(a)* @definition.x`, nil},
		{`[(a) (b)]? @definition.x`, nil},
		{`[(a)* (b)] @definition.x`, nil},
		{`((a) (b)) @definition.x`, nil},
		{`((a) @x . (b) @name)`, nil},
		{`((a)+ (#eq? @x "y"))`, nil},
		{`name: (a) @definition.x`, nil},
		{`(a (b) @name`, nil},
		{`(a "unclosed) @name)`, nil},
		{`(a] @name`, nil},
		{``, nil},
	} {
		kinds, ok := patternRoots(c.text)
		if ok != (c.kinds != nil) || !slices.Equal(kinds, c.kinds) {
			t.Errorf("patternRoots(%q) = %q, %v; want %q", c.text, kinds, ok, c.kinds)
		}
	}
}

// TestRootsKnown checks that every language's query runs at its roots'
// nodes: a query that falls back to the whole tree still finds the same
// definitions, but at the old cost. Teach patternRoots the new root, or
// make the pattern's root a node.
func TestRootsKnown(t *testing.T) {
	for _, l := range lang.All() {
		c, err := compile(l)
		if err != nil {
			t.Fatal(err)
		}
		if c.roots == nil {
			t.Errorf("%s: the query has a pattern whose root node RootSymbols cannot tell; Find runs it over the whole tree", l.Name)
		}
		c.query.Close()
	}
}

// TestFindMatchesWholeTree compares Find with the query run over the whole
// tree (findWhole) on every file of testdata/ in a known language, of
// bench/corpus-small when present and not -short, and of the folders
// OUTLINE_COMPARE lists (separated by the OS's path list separator): the
// definitions must be identical.
func TestFindMatchesWholeTree(t *testing.T) {
	dirs := []string{"../../testdata"}
	if _, err := os.Stat("../../bench/corpus-small"); err == nil && !testing.Short() {
		dirs = append(dirs, "../../bench/corpus-small")
	} else {
		t.Log("bench/corpus-small not checked (absent or -short)")
	}
	if more := os.Getenv("OUTLINE_COMPARE"); more != "" {
		dirs = append(dirs, filepath.SplitList(more)...)
	}
	p, f := parse.New(0), NewFinder()
	defer p.Close()
	defer f.Close()
	files, defs := map[string]int{}, map[string]int{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			l := lang.ForPath(path)
			if l == nil {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			tree, err := p.Parse(src, l)
			if err != nil {
				t.Logf("%s: %v", path, err)
				return nil
			}
			defer tree.Close()
			got, err := f.Find(l, src, tree)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			c, err := f.query(l)
			if err != nil {
				t.Fatal(err)
			}
			want := f.findWhole(c, src, tree)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Find differs from the whole-tree query:\n%s", path, diffLines(listing(path, want), listing(path, got)))
			}
			files[l.Name]++
			defs[l.Name] += len(want)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Snippets where one pattern matches one node more than once (a C
	// declaration of several functions) and more matches than a sort does
	// by insertion: the first match the query engine reports must win on
	// both paths.
	for _, c := range []struct{ lang, src string }{
		{"c", strings.Repeat("int f(void), *g(int), h(char);\nstruct S { int x; };\n", 20)},
		{"cpp", strings.Repeat("class A { int f(), g(); };\nint x(), y();\n", 20)},
		{"javascript", strings.Repeat("a = b = function () {};\nconst o = { k: () => 1, [k]: function () {} };\n", 20)},
	} {
		l := lang.ByName(c.lang)
		src := []byte(c.src)
		tree, err := p.Parse(src, l)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Find(l, src, tree)
		if err != nil {
			t.Fatal(err)
		}
		cq, err := f.query(l)
		if err != nil {
			t.Fatal(err)
		}
		if want := f.findWhole(cq, src, tree); !reflect.DeepEqual(got, want) {
			t.Errorf("%s snippet: Find differs from the whole-tree query:\n%s", c.lang, diffLines(listing(c.lang, want), listing(c.lang, got)))
		}
		if len(got) == 0 || got[0].Name != "f" && c.lang == "c" {
			t.Errorf("%s snippet: definitions %v", c.lang, got)
		}
		tree.Close()
	}
	var sb strings.Builder
	for _, l := range lang.All() {
		if files[l.Name] == 0 {
			t.Errorf("%s: no file checked", l.Name)
		}
		fmt.Fprintf(&sb, " %s:%d/%d", l.Name, files[l.Name], defs[l.Name])
	}
	t.Logf("files/definitions checked:%s", sb.String())
}
