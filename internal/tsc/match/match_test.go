package match

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/lang"
)

// samples parse with nested definitions, one per language of the queries
// below.
var samples = map[string]string{
	"python": "class A:\n    def f(self):\n        def g():\n            pass\n\n@dec\ndef h(x): return x\n",
	"javascript": "class A { constructor() {} m() { const f = () => 1; } }\n" +
		"const o = { k: function () {}, v: 1 };\nexports.x = function y() {};\n",
	"c": "int f(void), *g(int);\nstruct S { int x; };\n",
}

// queries are small queries with rooted patterns, captures and a predicate.
var queries = map[string]string{
	"python": `(function_definition name: (identifier) @name) @def
(class_definition name: (identifier) @name body: (block (function_definition) @inner)) @def`,
	"javascript": `(method_definition name: (property_identifier) @name (#eq? @name "constructor")) @def
(method_definition name: (_) @name) @def
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def
(pair key: (_) @name value: (function_expression)) @def
(function_expression name: (identifier) @name) @def`,
	"c": `(declaration declarator: (function_declarator declarator: (identifier) @name)) @def
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @def
(struct_specifier name: (type_identifier) @name) @def`,
}

// match is one match as the tests compare them.
type match struct {
	pattern uint
	caps    []string // "index:start-end:row"
}

func key(m match) string { return strconv.Itoa(int(m.pattern)) + " " + strings.Join(m.caps, " ") }

func describe(pattern uint, caps []sitter.QueryCapture) match {
	m := match{pattern: pattern}
	for _, c := range caps {
		m.caps = append(m.caps, strconv.Itoa(int(c.Index))+":"+strconv.Itoa(int(c.Node.StartByte()))+"-"+
			strconv.Itoa(int(c.Node.EndByte()))+":"+strconv.Itoa(int(c.Node.StartPosition().Row)))
	}
	return m
}

func parseSample(t *testing.T, name string) (*sitter.Tree, *sitter.Query) {
	t.Helper()
	l := lang.ByName(name)
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(l.Grammar()); err != nil {
		t.Fatal(err)
	}
	tree := p.Parse([]byte(samples[name]), nil)
	q, err := sitter.NewQuery(l.Grammar(), queries[name])
	if err != nil {
		t.Fatal(err)
	}
	return tree, q
}

// TestBindingLayout checks the layout the casts assume: the binding's Query
// starts with the C query's pointer, its Node is a TSNode of our size, its
// QueryCapture a TSQueryCapture; and the Go mirrors of C structs.
func TestBindingLayout(t *testing.T) {
	query := reflect.TypeFor[sitter.Query]()
	if f := query.Field(0); f.Offset != 0 || f.Type.Kind() != reflect.Pointer {
		t.Errorf("sitter.Query does not start with a pointer: %s %s", f.Name, f.Type)
	}
	cNode, cCapture, cIndex, cHit, cSpan := cLayout()
	node := reflect.TypeFor[sitter.Node]()
	if node.NumField() != 1 || node.Size() != cNode {
		t.Errorf("sitter.Node is not one TSNode of %d bytes: %d fields, size %d", cNode, node.NumField(), node.Size())
	}
	if got := unsafe.Sizeof(sitter.QueryCapture{}); got != cCapture {
		t.Errorf("sitter.QueryCapture is %d bytes, TSQueryCapture %d", got, cCapture)
	}
	if got := unsafe.Offsetof(sitter.QueryCapture{}.Index); got != cIndex {
		t.Errorf("sitter.QueryCapture.Index at %d, TSQueryCapture.index at %d", got, cIndex)
	}
	if unsafe.Sizeof(hit{}) != cHit || unsafe.Sizeof(Span{}) != cSpan {
		t.Errorf("hit or Span differ in size from C's hit (%d) and span (%d)", cHit, cSpan)
	}
}

