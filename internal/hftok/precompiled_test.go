package hftok

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// testCharsmap is a precompiled_charsmap spm_train (sentencepiece 0.1.97)
// compiled from the 64 rules of nmt_nfkc whose keys occur in the inputs of
// TestPrecompiled, so it normalizes them as nmt_nfkc does
// (spm_normalize gave the same output with the full and the small model).
const testCharsmap = "AAQAAAAMAAAAAACAAQ0AAMwwAgABAACAig0AAEoAAIDMHAIAiA0AAAo1AAAJOQAATQAAgMwAAgCBCQAADSkAAFAAAIDMJAIA" +
	"iA0AAH8AAIARAACACwAAgIUNAAAbAACAtwwDAMxIAgCTDQAAgwAAgIcAAICCHQAAuMACALMFAAB4AACAhAgCAKCVAACAgAMA" +
	"4QgCAIWAAgChDQAArwAAgLMAAICGqAIAgIwDAKg1AAAFAACAIwAAgIT8AgBTAACACQAAgKJxAAATAACAgNkAALKBAACmaQAA" +
	"ohEAAKGVAACgYQAAkbwCAKv9AACPBQAAOgAAgL2hAACB5QEAgu0BAIPlAQCs8AMAixUBAEE0AgCAxAMAMAAAgDMAAIAsAACA" +
	"uj0AAFYAAIC/NQEAAwAAgBUAAICACQAAjuADAEcAAIAhAACAvAgCAL34AgC+YAEAgWUAACYAAIAoAACAKgAAgLuEAgC32QAA" +
	"tuEAAD0AAIC3mAIAQwAAgEUAAICxBQAAkwAAgI/xAACXAACAYaQCAIzlAACCaAIAt8UAAGWYAgCZPQAAmwAAgL5oAgCF8QAA" +
	"hPkAAKYdAQCeFQAAnwAAgL4EAgCeBQAAowAAgKcAAICh4QAAnwUAAKsAAIC+dAIAiwAAgI8AAICdhAEAqNUAAHicAgB/9QEA" +
	"koEAABUAAIAXAACAiskDAO9AAQDjkAEAGQAAgL4FAAAfAACANgAAgMwsAQCQYAIAOAAAgIgAAAA/AACAlNgCAJXEAgDvZAEA" +
	"jQAAAIC5AwCBuQMAgkUAAEEAAICejQMAn7UDAJQAAACVAAAAmgAAAJsAAACYAAAAmQAAAKABAwDvVAEAnAAAAKMJAwCiAAAA" +
	"owAAAJ6lAACfwQAAmIkAAKcAAACavQAApQAAAKoAAACV8QMAqAAAAKkAAACuAAAArwAAAKwAAACtAAAAsgAAALMAAACwAAAA" +
	"sQAAALYAAAC3AAAAtAAAALUAAAC6AAAAuwAAALgAAAC5AAAAvgAAAL8AAAC8AAAAvQAAAMIAAADCAAEAwAAAAMEAAADHUAEA" +
	"xwAAAMQAAADhpAEAygAAAMsAAADIAAAAyQAAAM4AAADOtAEAzAAAAM0AAADSAAAA0wAAANAAAADRAAAA1gAAANcAAADUAAAA" +
	"zSQBANoAAADbAAAA2AAAANkAAADeAAAA3wAAANwAAADdAAAA44wAAOIgAQDhGAEA4BgBAOYAAADnAAAA5AAAAOUAAADqAAAA" +
	"6wAAAOgAAADpAAAA7wAAAO8AAADsAAAA7QAAAPIAAADzAAAA8AAAAPBcAAD2AAAA9wAAAPQAAAD1AAAA+gAAAPsAAAD4AAAA" +
	"+QAAAP4AAAD/AAAA/AAAAP0AAAAAIAAhAC4uLgAxADHigYQyADIAMwBBAEIAQwBExb4ARwBIAFRNAFcAZABlAGZmaQBmaQBm" +
	"bABnAGkAa2cAbABtAG4AbwByAMOAAMOFAMOkAMOpAM6pANi12YTZiSDYp9mE2YTZhyDYudmE2YrZhyDZiNiz2YTZhQDguY3g" +
	"uLIA4bqNAOG8oADhvKYA44KZAOOCmgDjgqIA44KrAOOCrADjgq0A44KuAOODjwDjg5EA6rCAAOqwgQA="

