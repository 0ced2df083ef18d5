package outline

import (
	sitter "github.com/tree-sitter/go-tree-sitter"
)

// locator finds the nodes of definitions asked for in Find's order (by
// start, the longer of two starting together first) with one tree cursor,
// moved from each node to the next: up while the cursor's node does not
// hold the range asked for, forward over the siblings that end before it,
// and down into the child that holds its start. Asked for in that order,
// the cursor never moves back, so finding every definition of a file
// costs about one walk over the part of the tree above them, where
// nodeAt costs the depth of each (Node.Parent and DescendantForByteRange
// start from the root): for 3,000 nested functions, 3,000 × 3,000 steps.
// It keeps the nodes from the root to the cursor's, so that it knows the
// parent of the node it finds without asking the tree (Node.Parent).
type locator struct {
	c     *sitter.TreeCursor
	path  []*sitter.Node // the root, ..., the cursor's node
	moves int            // the cursor's moves so far, for the tests
}

func newLocator(tree *sitter.Tree) *locator {
	if tree == nil {
		return &locator{}
	}
	c := tree.Walk()
	return &locator{c: c, path: []*sitter.Node{c.Node()}}
}

func (x *locator) close() {
	if x.c != nil {
		x.c.Close()
	}
}

// at returns the outermost node whose range is [start, end) and its
// parent and grandparent (nil above the root); nil and nils when no node
// has that range. Asked for out of Find's order, it still answers right,
// at the cost of climbing back.
func (x *locator) at(start, end int) (node *sitter.Node, up [2]*sitter.Node) {
	if x.c == nil || end < start {
		return nil, up
	}
	s, e := uint(start), uint(end)
	n := x.path[len(x.path)-1]
	for n.StartByte() > s || n.EndByte() < e {
		x.moves++
		switch {
		case n.EndByte() <= s && x.c.GotoNextSibling():
			x.path = x.path[:len(x.path)-1]
		case x.c.GotoParent():
			x.path = x.path[:len(x.path)-1]
			n = x.path[len(x.path)-1]
			continue
		default:
			return nil, up // the root does not hold it
		}
		n = x.c.Node()
		x.path = append(x.path, n)
	}
	for {
		if n.StartByte() == s && n.EndByte() == e {
			for i := range up {
				if k := len(x.path) - 2 - i; k >= 0 {
					up[i] = x.path[k]
				}
			}
			return n, up
		}
		x.moves++
		if x.c.GotoFirstChildForByte(uint32(start)) == nil {
			return nil, up
		}
		n = x.c.Node()
		x.path = append(x.path, n)
		if n.StartByte() > s || n.EndByte() < e {
			return nil, up // no child holds it whole: the cursor stays here, at a node before it
		}
	}
}