// TestRunMatchesQueryCursor runs each query with every symbol a root and
// with the roots of its patterns only, and compares the matches with the
// binding's query cursor over the whole tree: the same set (text
// predicates aside, which Run leaves to the caller).
func TestRunMatchesQueryCursor(t *testing.T) {
	r := NewRunner()
	defer r.Close()
	for name := range samples {
		tree, q := parseSample(t, name)
		src := []byte(samples[name])
		var want []string
		qc := sitter.NewQueryCursor()
		// Without text predicates: the binding's Matches evaluates them.
		ms := qc.Matches(q, tree.RootNode(), src)
		for m := ms.Next(); m != nil; m = ms.Next() {
			want = append(want, key(describe(m.PatternIndex, m.Captures)))
		}
		qc.Close()
		all := make([]byte, tree.Language().NodeKindCount())
		for i := range all {
			all[i] = 1
		}
		rooted := make([]byte, len(all))
		for _, line := range strings.Split(queries[name], "\n") {
			kind := strings.Fields(strings.TrimPrefix(line, "("))[0]
			rooted[tree.Language().IdForNodeKind(kind, true)] = 1
		}
		for _, roots := range [][]byte{all, rooted} {
			got := run(t, r, q, tree, src, roots)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s: Run found\n%s\nthe query cursor\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
		if len(want) < 3 {
			t.Errorf("%s: only %d matches", name, len(want))
		}
		got := run(t, r, q, tree, src, make([]byte, len(all)))
		if len(got) != 0 {
			t.Errorf("%s: %d matches without roots", name, len(got))
		}
		q.Close()
		tree.Close()
	}
}

// run runs q with r and returns its matches that satisfy their predicates,
// checking each capture's span against its node.
func run(t *testing.T, r *Runner, q *sitter.Query, tree *sitter.Tree, src []byte, roots []byte) []string {
	t.Helper()
	ms := r.Run(q, tree.RootNode(), roots)
	var got []string
	for i := range ms.Len() {
		caps, spans := ms.Captures(i), ms.Spans(i)
		if len(caps) != len(spans) {
			t.Fatalf("match %d: %d captures, %d spans", i, len(caps), len(spans))
		}
		for j, c := range caps {
			s := spans[j]
			if s.Start != uint32(c.Node.StartByte()) || s.End != uint32(c.Node.EndByte()) || s.Row != uint32(c.Node.StartPosition().Row) {
				t.Errorf("match %d capture %d: span %v, node [%d,%d) row %d", i, j, s, c.Node.StartByte(), c.Node.EndByte(), c.Node.StartPosition().Row)
			}
		}
		m := sitter.QueryMatch{Captures: caps, PatternIndex: ms.Pattern(i)}
		if m.SatisfiesTextPredicate(q, nil, nil, src) {
			got = append(got, key(describe(ms.Pattern(i), caps)))
		}
	}
	return got
}

// TestRunBuffers checks a run with more captures than the buffers keep
// between runs, and the run after it.
func TestRunBuffers(t *testing.T) {
	l := lang.ByName("python")
	src := []byte(strings.Repeat("def f(): pass\n", keptCaptures))
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(l.Grammar()); err != nil {
		t.Fatal(err)
	}
	tree := p.Parse(src, nil)
	defer tree.Close()
	q, err := sitter.NewQuery(l.Grammar(), `(function_definition name: (identifier) @name) @def`)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	roots := make([]byte, l.Grammar().NodeKindCount())
	roots[l.Grammar().IdForNodeKind("function_definition", true)] = 1
	r := NewRunner()
	defer r.Close()
	ms := r.Run(q, tree.RootNode(), roots)
	if ms.Len() != keptCaptures {
		t.Fatalf("%d matches, want %d", ms.Len(), keptCaptures)
	}
	last := ms.Spans(ms.Len() - 1)
	if want := uint32(len(src) - len("def f(): pass\n")); last[0].Start != want && last[1].Start != want {
		t.Errorf("last match spans %v, want a capture at %d", last, want)
	}
	if r.capacity() <= keptCaptures {
		t.Fatalf("buffers hold %d captures", r.capacity())
	}
	small := sitter.NewParser()
	defer small.Close()
	small.SetLanguage(l.Grammar())
	tiny := small.Parse([]byte("def g(): pass\n"), nil)
	defer tiny.Close()
	if ms := r.Run(q, tiny.RootNode(), roots); ms.Len() != 1 || ms.Spans(0)[0].Start != 0 {
		t.Errorf("after a big run, a small one found %d matches", ms.Len())
	}
	if r.capacity() > keptCaptures {
		t.Errorf("the buffers kept room for %d captures", r.capacity())
	}
}

// TestChunkersDoNotUse checks that no chunker imports this package, which
// asks nodes their type: the chunkers know no language (docs/design.md,
// guarantee 5; the packages of internal/conformance's chunkerDirs).
func TestChunkersDoNotUse(t *testing.T) {
	fset := token.NewFileSet()
	for _, dir := range []string{"../../cast", "../../chunk", "../../sliding", ".."} {
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) == 0 {
			t.Errorf("%s: no Go source", dir)
		}
		for _, path := range paths {
			file, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range file.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); strings.HasSuffix(p, "/internal/tsc/match") {
					t.Errorf("%s imports %s", path, p)
				}
			}
		}
	}
}
