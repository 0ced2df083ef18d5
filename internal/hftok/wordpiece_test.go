package hftok

import "testing"

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
