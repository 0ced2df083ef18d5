package tsc

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/tsc/tsctest"
)

// TestBindingLayout checks the layout the casts assume: the binding's
// Parser and Tree hold only a pointer, its Node only a TSNode of our size.
func TestBindingLayout(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[sitter.Parser](), reflect.TypeFor[sitter.Tree]()} {
		if typ.NumField() != 1 || typ.Field(0).Type.Kind() != reflect.Pointer || typ.Size() != unsafe.Sizeof(uintptr(0)) {
			t.Errorf("sitter.%s is not a struct holding one pointer: %d fields, size %d", typ.Name(), typ.NumField(), typ.Size())
		}
	}
	node := reflect.TypeFor[sitter.Node]()
	if node.NumField() != 1 || node.Field(0).Type.Kind() != reflect.Struct || node.Size() != unsafe.Sizeof(Node{}) {
		t.Errorf("sitter.Node is not a struct holding one TSNode of %d bytes: %d fields, size %d", unsafe.Sizeof(Node{}), node.NumField(), node.Size())
	}
	if got, want := unsafe.Sizeof(Node{}), 4*4+2*unsafe.Sizeof(uintptr(0)); got != want {
		t.Errorf("Node is %d bytes, TSNode is %d", got, want)
	}
}

// TestNodeOfMatchesBinding checks NodeOf, and its inverse, against the
// binding's own answers on every node of every sample.
func TestNodeOfMatchesBinding(t *testing.T) {
	for name, src := range tsctest.Samples {
		tree := tsctest.BindingParse(t, name, src)
		nodes := 0
		tsctest.EachNode(tree, func(n *sitter.Node) {
			nodes++
			got := NodeOf(n)
			if got.StartByte() != uint32(n.StartByte()) || got.EndByte() != uint32(n.EndByte()) ||
				got.ChildCount() != uint32(n.ChildCount()) || got.IsExtra() != n.IsExtra() || got.IsNamed() != n.IsNamed() {
				t.Errorf("%s: node %s [%d,%d): NodeOf answers [%d,%d) %d children extra=%v named=%v, the binding [%d,%d) %d children extra=%v named=%v",
					name, n.Kind(), n.StartByte(), n.EndByte(), got.StartByte(), got.EndByte(), got.ChildCount(), got.IsExtra(), got.IsNamed(),
					n.StartByte(), n.EndByte(), n.ChildCount(), n.IsExtra(), n.IsNamed())
			}
			back := bindingNode(got)
			if *back != *n || back.KindId() != n.KindId() || back.Kind() != n.Kind() {
				t.Errorf("%s: node %s does not survive the round trip NodeOf, bindingNode", name, n.Kind())
			}
		})
		tree.Close()
		if nodes < 10 {
			t.Errorf("%s: only %d nodes", name, nodes)
		}
	}
}

// TestListerMatchesBinding checks the bulk child listing against the
// binding's Child, node by node.
func TestListerMatchesBinding(t *testing.T) {
	var l Lister
	defer l.Close()
	for name, src := range tsctest.Samples {
		tree := tsctest.BindingParse(t, name, src)
		tsctest.EachNode(tree, func(n *sitter.Node) {
			kids := children(&l, NodeOf(n))
			if uint(len(kids)) != n.ChildCount() {
				t.Fatalf("%s: node %s: %d children listed, the binding has %d", name, n.Kind(), len(kids), n.ChildCount())
			}
			for i, k := range kids {
				c := n.Child(uint(i))
				if *bindingNode(k.Node()) != *c || k.Start() != uint32(c.StartByte()) || k.End() != uint32(c.EndByte()) ||
					k.Extra() != c.IsExtra() || k.Named() != c.IsNamed() || k.HasKids() != (c.ChildCount() > 0) {
					t.Errorf("%s: child %d (%s) of %s listed as [%d,%d) extra=%v named=%v kids=%v",
						name, i, c.Kind(), n.Kind(), k.Start(), k.End(), k.Extra(), k.Named(), k.HasKids())
				}
			}
		})
		l.Release()
		tree.Close()
	}
}

// children collects every batch of Each.
func children(l *Lister, n Node) []Kid {
	var all []Kid
	l.Each(n, func(kids []Kid) { all = append(all, kids...) })
	return all
}

// TestListerBatches checks a node with more children than a batch: all
// are listed, in order, in batches of at most batchKids, and the buffer
// never holds more than one batch.
func TestListerBatches(t *testing.T) {
	src := "x = [" + strings.Repeat("1,", batchKids) + "]\n"
	tree := tsctest.BindingParse(t, "python", src)
	defer tree.Close()
	list := tree.RootNode().Child(0).Child(0).ChildByFieldName("right")
	var l Lister
	defer l.Close()
	batches := 0
	var kids []Kid
	l.Each(NodeOf(list), func(b []Kid) {
		batches++
		if len(b) > batchKids {
			t.Errorf("a batch of %d children", len(b))
		}
		kids = append(kids, b...)
	})
	if uint(len(kids)) != list.ChildCount() || batches < 2 {
		t.Fatalf("%d children listed in %d batches, the binding has %d", len(kids), batches, list.ChildCount())
	}
	for i, k := range kids {
		if c := list.Child(uint(i)); k.Start() != uint32(c.StartByte()) || *bindingNode(k.Node()) != *c {
			t.Fatalf("child %d listed at %d, the binding's at %d", i, k.Start(), c.StartByte())
		}
	}
	if l.capKids > batchKids {
		t.Errorf("the buffer grew to %d children", l.capKids)
	}
	l.Release()
	if kids := children(&l, NodeOf(tree.RootNode())); len(kids) != 1 {
		t.Errorf("after Release, the root has %d children listed", len(kids))
	}
}

// TestOnlyPackageWithC checks that no other package of the module declares
// C code: tree-sitter's C API is declared here and in subpackages of tsc only.
func TestOnlyPackageWithC(t *testing.T) {
	fset := token.NewFileSet()
	var found int
	for _, pattern := range []string{"../*/*.go", "../*/*/*.go", "../../cmd/*/*.go"} {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			file, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				t.Logf("skipped: %v", err) // a file being written, say
				continue
			}
			for _, imp := range file.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); p == "C" {
					// rlimit checks the limits in C before the Go runtime starts.
					if dir := filepath.Dir(path); dir != "../tsc" && filepath.Dir(dir) != "../tsc" && dir != "../rlimit" {
						t.Errorf("%s imports \"C\": tree-sitter's C API belongs in package tsc", path)
					}
					found++
				}
			}
		}
	}
	if found == 0 {
		t.Error("no file imports \"C\", not even this package's")
	}
}
