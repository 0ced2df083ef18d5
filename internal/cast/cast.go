// Package cast implements cAST chunking (Zhang et al. 2025, Algorithm 1):
// walk the syntax tree top-down, keep a node whole when it fits the budget,
// split it into its children when it does not, and greedily merge adjacent
// siblings up to the budget. It works on bytes and a tree and knows nothing
// of files or languages: all it asks a node is its byte range, whether it is
// named or extra, and its children (docs/design.md, guarantee 5), through
// the bridge package tsc.
//
// Beyond the paper, and as docs/design.md requires, the chunks tile the file
// exactly, a leaf larger than the budget is split instead of dropped,
// comments travel with the node below them (a run of them too long to go
// with it stays whole instead), the keywords and punctuation in
// front of a split node (its "header", e.g. `export class A {`) travel into
// its first chunk instead of standing alone, and crumbs merge into a
// neighbour. The walk uses an explicit stack, so no input can overflow the
// Go stack however deep its tree is.
package cast

import (
	"bytes"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/tsc"
)

// Chunker turns one parsed file into spans. It keeps buffers between files,
// so a worker reuses one Chunker; it is not safe for concurrent use.
type Chunker struct {
	measure chunk.Measure
	b       builder
}

// Close frees the C memory the chunker keeps between files.
func (c *Chunker) Close() { c.b.tree.Close() }

// New returns a chunker; Close it when done.
func New() *Chunker { return &Chunker{} }

// Chunk splits in.Src, whose syntax tree is in.Tree, into spans that tile
// it and fit in.Budget (Size >= 1). The returned slice is valid until the
// next call.
func (c *Chunker) Chunk(in chunk.Input) []chunk.Span {
	if in.Budget.Size < 1 {
		panic(fmt.Sprintf("cast: budget %d < 1", in.Budget.Size))
	}
	src := in.Src
	c.measure.Reset(src, in.Budget, in.TokenStarts)
	defer c.measure.Release()
	if len(src) == 0 {
		return nil
	}
	if c.measure.Fits(0, len(src)) {
		return []chunk.Span{{Start: 0, End: len(src), Size: c.measure.Size(0, len(src))}}
	}
	b := &c.b
	b.reset(src, &c.measure)
	b.embedded = embeddedRoots(b.embedded, in.Embedded)
	defer b.tree.Release()
	b.walk(b.topUnits(tsc.NodeOf(in.Tree.RootNode())))
	if spans := b.spans(); len(spans) > 0 {
		return spans
	}
	// No node holds a character: the file is whitespace, over the token
	// budget. It is text, cut at line breaks as text is.
	c.b.closed = chunk.SplitText(c.b.closed[:0], &c.measure, 0, len(src), 0)
	return c.b.closed
}

// unit is one sibling in a list the chunker merges: a syntax node, or a run
// of non-whitespace text the tree left between nodes (a BOM, say).
type unit struct {
	start, end   int
	extra, named bool
	hasKids      bool
	node         tsc.Node
	embedded     bool // node is in an embedded region's tree: its children are its own
}

// atom is an indivisible piece of a chunk being built: a whole node, a group
// of attached nodes, or a piece of an oversized leaf.
type atom struct {
	start, end int
	depth      int  // depth of the sibling list it came from
	named      bool // a complete named unit, not a keyword or punctuation
	seq        int  // order of creation: tells which atoms a group holds
}

// frame is one sibling list on the explicit walk stack.
type frame struct {
	units []unit
	depth int
	next  int // index of the next unit to take
	// While the units of an oversized group are taken one by one, groupEnd is
	// the group's end index and groupSeq the seq of the group's first atom;
	// groupLast is where the group's last line starts when the lines above
	// it (its comments) fit the budget together, else 0.
	groupEnd  int
	groupSeq  int
	groupLast int
}

// builder accumulates atoms into chunks.
type builder struct {
	src  []byte
	m    *chunk.Measure // sizes, and whether a stretch fits the budget
	tree tsc.Lister     // lists children in bulk, one cgo call per split node

	cur []atom // the open chunk
	seq int    // seq of the next atom

	closed []chunk.Span // closed chunks, Start/End of their first/last atom
	stack  []frame

	// embedded maps the byte range of each embedded region (Input.Embedded)
	// to the root of its tree, which the region's node is split by.
	embedded map[[2]int]tsc.Node
}

// embeddedRoots maps each region's byte range to its tree's root, reusing m.
func embeddedRoots(m map[[2]int]tsc.Node, regions []chunk.Embedded) map[[2]int]tsc.Node {
	clear(m)
	for _, r := range regions {
		if r.Tree == nil {
			continue
		}
		if m == nil {
			m = map[[2]int]tsc.Node{}
		}
		m[[2]int{r.Start, r.End}] = tsc.NodeOf(r.Tree.RootNode())
	}
	return m
}

