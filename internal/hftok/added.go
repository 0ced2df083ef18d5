package hftok

import (
	"unicode/utf8"
)

// An addedToken is one of the file's "added_tokens": matched in the text
// before the model runs, and then one token whatever the model would do.
type addedToken struct {
	ID         int32  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// addedSet finds added tokens leftmost-longest, as the crate's
// AddedVocabulary does with aho-corasick: a byte trie walked from each
// position, the longest match at the leftmost position winning.
type addedSet struct {
	nodes []trieNode
	first [256]bool
	toks  []addedToken
}

type trieNode struct {
	next map[byte]int32
	tok  int32 // index in toks + 1, or 0
}

// add puts tok in the set under pattern (its content, normalized when the
// token is); an empty pattern never matches.
func (a *addedSet) add(tok addedToken, pattern []byte) {
	if len(pattern) == 0 {
		return
	}
	if len(a.nodes) == 0 {
		a.nodes = append(a.nodes, trieNode{})
	}
	a.first[pattern[0]] = true
	n := int32(0)
	for _, c := range pattern {
		next, ok := a.nodes[n].next[c]
		if !ok {
			if a.nodes[n].next == nil {
				a.nodes[n].next = map[byte]int32{}
			}
			next = int32(len(a.nodes))
			a.nodes[n].next[c] = next
			a.nodes = append(a.nodes, trieNode{})
		}
		n = next
	}
	if a.nodes[n].tok == 0 {
		a.toks = append(a.toks, tok)
		a.nodes[n].tok = int32(len(a.toks))
	}
}

// longest returns the token and end of the longest pattern at i, or -1.
func (a *addedSet) longest(text []byte, i int) (int, int) {
	tok, end, n := -1, -1, int32(0)
	for j := i; j < len(text); j++ {
		next, ok := a.nodes[n].next[text[j]]
		if !ok {
			break
		}
		n = next
		if t := a.nodes[n].tok; t != 0 {
			tok, end = int(t-1), j+1
		}
	}
	return tok, end
}

// extract appends the pieces of s: the added tokens found (one span each,
// added set) and the non-empty text between them, as find_matches splits a
// sentence: a single_word token glued to a word character is passed over,
// lstrip and rstrip take the white space beside the token into it.
func (a *addedSet) extract(dst []span, s span) []span {
	if len(a.toks) == 0 {
		if len(s.text) > 0 {
			dst = append(dst, s)
		}
		return dst
	}
	text := s.text
	offset := 0
	for i := 0; i < len(text); {
		if !a.first[text[i]] {
			i++
			continue
		}
		k, stop := a.longest(text, i)
		if k < 0 {
			i++
			continue
		}
		start, tok, matchEnd := i, a.toks[k], stop
		i = matchEnd
		if tok.SingleWord && (endsWithWord(text[:start]) || startsWithWord(text[stop:])) {
			continue
		}
		if tok.LStrip {
			start = max(len(trimRightSpace(text[:start])), offset)
		}
		if tok.RStrip {
			stop = len(text) - len(trimLeftSpace(text[stop:]))
		}
		if offset < start {
			dst = append(dst, s.sub(offset, start))
		}
		t := s.sub(start, stop)
		t.added, t.id = true, tok.ID
		dst = append(dst, t)
		offset = stop
	}
	if offset < len(text) {
		dst = append(dst, s.sub(offset, len(text)))
	}
	return dst
}

func endsWithWord(b []byte) bool {
	r, n := utf8.DecodeLastRune(b)
	return n > 0 && isWordChar(r)
}

func startsWithWord(b []byte) bool {
	r, n := utf8.DecodeRune(b)
	return n > 0 && isWordChar(r)
}
