package hftok

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"unicode/utf8"
)

// bpe is the crate's BPE model (models/bpe/model.rs): a piece starts as
// its characters (BPE::merge_word: prefix and suffix, byte_fallback, unk
// and fuse_unk), then Word::merge_all applies the lowest-rank merge among
// adjacent symbols, leftmost on ties, with a priority queue.
type bpe struct {
	vocab        *strTable
	merges       pairTable
	unk          int32 // -1: no unk_token, unknown characters are dropped
	prefix       []byte
	suffix       []byte
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	byteIDs      [256]int32 // ids of "<0x00>".."<0xFF>", -1 when absent
	small        []int32    // id of each rune < 0x800, -1 when absent; nil with a prefix or suffix
	cache        *pieceCache
	scratch      sync.Pool
}

type bpeSymbol struct {
	id, prev, next, len int32
}

// bpeMerge is a queued merge; key is rank<<32 | position, smallest first.
type bpeMerge struct {
	key   uint64
	newID int32
}

type bpeScratch struct {
	syms []bpeSymbol
	heap []bpeMerge
	buf  []byte
}

func (m *bpe) tokenID(tok string) (int32, bool) { return m.vocab.lookupString(tok) }

func (m *bpe) tokenize(dst []token, piece []byte) []token {
	if len(piece) == 0 {
		return dst
	}
	if m.ignoreMerges {
		if id, ok := m.vocab.lookup(piece); ok {
			return append(dst, token{id: id, end: int32(len(piece))})
		}
	}
	dst, ok := m.cache.get(dst, piece)
	if ok {
		return dst
	}
	n := len(dst)
	sc, _ := m.scratch.Get().(*bpeScratch)
	if sc == nil {
		sc = &bpeScratch{}
	}
	m.symbols(sc, piece)
	m.mergeAll(sc)
	off := int32(0)
	for _, s := range sc.syms {
		if s.len == 0 {
			continue
		}
		// Byte-fallback tokens of a prefixed character count one byte
		// each, as in the crate; their offsets stop at the piece's end.
		start, end := min(off, int32(len(piece))), min(off+s.len, int32(len(piece)))
		dst = append(dst, token{id: s.id, start: start, end: end})
		off += s.len
	}
	m.scratch.Put(sc)
	m.cache.put(piece, dst[n:])
	return dst
}

// symbols fills sc.syms with the piece's characters as BPE::merge_word
// does, including its order: a pending unk is written when the next known
// character comes, after any byte-fallback tokens in between.
func (m *bpe) symbols(sc *bpeScratch, piece []byte) {
	sc.syms = sc.syms[:0]
	unkLen := int32(0) // > 0: an unk is pending
	for i := 0; i < len(piece); {
		_, w := utf8.DecodeRune(piece[i:])
		end := i + w
		if id, ok := m.charID(sc, piece, i, end); ok {
			if unkLen > 0 {
				sc.add(m.unk, unkLen)
				unkLen = 0
			}
			sc.add(id, int32(w))
		} else if m.byteFallback && m.addBytes(sc, piece, i, end) {
		} else if m.unk >= 0 {
			if unkLen > 0 && !m.fuseUnk {
				sc.add(m.unk, unkLen)
				unkLen = 0
			}
			unkLen += int32(w)
		}
		i = end
	}
	if unkLen > 0 {
		sc.add(m.unk, unkLen)
	}
}

func (sc *bpeScratch) add(id, n int32) {
	prev := int32(len(sc.syms)) - 1
	if prev >= 0 {
		sc.syms[prev].next = prev + 1
	}
	sc.syms = append(sc.syms, bpeSymbol{id: id, prev: prev, next: -1, len: n})
}

// spelled is the vocabulary spelling of piece[i:end]: the prefix unless
// first, the suffix if last.
func (m *bpe) spelled(sc *bpeScratch, piece []byte, i, end int) []byte {
	sc.buf = sc.buf[:0]
	if i > 0 {
		sc.buf = append(sc.buf, m.prefix...)
	}
	sc.buf = append(sc.buf, piece[i:end]...)
	if end == len(piece) {
		sc.buf = append(sc.buf, m.suffix...)
	}
	return sc.buf
}

func (m *bpe) charID(sc *bpeScratch, piece []byte, i, end int) (int32, bool) {
	if m.small != nil {
		if r, _ := utf8.DecodeRune(piece[i:end]); int(r) < len(m.small) {
			id := m.small[r]
			return id, id >= 0
		}
	}
	return m.vocab.lookup(m.spelled(sc, piece, i, end))
}

// addBytes adds the "<0xAB>" tokens of the spelled character if all are in
// the vocabulary.
func (m *bpe) addBytes(sc *bpeScratch, piece []byte, i, end int) bool {
	s := m.spelled(sc, piece, i, end)
	for _, b := range s {
		if m.byteIDs[b] < 0 {
			return false
		}
	}
	for _, b := range s {
		sc.add(m.byteIDs[b], 1)
	}
	return true
}

