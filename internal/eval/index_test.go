package eval

import (
	"math"
	"slices"
	"testing"
)

// refScores is BM25 as the README and Index.Search define it, transcribed
// directly: over the live documents only, each a list of terms.
func refScores(docs [][]string, live []bool, query string) map[int]float64 {
	n, total := 0, 0
	for d, terms := range docs {
		if live[d] {
			n++
			total += len(terms)
		}
	}
	out := map[int]float64{}
	if n == 0 {
		return out
	}
	avgdl := float64(total) / float64(n)
	for _, q := range Terms(query) {
		df := 0
		for d, terms := range docs {
			if live[d] && slices.Contains(terms, q) {
				df++
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
		for d, terms := range docs {
			if !live[d] {
				continue
			}
			tf := 0
			for _, t := range terms {
				if t == q {
					tf++
				}
			}
			if tf == 0 {
				continue
			}
			norm := K1 * (1 - B + B*float64(len(terms))/avgdl)
			out[d] += idf * float64(tf) * (K1 + 1) / (float64(tf) + norm)
		}
	}
	return out
}

// TestBM25LengthAndSaturation: one term that every document holds. N=3,
// lengths 1, 4, 2 (avgdl 7/3), idf = ln(1 + 0.5/3.5) = ln(8/7):
//
//	"x":       tf 1, norm 1.5*(0.25+0.75*3/7)  = 6/7:   idf*2.5/(13/7)  = idf*35/26
//	"x y y y": tf 1, norm 1.5*(0.25+0.75*12/7) = 129/56: idf*2.5/(185/56) = idf*28/37
//	"x x":     tf 2, norm 1.5*(0.25+0.75*6/7)  = 75/56:  idf*5/(187/56)  = idf*280/187
//
// So "x x" (more of the term) first, then the short "x", then the long one.
func TestBM25LengthAndSaturation(t *testing.T) {
	x := NewIndex()
	for _, d := range []string{"x", "x y y y", "x x"} {
		x.SetLive(x.Add([]byte(d)), true)
	}
	idf := math.Log(8.0 / 7)
	want := []Hit{{2, idf * 280 / 187}, {0, idf * 35 / 26}, {1, idf * 28 / 37}}
	got := ranked(x.Search("x"))
	if len(got) != len(want) {
		t.Fatalf("hits %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Doc != want[i].Doc || math.Abs(got[i].Score-want[i].Score) > 1e-12 {
			t.Errorf("hit %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestBM25MatchesFormula compares Search with the direct transcription on
// a small collection, for several queries and sets of live documents.
func TestBM25MatchesFormula(t *testing.T) {
	texts := []string{
		"func parseConfig(path string) (*Config, error)",
		"// parseConfig reads the config file at path",
		"type Config struct { Path string; Verbose bool }",
		"func main() { cfg, err := parseConfig(os.Args[1]) }",
		"verbose verbose verbose logging of the parser",
	}
	docs := make([][]string, len(texts))
	x := NewIndex()
	for i, s := range texts {
		docs[i] = Terms(s)
		if d := x.Add([]byte(s)); d != i {
			t.Fatalf("Add returned %d, want %d", d, i)
		}
	}
	queries := []string{"parse config", "config config path", "verbose parser", "main args", "nothing matches zzz", ""}
	for _, live := range [][]bool{
		{true, true, true, true, true},
		{true, false, true, false, true},
		{false, false, false, false, true},
		{false, false, false, false, false},
	} {
		for d, on := range live {
			x.SetLive(d, on)
		}
		for _, q := range queries {
			want := refScores(docs, live, q)
			r := x.Search(q)
			if r.Len() != len(want) {
				t.Errorf("live %v, %q: %d hits, want %d", live, q, r.Len(), len(want))
			}
			prev := math.Inf(1)
			prevDoc := -1
			for h, ok := r.Next(); ok; h, ok = r.Next() {
				w, in := want[h.Doc]
				if !in || !live[h.Doc] {
					t.Errorf("live %v, %q: doc %d ranked, but it holds no query term or is off", live, q, h.Doc)
					continue
				}
				if math.Abs(h.Score-w) > 1e-9 {
					t.Errorf("live %v, %q: doc %d scores %v, want %v", live, q, h.Doc, h.Score, w)
				}
				if h.Score > prev || h.Score == prev && h.Doc < prevDoc {
					t.Errorf("live %v, %q: doc %d (%v) after doc %d (%v): not best first", live, q, h.Doc, h.Score, prevDoc, prev)
				}
				prev, prevDoc = h.Score, h.Doc
			}
		}
	}
}

// TestBM25LiveIsAFreshIndex: documents switched off leave no trace: the
// live ones score exactly as in an index built over them alone.
func TestBM25LiveIsAFreshIndex(t *testing.T) {
	all := []string{"alpha beta", "beta gamma gamma", "alpha alpha delta", "gamma delta epsilon"}
	big := NewIndex()
	for _, s := range all {
		big.Add([]byte(s))
	}
	// New documents are off.
	if big.Live() != 0 || big.Docs() != 4 || big.Search("alpha").Len() != 0 {
		t.Fatalf("a new document must not be live: Live %d, Docs %d", big.Live(), big.Docs())
	}
	big.SetLive(1, true)
	big.SetLive(3, true)
	small := NewIndex()
	small.SetLive(small.Add([]byte(all[1])), true)
	small.SetLive(small.Add([]byte(all[3])), true)
	for _, q := range []string{"gamma", "delta alpha", "beta epsilon gamma"} {
		a, b := ranked(big.Search(q)), ranked(small.Search(q))
		if len(a) != len(b) {
			t.Fatalf("%q: %v against %v", q, a, b)
		}
		for i := range a {
			// Documents 1 and 3 of big are 0 and 1 of small.
			if a[i].Doc != []int{1, 3}[b[i].Doc] || a[i].Score != b[i].Score {
				t.Errorf("%q: hit %d = %+v, fresh index %+v", q, i, a[i], b[i])
			}
		}
	}
}

// TestBM25Parts: a document's parts (a header, a content) are scanned
// apart: a term never spans two parts, and the length counts both.
func TestBM25Parts(t *testing.T) {
	x := NewIndex()
	d := x.Add([]byte("src/app.py\n"), []byte("class App"))
	x.SetLive(d, true)
	x.SetLive(x.Add([]byte("ab"), []byte("cd")), true)
	// "src app py class app" has 5 terms; "ab cd" has 2.
	if got := x.length; !slices.Equal(got, []uint32{5, 2}) {
		t.Errorf("lengths %v, want [5 2]", got)
	}
	if hs := ranked(x.Search("abcd")); len(hs) != 0 {
		t.Errorf("a term across two parts was indexed: %v", hs)
	}
	if hs := ranked(x.Search("py app")); len(hs) != 1 || hs[0].Doc != d {
		t.Errorf("header and content terms: %v", hs)
	}
	if hs := ranked(x.Search("CD")); len(hs) != 1 || hs[0].Doc != 1 {
		t.Errorf("second part, query case folded: %v", hs)
	}
}

// TestBM25Rankings: a ranking is its own: a later Search neither changes
// it nor inherits its scores; Len counts what is left.
func TestBM25Rankings(t *testing.T) {
	x := toyIndex()
	first := x.Search("apple date")
	if first.Len() != 3 {
		t.Fatalf("Len = %d, want 3", first.Len())
	}
	h, _ := first.Next()
	if first.Len() != 2 || h.Doc != 2 {
		t.Errorf("after Next: Len %d, first hit %+v", first.Len(), h)
	}
	again := ranked(x.Search("apple date"))
	want := []Hit{{2, 1.2655861329183566}, {1, 0.6714337560653366}, {0, 0.5529454461714537}}
	if !slices.Equal(again, want) {
		t.Errorf("the same query again: %v, want %v (scores must not accumulate)", again, want)
	}
	if rest := ranked(first); !slices.Equal(rest, want[1:]) {
		t.Errorf("the earlier ranking after another Search: %v, want %v", rest, want[1:])
	}
	if _, ok := first.Next(); ok || first.Len() != 0 {
		t.Error("an exhausted ranking must stay empty")
	}
}