func testPrecompiled(t *testing.T) *precompiled {
	t.Helper()
	raw, _ := json.Marshal(map[string]string{"type": "Precompiled", "precompiled_charsmap": testCharsmap})
	n, err := newNormalizer(raw)
	if err != nil {
		t.Fatal(err)
	}
	return n.(*precompiled)
}

// TestPrecompiled checks the crate's output, which an independent model of
// it gave (Python: the decompiled rules, shortest prefix, regex's \X
// clusters; it also gives the crate's own two cases, Good morning and
// Thai), and, through the trie's longest match, spm_normalize's output
// (--remove_extra_whitespaces=false, the model without the dummy prefix).
// Where the two differ the crate is followed: a cluster of 6 bytes or more
// goes character by character, so nothing composes across it (half-width
// kana with their sound marks, Hangul jamo, stacked marks); a shorter
// cluster is replaced whole by its shortest mapped prefix, so marks after
// a mapped character vanish (ﬁ + U+0301, Ａ + U+0300, CR LF).
func TestPrecompiled(t *testing.T) {
	p := testPrecompiled(t)
	cases := []struct{ in, crate, spm string }{
		{"hello, world 42", "hello, world 42", "hello, world 42"},
		{"\uff28\uff45\uff4c\uff4c\uff4f\u3000\uff37\uff4f\uff52\uff4c\uff44\uff01", "Hello World!", "Hello World!"},
		{"\ufb01ne \ufb02ow \ufb03", "fine flow ffi", "fine flow ffi"},
		{"\u2460\u2461\u2462 \u338f \u2122 \u00bd x\u00b2", "123 kg TM 1⁄2 x2", "123 kg TM 1⁄2 x2"},
		{"\uff76\uff9e\uff77\uff9e \uff8a\uff9f \uff71", "カ\u3099キ\u3099 ハ\u309a ア", "\u30ac\u30ae \u30d1 ア"},
		{"e\u0301t\u00e9", "\u00e9t\u00e9", "\u00e9t\u00e9"},
		{"\ufb01\u0301", "fi", "fi\u0301"},
		{"\u1100\u1161\u11a8 \u1100\u1161", "\u1100\u1161\u11a8 \u1100\u1161", "\uac01 \uac00"},
		{"\ud55c\uad6d\uc5b4 日本語", "\ud55c\uad6d\uc5b4 日本語", "\ud55c\uad6d\uc5b4 日本語"},
		{"👍🏽 👨\u200d👩\u200d👧 🇯🇵🇫🇷 ❤\ufe0f", "👍🏽 👨\u200d👩\u200d👧 🇯🇵🇫🇷 ❤\ufe0f", "👍🏽 👨\u200d👩\u200d👧 🇯🇵🇫🇷 ❤\ufe0f"},
		{"a\tb  c\u00a0d\u3000e", "a b  c d e", "a b  c d e"},
		{"x\u200by\ufeffz", "x y z", "x y z"},
		{"\x01x\x7f", "x", "x"},
		{"क\u094dषत\u094dर\u093fय क\u093c", "क\u094dषत\u094dर\u093fय क\u093c", "क\u094dषत\u094dर\u093fय क\u093c"},
		{"η\u0313\u0342", "η\u0313\u0342", "\u1f26"},
		{"\u212b \u2126", "\u00c5 Ω", "\u00c5 Ω"},
		{"\u01c5 ß \u0130", "D\u017e ß \u0130", "D\u017e ß \u0130"},
		{"\ufdfa", "صلى الله عليه وسلم", "صلى الله عليه وسلم"},
		{"\U0001d400\U0001d401\U0001d402", "ABC", "ABC"},
		{"wait\u2026", "wait...", "wait..."},
		{"x\u0308\u0301", "\u1e8d", "\u1e8d\u0301"},
		{"a\u0308\u0301", "\u00e4", "\u00e4\u0301"},
		{"\uff21\u0300", "A", "\u00c0"},
		{"\uff76\u3099", "カ\u3099", "\u30ac"},
		{"\u0301a", "\u0301a", "\u0301a"},
		{"\u00f1 \u00f1", "\u00f1 \u00f1", "\u00f1 \u00f1"},
		{"A\u030a\u0323", "\u00c5", "\u00c5\u0323"},
		{"\U0001d53e\U0001d560\U0001d560\U0001d555 \U0001d55e\U0001d560\U0001d563\U0001d55f\U0001d55a\U0001d55f\U0001d558", "Good morning", "Good morning"},
		{"เขาไม\u0e48ได\u0e49พ\u0e39ดส\u0e31กค\u0e33", "เขาไม\u0e48ได\u0e49พ\u0e39ดส\u0e31กค\u0e4dา", "เขาไม\u0e48ได\u0e49พ\u0e39ดส\u0e31กค\u0e4dา"},
		{"a\r", "a ", "a "},
		{"b\rc", "b c", "b c"},
		{"\r", " ", " "},
		// spm_normalize reads lines: "a\r" + "\n" (nmt_nfkc maps it to " ", and has no key CR LF) + "b\rc".
		{"a\r\nb\rc", "a b c", "a  b c"},
	}
	for _, c := range cases {
		if got := string(p.normalize(newSpan([]byte(c.in))).text); got != c.crate {
			t.Errorf("Precompiled %+q = %+q, want %+q", c.in, got, c.crate)
		}
		if got := string(spmNormalize(p, []byte(c.in))); got != c.spm {
			t.Errorf("longest match of %+q = %+q, want spm_normalize's %+q", c.in, got, c.spm)
		}
	}
}

