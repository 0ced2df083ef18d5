package eval

import (
	"bytes"
	"container/heap"
	"context"
	"errors"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

// ranking is a Ranking of the documents in the order given, best first.
func ranking(docs ...int) *Ranking {
	r := &Ranking{}
	for i, d := range docs {
		r.h = append(r.h, Hit{Doc: d, Score: float64(len(docs) - i)})
	}
	heap.Init(&r.h)
	return r
}

func drain(r *Ranking) (docs []int, scores []float64) {
	for {
		h, ok := r.Next()
		if !ok {
			return docs, scores
		}
		docs = append(docs, h.Doc)
		scores = append(scores, h.Score)
	}
}

// TestFuse: reciprocal rank fusion on a case computed by hand.
func TestFuse(t *testing.T) {
	// BM25 ranks 2, 0, 1; dense ranks 1, 2, 3.
	// 2: 1/61 + 1/62 = 0.032522; 1: 1/63 + 1/61 = 0.032266;
	// 0: 1/62 = 0.016129; 3: 1/63 = 0.015873.
	docs, scores := drain(fuse(ranking(2, 0, 1), ranking(1, 2, 3)))
	want := []int{2, 1, 0, 3}
	wantScores := []float64{1.0/61 + 1.0/62, 1.0/63 + 1.0/61, 1.0 / 62, 1.0 / 63}
	if len(docs) != len(want) {
		t.Fatalf("fused %v, want %v", docs, want)
	}
	for i := range want {
		if docs[i] != want[i] || math.Abs(scores[i]-wantScores[i]) > 1e-12 {
			t.Errorf("rank %d: doc %d score %v, want doc %d score %v", i+1, docs[i], scores[i], want[i], wantScores[i])
		}
	}
	// A tie (each first in one ranking, second in the other) goes to the
	// lower document.
	if docs, _ := drain(fuse(ranking(5, 4), ranking(4, 5))); docs[0] != 4 || docs[1] != 5 {
		t.Errorf("tie: %v, want [4 5]", docs)
	}
	// Only the best rrfDepth of each ranking count.
	long := make([]int, rrfDepth+10)
	for i := range long {
		long[i] = i
	}
	if docs, _ := drain(fuse(ranking(long...))); len(docs) != rrfDepth {
		t.Errorf("%d documents fused from a ranking of %d, want %d", len(docs), len(long), rrfDepth)
	}
}

// TestDenseSearch: only live documents, best cosine first, ties to the
// lower document.
func TestDenseSearch(t *testing.T) {
	x := NewIndex()
	vs := &vectors{}
	for _, v := range [][]float32{{1, 0}, {0, 1}, {1, 1}, {1, 0}, {-1, 0}} {
		x.Add([]byte("doc"))
		if err := vs.add([][]float32{v}, 1); err != nil {
			t.Fatal(err)
		}
	}
	for d := range 5 {
		x.SetLive(d, d != 1)
	}
	docs, scores := drain(denseSearch(x, vs, []float32{1, 0}, nil))
	if want := []int{0, 3, 2, 4}; !slices.Equal(docs, want) {
		t.Errorf("ranked %v, want %v", docs, want)
	}
	if math.Abs(scores[2]-1/math.Sqrt2) > 1e-6 || scores[3] != -1 {
		t.Errorf("scores %v: want cosines 1, 1, 0.7071, -1", scores)
	}
}

// TestVectorsAdd: what an embedder returns is checked and scaled.
func TestVectorsAdd(t *testing.T) {
	vs := &vectors{}
	if err := vs.add([][]float32{{3, 4}}, 1); err != nil || vs.at(0)[0] != 0.6 || vs.at(0)[1] != 0.8 {
		t.Errorf("add {3,4}: %v, %v; want {0.6,0.8}", err, vs.v)
	}
	for _, c := range []struct {
		got  [][]float32
		want int
		err  string
	}{
		{[][]float32{{1, 0}}, 2, "1 vectors for 2 texts"},
		{[][]float32{{1, 0, 0}}, 1, "vectors of 2 and of 3 numbers"},
		{[][]float32{{0, 0}}, 1, "no direction"},
		{[][]float32{{float32(math.NaN()), 1}}, 1, "no direction"},
	} {
		err := vs.add(c.got, c.want)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("add %v: %v, want an error with %q", c.got, err, c.err)
		}
	}
	if err := (&vectors{}).add([][]float32{{}}, 1); err == nil {
		t.Error("an empty vector was taken")
	}
}

// fakeEmbedder embeds a text as its tokens hashed into 64 numbers (so
// texts sharing identifiers are near), counting the texts it is given.
type fakeEmbedder struct {
	mu    sync.Mutex
	texts map[string]int
	calls int
	fail  error
}

