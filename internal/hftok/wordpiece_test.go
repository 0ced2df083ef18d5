package hftok

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestWordPiece(t *testing.T) {
	m := mustModel(t, `{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",
		"max_input_chars_per_word":6,
		"vocab":{"[UNK]":0,"un":1,"##aff":2,"##able":3,"una":4,"##ff":5,"é":6,"##é":7,"a":8,"##a":9}}`)
	checkCases(t, m, []modelCase{
		{"", nil},
		// Longest first: "una" then "##ff", not "un" "##aff".
		{"unaff", []token{tok(4, 0, 3), tok(5, 3, 5)}},
		// Greedy: "una" is taken, then "##ble" has no parts, so the word is
		// unk although "un" "##able" would have covered it.
		{"unable", []token{tok(0, 0, 6)}},
		// One part outside the vocab: the whole word is one unk.
		{"unafx", []token{tok(0, 0, 5)}},
		// Offsets are bytes; continuations use the prefix.
		{"éé", []token{tok(6, 0, 2), tok(7, 2, 4)}},
		{"aéaéaé", []token{tok(8, 0, 1), tok(7, 1, 3), tok(9, 3, 4), tok(7, 4, 6), tok(9, 6, 7), tok(7, 7, 9)}},
		// Seven characters > max_input_chars_per_word: unk even though
		// every part is known.
		{"aaaaaaa", []token{tok(0, 0, 7)}},
		{"aaaaaa", []token{tok(8, 0, 1), tok(9, 1, 2), tok(9, 2, 3), tok(9, 3, 4), tok(9, 4, 5), tok(9, 5, 6)}},
		// The prefix alone is not a token of the piece.
		{"##", []token{tok(0, 0, 2)}},
	})
}

func TestWordPieceDefaults(t *testing.T) {
	// No prefix given: "##"; no max given: 100 characters.
	m := mustModel(t, `{"type":"WordPiece","unk_token":"<u>","vocab":{"<u>":3,"a":1,"##a":2}}`)
	long := make([]byte, 100)
	for i := range long {
		long[i] = 'a'
	}
	got := m.tokenize(nil, long)
	if len(got) != 100 || got[99] != tok(2, 99, 100) {
		t.Errorf("100 a: %d tokens, last %v", len(got), got[len(got)-1])
	}
	got = m.tokenize(nil, append(long, 'a'))
	if len(got) != 1 || got[0] != tok(3, 0, 101) {
		t.Errorf("101 a: %v, want one unk", got)
	}
	// An empty prefix: continuations are plain entries.
	m = mustModel(t, `{"type":"WordPiece","unk_token":"<u>","continuing_subword_prefix":"","vocab":{"<u>":3,"ab":1,"c":2}}`)
	checkCases(t, m, []modelCase{{"abc", []token{tok(1, 0, 2), tok(2, 2, 3)}}, {"abcab", []token{tok(1, 0, 2), tok(2, 2, 3), tok(1, 3, 5)}}})
}

// A hostile vocabulary (one entry of 20,000 letters) and a word of 5,000
// other letters under a huge max_input_chars_per_word: trying every end
// of the word and hashing each candidate cost the square of the entry's
// length per token (minutes for this word, hours for a 200 KB one); the
// vocabulary's trie makes it a step per byte matched. (castfuzz
// -tokenizers, shape wordpiece-long.)
func TestWordPieceLongEntryIsFast(t *testing.T) {
	long := strings.Repeat("a", 20000)
	m := mustModel(t, `{"type":"WordPiece","unk_token":"[UNK]","max_input_chars_per_word":100000000,
		"vocab":{"[UNK]":0,"b":1,"##b":2,"`+long+`":3,"##`+long+`":4,"a":5,"##a":6}}`)
	word := []byte(strings.Repeat("b", 5000))
	done := make(chan []token, 1)
	go func() { done <- m.tokenize(nil, word) }()
	select {
	case got := <-done:
		if len(got) != 5000 || got[0] != tok(1, 0, 1) || got[4999] != tok(2, 4999, 5000) {
			t.Errorf("5,000 b: %d tokens, first %v", len(got), got[0])
		}
	case <-time.After(10 * time.Second):
		t.Fatal("5,000 b with a 20,000-byte vocabulary entry: still tokenizing after 10 s")
	}
	// 40,000 a: two tokens of the long entry.
	got := m.tokenize(nil, []byte(long+long))
	if want := []token{tok(3, 0, 20000), tok(4, 20000, 40000)}; !slices.Equal(got, want) {
		t.Errorf("40,000 a: %v, want %v", got, want)
	}
}

// The trie's longest match is the crate's: every end tried from the
// right, one character at a time, on random vocabularies and words (with
// multi-byte characters, entries that end inside a character of the word,
// and empty and long prefixes).
func TestWordPieceTrieMatchesTryingEveryEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "é", "\xc3", "\xa9", "ab", "#"}
	word := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for round := 0; round < 300; round++ {
		prefix := []string{"##", "", "#", "éé"}[r.IntN(4)]
		vocab := map[string]int{"[UNK]": 0}
		for i := 0; i < 1+r.IntN(30); i++ {
			w := word(1 + r.IntN(5))
			vocab[w] = len(vocab)
			if r.IntN(2) == 0 {
				vocab[prefix+w] = len(vocab)
			}
		}
		raw, _ := json.Marshal(map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": prefix,
			"max_input_chars_per_word": 1000, "vocab": vocab})
		m := mustModel(t, string(raw)).(*wordPiece)
		for i := 0; i < 20; i++ {
			piece := []byte(word(1 + r.IntN(12)))
			got := m.tokenize(nil, piece)
			want := everyEnd(m, piece)
			if !slices.Equal(got, want) {
				t.Fatalf("prefix %q, vocab %v, piece %q: %v, want %v", prefix, vocab, piece, got, want)
			}
		}
	}
}

// everyEnd is WordPiece::tokenize as the crate writes it, on m's vocabulary.
func everyEnd(m *wordPiece, piece []byte) []token {
	if utf8.RuneCount(piece) > m.maxChars {
		return []token{tok(m.unk, 0, int32(len(piece)))}
	}
	var out []token
	for start := 0; start < len(piece); {
		end := len(piece)
		found := false
		for start < end {
			sub := string(piece[start:end])
			if start > 0 {
				sub = string(m.prefix) + sub
			}
			if id, ok := m.vocab.lookup([]byte(sub)); ok {
				out = append(out, tok(id, int32(start), int32(end)))
				found = true
				break
			}
			_, w := utf8.DecodeLastRune(piece[start:end])
			end -= w
		}
		if !found {
			return []token{tok(m.unk, 0, int32(len(piece)))}
		}
		start = end
	}
	return out
}