// mergeAll is Word::merge_all without dropout.
func (m *bpe) mergeAll(sc *bpeScratch) {
	syms := sc.syms
	h := sc.heap[:0]
	for i := 0; i+1 < len(syms); i++ {
		if rank, id, ok := m.merges.get(syms[i].id, syms[i+1].id); ok {
			h = append(h, bpeMerge{key: uint64(rank)<<32 | uint64(i), newID: id})
		}
	}
	heapInit(h)
	for len(h) > 0 {
		var top bpeMerge
		top, h = heapPop(h)
		pos := int32(uint32(top.key))
		s := &syms[pos]
		if s.len == 0 || s.next < 0 {
			continue
		}
		right := syms[s.next]
		if _, id, ok := m.merges.get(s.id, right.id); !ok || id != top.newID {
			continue // an expired entry
		}
		syms[s.next].len = 0
		s.id, s.len, s.next = top.newID, s.len+right.len, right.next
		if right.next >= 0 {
			syms[right.next].prev = pos
		}
		if s.prev >= 0 {
			if rank, id, ok := m.merges.get(syms[s.prev].id, s.id); ok {
				h = heapPush(h, bpeMerge{key: uint64(rank)<<32 | uint64(s.prev), newID: id})
			}
		}
		if s.next >= 0 {
			if rank, id, ok := m.merges.get(s.id, syms[s.next].id); ok {
				h = heapPush(h, bpeMerge{key: uint64(rank)<<32 | uint64(pos), newID: id})
			}
		}
	}
	sc.heap = h
}

func heapInit(h []bpeMerge) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		heapDown(h, i)
	}
}

func heapDown(h []bpeMerge, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && h[r].key < h[l].key {
			c = r
		}
		if h[i].key <= h[c].key {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

func heapPush(h []bpeMerge, x bpeMerge) []bpeMerge {
	h = append(h, x)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p].key <= h[i].key {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	return h
}

func heapPop(h []bpeMerge) (bpeMerge, []bpeMerge) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	heapDown(h, 0)
	return top, h
}

// pairTable maps a pair of ids to its merge's rank and new id, open
// addressing on uint64 keys (hundreds of thousands of merges, looked up
// in the inner loop).
type pairTable struct {
	keys  []uint64 // pair key + 1; 0 is empty
	vals  []uint64 // rank<<32 | new id
	shift uint
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

func newPairTable(n int) pairTable {
	size, shift := 1, uint(64)
	for size < 2*n+2 {
		size <<= 1
		shift--
	}
	return pairTable{keys: make([]uint64, size), vals: make([]uint64, size), shift: shift}
}

func (t *pairTable) slot(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> t.shift }

// set stores a merge; a later duplicate replaces an earlier one, as the
// crate's HashMap collected from the merges list does.
func (t *pairTable) set(a, b int32, rank uint32, newID int32) {
	k := pairKey(a, b) + 1
	mask := uint64(len(t.keys) - 1)
	for i := t.slot(k); ; i = (i + 1) & mask {
		if t.keys[i] == 0 || t.keys[i] == k {
			t.keys[i] = k
			t.vals[i] = uint64(rank)<<32 | uint64(uint32(newID))
			return
		}
	}
}

func (t *pairTable) get(a, b int32) (uint32, int32, bool) {
	k := pairKey(a, b) + 1
	mask := uint64(len(t.keys) - 1)
	for i := t.slot(k); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k:
			v := t.vals[i]
			return uint32(v >> 32), int32(uint32(v)), true
		case 0:
			return 0, 0, false
		}
	}
}

// newBPE reads the BPE model's options, vocab and merges.
func newBPE(fields map[string]json.RawMessage) (model, error) {
	const typ = "BPE"
	m := &bpe{unk: -1, cache: newPieceCache()}
	if err := m.options(fields); err != nil {
		return nil, err
	}
	raw, ok := fields["vocab"]
	if !ok {
		return nil, fmt.Errorf("model %s: no \"vocab\"", typ)
	}
	var err error
	if m.vocab, err = parseVocabObject(raw); err != nil {
		return nil, fmt.Errorf("model %s: \"vocab\": %v", typ, err)
	}
	raw, ok = fields["merges"]
	if !ok {
		return nil, fmt.Errorf("model %s: no \"merges\"", typ)
	}
	if err := m.readMerges(raw); err != nil {
		return nil, fmt.Errorf("model %s: \"merges\": %v", typ, err)
	}
	return m, m.tables(fields)
}

// options reads the small options, refusing dropout.
func (m *bpe) options(fields map[string]json.RawMessage) error {
	const typ = "BPE"
	var dropout float64
	if ok, err := optField(typ, fields, "dropout", &dropout); err != nil {
		return err
	} else if ok && dropout != 0 {
		return fmt.Errorf("model %s: \"dropout\": %v is not supported (it makes counts random)", typ, dropout)
	}
	var prefix, suffix string
	for _, f := range []struct {
		key string
		v   any
	}{
		{"continuing_subword_prefix", &prefix}, {"end_of_word_suffix", &suffix},
		{"fuse_unk", &m.fuseUnk}, {"byte_fallback", &m.byteFallback}, {"ignore_merges", &m.ignoreMerges},
	} {
		if _, err := optField(typ, fields, f.key, f.v); err != nil {
			return err
		}
	}
	m.prefix, m.suffix = []byte(prefix), []byte(suffix)
	return nil
}

