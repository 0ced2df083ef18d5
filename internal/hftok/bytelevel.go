package hftok

import (
	"bytes"
	"unicode/utf8"
)

// byteLevel is GPT-2's pre-tokenizer: an optional leading space, the GPT-2
// regex's pieces (use_regex), then every byte written as the printable
// rune bytes_to_unicode gives it, which is what a byte-level BPE
// vocabulary holds. trim_offsets only moves offsets.
type byteLevel struct {
	prefixSpace, useRegex bool
	chars                 *[256][]byte
}

func newByteLevel(f *fields) preTokenizer {
	f.ignore("trim_offsets")
	return byteLevel{
		prefixSpace: f.boolean("add_prefix_space", true),
		useRegex:    f.boolean("use_regex", true),
		chars:       byteChars(),
	}
}

// byteChars is bytes_to_unicode: the printable bytes ! to ~, ¡ to ¬ and ®
// to ÿ are themselves, the others 256, 257, ... in byte order.
func byteChars() *[256][]byte {
	var t [256][]byte
	next := rune(256)
	for b := range 256 {
		r := rune(b)
		if !(b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE) {
			r = next
			next++
		}
		t[b] = utf8.AppendRune(nil, r)
	}
	return &t
}

func (p byteLevel) split(dst, in []span) []span {
	n, size := len(dst), 0
	var ms [][2]int
	dst = eachPiece(dst, in, func(dst []span, s span) []span {
		if p.prefixSpace && !bytes.HasPrefix(s.text, []byte(" ")) {
			var b builder
			b.bytes([]byte(" "), s.origin(0))
			b.keep(s)
			s = b.span()
		}
		size += len(s.text)
		if !p.useRegex {
			return append(dst, s)
		}
		ms = tiling(nextGPT2).find(ms[:0], s.text)
		return splitSpan(dst, s, ms, isolated, false)
	})
	// One allocation for all the pieces: a mapped byte is at most two.
	var b builder
	b.text = make([]byte, 0, 2*size)
	b.orig = make([]int32, 0, 2*size)
	for k := n; k < len(dst); k++ {
		if dst[k].added {
			continue
		}
		a := len(b.text)
		for i, c := range dst[k].text {
			b.bytes(p.chars[c], dst[k].orig[i])
		}
		dst[k] = span{text: b.text[a:len(b.text):len(b.text)], orig: b.orig[a:len(b.orig):len(b.orig)]}
	}
	return dst
}

// metaspace is SentencePiece's pre-tokenizer: ' ' becomes the replacement
// (▁), which is prepended by the scheme (always; first: only to the piece
// that starts the text; never), and with split each replacement starts a
// new piece (MergedWithNext).
type metaspace struct {
	rep    []byte
	scheme string
	splits bool
}

func newMetaspace(f *fields) (preTokenizer, error) {
	m := metaspace{rep: []byte(f.str("replacement", "▁")), splits: f.boolean("split", true)}
	if r, n := utf8.DecodeRune(m.rep); r == utf8.RuneError || n != len(m.rep) {
		return nil, f.errorf("replacement", "not one character")
	}
	m.scheme = "always"
	if f.get("prepend_scheme", &m.scheme) {
		f.ignore("add_prefix_space")
	} else if !f.boolean("add_prefix_space", true) {
		m.scheme = "never"
	}
	f.ignore("str_rep")
	switch m.scheme {
	case "always", "first", "never":
		return m, nil
	}
	return nil, f.errorf("prepend_scheme", "%q is not implemented", m.scheme)
}

func (m metaspace) split(dst, in []span) []span {
	return eachPiece(dst, in, m.splitOne)
}

func (m metaspace) splitOne(dst []span, s span) []span {
	var b builder
	if !bytes.HasPrefix(s.text, []byte(" ")) && !bytes.HasPrefix(s.text, m.rep) &&
		(m.scheme == "always" || m.scheme == "first" && s.origin(0) == 0) {
		b.bytes(m.rep, s.origin(0))
	}
	for i, c := range s.text {
		if c == ' ' {
			b.bytes(m.rep, s.orig[i])
		} else {
			b.bytes([]byte{c}, s.orig[i])
		}
	}
	s = b.span()
	if !m.splits {
		if len(s.text) > 0 {
			dst = append(dst, s)
		}
		return dst
	}
	return splitSpan(dst, s, literal(m.rep).find(nil, s.text), mergedWithNext, false)
}
