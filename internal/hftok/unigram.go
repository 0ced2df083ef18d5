package hftok

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// unigram is the crate's Unigram model (models/unigram/model.rs): the
// best segmentation as Unigram::encode_optimized finds it (SentencePiece's
// optimized Viterbi), then Unigram::tokenize's lookup of each piece.
type unigram struct {
	trie         trie
	scores       []float64 // by id
	unk          int32
	unkScore     float64 // lowest score - kUnkPenalty (10)
	byteFallback bool
	byteIDs      [256]int32 // ids of "<0x00>".."<0xFF>", -1 when absent
	cache        *pieceCache
	scratch      sync.Pool
}

const kUnkPenalty = 10.0

func newUnigram(fields map[string]json.RawMessage) (model, error) {
	const typ = "Unigram"
	m := &unigram{cache: newPieceCache()}
	if _, err := optField(typ, fields, "byte_fallback", &m.byteFallback); err != nil {
		return nil, err
	}
	raw, ok := fields["vocab"]
	if !ok {
		return nil, fmt.Errorf("model %s: no \"vocab\"", typ)
	}
	toks, err := parseScoredVocab(raw, m)
	if err != nil {
		return nil, fmt.Errorf("model %s: \"vocab\": %v", typ, err)
	}
	var unk int64
	if ok, err := optField(typ, fields, "unk_id", &unk); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("model %s: \"unk_id\": null is not supported (the crate fails on any character outside the vocab)", typ)
	}
	if unk < 0 || unk >= int64(len(m.scores)) {
		return nil, fmt.Errorf("model %s: unk_id %d is not in the vocab of %d tokens", typ, unk, len(m.scores))
	}
	m.unk = int32(unk)
	m.trie = buildTrie(toks)
	for b := range 256 {
		m.byteIDs[b] = -1
		if id, ok := m.tokenID(byteToken(byte(b))); ok {
			m.byteIDs[b] = id
		}
	}
	return m, nil
}

// parseScoredVocab reads [["token", score], ...]: the scores into m, the
// tokens into an arena (id = position, as in the crate).
func parseScoredVocab(raw []byte, m *unigram) (*strTable, error) {
	s := &jsonScanner{b: raw}
	t := &strTable{offs: []uint32{0}}
	minScore := math.Inf(1)
	var tok []byte
	err := s.array(func() error {
		if err := s.expect('['); err != nil {
			return err
		}
		var err error
		if tok, err = s.str(tok[:0]); err != nil {
			return err
		}
		if err = s.expect(','); err != nil {
			return err
		}
		num, err := s.number()
		if err != nil {
			return err
		}
		score, err := strconv.ParseFloat(string(num), 64)
		if err != nil {
			return fmt.Errorf("score of %q: %s is not a number", tok, num)
		}
		t.add(tok, int32(len(t.ids)))
		m.scores = append(m.scores, score)
		minScore = min(minScore, score)
		return s.expect(']')
	})
	if err == nil && len(t.ids) > math.MaxInt32 {
		err = fmt.Errorf("%d tokens is too many", len(t.ids))
	}
	m.unkScore = minScore - kUnkPenalty
	return t, err
}

func (m *unigram) tokenID(tok string) (int32, bool) {
	var buf [64]byte
	return m.trie.lookup(append(buf[:0], tok...))
}

// ugNode is a lattice position: the best path ending there.
type ugNode struct {
	score float64
	start int32 // -1: not reached yet
	id    int32
}

type ugScratch struct {
	best  []ugNode
	spans [][2]int32 // the segmentation, backwards: start, end (fused unks)
	ids   []int32    // the id of each span, -1 for a fused unk to look up
}

func (m *unigram) tokenize(dst []token, piece []byte) []token {
	if len(piece) == 0 {
		return dst
	}
	dst, ok := m.cache.get(dst, piece)
	if ok {
		return dst
	}
	n := len(dst)
	sc, _ := m.scratch.Get().(*ugScratch)
	if sc == nil {
		sc = &ugScratch{}
	}
	m.viterbi(sc, piece)
	m.backtrack(sc)
	for i := len(sc.spans) - 1; i >= 0; i-- {
		dst = m.emit(dst, piece, sc.spans[i], sc.ids[i])
	}
	m.scratch.Put(sc)
	m.cache.put(piece, dst[n:])
	return dst
}

// viterbi is encode_optimized's forward pass: at each character, every
// vocabulary prefix offers a path (the first of equal scores is kept),
// and an unk of one character when no single-character token exists.
func (m *unigram) viterbi(sc *ugScratch, piece []byte) {
	size := len(piece)
	sc.best = slices.Grow(sc.best[:0], size+1)[:size+1]
	for i := range sc.best {
		sc.best[i] = ugNode{start: -1}
	}
	sc.best[0].start = 0 // its score is 0; only its start is never read
	for st := 0; st < size; {
		till := sc.best[st].score
		_, mb := utf8.DecodeRune(piece[st:])
		single := false
		for node, k := int32(0), st; k < size; k++ {
			if node = m.trie.child(node, piece[k]); node < 0 {
				break
			}
			id := m.trie.ids[node]
			if id < 0 {
				continue
			}
			m.offer(sc, k+1, st, id, m.scores[id]+till)
			single = single || k+1-st == mb
		}
		if !single {
			m.offer(sc, st+mb, st, m.unk, m.unkScore+till)
		}
		st += mb
	}
}

