package hftok

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestBPEMergeOrder(t *testing.T) {
	vocab := `{"a":0,"b":1,"c":2,"aa":3,"ab":4,"bc":5,"abc":6}`
	// Equal ranks: the leftmost pair first.
	m := mustModel(t, `{"type":"BPE","vocab":`+vocab+`,"merges":["a a"]}`)
	checkCases(t, m, []modelCase{
		{"aaa", []token{tok(3, 0, 2), tok(0, 2, 3)}},
		{"aaaa", []token{tok(3, 0, 2), tok(3, 2, 4)}},
	})
	// The lowest rank first, wherever it is.
	m = mustModel(t, `{"type":"BPE","vocab":`+vocab+`,"merges":["b c","a b"]}`)
	checkCases(t, m, []modelCase{{"abc", []token{tok(0, 0, 1), tok(5, 1, 3)}}})
	m = mustModel(t, `{"type":"BPE","vocab":`+vocab+`,"merges":["a b","b c"]}`)
	checkCases(t, m, []modelCase{{"abc", []token{tok(4, 0, 2), tok(2, 2, 3)}}})
	// A merge's result merges again; the newer pair format; "#version".
	m = mustModel(t, `{"type":"BPE","vocab":`+vocab+`,"merges":[["a","b"],["ab","c"]]}`)
	checkCases(t, m, []modelCase{{"abcab", []token{tok(6, 0, 3), tok(4, 3, 5)}}})
	m = mustModel(t, `{"type":"BPE","vocab":`+vocab+`,"merges":["#version: 0.2","a b","ab c"]}`)
	checkCases(t, m, []modelCase{{"abc", []token{tok(6, 0, 3)}}})
	// A duplicated merge takes its last rank (the crate's HashMap).
	m = mustModel(t, `{"type":"BPE","vocab":`+vocab+`,"merges":["b c","a b","b c"]}`)
	checkCases(t, m, []modelCase{{"abc", []token{tok(4, 0, 2), tok(2, 2, 3)}}})
}

func TestBPEUnk(t *testing.T) {
	vocab := `{"<unk>":0,"a":1,"b":2}`
	m := mustModel(t, `{"type":"BPE","vocab":`+vocab+`,"merges":[],"unk_token":"<unk>"}`)
	checkCases(t, m, []modelCase{{"accb", []token{tok(1, 0, 1), tok(0, 1, 2), tok(0, 2, 3), tok(2, 3, 4)}}})
	m = mustModel(t, `{"type":"BPE","vocab":`+vocab+`,"merges":[],"unk_token":"<unk>","fuse_unk":true}`)
	checkCases(t, m, []modelCase{
		{"accb", []token{tok(1, 0, 1), tok(0, 1, 3), tok(2, 3, 4)}},
		{"cé", []token{tok(0, 0, 3)}},
	})
	// No unk_token: an unknown character is dropped, as in the crate
	// (the offsets of what follows shift, as there).
	m = mustModel(t, `{"type":"BPE","vocab":`+vocab+`,"merges":[],"unk_token":null}`)
	checkCases(t, m, []modelCase{{"acb", []token{tok(1, 0, 1), tok(2, 1, 2)}}, {"c", nil}})
}

func TestBPEByteFallback(t *testing.T) {
	m := mustModel(t, `{"type":"BPE","unk_token":"<unk>","byte_fallback":true,"fuse_unk":true,"merges":[["<0xC3>","<0xA9>"]],
		"vocab":{"<unk>":0,"a":1,"<0xC3>":2,"<0xA9>":3,"<0x62>":4,"<0xC3><0xA9>":5}}`)
	checkCases(t, m, []modelCase{
		// Byte tokens merge like any other.
		{"aé", []token{tok(1, 0, 1), tok(5, 1, 3)}},
		{"b", []token{tok(4, 0, 1)}},
		// A byte missing: unk, fused.
		{"üüa", []token{tok(0, 0, 4), tok(1, 4, 5)}},
		// The crate writes a pending unk only at the next known
		// character, after byte tokens in between: pinned as it does.
		// ("b" is only a byte token here; both ü fuse into one unk.)
		{"übüa", []token{tok(4, 0, 1), tok(0, 1, 5), tok(1, 5, 6)}},
	})
}

func TestBPEIgnoreMergesAndAffixes(t *testing.T) {
	vocab := `{"a":0,"b":1,"c":2,"ab":3,"abc":4,"bc":5}`
	m := mustModel(t, `{"type":"BPE","vocab":`+vocab+`,"merges":["b c"],"ignore_merges":true}`)
	checkCases(t, m, []modelCase{{"abc", []token{tok(4, 0, 3)}}, {"abcc", []token{tok(0, 0, 1), tok(5, 1, 3), tok(2, 3, 4)}}})
	m = mustModel(t, `{"type":"BPE","vocab":`+vocab+`,"merges":["b c"],"ignore_merges":false}`)
	checkCases(t, m, []modelCase{{"abc", []token{tok(0, 0, 1), tok(5, 1, 3)}}})

	m = mustModel(t, `{"type":"BPE","vocab":{"a":0,"b":1,"b</w>":2,"a</w>":3,"ab</w>":4},"merges":["a b</w>"],"end_of_word_suffix":"</w>"}`)
	checkCases(t, m, []modelCase{
		{"ab", []token{tok(4, 0, 2)}},
		{"ba", []token{tok(1, 0, 1), tok(3, 1, 2)}},
		{"a", []token{tok(3, 0, 1)}},
	})
	m = mustModel(t, `{"type":"BPE","vocab":{"a":0,"##b":1,"ab":2,"##c":3,"abc":4,"b":5},"merges":[["a","##b"],["ab","##c"]],"continuing_subword_prefix":"##"}`)
	checkCases(t, m, []modelCase{
		{"abc", []token{tok(4, 0, 3)}},
		// "b" first is plain; "##a" is unknown and, with no unk, dropped.
		{"ba", []token{tok(5, 0, 1)}},
	})
}

