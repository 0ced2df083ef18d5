package outline

import (
	"fmt"
	"os"
	"strings"
	"testing"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

// TestDump prints the syntax tree of the file OUTLINE_DUMP names (language
// from its path, or OUTLINE_LANG), with field names and lines: the view a
// query is written against. Skipped unless set.
func TestDump(t *testing.T) {
	path := os.Getenv("OUTLINE_DUMP")
	if path == "" {
		t.Skip("set OUTLINE_DUMP=FILE to print its syntax tree")
	}
	l := lang.ForPath(path)
	if n := os.Getenv("OUTLINE_LANG"); n != "" {
		l = lang.ByName(n)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := parse.New(0)
	defer p.Close()
	tree, err := p.Parse(src, l)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	var sb strings.Builder
	dump(&sb, tree.RootNode(), "", 0, src)
	fmt.Print(sb.String())
}

func dump(sb *strings.Builder, n *sitter.Node, field string, depth int, src []byte) {
	if !n.IsNamed() {
		return
	}
	text := ""
	if n.ChildCount() == 0 || n.EndByte()-n.StartByte() < 30 {
		text = " " + strings.Join(strings.Fields(string(src[n.StartByte():n.EndByte()])), " ")
		if len(text) > 60 {
			text = text[:60]
		}
	}
	if field != "" {
		field += ": "
	}
	fmt.Fprintf(sb, "%4d %s%s%s%s\n", n.StartPosition().Row+1, strings.Repeat("  ", depth), field, n.Kind(), text)
	for i := uint(0); i < n.ChildCount(); i++ {
		dump(sb, n.Child(i), n.FieldNameForChild(uint32(i)), depth+1, src)
	}
}

// TestListDefs prints the definitions of the file OUTLINE_DEFS names, as a
// golden listing shows them. Skipped unless set.
func TestListDefs(t *testing.T) {
	path := os.Getenv("OUTLINE_DEFS")
	if path == "" {
		t.Skip("set OUTLINE_DEFS=FILE to list its definitions")
	}
	p, f := parse.New(0), NewFinder()
	defer p.Close()
	defer f.Close()
	_, defs := findFile(t, p, f, lang.ForPath(path), path)
	fmt.Print(listing(path, defs))
}
