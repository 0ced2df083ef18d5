package hftok

import (
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A normalizer rewrites a span as the crate's normalizer of the same name
// rewrites a NormalizedString.
type normalizer interface {
	normalize(s span) span
}

// newNormalizer builds the file's "normalizer", refusing what it does not
// implement exactly.
func newNormalizer(raw json.RawMessage) (normalizer, error) {
	typ, f, err := component("normalizer", raw)
	if err != nil {
		return nil, err
	}
	var n normalizer
	switch typ {
	case "BertNormalizer":
		b := bertNormalizer{
			clean:   f.boolean("clean_text", true),
			chinese: f.boolean("handle_chinese_chars", true),
			lower:   f.boolean("lowercase", true),
		}
		b.strip = b.lower // strip_accents null follows lowercase
		f.get("strip_accents", &b.strip)
		n = b
	case "NFC":
		n = unicodeForm{norm.NFC}
	case "NFD":
		n = unicodeForm{norm.NFD}
	case "NFKC":
		n = unicodeForm{norm.NFKC}
	case "NFKD":
		n = unicodeForm{norm.NFKD}
	case "Lowercase":
		n = lowercase{}
	case "StripAccents":
		n = stripAccents{}
	case "Replace":
		n, err = newReplace(f)
	case "Prepend":
		n = prepend{[]byte(f.str("prepend", ""))}
	case "Strip":
		n = strip{left: f.boolean("strip_left", true), right: f.boolean("strip_right", true)}
	case "Sequence":
		n, err = newNormalizerSequence(f)
	case "Precompiled":
		n, err = newPrecompiled(f)
	default:
		return nil, fmt.Errorf("normalizer %s is not implemented", typ)
	}
	if err != nil {
		return nil, err
	}
	return n, f.done()
}

func newNormalizerSequence(f *fields) (normalizer, error) {
	var list []json.RawMessage
	if !f.get("normalizers", &list) {
		return nil, f.errorf("normalizers", "missing")
	}
	var seq normalizerSequence
	for _, raw := range list {
		n, err := newNormalizer(raw)
		if err != nil {
			return nil, err
		}
		seq = append(seq, n)
	}
	return seq, nil
}

type normalizerSequence []normalizer

func (q normalizerSequence) normalize(s span) span {
	for _, n := range q {
		s = n.normalize(s)
	}
	return s
}

// bertNormalizer is BERT's: clean_text drops NUL, U+FFFD and control
// characters (general category C other than \t \n \r) and turns white space
// into ' ', then CJK ideographs get a space either side, then accents are
// stripped (NFD, marks Mn dropped), then lowercase, in the crate's order.
type bertNormalizer struct{ clean, chinese, strip, lower bool }

// normalize runs the steps in one pass over ASCII, where they are
// simple byte rules, and in turn over each run of other characters. That
// is exact: every step but NFD works character by character, and an ASCII
// character is a starter NFD never reorders across nor combines with.
// Source code is mostly ASCII, and four passes over it made BERT's the
// slowest tokenizer.
func (b bertNormalizer) normalize(s span) span {
	var out builder
	out.text = make([]byte, 0, len(s.text))
	out.orig = make([]int32, 0, len(s.text))
	for i := 0; i < len(s.text); {
		if c := s.text[i]; c < utf8.RuneSelf {
			if c, keep := b.ascii(c); keep {
				out.text = append(out.text, c)
				out.orig = append(out.orig, s.orig[i])
			}
			i++
			continue
		}
		j := i + 1
		for j < len(s.text) && s.text[j] >= utf8.RuneSelf {
			j++
		}
		out.keep(b.steps(s.sub(i, j)))
		i = j
	}
	return out.span()
}

// ascii is what the steps make of an ASCII byte: itself or another, or
// nothing (false) when clean_text drops it.
func (b bertNormalizer) ascii(c byte) (byte, bool) {
	if b.clean {
		switch {
		case c == '\t' || c == '\n' || c == '\r':
			return ' ', true
		case c < 0x20 || c == 0x7f: // NUL and the other controls (\v and \f are controls first)
			return 0, false
		}
	}
	if b.lower && c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A', true
	}
	return c, true
}

