package eval

import (
	"bytes"

	"github.com/castchunk/castchunk/internal/chunk"
)

// docPiece is one stretch of a chunk of several pieces (chunk.Span.Pieces,
// the declaration method's): the entry's bytes [start, end), starting on
// line first.
type docPiece struct{ start, end, first int32 }

// newDoc is the document of span sp of src, entry e's bytes, sp starting
// on line first; the pieces of a chunk of several are appended to pieces
// (the configuration's, shared by its documents), the document pointing
// into them.
func newDoc(e int32, src []byte, sp chunk.Span, first int32, pieces []docPiece) (docInfo, []docPiece) {
	d := docInfo{entry: e, start: int32(sp.Start), end: int32(sp.End), first: first, header: -1}
	d.last = first + int32(bytes.Count(src[sp.Start:sp.End-1], []byte{'\n'}))
	if sp.Pieces == nil {
		return d, pieces
	}
	d.pieces, d.npieces = int32(len(pieces)), int32(len(sp.Pieces))
	line, pos := first, sp.Start
	for _, p := range sp.Pieces {
		line += int32(bytes.Count(src[pos:p.Start], []byte{'\n'}))
		pos = p.Start
		pieces = append(pieces, docPiece{start: int32(p.Start), end: int32(p.End), first: line})
	}
	return d, pieces
}

// piecesOf returns d's pieces among all, nil for a chunk that holds
// [start, end) whole.
func piecesOf(d docInfo, all []docPiece) []docPiece {
	if d.npieces == 0 {
		return nil
	}
	return all[d.pieces : d.pieces+d.npieces]
}

// appendContent appends to dst what the chunk holds of src, its entry's
// bytes: src[start:end], or its pieces joined by chunk.Joiner, as castchunk
// chunk writes a record's content.
func appendContent(dst, src []byte, d docInfo, ps []docPiece) []byte {
	if ps == nil {
		return append(dst, src[d.start:d.end]...)
	}
	for i, p := range ps {
		if i > 0 {
			dst = append(dst, chunk.Joiner...)
		}
		dst = append(dst, src[p.start:p.end]...)
	}
	return dst
}

// keptLines returns the lines of the file held by the first kept bytes of
// content, the chunk's content (appendContent): one [first, last] per
// piece reached, the chunk's own lines when it holds one stretch. The
// lines between two pieces are not the chunk's.
func keptLines(d docInfo, ps []docPiece, content []byte, kept int) [][2]int {
	if kept <= 0 {
		return nil
	}
	if ps == nil {
		return [][2]int{{int(d.first), int(d.first) + bytes.Count(content[:kept-1], []byte{'\n'})}}
	}
	var out [][2]int
	off := 0
	for _, p := range ps {
		if off >= kept {
			break
		}
		n := min(int(p.end-p.start), kept-off)
		out = append(out, [2]int{int(p.first), int(p.first) + bytes.Count(content[off:off+n-1], []byte{'\n'})})
		off += int(p.end-p.start) + len(chunk.Joiner)
	}
	return out
}
