// Package declaration implements declaration chunking as Wu et al. 2026
// define it (§2.1.2): the public interface of a file without bodies. Each
// top-level type is one chunk of several pieces of the file
// (chunk.Span.Pieces): its header, then what its body holds in source
// order: each member that is no definition (a field, a constant, an enum's
// constants) whole, each method's signature, each nested type the same
// way. Each top-level function is a chunk of its signature. Private
// definitions and members are left out, by the language's rule, which the
// pipeline hands over (chunk.Def.Private, chunk.Input.Member).
// Code outside types and functions is in no chunk (chunk.Method.Partial).
//
// Which nodes are types and functions, and where their bodies are, comes
// from the definitions of the file (chunk.Input.Defs: the definition
// queries of package outline, which finds the bodies). The chunker works
// on bytes and a tree and knows no language: it asks a node its byte
// range, parent, children and whether it is named or extra, never its
// type or its fields.
package declaration

import (
	"bytes"
	"sort"
	"unicode"
	"unicode/utf8"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/function"
)

// Method is declaration chunking as the method registry knows it.
var Method = chunk.Method{
	Name:      "declaration",
	Summary:   "each top-level class as its header, fields and method signatures without bodies, each top-level function as its signature; private definitions left out by the language's rule; code outside them in no chunk",
	NeedsTree: true,
	NeedsDefs: true,
	Partial:   true,
	Pieces:    true,
	Picks:     "a public class or function",
	New:       func(int, chunk.Values) chunk.Chunker { return New() },
}

// Chunker turns one parsed file's declarations into spans; it reuses its
// buffers between files and is not safe for concurrent use.
type Chunker struct {
	m      chunk.Measure
	in     chunk.Input
	out    []chunk.Span
	pieces []chunk.Piece
	field  bool // the last piece is a member that is no definition
}

// New returns a chunker.
func New() *Chunker { return &Chunker{} }

// Close frees nothing: the chunker holds Go memory only.
func (*Chunker) Close() {}

// Chunk returns the spans of in's public top-level types and functions,
// each split at its pieces when over in.Budget. The slice is valid until
// the next call.
func (c *Chunker) Chunk(in chunk.Input) []chunk.Span {
	c.m.Reset(in.Src, in.Budget, in.TokenStarts)
	defer c.m.Release()
	c.in, c.out = in, c.out[:0]
	defer func() { c.in = chunk.Input{} }()
	end := -1 // the end of the last top-level type or function
	for i, d := range in.Defs {
		if d.Role == chunk.RoleOther || d.Start < end || d.End <= d.Start {
			continue
		}
		end = d.End
		if d.Private || d.End > len(in.Src) {
			continue
		}
		c.pieces, c.field = c.pieces[:0], false
		c.declare(i, end0(c.out))
		c.emit()
	}
	return c.out
}

// end0 is where the last span ends, 0 when there is none.
func end0(spans []chunk.Span) int {
	if len(spans) == 0 {
		return 0
	}
	return spans[len(spans)-1].End
}

// declare appends the pieces of definition i, whose text starts at or
// after prev: a function's signature, or a type's header and members, or
// the header of a definition of another kind (members: one that holds
// functions). The header ends where its body starts (chunk.Def.Body).
func (c *Chunker) declare(i, prev int) {
	d := c.in.Defs[i]
	node := function.NodeOf(c.in, d)
	start := function.Lead(c.in, node, d, prev)
	if d.Body.End <= d.Body.Start {
		c.add(start, c.headEnd(node, d), false)
		return
	}
	c.add(start, d.Body.Start, false)
	if d.Role == chunk.RoleType {
		body := d.BodyNode
		if body == nil {
			body = function.NodeOf(c.in, chunk.Def{Start: d.Block.Start, End: d.Block.End})
		}
		if body != nil {
			c.members(body, i)
		}
	}
}

// headEnd returns where a definition without a body ends: its node's end,
// or for a definition no one node has (Dart's method_signature then its
// function_body), the end of the outermost node that starts it.
func (c *Chunker) headEnd(node *sitter.Node, d chunk.Def) int {
	if node != nil || c.in.Tree == nil {
		return d.End
	}
	n := function.TreeOf(c.in, d).RootNode().DescendantForByteRange(uint(d.Start), uint(d.Start))
	for n != nil {
		p := n.Parent()
		if p == nil || int(p.StartByte()) != d.Start || int(p.EndByte()) > d.End {
			break
		}
		n = p
	}
	if n == nil || int(n.EndByte()) > d.End {
		return d.End
	}
	return int(n.EndByte())
}

