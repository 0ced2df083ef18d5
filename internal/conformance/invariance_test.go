package conformance

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
)

// chunkerDirs are the packages that must know no language (docs/design.md
// guarantee 5): the packages that define the methods ms (where their
// functions are), and every package of this module those import, directly
// or not: chunk, and tsc, the bridge to tree-sitter's C API through which
// cast reads the tree. They are returned as directories relative to this
// one, sorted.
func chunkerDirs(t *testing.T, ms []*chunk.Method) []string {
	t.Helper()
	mod := modulePath(t)
	var queue []string
	for _, m := range ms {
		for _, fn := range []any{m.New, m.Check, m.Overlapping} {
			v := reflect.ValueOf(fn)
			if v.IsNil() {
				continue
			}
			name := runtime.FuncForPC(v.Pointer()).Name() // e.g. ".../internal/cast.init.func1"
			slash := strings.LastIndexByte(name, '/')
			dot := strings.IndexByte(name[slash+1:], '.')
			if slash < 0 || dot < 0 || !strings.HasPrefix(name, mod+"/") {
				t.Fatalf("method %s: %s is not a function of a package of %s", m.Name, name, mod)
			}
			queue = append(queue, name[:slash+1+dot])
		}
	}
	seen := map[string]bool{}
	var dirs []string
	fset := token.NewFileSet()
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if seen[pkg] {
			continue
		}
		seen[pkg] = true
		dir := filepath.Join("../..", filepath.FromSlash(strings.TrimPrefix(pkg, mod+"/")))
		dirs = append(dirs, dir)
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range file.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, mod+"/") {
					queue = append(queue, p)
				}
			}
		}
	}
	sort.Strings(dirs)
	return dirs
}

// modulePath reads this module's path from its go.mod.
func modulePath(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return f[1]
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

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

// TestChunkersKnowNoLanguage reads the source of the packages of every
// registered method and of what they build on (chunkerDirs), and fails on
// an import of the language registry or of a grammar, a call that asks a
// node its type or field (in Go or in a cgo preamble), or a string literal
// naming a node type of the corpus.
func TestChunkersKnowNoLanguage(t *testing.T) {
	dirs := chunkerDirs(t, methods())
	t.Logf("checked: %s", strings.Join(dirs, " "))
	names := map[string]bool{}
	for _, m := range methods() {
		names[m.Name] = true
	}
	kinds := map[string]bool{}
	for _, f := range loadCorpus(t) {
		for _, n := range f.nodes {
			if n.named && len(n.kind) > 2 {
				kinds[n.kind] = true
			}
		}
	}
	fset := token.NewFileSet()
	for _, dir := range dirs {
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
						// A method's own name ("function") is no question to a node.
						if s, err := strconv.Unquote(x.Value); err == nil && kinds[s] && !names[s] {
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
