// Package function implements function chunking as Wu et al. 2026 define
// it (§2.1.1): each top-level function or method definition, with its
// decorators, the comments directly above it and its signature, is one
// chunk, its whole body included; one over the budget is split at its
// direct child statements, in source order, statements appended to a chunk
// until the budget is reached. Code outside every function (imports, module
// statements, class headers and fields) is in no chunk: the chunks cover
// part of the file (chunk.Method.Partial), unlike cast's, which tile it.
//
// Which nodes are functions comes from the definitions of the file
// (chunk.Input.Defs, found by the definition queries of package outline):
// those of chunk.RoleFunction, outline's kinds function, method and
// constructor. A function nested in another belongs to it; a method in a
// class is a definition of its own. The chunker works on bytes and a tree
// and knows nothing of files or languages: it asks a node its byte range,
// parent, children and whether it is extra, never its type.
package function

import (
	"bytes"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/chunk"
)

// Method is function chunking as the method registry knows it.
var Method = chunk.Method{
	Name:      "function",
	Summary:   "each top-level function or method whole, with its decorators and doc comment, split at its statements when over the budget; code outside functions is in no chunk, unlike cast",
	NeedsTree: true,
	NeedsDefs: true,
	Partial:   true,
	Picks:     "a function",
	New:       func(int, chunk.Values) chunk.Chunker { return New() },
}

// Chunker turns one parsed file's functions into spans; it reuses its
// buffers between files and is not safe for concurrent use.
type Chunker struct {
	m     chunk.Measure
	out   []chunk.Span
	units []unit
}

// New returns a chunker.
func New() *Chunker { return &Chunker{} }

// Close frees nothing: the chunker holds Go memory only.
func (*Chunker) Close() {}

// unit is one piece a split function is packed from: a child of its
// node, or of its body.
type unit struct{ start, end int }

// Top returns the functions of defs (sorted as chunk.Input.Defs) that no
// other function encloses, in order.
func Top(defs []chunk.Def) []chunk.Def {
	var top []chunk.Def
	end := -1
	for _, d := range defs {
		if d.Role != chunk.RoleFunction || d.Start < end || d.End <= d.Start {
			continue
		}
		top = append(top, d)
		end = d.End
	}
	return top
}

// Chunk returns the spans of in's functions: each whole when it fits
// in.Budget, else split at its statements. The slice is valid until the
// next call.
func (c *Chunker) Chunk(in chunk.Input) []chunk.Span {
	c.m.Reset(in.Src, in.Budget, in.TokenStarts)
	defer c.m.Release()
	c.out = c.out[:0]
	prev := 0
	for _, d := range Top(in.Defs) {
		if d.End > len(in.Src) {
			break
		}
		node := NodeOf(in, d)
		start := Lead(in, node, d, prev)
		if c.m.Fits(start, d.End) {
			c.out = append(c.out, chunk.Span{Start: start, End: d.End, Size: c.m.Size(start, d.End)})
		} else {
			c.split(node, start, d.End)
		}
		prev = d.End
	}
	return c.out
}

// TreeOf returns the tree that describes d: the embedded region's that
// holds it, else the file's (nil without a tree).
func TreeOf(in chunk.Input, d chunk.Def) *sitter.Tree {
	tree := in.Tree
	for _, e := range in.Embedded {
		if e.Start <= d.Start && d.End <= e.End && e.Tree != nil {
			tree = e.Tree
		}
	}
	return tree
}

// NodeOf returns the syntax node of d: d.Node when the definitions' finder
// gave it, else the one found in the tree of the embedded region that
// holds it, else in the file's; nil when no node has d's range (a
// definition a query made of several nodes).
func NodeOf(in chunk.Input, d chunk.Def) *sitter.Node {
	if d.Node != nil {
		return d.Node
	}
	tree := TreeOf(in, d)
	if tree == nil {
		return nil
	}
	n := tree.RootNode().DescendantForByteRange(uint(d.Start), uint(d.End))
	if n == nil || int(n.StartByte()) != d.Start || int(n.EndByte()) != d.End {
		return nil
	}
	for p := n.Parent(); p != nil && p.StartByte() == n.StartByte() && p.EndByte() == n.EndByte(); p = p.Parent() {
		n = p
	}
	return n
}