func (b *builder) reset(src []byte, m *chunk.Measure) {
	b.src, b.m = src, m
	b.cur, b.seq = b.cur[:0], 0
	b.closed = b.closed[:0]
	b.stack = b.stack[:0]
}

// topUnits is the file seen as one sibling list: the root node and any
// non-whitespace text outside it (a BOM sits before the root's first byte).
// That text is not named: it is a header of the root, never a chunk alone.
func (b *builder) topUnits(root tsc.Node) []unit {
	var units []unit
	rootKids := root.ChildCount() > 0
	start, end := clamp(int(root.StartByte()), 0, len(b.src)), clamp(int(root.EndByte()), 0, len(b.src))
	prev := 0
	if end > start {
		units = b.appendText(units, 0, start)
		units = append(units, unit{
			start: start, end: end,
			named: true, hasKids: rootKids, node: root,
		})
		prev = end
	}
	return b.appendText(units, prev, len(b.src))
}

// walk runs Algorithm 1 over the tree with an explicit stack.
func (b *builder) walk(top []unit) {
	b.stack = append(b.stack, frame{units: top})
	for len(b.stack) > 0 {
		f := &b.stack[len(b.stack)-1]
		if f.groupEnd > 0 {
			b.stepInGroup(f)
			continue
		}
		if f.next == len(f.units) {
			b.stack = b.stack[:len(b.stack)-1]
			continue
		}
		end := b.groupEnd(f.units, f.next)
		first, last := f.units[f.next], f.units[end-1]
		if b.m.Fits(first.start, last.end) {
			b.add(atom{start: first.start, end: last.end, depth: f.depth, named: anyNamed(f.units[f.next:end])})
			f.next = end
			continue
		}
		f.groupEnd, f.groupSeq = end, b.seq
		f.groupLast = b.lastLine(f.units, f.next, end)
	}
	b.flush()
}

// lastLine returns the index where the last line of the group units[i:end]
// starts, when the lines above it fit the budget together; else 0.
func (b *builder) lastLine(units []unit, i, end int) int {
	for k := end - 1; k > i; k-- {
		if b.lineBreaks(units[k-1].start, units[k-1].end, units[k].start) > 0 {
			if b.m.Fits(units[i].start, units[k-1].end) {
				return k
			}
			return 0
		}
	}
	return 0
}

// stepInGroup takes the next unit of an oversized group. Units that fit are
// merged greedily; an oversized one is split, with the group's earlier units
// (its comments, keywords) carried into its first chunk. The group's last
// chunk closes when the group ends, as Algorithm 1 closes a chunk after a
// split node.
func (b *builder) stepInGroup(f *frame) {
	if f.next == f.groupEnd {
		f.groupEnd = 0
		b.flush()
		return
	}
	u := f.units[f.next]
	f.next++
	if b.m.Fits(u.start, u.end) {
		if !b.fitsOpen(u.end) && !(f.next <= f.groupLast && b.detachGroup(f)) {
			b.detachBefore(f, u)
		}
		b.add(atom{start: u.start, end: u.end, depth: f.depth, named: u.named})
		return
	}
	b.detachBefore(f, u)
	if u.hasKids {
		kids := b.children(u)
		depth := f.depth + 1 // f is invalid once the stack grows
		b.stack = append(b.stack, frame{units: kids, depth: depth})
		return
	}
	b.addPieces(u.start, u.end, f.depth+1)
}

// addPieces adds an oversized leaf or text run as pieces that fit, the
// first one filling the room left in the open chunk. A piece's leading and
// trailing whitespace is left to the gaps between atoms, so cuts between
// pieces follow the same line rule as cuts between nodes.
func (b *builder) addPieces(start, end, depth int) {
	open := start
	if len(b.cur) > 0 {
		open = b.cur[0].start
	}
	for _, p := range chunk.SplitText(nil, b.m, start, end, open) {
		text := b.appendText(nil, p.Start, p.End)
		if len(text) == 0 {
			continue // whitespace only: it falls in a gap
		}
		t := text[0]
		b.add(atom{start: t.start, end: t.end, depth: depth, named: true})
	}
}

// detachBefore closes, ahead of unit u of an oversized group, the part of
// the open chunk that does not belong with u: everything up to the last
// complete named sibling that a blank line separates from what follows it.
// What comes after that sibling stays open and goes into u's first chunk:
// the group's comments and keywords, a header carried from the enclosing
// node (`class A:`, `public class A` above a brace on its own line), code
// written directly above u with no blank line between.
func (b *builder) detachBefore(f *frame, u unit) {
	cut := -1
	for i := len(b.cur) - 1; i >= 0; i-- {
		a := b.cur[i]
		if a.seq >= f.groupSeq {
			continue
		}
		next := u.start
		if i+1 < len(b.cur) {
			next = b.cur[i+1].start
		}
		if a.depth == f.depth && a.named && b.lineBreaks(a.start, a.end, next) >= 2 {
			cut = i
			break
		}
	}
	if cut >= 0 {
		b.closeFirst(cut + 1)
	}
}