// tables resolves unk_token and fills the byte and small-rune tables.
func (m *bpe) tables(fields map[string]json.RawMessage) error {
	var unkTok string
	if ok, err := optField("BPE", fields, "unk_token", &unkTok); err != nil {
		return err
	} else if ok {
		id, found := m.vocab.lookupString(unkTok)
		if !found {
			return fmt.Errorf("model BPE: unk_token %q is not in the vocab", unkTok)
		}
		m.unk = id
	}
	for b := range 256 {
		m.byteIDs[b] = -1
		if id, ok := m.vocab.lookupString(byteToken(byte(b))); ok {
			m.byteIDs[b] = id
		}
	}
	if len(m.prefix) == 0 && len(m.suffix) == 0 {
		m.small = make([]int32, 0x800)
		var buf [4]byte
		for r := range rune(0x800) {
			m.small[r] = -1
			if id, ok := m.vocab.lookup(utf8.AppendRune(buf[:0], r)); ok {
				m.small[r] = id
			}
		}
	}
	return nil
}

// readMerges reads either format: ["a b", ...] (lines starting with
// "#version" skipped, as convert_merges_to_hashmap does) or [["a", "b"],
// ...]. Each merge's parts and result must be in the vocab; the result is
// a followed by b without the continuing_subword_prefix's length.
func (m *bpe) readMerges(raw []byte) error {
	s := &jsonScanner{b: raw}
	var list [][3]int32
	var a, b, joined []byte
	format := byte(0) // '[' or '"', from the first merge
	err := s.array(func() error {
		if format == 0 {
			format = s.peek()
		}
		if s.peek() != format {
			return fmt.Errorf("merge %d: mixes the two formats", len(list)+1)
		}
		var err error
		if format == '[' {
			a, b, err = s.mergePair(a[:0], b[:0])
		} else {
			var ok bool
			a, b, ok, err = s.mergeLine(a[:0], b[:0], len(list))
			if !ok {
				return err
			}
		}
		if err != nil {
			return err
		}
		var triple [3]int32
		triple, joined, err = m.resolveMerge(a, b, joined, len(list))
		list = append(list, triple)
		return err
	})
	if err != nil {
		return err
	}
	m.merges = newPairTable(len(list))
	for rank, t := range list {
		m.merges.set(t[0], t[1], uint32(rank), t[2])
	}
	return nil
}

// mergePair reads ["a", "b"].
func (s *jsonScanner) mergePair(a, b []byte) ([]byte, []byte, error) {
	if err := s.expect('['); err != nil {
		return a, b, err
	}
	a, err := s.str(a)
	if err != nil {
		return a, b, err
	}
	if err := s.expect(','); err != nil {
		return a, b, err
	}
	if b, err = s.str(b); err != nil {
		return a, b, err
	}
	return a, b, s.expect(']')
}

// mergeLine reads "a b"; ok is false for a "#version" line.
func (s *jsonScanner) mergeLine(a, b []byte, rank int) ([]byte, []byte, bool, error) {
	line, err := s.str(a)
	if err != nil {
		return line, b, false, err
	}
	if bytes.HasPrefix(line, []byte("#version")) {
		return line, b, false, nil
	}
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 || bytes.IndexByte(line[sp+1:], ' ') >= 0 {
		return line, b, false, fmt.Errorf("merge %d: %q is not two tokens separated by one space", rank+1, line)
	}
	b = append(b, line[sp+1:]...)
	return line[:sp], b, true, nil
}

// resolveMerge returns the ids of a, b and their merge.
func (m *bpe) resolveMerge(a, b, joined []byte, rank int) ([3]int32, []byte, error) {
	var t [3]int32
	var ok bool
	if t[0], ok = m.vocab.lookup(a); !ok {
		return t, joined, fmt.Errorf("merge %d: %q is not in the vocab", rank+1, a)
	}
	if t[1], ok = m.vocab.lookup(b); !ok {
		return t, joined, fmt.Errorf("merge %d: %q is not in the vocab", rank+1, b)
	}
	pl := len(m.prefix)
	if len(b) < pl || (pl < len(b) && !utf8.RuneStart(b[pl])) {
		return t, joined, fmt.Errorf("merge %d: %q does not start with the continuing_subword_prefix's length", rank+1, b)
	}
	joined = append(append(joined[:0], a...), b[pl:]...)
	if t[2], ok = m.vocab.lookup(joined); !ok {
		return t, joined, fmt.Errorf("merge %d: %q is not in the vocab", rank+1, joined)
	}
	return t, joined, nil
}
