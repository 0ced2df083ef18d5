package eval

import (
	"container/heap"
	"math"
	"slices"
)

// BM25's parameters (Robertson and Zaragoza; the values Lucene and most
// code-retrieval studies use).
const (
	K1 = 1.5
	B  = 0.75
)

// Index is an in-memory BM25 index whose documents can be switched on and
// off: the collection a query is scored against is the live documents, and
// N, the average length and every document frequency are those of the live
// documents alone, exactly as if an index had been built over them. That
// lets one index serve the trees of many commits, which share most files.
type Index struct {
	dict   map[string]uint32
	post   [][]posting // by term: the documents holding it, in document order
	length []uint32    // by document: its number of terms
	live   []bool
	n      int   // live documents
	total  int64 // their terms

	// scratch, reused between calls
	ids    []uint32
	score  []float64
	hit    []bool
	hits   []int32
	qterms []qterm
	text   []byte
}

type posting struct{ doc, tf uint32 }

type qterm struct {
	id  uint32
	qtf int
}

// NewIndex returns an empty index.
func NewIndex() *Index { return &Index{dict: map[string]uint32{}} }

// Add indexes a document made of the terms of each of parts (a header and
// a content, say) and returns its number, counting from 0. A new document
// is not live.
func (x *Index) Add(parts ...[]byte) int {
	doc := uint32(len(x.length))
	ids := x.ids[:0]
	for _, p := range parts {
		x.text = scanTerms(p, x.text, func(t []byte) {
			id, ok := x.dict[string(t)]
			if !ok {
				id = uint32(len(x.post))
				x.dict[string(t)] = id
				x.post = append(x.post, nil)
			}
			ids = append(ids, id)
		})
	}
	x.length = append(x.length, uint32(len(ids)))
	x.live = append(x.live, false)
	slices.Sort(ids)
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[i] {
			j++
		}
		x.post[ids[i]] = append(x.post[ids[i]], posting{doc: doc, tf: uint32(j - i)})
		i = j
	}
	x.ids = ids
	return int(doc)
}

// Docs is the number of documents, live or not.
func (x *Index) Docs() int { return len(x.length) }

// Live is the number of live documents.
func (x *Index) Live() int { return x.n }

// SetLive switches a document on or off.
func (x *Index) SetLive(doc int, on bool) {
	if x.live[doc] == on {
		return
	}
	x.live[doc] = on
	d := int64(x.length[doc])
	if on {
		x.n++
		x.total += d
	} else {
		x.n--
		x.total -= d
	}
}

// Hit is one scored document.
type Hit struct {
	Doc   int
	Score float64
}

// Search scores the live documents against the query's terms and returns
// a ranking: call Next for the best document, then the next best, and so
// on. Ties go to the lower document number. The score of document D is
//
//	sum over the query's terms t (repeats included) of
//	idf(t) * tf(t,D) * (K1+1) / (tf(t,D) + K1*(1 - B + B*|D|/avgdl))
//	idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
//
// over the live documents: N of them, avgdl their mean length in terms,
// df(t) those holding t. Terms no live document holds add nothing; a
// document with no query term is not ranked.
func (x *Index) Search(query string) *Ranking {
	x.qterms = x.qterms[:0]
	x.text = scanTerms([]byte(query), x.text, func(t []byte) {
		id, ok := x.dict[string(t)]
		if !ok {
			return
		}
		for i := range x.qterms {
			if x.qterms[i].id == id {
				x.qterms[i].qtf++
				return
			}
		}
		x.qterms = append(x.qterms, qterm{id: id, qtf: 1})
	})
	if len(x.score) < len(x.length) {
		x.score = make([]float64, len(x.length))
		x.hit = make([]bool, len(x.length))
	}
	x.hits = x.hits[:0]
	r := &Ranking{}
	if x.n == 0 {
		return r
	}
	avgdl := float64(x.total) / float64(x.n)
	for _, q := range x.qterms {
		post := x.post[q.id]
		df := 0
		for _, p := range post {
			if x.live[p.doc] {
				df++
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (float64(x.n)-float64(df)+0.5)/(float64(df)+0.5))
		w := float64(q.qtf) * idf
		for _, p := range post {
			if !x.live[p.doc] {
				continue
			}
			tf := float64(p.tf)
			norm := K1 * (1 - B + B*float64(x.length[p.doc])/avgdl)
			x.score[p.doc] += w * tf * (K1 + 1) / (tf + norm)
			if !x.hit[p.doc] {
				x.hit[p.doc] = true
				x.hits = append(x.hits, int32(p.doc))
			}
		}
	}
	r.h = make(hitHeap, len(x.hits))
	for i, d := range x.hits {
		r.h[i] = Hit{Doc: int(d), Score: x.score[d]}
		x.score[d], x.hit[d] = 0, false
	}
	heap.Init(&r.h)
	return r
}

// Ranking hands out scored documents best first: those of pre, in order,
// then those of the heap h.
type Ranking struct {
	pre []Hit
	h   hitHeap
}

// Next returns the best document not yet returned; false when none is
// left.
func (r *Ranking) Next() (Hit, bool) {
	if len(r.pre) > 0 {
		h := r.pre[0]
		r.pre = r.pre[1:]
		return h, true
	}
	if len(r.h) == 0 {
		return Hit{}, false
	}
	return heap.Pop(&r.h).(Hit), true
}

// Len is the number of documents left.
func (r *Ranking) Len() int { return len(r.pre) + len(r.h) }

// split takes the best n documents off r, and returns a ranking of them
// alone and a ranking of all of r's, those n first: two rankings that can
// be read each at its own pace (hybrid fuses the one, dense or BM25 reads
// the other).
func (r *Ranking) split(n int) (top, all *Ranking) {
	var best []Hit
	for len(best) < n {
		h, ok := r.Next()
		if !ok {
			break
		}
		best = append(best, h)
	}
	return &Ranking{pre: best}, &Ranking{pre: best, h: r.h}
}

// hitHeap orders hits best first: higher score, then lower document.
type hitHeap []Hit

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(i, j int) bool {
	if h[i].Score != h[j].Score {
		return h[i].Score > h[j].Score
	}
	return h[i].Doc < h[j].Doc
}
func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(v any)   { *h = append(*h, v.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}
