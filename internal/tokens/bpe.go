package tokens

import "math"

// noRank marks a pair that is not in the vocabulary.
const noRank = math.MaxUint32

// heapFrom is the piece length, in bytes, from which merge switches from
// the quadratic scan to the heap: a 10,000-space indentation run or a long
// minified identifier must not cost n² map lookups.
const heapFrom = 128

// merge appends to dst the start offsets (relative to piece) of the tokens
// byte-pair encoding turns piece into: the adjacent pair of parts whose
// concatenation has the lowest rank merges first, the leftmost on ties, until
// no pair is in the vocabulary (tiktoken's _byte_pair_merge).
func (c *Counter) merge(dst []int32, piece []byte) []int32 {
	if len(piece) >= heapFrom {
		return c.mergeHeap(dst, piece)
	}
	return c.mergeScan(dst, piece)
}

// part is a boundary of mergeScan: the offset where a part starts and the
// rank of the token that merging it with the next part would form.
type part struct {
	start int32
	rank  uint32
}

// mergeScan finds each merge with a linear scan: O(n²), fastest for the short
// pieces that are nearly all of them.
func (c *Counter) mergeScan(dst []int32, piece []byte) []int32 {
	parts := c.parts[:0]
	for i := range len(piece) + 1 {
		parts = append(parts, part{int32(i), noRank})
	}
	for i := 0; i+2 < len(parts); i++ {
		parts[i].rank = c.e.pairRank(piece, parts, i)
	}
	for len(parts) > 1 {
		best, at := uint32(noRank), -1
		for i, p := range parts[:len(parts)-1] {
			if p.rank < best {
				best, at = p.rank, i
			}
		}
		if at < 0 {
			break
		}
		parts = append(parts[:at+1], parts[at+2:]...)
		parts[at].rank = c.e.pairRank(piece, parts, at)
		if at > 0 {
			parts[at-1].rank = c.e.pairRank(piece, parts, at-1)
		}
	}
	for _, p := range parts[:len(parts)-1] {
		dst = append(dst, p.start)
	}
	c.parts = parts
	return dst
}

// pairRank is the rank of parts[i] merged with parts[i+1], or noRank.
func (e *Encoding) pairRank(piece []byte, parts []part, i int) uint32 {
	if i+2 >= len(parts) {
		return noRank
	}
	return e.rank(piece[parts[i].start:parts[i+2].start])
}

// node is a boundary of mergeHeap's linked list of parts; rank is that of
// the part starting here merged with the next one.
type node struct {
	prev, next int32
	rank       uint32
}

// candidate is a possible merge in mergeHeap's priority queue.
type candidate struct {
	rank  uint32
	start int32
}

// mergeHeap gives mergeScan's result in O(n log n): parts in a linked list,
// candidate merges in a min-heap by (rank, offset); a popped candidate whose
// rank no longer matches its node is stale and skipped.
func (c *Counter) mergeHeap(dst []int32, piece []byte) []int32 {
	n := int32(len(piece))
	nodes := make([]node, n+1)
	for i := range nodes {
		nodes[i] = node{prev: int32(i) - 1, next: int32(i) + 1, rank: noRank}
	}
	nodes[n].next = -1
	rankAt := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 || nodes[j].next < 0 {
			return noRank
		}
		return c.e.rank(piece[i:nodes[j].next])
	}
	var h minHeap
	for i := int32(0); i+2 <= n; i++ {
		if r := rankAt(i); r != noRank {
			nodes[i].rank = r
			h = append(h, candidate{r, i})
		}
	}
	h.init()
	for len(h) > 0 {
		top := h.pop()
		i := top.start
		if nodes[i].rank != top.rank {
			continue
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = noRank
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			nodes[b].rank = rankAt(b)
			if nodes[b].rank != noRank {
				h.push(candidate{nodes[b].rank, b})
			}
		}
	}
	for i := int32(0); i >= 0 && i < n; i = nodes[i].next {
		dst = append(dst, i)
	}
	return dst
}

// minHeap orders candidates by rank, then offset, so that among equal ranks
// the leftmost pair merges first, as in the scan.
type minHeap []candidate

func (h minHeap) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].start < h[b].start
}

func (h minHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *minHeap) push(x candidate) {
	*h = append(*h, x)
	h.up(len(*h) - 1)
}

func (h *minHeap) pop() candidate {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h minHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (h minHeap) down(i int) {
	for {
		child := 2*i + 1
		if child >= len(h) {
			return
		}
		if right := child + 1; right < len(h) && h.less(right, child) {
			child = right
		}
		if !h.less(child, i) {
			return
		}
		h[i], h[child] = h[child], h[i]
		i = child
	}
}
