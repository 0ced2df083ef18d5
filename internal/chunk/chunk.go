// Package chunk holds what the chunkers share: the Span they produce, the
// size metric (non-whitespace code points, docs/design.md "The size metric"), the
// splitter for text larger than the budget, and the checker of the
// guarantees. It knows nothing of files, languages or syntax trees.
package chunk

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Span is one chunk: the source bytes [Start, End) and their size.
type Span struct {
	Start, End int
	Size       int
}

// Sizer answers "how many non-whitespace code points lie in src[a:b]" in
// O(1) from a prefix sum built once per file. A byte that does not start a
// valid UTF-8 sequence counts as one character, as utf8.DecodeRune reads it.
type Sizer struct {
	src    []byte
	prefix []int32 // prefix[i] = characters that start before byte i
}

// Reset prepares the sizer for src, reusing its buffer between files.
func (s *Sizer) Reset(src []byte) {
	s.src = src
	if cap(s.prefix) < len(src)+1 {
		s.prefix = make([]int32, len(src)+1)
	}
	p := s.prefix[:len(src)+1]
	var n int32
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			p[i] = n
			if !asciiSpace[c] {
				n++
			}
			i++
			continue
		}
		r, w := utf8.DecodeRune(src[i:])
		for k := 0; k < w; k++ {
			p[i+k] = n
		}
		if !unicode.IsSpace(r) {
			n++
		}
		i += w
	}
	p[len(src)] = n
	s.prefix = p
}

// Release drops the sizer's buffer when a big file grew it, so that one
// big file does not pin four bytes per byte of it for the rest of the run.
// Call it when the sizes of this file are no longer needed.
func (s *Sizer) Release() {
	if cap(s.prefix) > keptPrefix {
		s.prefix = nil
	}
	s.src = nil
}

// keptPrefix is the longest prefix-sum buffer kept between files (16 MiB).
const keptPrefix = 4 << 20

// Src returns the text the sizer was built for.
func (s *Sizer) Src() []byte { return s.src }

// Size is the number of non-whitespace characters in src[a:b].
func (s *Sizer) Size(a, b int) int { return int(s.prefix[b] - s.prefix[a]) }

// asciiSpace mirrors unicode.IsSpace on the ASCII range.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// Size counts the non-whitespace characters of b directly; it is the
// definition the Sizer is an optimisation of, and what verifiers use.
func Size(b []byte) int {
	n := 0
	for i := 0; i < len(b); {
		r, w := utf8.DecodeRune(b[i:])
		if !unicode.IsSpace(r) {
			n++
		}
		i += w
	}
	return n
}

// FirstInvalid returns the offset of the first byte of b that is not valid
// UTF-8, or len(b) when all of it is: what warnings and errors point at.
func FirstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, w := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && w == 1 {
			return i
		}
		i += w
	}
	return len(b)
}

// SplitText cuts src[a:b] into consecutive pieces of at most budget
// characters each and appends them to out. It cuts at line ends where it can
// (keeping as many whole lines per piece as fit) and inside a line only when
// that line alone is over the budget, then at code-point boundaries, so no
// text is ever dropped (docs/design.md guarantee 2). first (<= budget) is the
// room left in a chunk under way: a line over the budget is cut to fill it,
// while a line that fits the budget is never cut to fill it.
func SplitText(out []Span, sz *Sizer, a, b, first, budget int) []Span {
	src := sz.Src()
	start := a    // start of the piece being accumulated
	room := first // what the piece being accumulated may hold
	end := a      // end of the line holding pos, found once per line
	for pos := a; pos < b; {
		if pos >= end {
			end = lineEnd(src, pos, b)
		}
		switch {
		case sz.Size(start, end) <= room: // the line joins the piece
			pos = end
		case start < pos: // close the piece before this line
			out = append(out, Span{start, pos, sz.Size(start, pos)})
			start, room = pos, budget
		case sz.Size(start, end) <= budget: // a fresh piece holds the line whole
			room = budget
		default: // the line alone is over the budget: cut it inside
			if room > 0 {
				cut := cutAfter(sz, start, end, room)
				out = append(out, Span{start, cut, sz.Size(start, cut)})
				start, pos = cut, cut
			}
			room = budget
		}
	}
	if start < b {
		out = append(out, Span{start, b, sz.Size(start, b)})
	}
	return out
}

// lineEnd returns the end of the line starting at pos (just past its '\n'),
// or limit.
func lineEnd(src []byte, pos, limit int) int {
	for i := pos; i < limit; i++ {
		if src[i] == '\n' {
			return i + 1
		}
	}
	return limit
}

// cutAfter returns the end of the budget-th character of src[a:b]: the
// first byte offset whose prefix count reaches budget. Offsets inside a
// multi-byte character carry the count of the character's start, so the
// answer is always a character boundary. Whitespace after the cut goes to the
// next piece. The caller guarantees Size(a, b) > budget >= 1.
func cutAfter(sz *Sizer, a, b, budget int) int {
	want := sz.prefix[a] + int32(budget)
	lo, hi := a+1, b
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if sz.prefix[m] >= want {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// Check verifies the guarantees a span list must meet for the sizer's text
// without overlap: the spans tile it in order, every size is right and none
// is over budget. It returns the first violation.
func Check(sz *Sizer, spans []Span, budget int) error {
	if err := CheckTiling(spans, len(sz.Src()), budget); err != nil {
		return err
	}
	for i, s := range spans {
		if got := sz.Size(s.Start, s.End); got != s.Size {
			return fmt.Errorf("chunk %d has size %d, recorded %d", i, got, s.Size)
		}
	}
	return nil
}

// CheckTiling is Check without recounting the sizes, for callers that
// verify them otherwise (the record encoder counts them as it escapes).
func CheckTiling(spans []Span, n, budget int) error {
	pos := 0
	for i, s := range spans {
		if s.Start != pos {
			return fmt.Errorf("chunk %d starts at byte %d, want %d", i, s.Start, pos)
		}
		if s.End <= s.Start {
			return fmt.Errorf("chunk %d is empty or reversed [%d,%d)", i, s.Start, s.End)
		}
		if s.Size > budget {
			return fmt.Errorf("chunk %d has size %d, over the budget of %d", i, s.Size, budget)
		}
		pos = s.End
	}
	if pos != n {
		return fmt.Errorf("chunks end at byte %d, file has %d", pos, n)
	}
	return nil
}
