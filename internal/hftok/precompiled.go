package hftok

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// precompiled is SentencePiece's precompiled_charsmap as the crate
// spm_precompiled reads it and the tokenizers crate applies it: a
// darts-clone double-array trie from UTF-8 keys to offsets of
// NUL-terminated replacements in a blob.
type precompiled struct {
	trie       []uint32
	normalized []byte
	ascii      [utf8.RuneSelf]asciiRule // each ASCII byte's own lookup
}

// asciiRule is what one ASCII byte alone becomes: its replacement when
// matched, else the byte kept.
type asciiRule struct {
	matched bool
	to      []byte
}

// newPrecompiled decodes the base64 charsmap: a little-endian u32 byte
// size of the trie, the trie's u32 units, then the replacements, which
// must be UTF-8 (the crate refuses the file otherwise).
func newPrecompiled(f *fields) (normalizer, error) {
	var enc string
	if !f.get("precompiled_charsmap", &enc) {
		return nil, f.errorf("field \"precompiled_charsmap\"", "missing")
	}
	data, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, f.errorf("field \"precompiled_charsmap\"", "not base64: %v", err)
	}
	if len(data) < 4 {
		return nil, f.errorf("field \"precompiled_charsmap\"", "%d bytes, too short for the trie's size", len(data))
	}
	units := int(binary.LittleEndian.Uint32(data) / 4)
	data = data[4:]
	if units == 0 || len(data) < 4*units {
		return nil, f.errorf("field \"precompiled_charsmap\"", "a trie of %d units does not fit in %d bytes", units, len(data))
	}
	p := &precompiled{trie: make([]uint32, units), normalized: data[4*units:]}
	for i := range p.trie {
		p.trie[i] = binary.LittleEndian.Uint32(data[4*i:])
	}
	if !utf8.Valid(p.normalized) {
		return nil, f.errorf("field \"precompiled_charsmap\"", "the normalized strings are not UTF-8")
	}
	for c := range p.ascii {
		p.ascii[c].to, p.ascii[c].matched = p.transform([]byte{byte(c)})
	}
	return p, nil
}

// transform is the crate's Precompiled::transform: the replacement of the
// SHORTEST key that is a prefix of chunk (the first result of a common
// prefix search), whatever the length of chunk. A NUL ends the key.
func (p *precompiled) transform(chunk []byte) ([]byte, bool) {
	t := p.trie
	pos := unitOffset(t[0])
	for _, c := range chunk {
		if c == 0 {
			break
		}
		pos ^= uint32(c)
		if int(pos) >= len(t) {
			return nil, false // the crate would index out of bounds
		}
		u := t[pos]
		if u&(1<<31|0xFF) != uint32(c) {
			return nil, false
		}
		pos ^= unitOffset(u)
		if u>>8&1 == 1 {
			if int(pos) >= len(t) {
				return nil, false
			}
			return p.at(int(t[pos] & (1<<31 - 1)))
		}
	}
	return nil, false
}

// unitOffset is a darts-clone unit's offset to its children.
func unitOffset(u uint32) uint32 {
	return (u >> 10) << ((u & (1 << 9)) >> 6)
}

// at is the replacement starting at index i of the blob, up to its NUL.
func (p *precompiled) at(i int) ([]byte, bool) {
	if i > len(p.normalized) {
		return nil, false // the crate would panic slicing
	}
	s := p.normalized[i:]
	if n := bytes.IndexByte(s, 0); n >= 0 {
		s = s[:n]
	}
	return s, true
}

// normalize is the tokenizers crate's Normalizer for Precompiled: grapheme
// cluster by cluster, a cluster under 6 bytes that transform matches is
// replaced whole (by the replacement of its shortest matching prefix, so
// marks after a mapped character can vanish, as in the crate); otherwise
// each character is transformed alone or kept. A run of ASCII is
// clusters of one byte, except CR LF, and is looked up in a table.
func (p *precompiled) normalize(s span) span {
	var b builder
	b.text = make([]byte, 0, len(s.text))
	b.orig = make([]int32, 0, len(s.text))
	for i := 0; i < len(s.text); {
		c := s.text[i]
		next := byte(0)
		if i+1 < len(s.text) {
			next = s.text[i+1]
		}
		if c < utf8.RuneSelf && next < utf8.RuneSelf && !(c == '\r' && next == '\n') {
			if r := p.ascii[c]; r.matched {
				b.bytes(r.to, s.orig[i])
			} else {
				b.text = append(b.text, c)
				b.orig = append(b.orig, s.orig[i])
			}
			i++
			continue
		}
		g, _, _, _ := uniseg.FirstGraphemeCluster(s.text[i:], -1)
		p.cluster(&b, s.sub(i, i+len(g)))
		i += len(g)
	}
	return b.span()
}

// cluster appends what one grapheme cluster g becomes; every byte of a
// replacement takes the origin of the first byte it replaces.
func (p *precompiled) cluster(b *builder, g span) {
	if len(g.text) < 6 {
		if to, ok := p.transform(g.text); ok {
			b.bytes(to, g.orig[0])
			return
		}
	}
	for j := 0; j < len(g.text); {
		_, n := utf8.DecodeRune(g.text[j:])
		if to, ok := p.transform(g.text[j : j+n]); ok {
			b.bytes(to, g.orig[j])
		} else {
			b.keep(g.sub(j, j+n))
		}
		j += n
	}
}