// detachGroup closes the open chunk before the group's first atom when a
// complete named sibling comes before it, and reports whether it did. It is
// called when a line above the group's last line does not fit in the open
// chunk although all those lines fit together: they then stay together (a
// run of comments is not scattered over two chunks) and the sibling before
// them keeps its chunk.
func (b *builder) detachGroup(f *frame) bool {
	for i := len(b.cur) - 1; i > 0; i-- {
		if b.cur[i].seq == f.groupSeq {
			a := b.cur[i-1]
			if a.depth != f.depth || !a.named {
				return false
			}
			b.closeFirst(i)
			return true
		}
	}
	return false
}

// add appends an atom to the open chunk. When it does not fit, the chunk
// closes before it; but when that cut would fall inside a line and an
// earlier cut at a line start lets the atom keep the rest of its line, the
// chunk closes there instead (`public final class` | `A<K> extends B {`
// becomes a cut before `public`).
func (b *builder) add(a atom) {
	if len(b.cur) == 0 && len(b.closed) > 0 && b.m.Size(a.start, a.end) == 0 {
		// White space alone (an empty Markdown section) after a closed
		// chunk is the gap after it, not the start of the next.
		b.closed[len(b.closed)-1].End = max(b.closed[len(b.closed)-1].End, a.end)
		return
	}
	if !b.fitsOpen(a.end) {
		if i := b.lineCut(a); i > 0 && b.m.Fits(b.cur[i].start, a.end) {
			b.closeFirst(i)
		} else {
			b.flush()
		}
	}
	a.seq = b.seq
	b.seq++
	b.cur = append(b.cur, a)
}

// fitsOpen reports whether the open chunk, extended to end, still fits the
// budget (an empty one always does: what is added to it fits alone).
func (b *builder) fitsOpen(end int) bool {
	return len(b.cur) == 0 || b.m.Fits(b.cur[0].start, end)
}

// lineCut returns the index of the last atom of the open chunk that starts
// a line, when the atom a does not; 0 when there is none or a starts a line.
func (b *builder) lineCut(a atom) int {
	last := b.cur[len(b.cur)-1]
	if b.lineBreaks(last.start, last.end, a.start) > 0 {
		return 0
	}
	for i := len(b.cur) - 1; i > 0; i-- {
		if b.lineBreaks(b.cur[i-1].start, b.cur[i-1].end, b.cur[i].start) > 0 {
			return i
		}
	}
	return 0
}

// closeFirst closes a chunk made of the first n atoms of the open chunk;
// the rest stay open.
func (b *builder) closeFirst(n int) {
	start, end := b.cur[0].start, b.cur[n-1].end
	b.closed = append(b.closed, chunk.Span{Start: start, End: end, Size: b.m.Size(start, end)})
	k := copy(b.cur, b.cur[n:])
	b.cur = b.cur[:k]
}

// flush closes the open chunk.
func (b *builder) flush() {
	if len(b.cur) > 0 {
		b.closeFirst(len(b.cur))
	}
}

// groupEnd returns the end of the group of attached units starting at i.
// A unit is attached to the next when nothing but spaces separates them on
// one line, or when it is a comment directly above the next (no blank line),
// unless that comment trails the end of the unit before it.
func (b *builder) groupEnd(units []unit, i int) int {
	j := i + 1
	for ; j < len(units); j++ {
		prev, next := units[j-1], units[j]
		breaks := b.lineBreaks(prev.start, prev.end, next.start)
		if breaks == 0 {
			continue
		}
		if breaks == 1 && prev.extra && !(j-1 > i && b.lineBreaks(units[j-2].start, units[j-2].end, prev.start) == 0) {
			continue
		}
		break
	}
	return j
}