// TestPrecompiledOrigins checks that a replacement's bytes come from the
// first byte of what it replaces and kept bytes keep theirs.
func TestPrecompiledOrigins(t *testing.T) {
	p := testPrecompiled(t)
	s := p.normalize(newSpan([]byte("x\uFB01\u0301\u00E9")))
	if string(s.text) != "xfi\u00E9" {
		t.Fatalf("text %+q", s.text)
	}
	want := []int32{0, 1, 1, 6, 7}
	if len(s.orig) != len(want) {
		t.Fatalf("origins %v, want %v", s.orig, want)
	}
	for i := range want {
		if s.orig[i] != want[i] {
			t.Fatalf("origins %v, want %v", s.orig, want)
		}
	}
}

func TestPrecompiledRefusals(t *testing.T) {
	enc := base64.StdEncoding.EncodeToString
	cases := []struct{ charsmap, want string }{
		{"%%%", "not base64"},
		{"AAAA", "too short"},
		{enc([]byte{0, 0, 0, 0}), "a trie of 0 units"},
		{enc([]byte{8, 0, 0, 0, 1, 2, 3, 4}), "a trie of 2 units does not fit in 4 bytes"},
		{enc([]byte{4, 0, 0, 0, 0, 0, 0, 0, 0xff}), "not UTF-8"},
	}
	for _, c := range cases {
		raw, _ := json.Marshal(map[string]string{"type": "Precompiled", "precompiled_charsmap": c.charsmap})
		_, err := newNormalizer(raw)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), `normalizer Precompiled: field "precompiled_charsmap"`) {
			t.Errorf("charsmap %q: error %v, want one with %q", c.charsmap, err, c.want)
		}
	}
	if _, err := newNormalizer(json.RawMessage(`{"type":"Precompiled"}`)); err == nil {
		t.Error("no charsmap: no error")
	}
}

// spmNormalize is SentencePiece's Normalizer with no white-space handling:
// the replacement of the LONGEST key at each position, else the character
// copied. It checks the trie against spm_normalize, whose rule the
// crate's grapheme-wise transform departs from.
func spmNormalize(p *precompiled, text []byte) []byte {
	var out []byte
	for i := 0; i < len(text); {
		n, to := p.longest(text[i:])
		if n == 0 {
			_, n = utf8.DecodeRune(text[i:])
			to = text[i : i+n]
		}
		out = append(out, to...)
		i += n
	}
	return out
}

// longest is darts-clone's common prefix search keeping its longest
// result: the key's length and its replacement.
func (p *precompiled) longest(key []byte) (int, []byte) {
	t := p.trie
	pos := unitOffset(t[0])
	best, value := 0, uint32(0)
	for i, c := range key {
		pos ^= uint32(c)
		if int(pos) >= len(t) || t[pos]&(1<<31|0xFF) != uint32(c) {
			break
		}
		u := t[pos]
		pos ^= unitOffset(u)
		if u>>8&1 == 1 {
			best, value = i+1, t[pos]&(1<<31-1)
		}
	}
	if best == 0 {
		return 0, nil
	}
	to, _ := p.at(int(value))
	return best, to
}