func (f *fakeEmbedder) embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return nil, f.fail
	}
	if f.texts == nil {
		f.texts = map[string]int{}
	}
	f.calls++
	out := make([][]float32, len(texts))
	for i, text := range texts {
		f.texts[text]++
		v := make([]float32, 64)
		v[0] = 0.01 // no text has no direction
		for _, term := range Terms(text) {
			h := fnv.New32a()
			h.Write([]byte(term))
			v[h.Sum32()%64]++
		}
		out[i] = v
	}
	return out, nil
}

// TestRunDense: eval with the three retrievers on the shop repository:
// every retriever finds the function a commit names, the queries are
// embedded once for all configurations, the report is the same bytes on a
// second run, and an embedder's failure ends the run.
func TestRunDense(t *testing.T) {
	dir := shopRepo(t)
	opt := testOptions(dir)
	var cs []Config
	for _, c := range opt.Configs {
		for _, r := range Retrievers() {
			c.Retriever = r
			cs = append(cs, c)
		}
	}
	opt.Configs = cs
	fake := &fakeEmbedder{}
	opt.Embed, opt.EmbedModel = fake.embed, "fake-64"
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	src := rep.Sources[0]
	if len(src.Rows) != 14 { // and castchunk's defaults, cast 2000 context off bm25, the verdict's reference
		t.Fatalf("%d rows, want 14", len(src.Rows))
	}
	for _, row := range src.Rows {
		// Both queries name a function that one chunk holds: the gold
		// file is in the context.
		if row.Metrics[1].Mean != 1 {
			t.Errorf("%s: FileHit %v, want 1", row.Config, row.Metrics[1].Mean)
		}
		if row.Baseline != nil && row.Baseline.Retriever != row.Config.Retriever {
			t.Errorf("%s compared with %s: want the same retriever", row.Config, row.Baseline)
		}
	}
	for _, q := range []string{"Fix rounding in computeInvoiceTotal: add the tax of each line", "lookupWarehouseStock returns -1 for an unknown sku"} {
		if n := fake.texts[q]; n != 1 {
			t.Errorf("query %q embedded %d times, want once", q, n)
		}
	}
	var first, second bytes.Buffer
	if err := rep.WriteJSON(&first); err != nil {
		t.Fatal(err)
	}
	rep2, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep2.WriteJSON(&second); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Error("two runs gave different reports")
	}
	if !strings.Contains(first.String(), `"name": "Dense"`) || !strings.Contains(first.String(), `"name": "Hybrid"`) {
		t.Error("the report does not define Dense and Hybrid")
	}

	fake.fail = errors.New("embedder http://127.0.0.1:9/v1/embeddings: connection refused")
	if _, err := Run(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("a failing embedder: %v, want its error", err)
	}
	opt.Embed = nil
	var ue *UsageError
	if _, err := Run(context.Background(), opt); !errors.As(err, &ue) {
		t.Errorf("dense without an embedder: %v, want a usage error", err)
	}
}

// TestRetrieversApart: each retriever ranks by its own scores (an
// embedder that gives every text one vector ties every chunk, so dense
// takes the first live chunk while BM25 finds the one the message names),
// and a configuration's scores are the same whether or not other
// retrievers are measured beside it.
func TestRetrieversApart(t *testing.T) {
	dir := shopRepo(t)
	opt := testOptions(dir)
	opt.Embed = func(ctx context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = []float32{1, 1}
		}
		return out, nil
	}
	pl := testPlan(t, &opt)
	cfg := Config{Method: "cast", MaxSize: 200}
	var all []Config
	for _, r := range Retrievers() {
		c := cfg
		c.Retriever = r
		all = append(all, c)
	}
	together := make([]*scores, len(all))
	if err := evaluate(context.Background(), pl, all, []int{0, 1, 2}, together); err != nil {
		t.Fatal(err)
	}
	// The second query names lookupWarehouseStock in shop/orders.go.
	if got := together[0].top[1].Path; got != "shop/orders.go" {
		t.Errorf("bm25's best chunk for the second query is in %s, want shop/orders.go", got)
	}
	if got := together[1].top[1].Path; got != "shop/invoice.go" {
		t.Errorf("dense's best chunk, all tied, is in %s, want the first live file, shop/invoice.go", got)
	}
	for i := range all {
		alone := make([]*scores, 1)
		if err := evaluate(context.Background(), pl, all[i:i+1], []int{0}, alone); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(alone[0].values, together[i].values) || !slices.Equal(alone[0].live, together[i].live) ||
			!slices.Equal(alone[0].top, together[i].top) {
			t.Errorf("%s alone: %v, live %v; beside the others: %v, live %v", all[i], alone[0].values, alone[0].live, together[i].values, together[i].live)
		}
	}
}