// members appends the pieces of what the body of type owner holds, in
// source order: its definitions (signatures, nested types) and the other
// members whole, unless Input.Member leaves them out (private, or a block
// of code); a member that holds definitions without being one (an enum's
// list of declarations) is walked into. A definition of another kind (a
// test block, an Elixir macro) that holds a function or a type is its
// header, as a function is its signature (what its body holds stays out,
// as a function's nested functions do), or, with no body to stop at,
// walked into: kept whole, it would hold their bodies.
func (c *Chunker) members(body *sitter.Node, owner int) {
	prev := 0 // the end of the member before: what travels with one starts after it
	for k := range body.ChildCount() {
		n := body.Child(k)
		s, e := int(n.StartByte()), int(n.EndByte())
		if e <= s || !n.IsNamed() || n.IsExtra() {
			continue
		}
		j, holds := c.defIn(s, e, owner)
		switch {
		case j >= 0 && c.in.Defs[j].Role != chunk.RoleOther:
			if !c.in.Defs[j].Private {
				c.declare(j, max(c.last(), prev))
			}
		case holds:
			c.members(n, owner)
		case j >= 0 && c.in.Defs[j].Private:
		case j >= 0 && c.holdsCode(j):
			if d := c.in.Defs[j]; d.Body.End > d.Body.Start {
				c.declare(j, max(c.last(), prev))
			} else {
				c.members(n, owner)
			}
		case j >= 0:
			c.add(s, e, true)
		case c.in.Member == nil || c.in.Member(n, owner):
			c.add(s, e, true)
		}
		prev = e
	}
}

// holdsCode reports whether a function or a type starts inside definition
// j.
func (c *Chunker) holdsCode(j int) bool {
	defs := c.in.Defs
	for k := j + 1; k < len(defs) && defs[k].Start < defs[j].End; k++ {
		if defs[k].Role != chunk.RoleOther {
			return true
		}
	}
	return false
}

// defIn returns the definition that the member [s, e) of type owner is,
// itself or wrapped (decorators): the first that starts in it and ends
// where it does; -1 when none is. holds: a type or function starts in the
// member without being it.
func (c *Chunker) defIn(s, e, owner int) (j int, holds bool) {
	defs := c.in.Defs
	k := owner + 1 + sort.Search(len(defs)-owner-1, func(x int) bool { return defs[owner+1+x].Start >= s })
	if k < len(defs) && defs[k].Start < e && defs[k].End == e {
		return k, false
	}
	for ; k < len(defs) && defs[k].Start < e; k++ {
		if defs[k].Role != chunk.RoleOther {
			return -1, true
		}
	}
	return -1, false
}

// last is where the last piece ends, 0 when there is none.
func (c *Chunker) last() int {
	if len(c.pieces) == 0 {
		return 0
	}
	return c.pieces[len(c.pieces)-1].End
}

// add appends the piece src[start:end], from its line's beginning when
// only indentation comes before it there, to its last non-whitespace
// byte; nothing when that is empty. A member that is no definition joins
// the previous one when only commas, semicolons and spaces on one line
// come between them (`A, B, C`); a piece that would touch the previous
// one joins it.
func (c *Chunker) add(start, end int, field bool) {
	src := c.in.Src
	end = trimEnd(src, start, end)
	if end <= start {
		return
	}
	last := c.last()
	if ls := lineStart(src, start); ls >= last && len(bytes.TrimSpace(src[ls:start])) == 0 {
		start = ls
	}
	if n := len(c.pieces); n > 0 && (start <= last || field && c.field && separators(src[last:start])) {
		c.pieces[n-1].End = max(end, last)
		c.field = field
		return
	}
	c.pieces = append(c.pieces, chunk.Piece{Start: start, End: end})
	c.field = field
}

// separators reports whether gap holds only commas, semicolons and
// blanks, no line break.
func separators(gap []byte) bool {
	for _, b := range gap {
		if b != ',' && b != ';' && b != ' ' && b != '\t' {
			return false
		}
	}
	return true
}

// trimEnd returns the end of the last non-whitespace character of
// src[start:end], start when there is none.
func trimEnd(src []byte, start, end int) int {
	for end > start {
		r, w := utf8.DecodeLastRune(src[start:end])
		if !unicode.IsSpace(r) {
			return end
		}
		end -= w
	}
	return start
}

// lineStart returns the offset of the start of the line holding i.
func lineStart(src []byte, i int) int {
	return bytes.LastIndexByte(src[:i], '\n') + 1
}

// emit makes the declaration's pieces chunks: one when they fit the
// budget, else runs of them appended in order until the budget is
// reached, a piece over the budget alone cut as text (chunk.Refit with
// the chunker's measure).
func (c *Chunker) emit() {
	if len(c.pieces) == 0 {
		return
	}
	pieces := append([]chunk.Piece(nil), c.pieces...) // the spans keep them
	s := chunk.Join(&c.m.Sizer, pieces)
	fits := func(s chunk.Span) bool { return c.m.FitsPieces(s.Ranges()) }
	out, err := chunk.Refit(c.out, &c.m.Sizer, []chunk.Span{s}, fits)
	if err != nil { // not one character fits the token budget: each alone
		out = out[:len(c.out)]
		for _, p := range pieces {
			for i := p.Start; i < p.End; {
				_, w := utf8.DecodeRune(c.in.Src[i:p.End])
				out = append(out, chunk.Span{Start: i, End: i + w, Size: c.m.Size(i, i+w)})
				i += w
			}
		}
	}
	c.out = out
}
