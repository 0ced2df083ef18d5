package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"slices"
	"strings"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/record"
)

// magic names the layout of an entry. It is not stored: it starts what the
// checksum covers, so an entry of another layout never checks out. Bump it
// when the layout changes.
const magic = "castchunk-cache-5\n"

// encode lays an entry out as it is stored: method, syntax flag, span
// count, spans as uvarints (start delta, length, size shifted left by one
// bit with the low bit set when pieces follow: their count, then for each
// the bytes since the end of the one before, or since the span's start,
// and its length; a whole span costs no more than before), the extras (see
// appendExtras), the embedded regions (a count, then for each the offsets
// of its construct's start (a delta), its code's start and end and its
// construct's end (lengths), and its language's name), then SHA-256 of magic, the key and
// all that. The key is in
// the sum, so an entry stored under another key (a damaged page, a swapped
// cell) never checks out.
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
		b = appendPieces(b, s)
		prev = s.Start
	}
	b = appendExtras(b, e.Extras)
	b = binary.AppendUvarint(b, uint64(len(e.Regions)))
	prev = 0
	for _, g := range e.Regions {
		for _, n := range [...]int{g.From - prev, g.Start - g.From, g.End - g.Start, g.To - g.End, len(g.Language)} {
			b = binary.AppendUvarint(b, uint64(n))
		}
		b = append(b, g.Language...)
		prev = g.From
	}
	sum := checksum(b, k)
	return append(b, sum[:]...)
}

// appendPieces lays out the size and pieces of s (chunk.Span.Pieces), as
// encode says.
func appendPieces(b []byte, s chunk.Span) []byte {
	if s.Pieces == nil {
		return binary.AppendUvarint(b, uint64(s.Size)<<1)
	}
	b = binary.AppendUvarint(b, uint64(s.Size)<<1|1)
	b = binary.AppendUvarint(b, uint64(len(s.Pieces)))
	end := s.Start
	for _, p := range s.Pieces {
		b = binary.AppendUvarint(b, uint64(p.Start-end))
		b = binary.AppendUvarint(b, uint64(p.End-p.Start))
		end = p.End
	}
	return b
}

// appendExtras lays out the extras of an entry: a byte, 0 when there are
// none (nil), else 1, then
//
//   - the strings they hold (definitions' kinds and names, headers), each
//     once, sorted, each as the length of the prefix it shares with the
//     one before, then the length and bytes of the rest: the headers of a
//     file all start with its path, which is thus stored about once;
//   - the definitions they name, each once: kind and name (indexes into
//     the strings) and line;
//   - for each span (there are as many extras as spans): its token count,
//     its header (1 + an index into the strings; 0 for ""), its scope and
//     its defines (a count, then indexes into the definitions).
func appendExtras(b []byte, extras []record.Extra) []byte {
	if extras == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	strs := map[string]int{}
	defs := map[record.Def]int{}
	var defList []record.Def
	for _, x := range extras {
		if x.Header != "" {
			strs[x.Header] = 0
		}
		for _, ds := range [2][]record.Def{x.Scope, x.Defines} {
			for _, d := range ds {
				if _, ok := defs[d]; !ok {
					defs[d] = len(defList)
					defList = append(defList, d)
					strs[d.Kind], strs[d.Name] = 0, 0
				}
			}
		}
	}
	sorted := make([]string, 0, len(strs))
	for s := range strs {
		sorted = append(sorted, s)
	}
	slices.Sort(sorted)
	b = binary.AppendUvarint(b, uint64(len(sorted)))
	prev := ""
	for i, s := range sorted {
		strs[s] = i
		n := commonPrefix(prev, s)
		b = binary.AppendUvarint(b, uint64(n))
		b = binary.AppendUvarint(b, uint64(len(s)-n))
		b = append(b, s[n:]...)
		prev = s
	}
	b = binary.AppendUvarint(b, uint64(len(defList)))
	for _, d := range defList {
		b = binary.AppendUvarint(b, uint64(strs[d.Kind]))
		b = binary.AppendUvarint(b, uint64(strs[d.Name]))
		b = binary.AppendUvarint(b, uint64(d.Line))
	}
	for _, x := range extras {
		b = binary.AppendUvarint(b, uint64(x.Tokens))
		h := 0
		if x.Header != "" {
			h = 1 + strs[x.Header]
		}
		b = binary.AppendUvarint(b, uint64(h))
		for _, ds := range [2][]record.Def{x.Scope, x.Defines} {
			b = binary.AppendUvarint(b, uint64(len(ds)))
			for _, d := range ds {
				b = binary.AppendUvarint(b, uint64(defs[d]))
			}
		}
	}
	return b
}

