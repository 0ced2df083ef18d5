package hftok

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestUnigramViterbi(t *testing.T) {
	// Lowest score -10 (abc): an unknown character scores -20.
	m := mustModel(t, `{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["a",-1],["b",-2],["ab",-2.5],["abc",-10],["c",-3],["bc",-4],["é",-1]]}`)
	checkCases(t, m, []modelCase{
		{"", nil},
		{"ab", []token{tok(3, 0, 2)}}, // -2.5 beats a b (-3)
		{"abc", []token{tok(1, 0, 1), tok(6, 1, 3)}},                // a bc (-5) beats ab c (-5.5), abc (-10)
		{"éab", []token{tok(7, 0, 2), tok(3, 2, 4)}},                // byte offsets
		{"xa", []token{tok(0, 0, 1), tok(1, 1, 2)}},                 // unknown character: unk
		{"xyéa", []token{tok(0, 0, 2), tok(7, 2, 4), tok(1, 4, 5)}}, // consecutive unks fuse
		{"ü", []token{tok(0, 0, 2)}},                                // one unk per character, not per byte
	})
	// Equal scores: the path whose last token starts first (the longest
	// last token) is kept, as encode_optimized's strict comparison does.
	m = mustModel(t, `{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["a",-1],["b",-2],["ab",-3],["bb",-2]]}`)
	checkCases(t, m, []modelCase{
		{"ab", []token{tok(3, 0, 2)}},
		{"abb", []token{tok(1, 0, 1), tok(4, 1, 3)}}, // a bb (-3) beats ab b (-5)
		{"bbb", []token{tok(2, 0, 1), tok(4, 1, 3)}}, // b bb and bb b tie at -4: b bb (bb starts first at the end)
	})
}

func TestUnigramUnkQuirks(t *testing.T) {
	// Positive scores: lowest 25, unk 15. "xy" (25) loses to two unks
	// (30); the fused unk's text is then looked up and found, as in the
	// crate's Unigram::tokenize.
	m := mustModel(t, `{"type":"Unigram","unk_id":0,"vocab":[["<unk>",30],["a",25],["xy",25]]}`)
	checkCases(t, m, []modelCase{
		{"xy", []token{tok(2, 0, 2)}},
		{"xya", []token{tok(2, 0, 2), tok(1, 2, 3)}},
		{"xyz", []token{tok(0, 0, 3)}},
	})
	// A character that only starts longer tokens still gets an unk node.
	m = mustModel(t, `{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["xy",-1],["z",-1]]}`)
	checkCases(t, m, []modelCase{
		{"xy", []token{tok(1, 0, 2)}},
		{"xz", []token{tok(0, 0, 1), tok(2, 1, 2)}},
	})
}

func TestUnigramByteFallback(t *testing.T) {
	m := mustModel(t, `{"type":"Unigram","unk_id":0,"byte_fallback":true,
		"vocab":[["<unk>",0],["a",-1],["<0x78>",-5],["<0xC3>",-5],["<0xA9>",-5]]}`)
	checkCases(t, m, []modelCase{
		{"xa", []token{tok(2, 0, 1), tok(1, 1, 2)}},
		// Every byte token carries the whole span's offsets, as in the crate.
		{"éa", []token{tok(3, 0, 2), tok(4, 0, 2), tok(1, 2, 3)}},
		{"xé", []token{tok(2, 0, 3), tok(3, 0, 3), tok(4, 0, 3)}},
		// A byte missing: the span is one unk.
		{"ü", []token{tok(0, 0, 2)}},
	})
}

func TestUnigramDuplicatesLastWins(t *testing.T) {
	m := mustModel(t, `{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["a",-1],["a",-3],["b",-1]]}`)
	checkCases(t, m, []modelCase{{"ab", []token{tok(2, 0, 1), tok(3, 1, 2)}}})
}

// Pieces of one letter from 2 to 5,000 long (castfuzz -tokenizers, shape
// unigram-long: 12 MB of vocabulary, a trie of 5,000 nodes) made the
// trie's build reserve room for a node per byte of the vocabulary, 17
// bytes each: 200 MB, in every worker, whose memory limit then left the
// grammars too little, so that ordinary files fell back to the sliding
// method or not depending on what else the run held. The build counts
// its nodes first.
func TestTrieBuildAllocatesItsNodes(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["h",-1]`)
	for l := 2; l <= 5000; l++ {
		fmt.Fprintf(&b, `,["%s",-%d]`, strings.Repeat("h", l), l)
	}
	b.WriteString("]}")
	js := b.String()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m := mustModel(t, js)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > 8*uint64(len(js))+(16<<20) { // the arena and its growth, and garbage
		t.Errorf("%d MB of vocabulary: %d MB allocated to load it", len(js)>>20, alloc>>20)
	}
	if got := m.tokenize(nil, []byte(strings.Repeat("h", 4000))); len(got) != 1 || got[0].end != 4000 {
		t.Errorf("4,000 h: %v", got)
	}
}