// naiveBPE is the textbook definition: merge the lowest-rank adjacent
// pair, leftmost first, until none is left; quadratic, for checking.
func naiveBPE(ids []int32, rank map[[2]int32]int, result map[[2]int32]int32) []int32 {
	for {
		best, at := -1, -1
		for i := 0; i+1 < len(ids); i++ {
			if r, ok := rank[[2]int32{ids[i], ids[i+1]}]; ok && (best < 0 || r < best) {
				best, at = r, i
			}
		}
		if at < 0 {
			return ids
		}
		merged := result[[2]int32{ids[at], ids[at+1]}]
		ids = append(append(ids[:at:at], merged), ids[at+2:]...)
	}
}

func TestBPEAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 30; round++ {
		toks := []string{"a", "b", "c"}
		ids := map[string]int32{"a": 0, "b": 1, "c": 2}
		var merges [][2]string
		rank := map[[2]int32]int{}
		result := map[[2]int32]int32{}
		for len(merges) < 40 {
			x, y := toks[r.IntN(len(toks))], toks[r.IntN(len(toks))]
			if _, dup := rank[[2]int32{ids[x], ids[y]}]; dup || len(x+y) > 8 {
				continue
			}
			if _, ok := ids[x+y]; !ok {
				ids[x+y] = int32(len(toks))
				toks = append(toks, x+y)
			}
			rank[[2]int32{ids[x], ids[y]}] = len(merges)
			result[[2]int32{ids[x], ids[y]}] = ids[x+y]
			merges = append(merges, [2]string{x, y})
		}
		vj, _ := json.Marshal(ids)
		mj, _ := json.Marshal(merges)
		m := mustModel(t, fmt.Sprintf(`{"type":"BPE","vocab":%s,"merges":%s}`, vj, mj))
		for k := 0; k < 50; k++ {
			piece := make([]byte, 1+r.IntN(40))
			start := make([]int32, len(piece))
			for i := range piece {
				piece[i] = "abc"[r.IntN(3)]
				start[i] = int32(piece[i] - 'a')
			}
			want := naiveBPE(start, rank, result)
			got := m.tokenize(nil, piece)
			var gotIDs []int32
			for _, g := range got {
				gotIDs = append(gotIDs, g.id)
			}
			if fmt.Sprint(gotIDs) != fmt.Sprint(want) {
				t.Fatalf("round %d, %q: got %v, want %v", round, piece, gotIDs, want)
			}
		}
	}
}

// A 100 KB piece is merged in n log n: ten times longer must not take
// anywhere near a hundred times longer.
func TestBPELongPieceNotQuadratic(t *testing.T) {
	vocab := map[string]int{}
	var merges []string
	for n := 1; n <= 1<<17; n *= 2 {
		vocab[strings.Repeat("a", n)] = len(vocab)
		vocab[strings.Repeat("ab", n)] = len(vocab)
		if n > 1 {
			merges = append(merges, strings.Repeat("a", n/2)+" "+strings.Repeat("a", n/2))
			merges = append(merges, strings.Repeat("ab", n/2)+" "+strings.Repeat("ab", n/2))
		}
	}
	vocab["b"] = len(vocab)
	merges = append([]string{"a b"}, merges...)
	vj, _ := json.Marshal(vocab)
	mj, _ := json.Marshal(merges)
	m := mustModel(t, fmt.Sprintf(`{"type":"BPE","vocab":%s,"merges":%s}`, vj, mj))
	once := func(piece []byte) time.Duration {
		start := time.Now()
		got := m.tokenize(nil, piece)
		d := time.Since(start)
		if got[len(got)-1].end != int32(len(piece)) {
			t.Fatalf("tokens end at %d, piece is %d bytes", got[len(got)-1].end, len(piece))
		}
		return d
	}
	// The best of 7 runs of each, interleaved so that a spell of load on
	// the machine slows both alike; linear time gives a ratio near 10,
	// quadratic near 100, so 60 tells them apart with room for noise.
	shortPiece, longPiece := []byte(strings.Repeat("ab", 5000)), []byte(strings.Repeat("ab", 50000))
	short, long := time.Duration(1<<62), time.Duration(1<<62)
	for range 7 {
		short = min(short, once(shortPiece))
		long = min(long, once(longPiece))
	}
	if long > 60*short {
		t.Errorf("10 KB piece: %v, 100 KB: %v: quadratic?", short, long)
	}
	got := m.tokenize(nil, []byte(strings.Repeat("ab", 1<<15)))
	if len(got) != 1 {
		t.Errorf("(ab)^32768: %d tokens, want 1", len(got))
	}
}
