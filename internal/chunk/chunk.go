// Package chunk holds what the chunkers share: the Span they produce, the
// size metric (non-whitespace code points, docs/design.md "The size metric"), the
// splitter for text larger than the budget, and the checker of the
// guarantees; and, in method.go, the Method declaration every chunking
// method fills in. It knows nothing of files or languages: a tree reaches a
// chunker only as Input.Tree, which the chunker asks (named?, extra?,
// children, byte range), never matching node-type names.
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

// Budget is what one chunk may hold: Size non-whitespace characters
// (--max-size) and, when Tokens > 0, Tokens tokens of the run's tokenizer
// (--max-tokens). A chunk must fit both.
type Budget struct {
	Size   int
	Tokens int
}

// Measure tells whether a stretch of one file fits a budget. Characters are
// counted exactly; tokens are estimated from the whole file's tokenization
// (the offsets where its tokens start), because a chunker asks about many
// stretches and tokenizing each would cost too much. The estimate can be
// short by a token or two where a stretch cuts a token, so whoever promises
// the token budget checks each finished chunk on its own tokenization (the
// pipeline does, with Refit).
type Measure struct {
	Sizer
	Budget Budget
	starts []int32 // where the file's tokens start, ascending
}

// Reset prepares the measure for src under budget; starts are the offsets
// where src's tokens start, needed when budget.Tokens > 0.
func (m *Measure) Reset(src []byte, budget Budget, starts []int32) {
	m.Sizer.Reset(src)
	m.Budget, m.starts = budget, starts
}

// Release drops what Reset built, as Sizer.Release.
func (m *Measure) Release() {
	m.Sizer.Release()
	m.starts = nil
}

// Tokens estimates the tokens of src[a:b]: the token that holds byte a
// (cut there or not) and every token that starts after it, before b.
func (m *Measure) Tokens(a, b int) int {
	if a >= b {
		return 0
	}
	return 1 + m.startsBefore(b) - m.startsBefore(a+1)
}

