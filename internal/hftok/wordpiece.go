package hftok

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// wordPiece is BERT's model, as the crate's WordPiece::tokenize: greedy
// longest match from the left, continuations spelled with the prefix
// ("##"); a word with a part outside the vocabulary, or longer than
// max_input_chars_per_word characters, is one unk token.
type wordPiece struct {
	vocab    *strTable
	trie     trie  // the vocabulary's entries, for the longest match
	after    int32 // the trie's node of the prefix, -1 if no entry starts with it
	unk      int32
	prefix   []byte
	maxChars int
}

func newWordPiece(fields map[string]json.RawMessage) (model, error) {
	const typ = "WordPiece"
	m := &wordPiece{prefix: []byte("##"), maxChars: 100}
	unkTok := "[UNK]"
	if raw, ok := fields["unk_token"]; ok {
		if err := json.Unmarshal(raw, &unkTok); err != nil {
			return nil, fmt.Errorf("model %s: \"unk_token\": %v", typ, err)
		}
	}
	if raw, ok := fields["continuing_subword_prefix"]; ok {
		var p string
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("model %s: \"continuing_subword_prefix\": %v", typ, err)
		}
		m.prefix = []byte(p)
	}
	if raw, ok := fields["max_input_chars_per_word"]; ok {
		if err := json.Unmarshal(raw, &m.maxChars); err != nil || m.maxChars < 0 {
			return nil, fmt.Errorf("model %s: \"max_input_chars_per_word\": %s is not a count", typ, raw)
		}
	}
	raw, ok := fields["vocab"]
	if !ok {
		return nil, fmt.Errorf("model %s: no \"vocab\"", typ)
	}
	var err error
	if m.vocab, err = parseVocabObject(raw); err != nil {
		return nil, fmt.Errorf("model %s: \"vocab\": %v", typ, err)
	}
	if m.unk, ok = m.vocab.lookupString(unkTok); !ok {
		return nil, fmt.Errorf("model %s: unk_token %q is not in the vocab", typ, unkTok)
	}
	m.trie = buildTrie(m.vocab)
	m.after = 0
	for _, b := range m.prefix {
		if m.after = m.trie.child(m.after, b); m.after < 0 {
			break
		}
	}
	return m, nil
}

func (m *wordPiece) tokenID(tok string) (int32, bool) { return m.vocab.lookupString(tok) }

func (m *wordPiece) tokenize(dst []token, piece []byte) []token {
	if len(piece) == 0 {
		return dst
	}
	whole := token{id: m.unk, start: 0, end: int32(len(piece))}
	if utf8.RuneCount(piece) > m.maxChars {
		return append(dst, whole)
	}
	n := len(dst)
	for start := 0; start < len(piece); {
		end, id, ok := m.longest(piece, start)
		if !ok {
			return append(dst[:n], whole)
		}
		dst = append(dst, token{id: id, start: int32(start), end: int32(end)})
		start = end
	}
	return dst
}

// longest finds the longest vocabulary entry at start (prefixed after the
// first) that ends on a character boundary of the piece: the crate tries
// ends from the right one character at a time, and the first entry it
// meets is this one. Walking the trie from start costs a step per byte of
// the longest entry that begins there, where trying every end and hashing
// each candidate cost the square of it: a hostile vocabulary's entry of
// 20,000 letters made a word of 5,000 others take minutes.
func (m *wordPiece) longest(piece []byte, start int) (int, int32, bool) {
	node := int32(0)
	if start > 0 {
		if node = m.after; node < 0 {
			return 0, 0, false
		}
	}
	end, entry := 0, int32(-1)
	for j := start; j < len(piece); {
		if node = m.trie.child(node, piece[j]); node < 0 {
			break
		}
		j++
		if e := m.trie.ids[node]; e >= 0 && (j == len(piece) || utf8.RuneStart(piece[j])) {
			end, entry = j, e
		}
	}
	if entry < 0 {
		return 0, 0, false
	}
	return end, m.vocab.ids[entry], true
}