func (m *unigram) offer(sc *ugScratch, end, start int, id int32, score float64) {
	t := &sc.best[end]
	if t.start < 0 || score > t.score {
		*t = ugNode{score: score, start: int32(start), id: id}
	}
}

// backtrack walks the best path from the end, fusing consecutive nodes
// whose id is the unk id (fuse_unk is always on for Unigram).
func (m *unigram) backtrack(sc *ugScratch) {
	sc.spans, sc.ids = sc.spans[:0], sc.ids[:0]
	unkEnd := int32(-1)
	end := int32(len(sc.best) - 1)
	for end > 0 {
		nd := sc.best[end]
		if nd.id == m.unk {
			if unkEnd < 0 {
				unkEnd = end
			}
		} else {
			if unkEnd >= 0 {
				sc.spans, sc.ids = append(sc.spans, [2]int32{end, unkEnd}), append(sc.ids, -1)
				unkEnd = -1
			}
			sc.spans, sc.ids = append(sc.spans, [2]int32{nd.start, end}), append(sc.ids, nd.id)
		}
		end = nd.start
	}
	if unkEnd >= 0 {
		sc.spans, sc.ids = append(sc.spans, [2]int32{0, unkEnd}), append(sc.ids, -1)
	}
}

// emit is Unigram::tokenize for one span: its id if the vocab has the
// span's text, else its bytes as "<0xAB>" tokens (each with the span's
// offsets, as in the crate) when byte_fallback has them all, else unk.
func (m *unigram) emit(dst []token, piece []byte, span [2]int32, id int32) []token {
	text := piece[span[0]:span[1]]
	if id < 0 {
		var ok bool
		if id, ok = m.trie.lookup(text); !ok {
			id = -1
		}
	}
	if id >= 0 {
		return append(dst, token{id: id, start: span[0], end: span[1]})
	}
	if m.byteFallback && !slices.ContainsFunc(text, func(b byte) bool { return m.byteIDs[b] < 0 }) {
		for _, b := range text {
			dst = append(dst, token{id: m.byteIDs[b], start: span[0], end: span[1]})
		}
		return dst
	}
	return append(dst, token{id: m.unk, start: span[0], end: span[1]})
}

// trie is a byte trie of the vocabulary in first-child/next-sibling form
// (siblings sorted), with a direct table at the root: a 250k-token
// vocabulary is a few flat slices.
type trie struct {
	root  [256]int32
	label []byte
	first []int32 // first child, -1 none
	next  []int32 // next sibling, -1 none
	ids   []int32 // the token ending here, -1 none
}

func (t *trie) child(node int32, b byte) int32 {
	if node == 0 {
		return t.root[b]
	}
	c := t.first[node]
	for c >= 0 && t.label[c] < b {
		c = t.next[c]
	}
	if c >= 0 && t.label[c] == b {
		return c
	}
	return -1
}

// lookup returns the id of a whole token (the empty token is never one,
// as in the crate's trie).
func (t *trie) lookup(tok []byte) (int32, bool) {
	node := int32(0)
	for _, b := range tok {
		if node = t.child(node, b); node < 0 {
			return 0, false
		}
	}
	if node == 0 || t.ids[node] < 0 {
		return 0, false
	}
	return t.ids[node], true
}

// buildTrie inserts the tokens in sorted order, so each new node is its
// parent's last child. Of duplicate tokens the last id wins, as in the
// crate's token_to_ids.
func buildTrie(toks *strTable) trie {
	order := make([]int32, len(toks.ids))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := bytes.Compare(toks.entry(uint32(a)), toks.entry(uint32(b))); c != 0 {
			return c
		}
		return int(a - b)
	})
	// The nodes are the sorted tokens' bytes past their common prefix with
	// the token before: counted first, so that a vocabulary of long
	// tokens sharing prefixes (12 MB of "h" runs: 5,000 nodes) costs what
	// it holds, not 17 bytes per byte of the vocabulary.
	n := 1
	var prev []byte
	for _, id := range order {
		tok := toks.entry(uint32(id))
		n += len(tok) - commonPrefix(tok, prev)
		prev = tok
	}
	t := trie{label: make([]byte, 1, n), first: make([]int32, 1, n), next: make([]int32, 1, n), ids: make([]int32, 1, n)}
	t.first[0], t.next[0], t.ids[0] = -1, -1, -1
	for i := range t.root {
		t.root[i] = -1
	}
	last := make([]int32, 1, n) // last child of each node, while building
	last[0] = -1
	path := []int32{0} // nodes of the previous token's prefixes
	prev = nil
	for _, id := range order {
		tok := toks.entry(uint32(id))
		lcp := commonPrefix(tok, prev)
		path = path[:lcp+1]
		for _, b := range tok[lcp:] {
			parent := path[len(path)-1]
			n := int32(len(t.label))
			t.label, t.first, t.next, t.ids = append(t.label, b), append(t.first, -1), append(t.next, -1), append(t.ids, -1)
			last = append(last, -1)
			if last[parent] < 0 {
				t.first[parent] = n
			} else {
				t.next[last[parent]] = n
			}
			last[parent] = n
			if parent == 0 {
				t.root[b] = n
			}
			path = append(path, n)
		}
		t.ids[path[len(path)-1]] = id
		prev = tok
	}
	t.ids[0] = -1
	return t
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