// startsBefore counts the token starts below offset i.
func (m *Measure) startsBefore(i int) int {
	lo, hi := 0, len(m.starts)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int(m.starts[mid]) < i {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Fits reports whether src[a:b] fits the budget.
func (m *Measure) Fits(a, b int) bool {
	if m.Size(a, b) > m.Budget.Size {
		return false
	}
	return m.Budget.Tokens <= 0 || m.Tokens(a, b) <= m.Budget.Tokens
}

// SplitText cuts src[a:b] into consecutive pieces that each fit the budget
// and appends them to out. It cuts at line ends where it can (keeping as
// many whole lines per piece as fit) and inside a line only when that line
// alone is over the budget, then at code-point boundaries, so no text is
// ever dropped (docs/design.md guarantee 2). open (<= a) is where the chunk
// under way starts, a when there is none: the first piece must fit together
// with src[open:a]. A line over the budget is cut to fill the room left in
// that chunk, while a line that fits the budget is never cut to fill it.
func SplitText(out []Span, m *Measure, a, b, open int) []Span {
	src := m.Src()
	start := a   // start of the piece being accumulated
	from := open // start of the chunk the piece must fit in
	end := a     // end of the line holding pos, found once per line
	for pos := a; pos < b; {
		if pos >= end {
			end = lineEnd(src, pos, b)
		}
		switch {
		case m.Fits(from, end): // the line joins the piece
			pos = end
		case start < pos: // close the piece before this line
			out = append(out, Span{start, pos, m.Size(start, pos)})
			start, from = pos, pos
		case m.Fits(start, end): // a fresh piece holds the line whole
			from = start
		default: // the line alone is over the budget: cut it inside
			cut := cutAfter(m, from, start, end)
			if cut > start {
				out = append(out, Span{start, cut, m.Size(start, cut)})
				start, pos = cut, cut
			} else if from == start { // not one character fits: take one anyway
				cut = nextChar(src, start, end)
				out = append(out, Span{start, cut, m.Size(start, cut)})
				start, pos = cut, cut
			}
			from = start
		}
	}
	if start < b {
		out = append(out, Span{start, b, m.Size(start, b)})
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

// cutAfter returns the end of the last non-whitespace character of
// src[start:b] such that src[from:cut] fits the budget, or start when none
// does. Whitespace after the cut goes to the next piece; a stretch of
// whitespace alone is cut where the longest part that fits ends (never a
// character at a time: a run of 70,000 spaces is a few pieces that fill the
// budget). Both measures grow with the end offset, so a binary search finds
// the longest stretch that fits; the cut then moves back to a character
// boundary.
func cutAfter(m *Measure, from, start, b int) int {
	lo, hi := start, b // m.Fits(from, lo) holds or lo == start; the answer is in [lo, hi]
	for lo < hi {
		mid := int(uint(lo+hi+1) >> 1)
		if m.Fits(from, mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	src := m.Src()
	cut, whole := start, start // after the last non-whitespace character; after the last whole one
	for i := start; i < lo; {
		r, w := utf8.DecodeRune(src[i:b])
		if i+w > lo {
			break
		}
		i += w
		whole = i
		if !unicode.IsSpace(r) {
			cut = i
		}
	}
	if cut == start {
		return whole // whitespace only: as much of it as fits
	}
	return cut
}

// nextChar returns the end of the code point at src[i] (one byte when it is
// not valid UTF-8), at most limit.
func nextChar(src []byte, i, limit int) int {
	_, w := utf8.DecodeRune(src[i:limit])
	return i + max(w, 1)
}

// Check verifies the guarantees a span list must meet for the sizer's text
// without overlap: the spans tile it in order, every size is right and none
// is over budget. It returns the first violation.
func Check(sz *Sizer, spans []Span, budget int) error {
	return CheckWith(CheckTiling, sz, spans, budget)
}

// CheckWith is Check with another rule for the spans' places
// (CheckPartial, Method.CheckSpans).
func CheckWith(places func(spans []Span, n, budget int) error, sz *Sizer, spans []Span, budget int) error {
	if err := places(spans, len(sz.Src()), budget); err != nil {
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

// CheckPartial is CheckTiling for a method whose chunks cover part of the
// file (Method.Partial): each span is non-empty, within the n bytes, at or
// after the end of the one before, and within the budget; gaps are allowed,
// and so is no span at all.
func CheckPartial(spans []Span, n, budget int) error {
	pos := 0
	for i, s := range spans {
		if s.Start < pos {
			return fmt.Errorf("chunk %d starts at byte %d, before the previous one ends at %d", i, s.Start, pos)
		}
		if s.End <= s.Start || s.End > n {
			return fmt.Errorf("chunk %d is empty, reversed or past the file's %d bytes [%d,%d)", i, n, s.Start, s.End)
		}
		if s.Size > budget {
			return fmt.Errorf("chunk %d has size %d, over the budget of %d", i, s.Size, budget)
		}
		pos = s.End
	}
	return nil
}

// Refit makes every span pass fits, the exact check of a whole chunk (its
// own tokenization, a header included), which a chunker's Measure only
// estimates: a span that fails is split into pieces that pass, by lines
// while a line fits and else inside the line after its last character that
// fits. fits must hold for a stretch whenever it holds
// for a longer one with the same start. Spans that pass are kept as they
// are. It fails when not even one character fits.
func Refit(out []Span, sz *Sizer, spans []Span, fits func(a, b int) bool) ([]Span, error) {
	for _, s := range spans {
		if fits(s.Start, s.End) {
			out = append(out, s)
			continue
		}
		for start := s.Start; start < s.End; {
			cut := refitCut(sz.Src(), start, s.End, fits)
			if cut <= start {
				return out, fmt.Errorf("not one character at byte %d fits the budget", start)
			}
			out = append(out, Span{start, cut, sz.Size(start, cut)})
			start = cut
		}
	}
	return out, nil
}

// refitCut returns the end of the longest stretch src[start:cut] (cut <= b)
// that passes fits: all of it, else up to a line end, else up to the end of
// a character, not whitespace when another fits; start when not one
// character fits.
func refitCut(src []byte, start, b int, fits func(a, b int) bool) int {
	if fits(start, b) {
		return b
	}
	var ends []int // line ends in (start, b)
	for i := start; i < b-1; i++ {
		if src[i] == '\n' {
			ends = append(ends, i+1)
		}
	}
	// The longest run of whole lines that fits.
	lo, hi := 0, len(ends) // ends[:lo] fit; answer in [lo, hi]
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(start, ends[mid-1]) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo > 0 {
		return ends[lo-1]
	}
	// The first line alone is over: cut inside it, at character boundaries.
	end := b
	if len(ends) > 0 {
		end = ends[0]
	}
	var chars []int   // ends of the line's characters
	var spaces []bool // whether each is whitespace
	for i := start; i < end; {
		r, w := utf8.DecodeRune(src[i:end])
		i += w
		chars, spaces = append(chars, i), append(spaces, unicode.IsSpace(r))
	}
	lo, hi = 0, len(chars)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(start, chars[mid-1]) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	// Whitespace after the cut goes to the next piece, unless the stretch
	// is whitespace alone: then as much of it as fits.
	k := lo
	for k > 1 && spaces[k-1] {
		k--
	}
	if k > 1 || !spaces[0] {
		lo = k
	}
	if lo > 0 {
		return chars[lo-1]
	}
	return start
}