// steps runs the steps one after the other, in the crate's order.
func (b bertNormalizer) steps(s span) span {
	if b.clean {
		s = mapRunes(s, func(dst []rune, r rune) []rune {
			switch {
			case r == 0 || r == 0xFFFD || isControl(r):
				return dst
			case unicode.IsSpace(r):
				return append(dst, ' ')
			}
			return append(dst, r)
		})
	}
	if b.chinese {
		s = mapRunes(s, func(dst []rune, r rune) []rune {
			if isChinese(r) {
				return append(dst, ' ', r, ' ')
			}
			return append(dst, r)
		})
	}
	if b.strip {
		s = stripAccents{}.normalize(unicodeForm{norm.NFD}.normalize(s))
	}
	if b.lower {
		s = lowercase{}.normalize(s)
	}
	return s
}

// isControl is the crate's is_control: categories Cc, Cf, Co, Cs except
// the white space \t \n \r.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// isChinese is BERT's CJK ideograph ranges.
func isChinese(r rune) bool {
	switch {
	case r >= 0x4E00 && r <= 0x9FFF, r >= 0x3400 && r <= 0x4DBF,
		r >= 0x20000 && r <= 0x2A6DF, r >= 0x2A700 && r <= 0x2B73F,
		r >= 0x2B740 && r <= 0x2B81F, r >= 0x2B820 && r <= 0x2CEAF,
		r >= 0xF900 && r <= 0xFAFF, r >= 0x2F800 && r <= 0x2FA1F:
		return true
	}
	return false
}

// unicodeForm applies a Unicode normalization form segment by segment (a
// segment starts at a starter), each output byte taking its segment's
// origin.
type unicodeForm struct{ form norm.Form }

func (u unicodeForm) normalize(s span) span {
	if u.form.IsNormal(s.text) {
		return s
	}
	var b builder
	var out []byte
	for i := 0; i < len(s.text); {
		n := u.form.NextBoundary(s.text[i:], true)
		if n <= 0 {
			n = len(s.text) - i
		}
		out = u.form.Append(out[:0], s.text[i:i+n]...)
		b.bytes(out, s.orig[i])
		i += n
	}
	return b.span()
}

// lowercase is Rust's char::to_lowercase, rune by rune (no final-sigma
// context): Go's simple mapping plus the one unconditional multi-rune
// mapping, U+0130 to "i̇".
type lowercase struct{}

func (lowercase) normalize(s span) span {
	return mapRunes(s, func(dst []rune, r rune) []rune {
		if r == 0x130 {
			return append(dst, 'i', 0x307)
		}
		return append(dst, unicode.ToLower(r))
	})
}

// stripAccents drops nonspacing marks (Mn); it does not decompose first.
type stripAccents struct{}

func (stripAccents) normalize(s span) span {
	return mapRunes(s, func(dst []rune, r rune) []rune {
		if unicode.Is(unicode.Mn, r) {
			return dst
		}
		return append(dst, r)
	})
}

// prepend adds its string before a non-empty span.
type prepend struct{ s []byte }

func (p prepend) normalize(s span) span {
	if len(s.text) == 0 {
		return s
	}
	var b builder
	b.bytes(p.s, s.orig[0])
	b.keep(s)
	return b.span()
}

// strip removes white space (White_Space) from the ends asked for.
type strip struct{ left, right bool }

func (p strip) normalize(s span) span {
	a, e := 0, len(s.text)
	if p.left {
		a = len(s.text) - len(trimLeftSpace(s.text))
	}
	if p.right {
		e = a + len(trimRightSpace(s.text[a:]))
	}
	return s.sub(a, e)
}

// replace substitutes content for every match of its pattern.
type replace struct {
	pattern matcher
	content []byte
}

func newReplace(f *fields) (normalizer, error) {
	m, err := patternField(f)
	if err != nil {
		return nil, err
	}
	return replace{pattern: m, content: []byte(f.str("content", ""))}, nil
}

func (p replace) normalize(s span) span {
	ms := p.pattern.find(nil, s.text)
	if len(ms) == 0 {
		return s
	}
	var b builder
	prev := 0
	for _, m := range ms {
		b.keep(s.sub(prev, m[0]))
		b.bytes(p.content, s.origin(m[0]))
		prev = m[1]
	}
	b.keep(s.sub(prev, len(s.text)))
	return b.span()
}