// Lead returns where the chunk of d starts: before what the grammar wraps
// around its node and what travels with it (wrappers), then before the
// comments directly above it (comments), then at the start of its line
// when only indentation comes before it there; never before prev, the end
// of the previous function.
func Lead(in chunk.Input, n *sitter.Node, d chunk.Def, prev int) int {
	src := in.Src
	start := d.Start
	if n != nil {
		var scope *sitter.Node
		start, scope = wrappers(src, n, d, in.Defs)
		start = comments(src, TreeOf(in, d).RootNode(), scope, start, prev)
	}
	ls := lineStart(src, start)
	if ls >= prev && len(bytes.TrimSpace(src[ls:start])) == 0 {
		start = ls
	}
	return max(start, prev)
}

// wrappers climbs from d's node n to the outermost ancestor that wraps it,
// and returns its start, and the parent of that ancestor (of n when none
// wraps it; nil when not known). A wrapper ends where n does; is not the
// root, a definition or a definition's body (its parent is no
// definition); holds no other definition before n; has no blank line
// before n; starts on n's line or at the start of a line indented as n's;
// and its children above n's line start with a sigil (sigilLines). That
// is how Python's decorators (`@cache` above `def`) and TypeScript's
// `export` join a function, while the body of a class, an `if` or a `try`
// around it do not. n's parent and grandparent are d.Parents when the
// definitions' finder gave them: Node.Parent walks down from the root, and
// costs the depth.
func wrappers(src []byte, n *sitter.Node, d chunk.Def, defs []chunk.Def) (int, *sitter.Node) {
	start := d.Start
	indent := src[lineStart(src, d.Start):d.Start]
	known := n == d.Node && d.Parents[0] != nil
	p := d.Parents[0]
	if !known {
		p = n.Parent()
	}
	for p != nil {
		ps, pe := int(p.StartByte()), int(p.EndByte())
		if pe != int(n.EndByte()) {
			break
		}
		var pp *sitter.Node
		if known {
			pp, known = d.Parents[1], false
		} else {
			pp = p.Parent()
		}
		if pp == nil || isDef(defs, ps, pe) || isDef(defs, int(pp.StartByte()), int(pp.EndByte())) ||
			defBetween(defs, ps, start) || bytes.Contains(src[ps:start], []byte("\n\n")) ||
			!sameLine(src, ps, start) && !bytes.Equal(src[lineStart(src, ps):ps], indent) || !sigilLines(src, p, n) {
			break
		}
		start, n, p = ps, p, pp
	}
	return start, p
}

// sigilLines reports whether each child of p before n that starts on an
// earlier line than n starts with a sigil (@cache, #[test]): punctuation
// that is no quote or bracket. Decorators and attributes do; the
// statements of a block (`y = 1`, `import z`, a docstring) do not, so a
// block is no wrapper.
func sigilLines(src []byte, p, n *sitter.Node) bool {
	for i := uint(0); i < p.ChildCount(); i++ {
		k := p.Child(i)
		ks := int(k.StartByte())
		if ks >= int(n.StartByte()) {
			break
		}
		if k.EndByte() <= k.StartByte() || sameLine(src, ks, int(n.StartByte())) {
			continue
		}
		c := src[ks]
		if c >= utf8.RuneSelf || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) || strings.IndexByte("_\"'`([{", c) >= 0 {
			return false
		}
	}
	return true
}

// sameLine reports whether src[a:b] holds no line break.
func sameLine(src []byte, a, b int) bool { return bytes.IndexByte(src[a:b], '\n') < 0 }

// isDef reports whether some definition has the range [a, b); defs are
// sorted by Start (chunk.Input.Defs), so it searches.
func isDef(defs []chunk.Def, a, b int) bool {
	for i := firstFrom(defs, a); i < len(defs) && defs[i].Start == a; i++ {
		if defs[i].End == b {
			return true
		}
	}
	return false
}

// defBetween reports whether some definition starts in [a, b).
func defBetween(defs []chunk.Def, a, b int) bool {
	i := firstFrom(defs, a)
	return i < len(defs) && defs[i].Start < b
}

