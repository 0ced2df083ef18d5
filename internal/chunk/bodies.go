package chunk

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Bodies is the text of a file that a chunk of several pieces
// (Method.Pieces: declaration) holds none of: the bodies of its functions
// (Def.Body of the definitions of RoleFunction), sorted and merged, so
// that a piece is checked against them with a binary search. It is the
// one rule for the declaration chunker's output, read by the pipeline's
// check before anything is written and by verify from the file alone
// (docs/design.md, "Chunks of several pieces").
type Bodies []Piece

// AddBodies appends the bodies of the functions among defs, moved by off
// bytes (a notebook cell's place in its text); Sorted must be called
// before Held.
func (b Bodies) AddBodies(defs []Def, off int) Bodies {
	for _, d := range defs {
		if d.Role == RoleFunction && d.Body.End > d.Body.Start {
			b = append(b, Piece{Start: d.Body.Start + off, End: d.Body.End + off})
		}
	}
	return b
}

// Sorted sorts the bodies and merges those that overlap (a function's
// body holds the bodies of the functions nested in it), in place.
func (b Bodies) Sorted() Bodies {
	slices.SortFunc(b, func(x, y Piece) int { return cmp.Compare(x.Start, y.Start) })
	out := b[:0]
	for _, p := range b {
		if n := len(out); n > 0 && p.Start < out[n-1].End {
			out[n-1].End = max(out[n-1].End, p.End)
			continue
		}
		out = append(out, p)
	}
	return out
}

// Held returns the first body (of Sorted bodies) of which src[p.Start:p.End]
// holds a character that is no whitespace (the size metric's: a piece
// may touch a body's indentation, never its text); false when it holds
// none.
func (b Bodies) Held(src []byte, p Piece) (Piece, bool) {
	i, _ := slices.BinarySearchFunc(b, p.Start, func(x Piece, start int) int {
		if x.End <= start {
			return -1
		}
		return 1
	})
	for ; i < len(b) && b[i].Start < p.End; i++ {
		lo, hi := max(b[i].Start, p.Start), min(b[i].End, p.End, len(src))
		if lo < hi && hasText(src[lo:hi]) {
			return b[i], true
		}
	}
	return Piece{}, false
}

// hasText reports whether b holds a character that is no whitespace.
func hasText(b []byte) bool {
	for i := 0; i < len(b); {
		r, w := rune(b[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRune(b[i:])
		}
		if !unicode.IsSpace(r) {
			return true
		}
		i += w
	}
	return false
}

// Check returns an error naming the first of pieces (of the file src)
// that holds a character of a body, and the body with its line; nil when
// none does.
func (b Bodies) Check(src []byte, pieces []Piece) error {
	for _, p := range pieces {
		if x, ok := b.Held(src, p); ok {
			return fmt.Errorf("range [%d,%d) holds part of the body [%d,%d) of a function (line %d): a declaration leaves bodies out", p.Start, p.End, x.Start, x.End, 1+bytes.Count(src[:x.Start], []byte{'\n'}))
		}
	}
	return nil
}
