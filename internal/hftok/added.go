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
// position, the longest match at the leftmost position winning. The trie
// is the vocabularies' flat one (trie, in unigram.go): a few bytes a
// node, where a map a node made 50,000 added tokens of 100 characters
// hold hundreds of MB in every process.
type addedSet struct {
	pats *strTable // the patterns while adding: entry i is toks[i]'s
	trie trie      // built by finish; its ids are indexes in toks, reversed
	toks []addedToken
}

// add puts tok in the set under pattern (its content, normalized when the
// token is); an empty pattern never matches.
func (a *addedSet) add(tok addedToken, pattern []byte) {
	if len(pattern) == 0 {
		return
	}
	if a.pats == nil {
		a.pats = newStrTable(0)
	}
	a.pats.add(pattern, int32(len(a.toks)))
	a.toks = append(a.toks, tok)
}

// finish builds the trie once every token is added. Of tokens with the
// same pattern the first wins; buildTrie keeps the last of equal entries,
// so it is given them in reverse.
func (a *addedSet) finish() {
	if a.pats == nil {
		return
	}
	n := len(a.toks)
	rev := newStrTable(n)
	for e := n - 1; e >= 0; e-- {
		rev.add(a.pats.entry(uint32(e)), int32(e))
	}
	a.pats = nil
	a.trie = buildTrie(rev)
}

// starts reports whether a pattern starts with byte c.
func (a *addedSet) starts(c byte) bool { return a.trie.root[c] > 0 }

// longest returns the token and end of the longest pattern at i, or -1.
func (a *addedSet) longest(text []byte, i int) (int, int) {
	tok, end, n := -1, -1, int32(0)
	for j := i; j < len(text); j++ {
		if n = a.trie.child(n, text[j]); n < 0 {
			break
		}
		if e := a.trie.ids[n]; e >= 0 {
			tok, end = len(a.toks)-1-int(e), j+1
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
		if !a.starts(text[i]) {
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
