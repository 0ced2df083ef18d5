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
type locator struct {
	c     *sitter.TreeCursor
	moves int // the cursor's moves so far, for the tests
}

func newLocator(tree *sitter.Tree) *locator {
	if tree == nil {
		return &locator{}
	}
	return &locator{c: tree.Walk()}
}

func (x *locator) close() {
	if x.c != nil {
		x.c.Close()
	}
}

// at returns the outermost node whose range is [start, end), nil when
// none is. Asked for out of Find's order, it still answers right, at the
// cost of climbing back.
func (x *locator) at(start, end int) *sitter.Node {
	if x.c == nil || end < start {
		return nil
	}
	s, e := uint(start), uint(end)
	n := x.c.Node()
	for n.StartByte() > s || n.EndByte() < e {
		x.moves++
		switch {
		case n.EndByte() <= s && x.c.GotoNextSibling():
		case x.c.GotoParent():
		default:
			return nil // the root does not hold it
		}
		n = x.c.Node()
	}
	for {
		if n.StartByte() == s && n.EndByte() == e {
			return n
		}
		x.moves++
		if x.c.GotoFirstChildForByte(uint32(start)) == nil {
			return nil
		}
		n = x.c.Node()
		if n.StartByte() > s || n.EndByte() < e {
			return nil // no child holds it whole: the cursor stays here, at a node before it
		}
	}
}