// commonPrefix is the length of the longest prefix a and b share.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func checksum(body []byte, k Key) [sha256.Size]byte { return checksumOf(magic, body, k) }

// checksumOf sums an entry of the layout named m.
func checksumOf(m string, body []byte, k Key) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(m))
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
	n := r.count(3)
	if r.err != nil {
		return Entry{}, errCorrupt
	}
	e.Spans = make([]chunk.Span, 0, n)
	prev := 0
	for range n {
		start := prev + int(r.uvarint())
		end := start + int(r.uvarint())
		size := r.uvarint()
		s := chunk.Span{Start: start, End: end, Size: int(size >> 1)}
		if size&1 == 1 {
			s.Pieces = r.pieces(start)
		}
		e.Spans = append(e.Spans, s)
		prev = start
	}
	for _, s := range e.Spans {
		if chunk.CheckPieces(s) != nil {
			r.fail()
		}
	}
	e.Extras = r.extras(len(e.Spans))
	if n := r.count(3); n > 0 {
		e.Regions = make([]record.Region, 0, n)
		prev = 0
		for range n {
			var g record.Region
			g.From = prev + int(r.uvarint())
			g.Start = g.From + int(r.uvarint())
			g.End = g.Start + int(r.uvarint())
			g.To = g.End + int(r.uvarint())
			g.Language = string(r.bytes(r.uvarint()))
			e.Regions = append(e.Regions, g)
			prev = g.From
		}
	}
	if r.err != nil || len(r.b) != 0 {
		return Entry{}, errCorrupt
	}
	return e, nil
}

// pieces reads the pieces appendPieces wrote for a span starting at
// start; a count below two fails when the span is checked.
func (r *reader) pieces(start int) []chunk.Piece {
	n := r.count(2)
	pieces := make([]chunk.Piece, n)
	end := start
	for i := range pieces {
		p := &pieces[i]
		p.Start = end + int(r.uvarint())
		p.End = p.Start + int(r.uvarint())
		end = p.End
	}
	return pieces
}

// extras reads what appendExtras wrote for n spans.
func (r *reader) extras(n int) []record.Extra {
	switch r.byte() {
	case 0:
		return nil
	case 1:
	default:
		r.fail()
		return nil
	}
	strs := r.stringTable()
	if r.err != nil {
		return nil
	}
	str := func() string {
		i := r.uvarint()
		if i >= uint64(len(strs)) {
			r.fail()
			return ""
		}
		return strs[i]
	}
	defs := make([]record.Def, r.count(3))
	for i := range defs {
		defs[i] = record.Def{Kind: str(), Name: str(), Line: int(r.uvarint())}
	}
	if r.err != nil || uint64(n) > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	extras := make([]record.Extra, n)
	var all []record.Def // every scope and defines, one after the other
	var ends []int       // where each ends in all
	for i := range extras {
		x := &extras[i]
		x.Tokens = int(r.uvarint())
		if h := r.uvarint(); h > 0 {
			if h > uint64(len(strs)) {
				r.fail()
				return nil
			}
			x.Header = strs[h-1]
		}
		for range 2 {
			for range r.count(1) {
				d := r.uvarint()
				if d >= uint64(len(defs)) {
					r.fail()
					return nil
				}
				all = append(all, defs[d])
			}
			ends = append(ends, len(all))
		}
		if r.err != nil {
			return nil
		}
	}
	start := 0
	for i := range extras {
		for j, field := range [2]*[]record.Def{&extras[i].Scope, &extras[i].Defines} {
			end := ends[2*i+j]
			if end > start {
				*field = all[start:end:end]
			}
			start = end
		}
	}
	return extras
}

// stringTable reads the sorted, prefix-coded strings of appendExtras; nil
// (and r failed) when they are damaged.
func (r *reader) stringTable() []string {
	strs := make([]string, r.count(2))
	prev := ""
	for i := range strs {
		shared := r.uvarint()
		rest := r.bytes(r.uvarint())
		if shared > uint64(len(prev)) {
			r.fail()
		}
		if r.err != nil {
			return nil
		}
		var s strings.Builder
		s.Grow(int(shared) + len(rest))
		s.WriteString(prev[:shared])
		s.Write(rest)
		strs[i] = s.String()
		prev = strs[i]
	}
	return strs
}

// reader decodes an entry body, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail() {
	r.err = errCorrupt
	r.b = nil
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > 1<<40 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads the number of items that follow, each taking at least size
// bytes: a count the rest of the entry cannot hold fails, so that a
// damaged count never makes a huge allocation.
func (r *reader) count(size int) int {
	n := r.uvarint()
	if n > uint64(len(r.b)/size) {
		r.fail()
		return 0
	}
	return int(n)
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}