// firstFrom returns the index of the first of defs (sorted by Start) that
// starts at or after a.
func firstFrom(defs []chunk.Def, a int) int {
	return sort.Search(len(defs), func(i int) bool { return defs[i].Start >= a })
}

// comments moves start up over the comments directly above it, as cast
// keeps a comment with the code below it: a run of comment lines (extra
// nodes that start their line) with no blank line between them and start.
// A comment that trails code on its line stays with that code. The node
// at a byte is looked for from scope when it holds the byte (the parent
// of what starts at start: DescendantForByteRange from the root costs the
// depth), else from root.
func comments(src []byte, root, scope *sitter.Node, start, prev int) int {
	for {
		ls := lineStart(src, start)
		if ls == 0 || len(bytes.TrimSpace(src[ls:start])) != 0 {
			return start
		}
		above := lineStart(src, ls-1)
		text := bytes.TrimLeft(src[above:ls], " \t")
		if len(bytes.TrimSpace(text)) == 0 {
			return start // a blank line
		}
		q := ls - len(text)
		from := root
		if scope != nil && int(scope.StartByte()) <= q && q+1 <= int(scope.EndByte()) {
			from = scope
		}
		k := from.DescendantForByteRange(uint(q), uint(q+1))
		if k == nil || !k.IsExtra() || int(k.StartByte()) < prev {
			return start
		}
		ks := int(k.StartByte())
		if ks != q && len(bytes.TrimSpace(src[lineStart(src, ks):ks])) != 0 {
			return start // a block comment that trails code
		}
		if int(k.EndByte()) > ls && len(bytes.TrimSpace(src[k.EndByte():start])) != 0 {
			return start
		}
		start = ks
	}
}

// lineStart returns the offset of the start of the line holding i.
func lineStart(src []byte, i int) int {
	return bytes.LastIndexByte(src[:i], '\n') + 1
}

// split cuts the function src[start:end], whose node is n, into chunks
// that tile it: its units (appendKids: its signature, its statements)
// appended to a chunk until the budget is reached; a unit over the budget
// alone is cut as text (chunk.SplitText: at line ends, else inside a
// line).
func (c *Chunker) split(n *sitter.Node, start, end int) {
	c.units = c.units[:0]
	if n != nil {
		c.units = c.appendKids(c.units, n)
	}
	if len(c.units) == 0 {
		c.units = append(c.units, unit{start, end})
	}
	c.units[0].start = start // decorators and comments go with the header
	c.units[len(c.units)-1].end = end
	c.units = c.fillGaps(c.units)
	first := len(c.out)
	open := -1 // start of the chunk under way, -1 when none
	last := 0  // end of its last unit
	for _, u := range c.units {
		switch {
		case open >= 0 && c.m.Fits(open, u.end):
			last = u.end
		case c.m.Fits(u.start, u.end):
			c.close(open, last)
			open, last = u.start, u.end
		default:
			from := u.start
			if open >= 0 {
				from = open
			}
			pieces := chunk.SplitText(nil, &c.m, u.start, u.end, from)
			if open >= 0 && c.m.Fits(open, pieces[0].End) {
				pieces[0].Start = open // the first piece fills the chunk under way
			} else {
				c.close(open, last)
			}
			for _, p := range pieces[:len(pieces)-1] {
				c.close(p.Start, p.End)
			}
			open, last = pieces[len(pieces)-1].Start, u.end
		}
	}
	c.close(open, last)
	c.tile(c.out[first:], start, end)
}

