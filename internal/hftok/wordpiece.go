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
	var stack [128]byte
	buf := append(stack[:0], m.prefix...)
	for start := 0; start < len(piece); {
		end, id, ok := m.longest(piece, start, buf)
		if !ok {
			return append(dst[:n], whole)
		}
		dst = append(dst, token{id: id, start: int32(start), end: int32(end)})
		start = end
	}
	return dst
}

// longest finds the longest vocabulary entry at start (prefixed after the
// first), trying ends from the right one character at a time. Ends whose
// candidate is longer than the longest entry are skipped: they cannot
// match, so the result is the crate's.
func (m *wordPiece) longest(piece []byte, start int, buf []byte) (int, int32, bool) {
	limit := m.vocab.maxLen
	if start > 0 {
		limit -= len(m.prefix)
	}
	end := len(piece)
	if end-start > limit {
		end = start + max(limit, 0)
		for end > start && !utf8.RuneStart(piece[end]) {
			end--
		}
	}
	for end > start {
		cand := piece[start:end]
		if start > 0 {
			buf = append(buf[:len(m.prefix)], cand...)
			cand = buf
		}
		if id, ok := m.vocab.lookup(cand); ok {
			return end, id, true
		}
		_, w := utf8.DecodeLastRune(piece[start:end])
		end -= w
	}
	return 0, 0, false
}