// children lists the units under u: its child nodes and any non-whitespace
// text between them that no child covers. Zero-width nodes carry no text and
// are skipped, and so are whitespace nodes a line starts inside (gapNode).
func (b *builder) children(u unit) []unit {
	out := make([]unit, 0, u.node.ChildCount()+1)
	prev := u.start
	b.tree.Each(u.node, func(kids []tsc.Kid) {
		for _, k := range kids {
			s, e := clamp(int(k.Start()), prev, u.end), clamp(int(k.End()), prev, u.end)
			if e <= s || b.gapNode(s, e) {
				continue
			}
			out = b.appendText(out, prev, s)
			kid := unit{
				start: s, end: e,
				extra: k.Extra(), named: k.Named(), hasKids: k.HasKids(),
				node: k.Node(), embedded: u.embedded,
			}
			if root, ok := b.embedded[[2]int{int(k.Start()), int(k.End())}]; ok && !u.embedded {
				// A node of the file's tree that is a region: split by its
				// own language's tree. (That tree's nodes may have the
				// region's range too: they are not regions again.)
				kid.node, kid.hasKids, kid.embedded = root, root.ChildCount() > 0, true
			}
			out = append(out, kid)
			prev = e
		}
	})
	return b.appendText(out, prev, u.end)
}

// gapNode reports whether the node src[s:e] is whitespace that a line
// starts inside (XML's character data between elements, "\n  "): such a
// node is a gap, as the whitespace between nodes is, so a chunk that
// starts after it starts at that line's beginning (docs/design.md,
// guarantee 4). A node of whitespace that ends where its line does
// (Markdown's "\n" section) stays a unit.
func (b *builder) gapNode(s, e int) bool {
	return b.m.Size(s, e) == 0 && bytes.IndexByte(b.src[s:e-1], '\n') >= 0
}

// appendText adds the non-whitespace part of src[a:c], if any, as a text
// unit, so that the gaps left between units hold only whitespace.
func (b *builder) appendText(units []unit, a, c int) []unit {
	if a >= c || b.m.Size(a, c) == 0 {
		return units
	}
	first, last := -1, -1
	for i := a; i < c; {
		r, w := utf8.DecodeRune(b.src[i:c])
		if !unicode.IsSpace(r) {
			if first < 0 {
				first = i
			}
			last = i + w
		}
		i += w
	}
	if first < 0 { // only when a is inside a malformed UTF-8 sequence
		return units
	}
	return append(units, unit{start: first, end: last})
}

// spans merges crumbs into a neighbour and turns the chunks into byte spans
// that tile the file, placing each boundary by docs/design.md's rule: at the start
// of the line of the next chunk's first node when a line break separates
// them, else right at that node.
func (b *builder) spans() []chunk.Span {
	chunks := mergeCrumbs(b.closed, b.m)
	out := make([]chunk.Span, len(chunks))
	start := 0
	for i := range chunks {
		end := len(b.src)
		if i+1 < len(chunks) {
			end = boundary(b.src, chunks[i].End, chunks[i+1].Start)
		}
		out[i] = chunk.Span{Start: start, End: end, Size: b.m.Size(start, end)}
		start = end
	}
	return out
}

// boundary places the cut in the whitespace gap src[a:c] between two chunks:
// after the gap's last line break, or after the previous chunk's own final
// '\n' (a node can end with one, like C#'s #region line), else at c.
func boundary(src []byte, a, c int) int {
	for i := c - 1; i >= max(a-1, 0); i-- {
		if src[i] == '\n' {
			return i + 1
		}
	}
	return c
}

// crumbLimit is the size up to which a chunk is a crumb: a closing brace, a
// lone keyword, too small to retrieve on its own.
func crumbLimit(budget int) int {
	return clamp(budget/20, 1, 50)
}

// mergeCrumbs merges each crumb into its previous chunk, or else its next
// one, whenever the merged chunk fits the budget.
func mergeCrumbs(chunks []chunk.Span, m *chunk.Measure) []chunk.Span {
	limit := crumbLimit(m.Budget.Size)
	out := chunks[:0]
	for i := 0; i < len(chunks); i++ {
		c := chunks[i]
		if c.Size <= limit {
			if n := len(out); n > 0 && m.Fits(out[n-1].Start, c.End) {
				out[n-1].End = c.End
				out[n-1].Size += c.Size
				continue
			}
			if i+1 < len(chunks) && m.Fits(c.Start, chunks[i+1].End) {
				chunks[i+1].Start = c.Start
				chunks[i+1].Size += c.Size
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

func anyNamed(units []unit) bool {
	for _, u := range units {
		if u.named {
			return true
		}
	}
	return false
}

// lineBreaks counts the line breaks between the unit (or atom) src[start:end]
// and the next one, which starts at next: those in the gap, and those in the
// whitespace the unit ends with. A node can end with its line break, or
// more (C#'s #pragma and #region lines take theirs, and a blank line after
// them); what follows it is then on a new line as surely as after a break
// in the gap.
func (b *builder) lineBreaks(start, end, next int) int {
	n := newlines(b.src[end:next])
	for i := end - 1; i >= start && isSpaceByte(b.src[i]); i-- {
		if b.src[i] == '\n' {
			n++
		}
	}
	return n
}

// isSpaceByte reports whether c is ASCII whitespace.
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func newlines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}