// appendKids appends the units of the function node n: its children, its
// body (the last child with children that spans lines) replaced by the
// body's children, the statements. A body with a single named child that
// has children (Go's statement list in a block) is that child's children.
// A unit over the budget that has children is replaced by them, as cast
// splits an oversized node, down to what fits or has none (SplitText cuts
// that). Units on one line are joined into one (a signature, `} else {`),
// so that chunks are cut between lines, and inside a line only when that
// line alone is over the budget. An explicit stack keeps any depth of
// nesting off the Go stack.
func (c *Chunker) appendKids(units []unit, n *sitter.Node) []unit {
	src := c.m.Src()
	stack := c.kidsOf(nil, n, c.bodyOf(n))
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		k := v.n
		s, e := int(k.StartByte()), int(k.EndByte())
		if e <= s {
			continue
		}
		if k.ChildCount() > 0 && (v.body || !c.m.Fits(s, e)) {
			stack = c.kidsOf(stack, k, c.soleKid(k, v.body))
			continue
		}
		if n := len(units); n > 0 && bytes.IndexByte(src[units[n-1].end:s], '\n') < 0 {
			units[n-1].end = e
			continue
		}
		units = append(units, unit{s, e})
	}
	return units
}

// fillGaps makes a unit of each stretch between two units that holds more
// than whitespace: text of a node that no child of it covers (a Python
// string's content around its escape sequences), which would otherwise
// join the chunk before it whatever its size.
func (c *Chunker) fillGaps(units []unit) []unit {
	src := c.m.Src()
	gaps := 0
	for i := 1; i < len(units); i++ {
		if c.m.Size(units[i-1].end, units[i].start) > 0 {
			gaps++
		}
	}
	if gaps == 0 {
		return units
	}
	out := make([]unit, 0, len(units)+gaps)
	for i, u := range units {
		if i > 0 {
			if a, b := units[i-1].end, u.start; c.m.Size(a, b) > 0 {
				a += len(src[a:b]) - len(bytes.TrimLeft(src[a:b], " \t\r\n"))
				out = append(out, unit{a, b})
			}
		}
		out = append(out, u)
	}
	return out
}

// visit is a node appendKids will take; body: its children are taken
// whatever its size.
type visit struct {
	n    *sitter.Node
	body bool
}

// kidsOf pushes the children of n on stack in reverse order, so that they
// are popped in source order; the child at index body (-1: none) is a body.
func (c *Chunker) kidsOf(stack []visit, n *sitter.Node, body int) []visit {
	for i := int(n.ChildCount()) - 1; i >= 0; i-- {
		stack = append(stack, visit{n.Child(uint(i)), i == body})
	}
	return stack
}

// bodyOf returns the index of n's body: its last child with children that
// spans lines; -1 when none does.
func (c *Chunker) bodyOf(n *sitter.Node) int {
	src := c.m.Src()
	for i := int(n.ChildCount()) - 1; i >= 0; i-- {
		k := n.Child(uint(i))
		if k.ChildCount() > 0 && bytes.IndexByte(src[k.StartByte():k.EndByte()], '\n') >= 0 {
			return i
		}
	}
	return -1
}

// soleKid returns, for a body, the index of its only named child that is
// not extra, when that child has children (a list that holds the
// statements); else -1.
func (c *Chunker) soleKid(n *sitter.Node, body bool) int {
	if !body {
		return -1
	}
	found := -1
	for i := range int(n.ChildCount()) {
		k := n.Child(uint(i))
		if !k.IsNamed() || k.IsExtra() {
			continue
		}
		if found >= 0 || k.ChildCount() == 0 {
			return -1
		}
		found = i
	}
	return found
}

// close ends a chunk [a, b); a < 0 means there is none.
func (c *Chunker) close(a, b int) {
	if a >= 0 && b > a {
		c.out = append(c.out, chunk.Span{Start: a, End: b})
	}
}

// tile makes the chunks of one function cover [start, end) with no gap:
// the whitespace between two goes to the later one from the start of its
// first line (as cast places its cuts), or to the earlier one when the
// later starts on the same line.
func (c *Chunker) tile(spans []chunk.Span, start, end int) {
	src := c.m.Src()
	for i := range spans {
		if i == 0 {
			spans[i].Start = start
		} else {
			cut := spans[i].Start
			if ls := lineStart(src, cut); ls >= spans[i-1].End && len(bytes.TrimSpace(src[ls:cut])) == 0 {
				cut = ls
			}
			spans[i-1].End, spans[i].Start = cut, cut
		}
	}
	if len(spans) > 0 {
		spans[len(spans)-1].End = end
	}
	for i := range spans {
		spans[i].Size = c.m.Size(spans[i].Start, spans[i].End)
	}
}
