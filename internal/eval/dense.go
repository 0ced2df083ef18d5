package eval

import (
	"container/heap"
	"context"
	"fmt"
	"math"
)

// Retriever names: how a query's chunks are ranked.
const (
	RetrieverBM25   = "bm25"   // the Index's BM25 over tokens
	RetrieverDense  = "dense"  // cosine similarity of embeddings, exact
	RetrieverHybrid = "hybrid" // reciprocal rank fusion of the two
)

// Retrievers are the retrievers, in the order reports list them.
func Retrievers() []string { return []string{RetrieverBM25, RetrieverDense, RetrieverHybrid} }

// needsVectors reports whether the retriever ranks by embeddings.
func needsVectors(r string) bool { return r == RetrieverDense || r == RetrieverHybrid }

// EmbedFunc turns texts into vectors, one per text in order, all of one
// length. Eval scales each to unit length, so cosine similarity is the dot
// product.
type EmbedFunc func(ctx context.Context, texts []string) ([][]float32, error)

// Hybrid's parameters: reciprocal rank fusion (Cormack, Clarke and
// Büttcher 2009) with its usual k, over the best rrfDepth of each ranking.
const (
	RRFK     = 60
	rrfDepth = 1000
)

// embedBatch is how many texts one call of EmbedFunc gets: the texts of a
// batch are in memory at once, their vectors stay.
const embedBatch = 512

// vectors are the embeddings of a set of texts, one after another in one
// slice (a slice per vector would cost a header each).
type vectors struct {
	dim int
	v   []float32
}

func (vs *vectors) at(i int) []float32 { return vs.v[i*vs.dim : (i+1)*vs.dim] }

func (vs *vectors) len() int {
	if vs.dim == 0 {
		return 0
	}
	return len(vs.v) / vs.dim
}

// embedAll embeds n texts, text(i) giving the i-th, embedBatch at a time,
// telling progress how far it is.
func embedAll(ctx context.Context, embed EmbedFunc, n int, text func(i int) (string, error), progress func(done, total int)) (*vectors, error) {
	vs := &vectors{}
	batch := make([]string, 0, min(n, embedBatch))
	for start := 0; start < n; start += embedBatch {
		batch = batch[:0]
		for i := start; i < min(n, start+embedBatch); i++ {
			t, err := text(i)
			if err != nil {
				return nil, err
			}
			batch = append(batch, t)
		}
		got, err := embed(ctx, batch)
		if err != nil {
			return nil, err
		}
		if vs.dim == 0 && len(got) > 0 && len(got[0]) > 0 {
			vs.v = make([]float32, 0, n*len(got[0])) // all of them, at once
		}
		if err := vs.add(got, len(batch)); err != nil {
			return nil, err
		}
		if progress != nil {
			progress(min(n, start+embedBatch), n)
		}
	}
	return vs, nil
}

// add appends a batch's vectors, checking there is one per text and that
// they have one length.
func (vs *vectors) add(got [][]float32, want int) error {
	if len(got) != want {
		return fmt.Errorf("the embedder returned %d vectors for %d texts", len(got), want)
	}
	for _, v := range got {
		if vs.dim == 0 {
			if len(v) == 0 {
				return fmt.Errorf("the embedder returned an empty vector")
			}
			vs.dim = len(v)
		}
		if len(v) != vs.dim {
			return fmt.Errorf("the embedder returned vectors of %d and of %d numbers", vs.dim, len(v))
		}
		norm := math.Sqrt(dot(v, v))
		if norm == 0 || math.IsNaN(norm) || math.IsInf(norm, 0) {
			return fmt.Errorf("the embedder returned a vector of length %v, which has no direction", norm)
		}
		for _, x := range v {
			vs.v = append(vs.v, float32(float64(x)/norm))
		}
	}
	return nil
}

// dot is the dot product of two vectors of one length, summed in order
// (the same vectors give the same score on every run).
func dot(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}

// denseSearch ranks the live documents of x by the cosine similarity of
// their vectors with the query's; ties go to the lower document number.
// The ranking is built in buf's array, which the caller may pass again
// once it is done with the ranking (a query's hits are many and short-
// lived).
func denseSearch(x *Index, docs *vectors, q []float32, buf hitHeap) *Ranking {
	r := &Ranking{h: buf[:0]}
	for d, live := range x.live {
		if live {
			r.h = append(r.h, Hit{Doc: d, Score: dot(docs.at(d), q)})
		}
	}
	heap.Init(&r.h)
	return r
}

// fuse ranks documents by reciprocal rank fusion of rankings: a
// document's score is the sum, over the rankings whose best rrfDepth hold
// it, of 1/(RRFK + its rank there), ranks counting from 1; ties go to the
// lower document number.
func fuse(rankings ...*Ranking) *Ranking {
	score := map[int]float64{}
	var order []int
	for _, r := range rankings {
		for rank := 1; rank <= rrfDepth; rank++ {
			h, ok := r.Next()
			if !ok {
				break
			}
			if _, seen := score[h.Doc]; !seen {
				order = append(order, h.Doc)
			}
			score[h.Doc] += 1 / float64(RRFK+rank)
		}
	}
	out := &Ranking{h: make(hitHeap, len(order))}
	for i, d := range order {
		out.h[i] = Hit{Doc: d, Score: score[d]}
	}
	heap.Init(&out.h)
	return out
}
