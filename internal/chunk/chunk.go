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
	// Pieces, when not nil, are the only parts of [Start, End) the chunk
	// holds: at least two, in order, non-empty and apart (a gap of at least
	// one byte between two), the first starting at Start and the last
	// ending at End. A declaration chunk is a class's header, its fields
	// and its methods' signatures without their bodies. Its text is the
	// pieces' bytes joined by a line feed (Text), and Size is the sum of
	// their sizes. Nil: the chunk holds all of [Start, End).
	Pieces []Piece
}

// Piece is one stretch of the file a chunk of several pieces holds: the
// bytes [Start, End).
type Piece struct{ Start, End int }

// Joiner is what joins the pieces of a chunk in its text: one line feed,
// whatever the file's line ends (docs/design.md, "Chunks of several
// pieces").
const Joiner = "\n"

// Whole reports whether the chunk holds all of [Start, End).
func (s Span) Whole() bool { return s.Pieces == nil }

// Ranges returns the stretches of the file the chunk holds: its pieces, or
// [Start, End) alone.
func (s Span) Ranges() []Piece {
	if s.Pieces != nil {
		return s.Pieces
	}
	return []Piece{{s.Start, s.End}}
}

// AppendText appends the chunk's text to dst: src[Start:End], or its
// pieces joined by Joiner.
func (s Span) AppendText(dst, src []byte) []byte {
	if s.Pieces == nil {
		return append(dst, src[s.Start:s.End]...)
	}
	for i, p := range s.Pieces {
		if i > 0 {
			dst = append(dst, Joiner...)
		}
		dst = append(dst, src[p.Start:p.End]...)
	}
	return dst
}

// Text returns the chunk's text: a subslice of src for a whole chunk, a
// new slice for one of pieces.
func (s Span) Text(src []byte) []byte {
	if s.Pieces == nil {
		return src[s.Start:s.End]
	}
	return s.AppendText(nil, src)
}

// Join returns the span holding pieces (in order and apart, as
// Span.Pieces), sized by sz: a whole span when there is one piece.
func Join(sz *Sizer, pieces []Piece) Span {
	s := Span{Start: pieces[0].Start, End: pieces[len(pieces)-1].End}
	if len(pieces) == 1 {
		s.Size = sz.Size(s.Start, s.End)
		return s
	}
	s.Pieces = pieces
	for _, p := range pieces {
		s.Size += sz.Size(p.Start, p.End)
	}
	return s
}

