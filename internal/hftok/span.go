package hftok

import "unicode/utf8"

// A span is a piece of text on its way through the pipeline: its bytes as
// the normalizer and pre-tokenizer made them, and for each byte the offset
// in the caller's text of the byte it came from (an inserted byte takes the
// offset of the character it was inserted at), which AppendStarts reports.
// An added token's span has added set and its id.
type span struct {
	text  []byte
	orig  []int32
	added bool
	id    int32
}

// sub is the part a..b of s, sharing its memory.
func (s span) sub(a, b int) span {
	return span{text: s.text[a:b], orig: s.orig[a:b]}
}

// origin is the offset in the caller's text where byte i of s starts; the
// end of s maps to just after its last byte's origin.
func (s span) origin(i int) int32 {
	if i < len(s.orig) {
		return s.orig[i]
	}
	if len(s.orig) == 0 {
		return 0
	}
	return s.orig[len(s.orig)-1] + 1
}

// newSpan makes the span of the caller's text. Invalid UTF-8 reads as one
// U+FFFD per byte, as encoding/json writes it into a record.
func newSpan(text []byte) span {
	if utf8.Valid(text) {
		orig := make([]int32, len(text))
		for i := range orig {
			orig[i] = int32(i)
		}
		return span{text: text, orig: orig}
	}
	var b builder
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRune(text[i:])
		b.rune(r, int32(i))
		i += n
	}
	return b.span()
}

// A builder assembles a rewritten span.
type builder struct {
	text []byte
	orig []int32
}

// rune appends r, every byte of it coming from offset o.
func (b *builder) rune(r rune, o int32) {
	n := len(b.text)
	b.text = utf8.AppendRune(b.text, r)
	for range len(b.text) - n {
		b.orig = append(b.orig, o)
	}
}

// bytes appends p, every byte of it coming from offset o.
func (b *builder) bytes(p []byte, o int32) {
	b.text = append(b.text, p...)
	for range p {
		b.orig = append(b.orig, o)
	}
}

// keep appends s unchanged.
func (b *builder) keep(s span) {
	b.text = append(b.text, s.text...)
	b.orig = append(b.orig, s.orig...)
}

func (b *builder) span() span { return span{text: b.text, orig: b.orig} }

// mapRunes rewrites s rune by rune: f appends what r becomes (nothing to
// remove it) and all of it keeps r's origin.
func mapRunes(s span, f func(dst []rune, r rune) []rune) span {
	var b builder
	b.text = make([]byte, 0, len(s.text))
	b.orig = make([]int32, 0, len(s.text))
	var out []rune
	for i := 0; i < len(s.text); {
		r, n := utf8.DecodeRune(s.text[i:])
		out = f(out[:0], r)
		for _, o := range out {
			b.rune(o, s.orig[i])
		}
		i += n
	}
	return b.span()
}
