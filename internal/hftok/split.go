package hftok

import (
	"fmt"
	"unicode/utf8"
)

// A behavior is what the crate's SplitDelimiterBehavior does with a match.
type behavior uint8

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

// parseBehavior reads a behavior's name.
func parseBehavior(name string) (behavior, error) {
	switch name {
	case "Removed":
		return removed, nil
	case "Isolated":
		return isolated, nil
	case "MergedWithPrevious":
		return mergedWithPrevious, nil
	case "MergedWithNext":
		return mergedWithNext, nil
	case "Contiguous":
		return contiguous, nil
	}
	return 0, fmt.Errorf("behavior %q is not implemented", name)
}

// A segment is a range of a piece and whether the pattern matched it.
type segment struct {
	start, end int
	match      bool
}

// segments tiles text with the matches and the gaps between them, as
// Pattern::find_matches returns them (an empty text is one empty gap).
func segments(dst []segment, text []byte, matches [][2]int, invert bool) []segment {
	prev := 0
	for _, m := range matches {
		if prev != m[0] {
			dst = append(dst, segment{prev, m[0], invert})
		}
		dst = append(dst, segment{m[0], m[1], !invert})
		prev = m[1]
	}
	if prev != len(text) || len(text) == 0 {
		dst = append(dst, segment{prev, len(text), invert})
	}
	return dst
}

// applyBehavior turns segments into the pieces to keep, as
// NormalizedString::split does; empty pieces are dropped by the caller.
func applyBehavior(segs []segment, b behavior) []segment {
	out := segs[:0:0]
	prevMatch := false
	switch b {
	case removed:
		for _, s := range segs {
			if !s.match {
				out = append(out, s)
			}
		}
	case isolated:
		out = append(out, segs...)
	case mergedWithPrevious, contiguous:
		for _, s := range segs {
			merge := s.match && !prevMatch
			if b == contiguous {
				merge = s.match == prevMatch
			}
			if merge && len(out) > 0 {
				out[len(out)-1].end = s.end
			} else {
				out = append(out, s)
			}
			prevMatch = s.match
		}
	case mergedWithNext:
		for k := len(segs) - 1; k >= 0; k-- {
			s := segs[k]
			if s.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].start = s.start
			} else {
				out = append(out, s)
			}
			prevMatch = s.match
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// splitSpan appends the non-empty pieces of s that the matches and the
// behavior leave.
func splitSpan(dst []span, s span, matches [][2]int, b behavior, invert bool) []span {
	if b == isolated { // every segment kept: no need to build them
		prev := 0
		for _, m := range matches {
			if prev < m[0] {
				dst = append(dst, s.sub(prev, m[0]))
			}
			if m[0] < m[1] {
				dst = append(dst, s.sub(m[0], m[1]))
			}
			prev = m[1]
		}
		if prev < len(s.text) {
			dst = append(dst, s.sub(prev, len(s.text)))
		}
		return dst
	}
	segs := applyBehavior(segments(nil, s.text, matches, invert), b)
	for _, g := range segs {
		if g.end > g.start {
			dst = append(dst, s.sub(g.start, g.end))
		}
	}
	return dst
}

// runeMatcher matches every single rune of a class (each one a match, as
// the crate's Fn(char) -> bool pattern does).
type runeMatcher func(r rune, class uint8) bool

func (f runeMatcher) find(dst [][2]int, text []byte) [][2]int {
	for i := 0; i < len(text); {
		c, n := classAt(text, i)
		r, _ := utf8.DecodeRune(text[i:])
		if f(r, c) {
			dst = append(dst, [2]int{i, i + n})
		}
		i += n
	}
	return dst
}
