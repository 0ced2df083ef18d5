package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"

	"github.com/castchunk/castchunk/internal/chunk"
)

// magic names the layout of an entry. It is not stored: it starts what the
// checksum covers, so an entry of another layout never checks out. Bump it
// when the layout changes.
const magic = "castchunk-cache-2\n"

// encode lays an entry out as it is stored: method, syntax flag, span
// count, spans as uvarints (start delta, length, size), then SHA-256 of
// magic, the key and all that. The key is in the sum, so an entry stored
// under another key (a damaged page, a swapped cell) never checks out.
func encode(e Entry, k Key) []byte {
	b := make([]byte, 0, 16+len(e.Method)+6*len(e.Spans)+sha256.Size)
	b = binary.AppendUvarint(b, uint64(len(e.Method)))
	b = append(b, e.Method...)
	syntax := byte(0)
	if e.Syntax {
		syntax = 1
	}
	b = append(b, syntax)
	b = binary.AppendUvarint(b, uint64(len(e.Spans)))
	prev := 0
	for _, s := range e.Spans {
		b = binary.AppendUvarint(b, uint64(s.Start-prev))
		b = binary.AppendUvarint(b, uint64(s.End-s.Start))
		b = binary.AppendUvarint(b, uint64(s.Size))
		prev = s.Start
	}
	sum := checksum(b, k)
	return append(b, sum[:]...)
}

func checksum(body []byte, k Key) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(magic))
	h.Write(k[:])
	h.Write(body)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

var errCorrupt = errors.New("corrupt cache entry")

func decode(b []byte, k Key) (Entry, error) {
	if len(b) < sha256.Size {
		return Entry{}, errCorrupt
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if want := checksum(body, k); string(want[:]) != string(sum) {
		return Entry{}, errCorrupt
	}
	r := reader{b: body}
	var e Entry
	e.Method = string(r.bytes(r.uvarint()))
	e.Syntax = r.byte() == 1
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		return Entry{}, errCorrupt
	}
	e.Spans = make([]chunk.Span, 0, n)
	prev := 0
	for range n {
		start := prev + int(r.uvarint())
		end := start + int(r.uvarint())
		e.Spans = append(e.Spans, chunk.Span{Start: start, End: end, Size: int(r.uvarint())})
		prev = start
	}
	if r.err != nil || len(r.b) != 0 {
		return Entry{}, errCorrupt
	}
	return e, nil
}

// reader decodes an entry body, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > 1<<40 {
		r.err = errCorrupt
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.err = errCorrupt
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.err = errCorrupt
		r.b = nil
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}
