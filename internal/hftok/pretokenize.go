package hftok

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// A preTokenizer splits each piece of in into smaller ones (appended to
// dst, never empty), as the crate's pre-tokenizer of the same name splits a
// PreTokenizedString's splits; an added token's span passes unchanged.
type preTokenizer interface {
	split(dst, in []span) []span
}

// eachPiece applies f to every piece of in that is not an added token.
func eachPiece(dst, in []span, f func(dst []span, s span) []span) []span {
	for _, s := range in {
		if s.added {
			dst = append(dst, s)
		} else {
			dst = f(dst, s)
		}
	}
	return dst
}

// newPreTokenizer builds the file's "pre_tokenizer".
func newPreTokenizer(raw json.RawMessage) (preTokenizer, error) {
	typ, f, err := component("pre_tokenizer", raw)
	if err != nil {
		return nil, err
	}
	var p preTokenizer
	switch typ {
	case "ByteLevel":
		p = newByteLevel(f)
	case "Split":
		p, err = newSplit(f)
	case "Metaspace":
		p, err = newMetaspace(f)
	case "BertPreTokenizer":
		p = bertPre{}
	case "Whitespace":
		p = tokenSplit{whitespaceMatcher{}, removed, true}
	case "WhitespaceSplit":
		p = tokenSplit{runeMatcher(func(_ rune, c uint8) bool { return c&cSpace != 0 }), removed, false}
	case "Punctuation":
		var b behavior
		b, err = parseBehavior(f.str("behavior", "Isolated"))
		p = tokenSplit{runeMatcher(func(_ rune, c uint8) bool { return c&cPunct != 0 }), b, false}
	case "Digits":
		b := contiguous
		if f.boolean("individual_digits", false) {
			b = isolated
		}
		p = tokenSplit{runeMatcher(func(_ rune, c uint8) bool { return c&cNumber != 0 }), b, false}
	case "CharDelimiterSplit":
		var d string
		f.get("delimiter", &d)
		r, n := utf8.DecodeRuneInString(d)
		if n == 0 || n != len(d) {
			return nil, f.errorf("delimiter", "not one character")
		}
		p = tokenSplit{runeMatcher(func(x rune, _ uint8) bool { return x == r }), removed, false}
	case "Sequence":
		p, err = newPreSequence(f)
	default:
		return nil, fmt.Errorf("pre_tokenizer %s is not implemented", typ)
	}
	if err != nil {
		return nil, err
	}
	return p, f.done()
}

func newPreSequence(f *fields) (preTokenizer, error) {
	var list []json.RawMessage
	if !f.get("pretokenizers", &list) {
		return nil, f.errorf("pretokenizers", "missing")
	}
	var seq preSequence
	for _, raw := range list {
		p, err := newPreTokenizer(raw)
		if err != nil {
			return nil, err
		}
		seq = append(seq, p)
	}
	return seq, nil
}

// preSequence runs each pre-tokenizer over all the pieces of the one before.
type preSequence []preTokenizer

func (q preSequence) split(dst, in []span) []span {
	pieces := in
	var a, b []span
	for _, p := range q {
		a = p.split(a[:0], pieces)
		pieces, a, b = a, b, a
	}
	return append(dst, pieces...)
}

// tokenSplit splits on a pattern with a behavior.
type tokenSplit struct {
	pattern matcher
	b       behavior
	invert  bool
}

func (t tokenSplit) split(dst, in []span) []span {
	var ms [][2]int
	return eachPiece(dst, in, func(dst []span, s span) []span {
		ms = t.pattern.find(ms[:0], s.text)
		return splitSpan(dst, s, ms, t.b, t.invert)
	})
}

// newSplit is the Split pre-tokenizer: a String or Regex pattern, a
// behavior, invert.
func newSplit(f *fields) (preTokenizer, error) {
	m, err := patternField(f)
	if err != nil {
		return nil, err
	}
	var name string
	if !f.get("behavior", &name) {
		return nil, f.errorf("behavior", "missing")
	}
	b, err := parseBehavior(name)
	if err != nil {
		return nil, f.errorf("behavior", "%v", err)
	}
	return tokenSplit{m, b, f.boolean("invert", false)}, nil
}

// whitespaceMatcher finds the matches of the Whitespace pre-tokenizer's
// `\w+|[^\w\s]+` (no \s rune is \w); the pre-tokenizer inverts them and
// removes the rest, keeping the matches.
type whitespaceMatcher struct{}

func (whitespaceMatcher) find(dst [][2]int, text []byte) [][2]int {
	for i := 0; i < len(text); {
		c, n := classAt(text, i)
		if c&cSpace != 0 {
			i += n
			continue
		}
		j := i + n
		for j < len(text) {
			d, m := classAt(text, j)
			if d&cSpace != 0 || (d&cWord != 0) != (c&cWord != 0) {
				break
			}
			j += m
		}
		dst = append(dst, [2]int{i, j})
		i = j
	}
	return dst
}

// bertPre is BERT's pre-tokenizer: split on white space (removed), then
// isolate every punctuation character.
type bertPre struct{}

func (bertPre) split(dst, in []span) []span {
	space := runeMatcher(func(_ rune, c uint8) bool { return c&cSpace != 0 })
	punct := runeMatcher(func(_ rune, c uint8) bool { return c&cPunct != 0 })
	return eachPiece(dst, in, func(dst []span, s span) []span {
		for _, w := range splitSpan(nil, s, space.find(nil, s.text), removed, false) {
			dst = splitSpan(dst, w, punct.find(nil, w.text), isolated, false)
		}
		return dst
	})
}
