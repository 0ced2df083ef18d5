package conformance

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// chunkerDirs are the packages that must know no language (docs/design.md
// guarantee 5): the chunkers, and tsc, the bridge to tree-sitter's C API
// through which cast reads the tree.
var chunkerDirs = []string{"../cast", "../chunk", "../sliding", "../tsc"}

// nodeQuestions are the node and cursor methods that reveal a node's type
// or its grammar's field names: the questions a language-blind chunker never
// asks.
var nodeQuestions = map[string]bool{
	"Kind": true, "KindId": true, "GrammarName": true, "GrammarId": true,
	"Language": true, "FieldName": true, "FieldId": true,
	"ChildByFieldName": true, "ChildByFieldId": true, "ChildrenByFieldName": true,
	"ChildrenByFieldId": true, "FieldNameForChild": true, "FieldNameForNamedChild": true,
}

// cQuestions are the same questions in tree-sitter's C API, as a cgo
// preamble would ask them; tsc's is the only one (its tests check that).
var cQuestions = []string{
	"ts_node_type", "ts_node_symbol", "ts_node_grammar", "ts_node_language",
	"ts_node_child_by_field", "ts_node_field_name", "ts_tree_cursor_current_field",
	"ts_language_", "ts_tree_language",
}

// TestChunkersKnowNoLanguage reads the source of the chunker packages and
// fails on an import of the language registry or of a grammar, a call that
// asks a node its type or field (in Go or in a cgo preamble), or a string
// literal naming a node type of the corpus.
func TestChunkersKnowNoLanguage(t *testing.T) {
	kinds := map[string]bool{}
	for _, f := range loadCorpus(t) {
		for _, n := range f.nodes {
			if n.named && len(n.kind) > 2 {
				kinds[n.kind] = true
			}
		}
	}
	fset := token.NewFileSet()
	for _, dir := range chunkerDirs {
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, path := range paths {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			n++
			file, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, cg := range file.Comments { // cgo preambles are comments
				for _, q := range cQuestions {
					if strings.Contains(cg.Text(), q) {
						t.Errorf("%s: the C code asks %s", fset.Position(cg.Pos()), q)
					}
				}
			}
			for _, imp := range file.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if strings.HasSuffix(p, "/internal/lang") || strings.Contains(p, "/tree-sitter-") {
					t.Errorf("%s: imports %s", fset.Position(imp.Pos()), p)
				}
			}
			ast.Inspect(file, func(x ast.Node) bool {
				switch x := x.(type) {
				case *ast.SelectorExpr:
					if nodeQuestions[x.Sel.Name] {
						t.Errorf("%s: asks .%s", fset.Position(x.Pos()), x.Sel.Name)
					}
				case *ast.BasicLit:
					if x.Kind == token.STRING {
						if s, err := strconv.Unquote(x.Value); err == nil && kinds[s] {
							t.Errorf("%s: names the node type %q", fset.Position(x.Pos()), s)
						}
					}
				}
				return true
			})
		}
		if n == 0 {
			t.Errorf("%s: no Go source found", dir)
		}
	}
}
