// Package sliding implements the line-based sliding-window baseline of the
// chunking study (Wu et al. 2026, section 2.1.3): whole lines accumulated up
// to the budget with an optional overlap in lines, or fixed windows of N
// lines every S lines (the RepoCoder / CodeRAG-Bench baseline). Like the cast
// chunker it works on bytes only, and keeps the budget as a hard ceiling: a
// line longer than the budget is split, never dropped.
package sliding

import (
	"fmt"

	"github.com/castchunk/castchunk/internal/chunk"
)

// Options select the windowing. With WindowLines == 0, windows accumulate
// lines up to the budget and consecutive windows share OverlapLines lines
// (0: the windows tile the file). With WindowLines > 0, a window holds
// WindowLines lines and starts every Stride lines; a window over the budget
// is cut into consecutive pieces that fit.
type Options struct {
	Budget       int
	OverlapLines int
	WindowLines  int
	Stride       int
}

// Validate reports options that would drop text or loop forever.
func (o Options) Validate() error {
	switch {
	case o.Budget < 1:
		return fmt.Errorf("budget must be at least 1, got %d", o.Budget)
	case o.OverlapLines < 0:
		return fmt.Errorf("overlap must not be negative, got %d", o.OverlapLines)
	case o.WindowLines < 0:
		return fmt.Errorf("window must not be negative, got %d", o.WindowLines)
	case o.WindowLines > 0 && (o.Stride < 1 || o.Stride > o.WindowLines):
		return fmt.Errorf("stride must be between 1 and the window (%d lines), got %d", o.WindowLines, o.Stride)
	case o.WindowLines > 0 && o.OverlapLines > 0:
		return fmt.Errorf("overlap applies to budget windows; fixed windows overlap by window - stride")
	}
	return nil
}

// Overlapping reports whether the windows may share text.
func (o Options) Overlapping() bool {
	return o.OverlapLines > 0 || (o.WindowLines > 0 && o.Stride < o.WindowLines)
}

// Chunker turns one file into spans, reusing its buffers between files; it
// is not safe for concurrent use.
type Chunker struct {
	opt  Options
	m    chunk.Measure
	segs []chunk.Span
}

// New returns a chunker; the options must be valid.
func New(opt Options) *Chunker {
	if err := opt.Validate(); err != nil {
		panic("sliding: " + err.Error())
	}
	return &Chunker{opt: opt}
}

// Chunk splits in.Src into windows that fit in.Budget (which replaces the
// options' Budget). The returned slice is valid until the next call.
// Without overlap the spans tile the file.
func (c *Chunker) Chunk(in chunk.Input) []chunk.Span {
	src := in.Src
	c.m.Reset(src, in.Budget, in.TokenStarts)
	defer c.m.Release()
	if len(src) == 0 {
		return nil
	}
	if c.opt.WindowLines > 0 {
		return c.fixed(src)
	}
	c.segs = c.segments(c.segs[:0], 0, len(src))
	return c.accumulate(nil, c.segs, c.opt.OverlapLines)
}

// segments cuts src[a:b] into lines, each line over the budget into pieces
// that fit: the units a window is made of.
func (c *Chunker) segments(out []chunk.Span, a, b int) []chunk.Span {
	src := c.m.Src()
	for start := a; start < b; {
		end := start
		for end < b && src[end] != '\n' {
			end++
		}
		if end < b {
			end++
		}
		if c.m.Fits(start, end) {
			out = append(out, chunk.Span{Start: start, End: end, Size: c.m.Size(start, end)})
		} else {
			out = chunk.SplitText(out, &c.m, start, end, start)
		}
		start = end
	}
	return out
}

// accumulate groups consecutive segments into windows of at most the budget.
// Each window after the first starts up to overlap segments before the end
// of the previous one, fewer when that is needed to fit or to move forward.
func (c *Chunker) accumulate(out []chunk.Span, segs []chunk.Span, overlap int) []chunk.Span {
	for i := 0; i < len(segs); {
		j := i + 1 // a segment fits alone
		for j < len(segs) && c.m.Fits(segs[i].Start, segs[j].End) {
			j++
		}
		out = append(out, chunk.Span{Start: segs[i].Start, End: segs[j-1].End, Size: c.m.Size(segs[i].Start, segs[j-1].End)})
		if j == len(segs) {
			break
		}
		next := max(i+1, j-overlap)
		for next < j && !c.m.Fits(segs[next].Start, segs[j].End) {
			next++
		}
		i = next
	}
	return out
}

// fixed makes windows of WindowLines lines every Stride lines, stopping at
// the first window that reaches the end of the file. A window over the
// budget is cut short at the last whole line that fits, and the next window
// then starts no later than where it ended, so no text is dropped and
// windows always move forward; a single line over the budget becomes
// pieces of its own. A window inside the previous one adds nothing and is
// left out.
func (c *Chunker) fixed(src []byte) []chunk.Span {
	lines := lineStarts(src)
	lineEnd := func(l int) int { // end of the text of lines [.., l)
		if l < len(lines) {
			return lines[l]
		}
		return len(src)
	}
	var out []chunk.Span
	covered := 0
	for first := 0; first < len(lines); {
		start, last := lines[first], min(first+c.opt.WindowLines, len(lines))
		for last > first+1 && !c.m.Fits(start, lineEnd(last)) {
			last--
		}
		end := lineEnd(last)
		switch {
		case !c.m.Fits(start, end): // one line over the budget
			out = chunk.SplitText(out, &c.m, start, end, start)
		case end > covered:
			out = append(out, chunk.Span{Start: start, End: end, Size: c.m.Size(start, end)})
		}
		covered = max(covered, end)
		if last == len(lines) {
			break
		}
		first = min(first+c.opt.Stride, last)
	}
	return out
}

// lineStarts returns the byte offset of the start of every line.
func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, ch := range src {
		if ch == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	return starts
}
