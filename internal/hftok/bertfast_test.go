package hftok

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBertNormalizerFastPath: the one-pass ASCII path gives what the
// crate's four steps give, text and offsets, for every combination of the
// options, on text mixing ASCII controls, white space, capitals, accents
// (precomposed and combining), CJK and other scripts.
func TestBertNormalizerFastPath(t *testing.T) {
	alphabet := []string{"a", "Z", " ", "\t", "\n", "\r", "\v", "\f", "\x00", "\x7f", "\x01", "é", "E\u0301", "\u0301",
		"中", "\U00020000", "Σ", "İ", "\u00a0", "\u2028", "\ufffd", "\u200b", "ß", "ǅ", "x\u0308\u0323", "_", "9"}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 2000 {
		var text []byte
		for range rng.IntN(12) {
			text = append(text, alphabet[rng.IntN(len(alphabet))]...)
		}
		b := bertNormalizer{clean: n&1 != 0, chinese: n&2 != 0, strip: n&4 != 0, lower: n&8 != 0}
		fast, slow := b.normalize(newSpan(text)), b.steps(newSpan(text))
		if string(fast.text) != string(slow.text) || !slices.Equal(fast.orig, slow.orig) {
			t.Fatalf("%+v on %q: fast %q %v, steps %q %v", b, text, fast.text, fast.orig, slow.text, slow.orig)
		}
	}
}