// SizeOf is the size of the chunk's text, counted by sz: what Span.Size
// must be.
func (sz *Sizer) SizeOf(s Span) int {
	if s.Pieces == nil {
		return sz.Size(s.Start, s.End)
	}
	n := 0
	for _, p := range s.Pieces {
		n += sz.Size(p.Start, p.End)
	}
	return n
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

// FitsPieces reports whether a chunk of pieces (as Span.Pieces) fits the
// budget: their sizes summed, and their tokens with one more for each line
// feed that joins two (the exact count is the pipeline's, with Refit).
func (m *Measure) FitsPieces(pieces []Piece) bool {
	size, toks := 0, len(pieces)-1
	for _, p := range pieces {
		size += m.Size(p.Start, p.End)
		if m.Budget.Tokens > 0 {
			toks += m.Tokens(p.Start, p.End)
		}
	}
	return size <= m.Budget.Size && (m.Budget.Tokens <= 0 || toks <= m.Budget.Tokens)
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
			out = append(out, Span{Start: start, End: pos, Size: m.Size(start, pos)})
			start, from = pos, pos
		case m.Fits(start, end): // a fresh piece holds the line whole
			from = start
		default: // the line alone is over the budget: cut it inside
			cut := cutAfter(m, from, start, end)
			if cut > start {
				out = append(out, Span{Start: start, End: cut, Size: m.Size(start, cut)})
				start, pos = cut, cut
			} else if from == start { // not one character fits: take one anyway
				cut = nextChar(src, start, end)
				out = append(out, Span{Start: start, End: cut, Size: m.Size(start, cut)})
				start, pos = cut, cut
			}
			from = start
		}
	}
	if start < b {
		out = append(out, Span{Start: start, End: b, Size: m.Size(start, b)})
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
		if got := sz.SizeOf(s); got != s.Size {
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
		if s.Pieces != nil {
			return fmt.Errorf("chunk %d is made of %d pieces: chunks that tile the file hold one stretch each", i, len(s.Pieces))
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
// after the end of the one before, its pieces (if any) as Span.Pieces
// says, and within the budget; gaps are allowed, and so is no span at all.
func CheckPartial(spans []Span, n, budget int) error {
	pos := 0
	for i, s := range spans {
		if s.Start < pos {
			return fmt.Errorf("chunk %d starts at byte %d, before the previous one ends at %d", i, s.Start, pos)
		}
		if s.End <= s.Start || s.End > n {
			return fmt.Errorf("chunk %d is empty, reversed or past the file's %d bytes [%d,%d)", i, n, s.Start, s.End)
		}
		if err := CheckPieces(s); err != nil {
			return fmt.Errorf("chunk %d: %w", i, err)
		}
		if s.Size > budget {
			return fmt.Errorf("chunk %d has size %d, over the budget of %d", i, s.Size, budget)
		}
		pos = s.End
	}
	return nil
}

// CheckPieces checks the pieces of s as Span.Pieces describes them: none,
// or at least two, non-empty, in order and apart, from Start to End.
func CheckPieces(s Span) error {
	if s.Pieces == nil {
		return nil
	}
	if len(s.Pieces) < 2 {
		return fmt.Errorf("made of %d piece: a chunk of one stretch has no pieces", len(s.Pieces))
	}
	if s.Pieces[0].Start != s.Start || s.Pieces[len(s.Pieces)-1].End != s.End {
		return fmt.Errorf("pieces run from byte %d to %d, the chunk from %d to %d", s.Pieces[0].Start, s.Pieces[len(s.Pieces)-1].End, s.Start, s.End)
	}
	for j, p := range s.Pieces {
		if p.End <= p.Start {
			return fmt.Errorf("piece %d is empty or reversed [%d,%d)", j, p.Start, p.End)
		}
		if j > 0 && p.Start <= s.Pieces[j-1].End {
			return fmt.Errorf("piece %d starts at byte %d, not after the previous one ends at %d", j, p.Start, s.Pieces[j-1].End)
		}
	}
	return nil
}

// Refit makes every span pass fits, the exact check of a whole chunk (its
// own tokenization, a header included), which a chunker's Measure only
// estimates: a span that fails is split into spans that pass, by lines
// while a line fits and else inside the line after its last character that
// fits; a span of pieces into runs of its pieces, a piece that fails alone
// as text. fits must hold for a stretch whenever it holds for a longer one
// with the same start, and for fewer pieces when it holds for more. Spans
// that pass are kept as they are. It fails when not even one character
// fits.
func Refit(out []Span, sz *Sizer, spans []Span, fits func(Span) bool) ([]Span, error) {
	var err error
	for _, s := range spans {
		switch {
		case fits(s):
			out = append(out, s)
		case s.Pieces != nil:
			out, err = refitPieces(out, sz, s.Pieces, fits)
		default:
			out, err = refitText(out, sz, s.Start, s.End, fits)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// refitText splits src[a:b] into spans that pass fits (refitCut).
func refitText(out []Span, sz *Sizer, a, b int, fits func(Span) bool) ([]Span, error) {
	within := func(x, y int) bool { return fits(Span{Start: x, End: y, Size: sz.Size(x, y)}) }
	for start := a; start < b; {
		cut := refitCut(sz.Src(), start, b, within)
		if cut <= start {
			return out, fmt.Errorf("not one character at byte %d fits the budget", start)
		}
		out = append(out, Span{Start: start, End: cut, Size: sz.Size(start, cut)})
		start = cut
	}
	return out, nil
}

// refitPieces packs pieces, in order, into the longest runs that pass
// fits; a piece that fails alone is split as text.
func refitPieces(out []Span, sz *Sizer, pieces []Piece, fits func(Span) bool) ([]Span, error) {
	from := 0 // the first piece of the run under way
	for i := range pieces {
		if fits(Join(sz, pieces[from:i+1:i+1])) {
			continue
		}
		if from < i {
			out = append(out, Join(sz, pieces[from:i:i]))
		}
		from = i
		if fits(Join(sz, pieces[i:i+1])) {
			continue
		}
		var err error
		if out, err = refitText(out, sz, pieces[i].Start, pieces[i].End, fits); err != nil {
			return out, err
		}
		from = i + 1
	}
	if from < len(pieces) {
		out = append(out, Join(sz, pieces[from:len(pieces):len(pieces)]))
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
