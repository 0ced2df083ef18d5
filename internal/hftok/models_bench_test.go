package hftok

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// benchSource is Go source to count: this package's files.
func benchSource(b *testing.B) []byte {
	b.Helper()
	names, _ := filepath.Glob("*.go")
	var src []byte
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			b.Fatal(err)
		}
		src = append(src, data...)
	}
	return src
}

// byteLevelPieces splits src roughly as GPT-2's regex does (a space and a
// word, digits, punctuation, spaces) and maps bytes to ByteLevel's
// characters: the pieces a byte-level BPE receives.
func byteLevelPieces(src []byte) [][]byte {
	var table [256]rune
	n := 0
	for b := range 256 {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE {
			table[b] = rune(b)
		} else {
			table[b] = rune(256 + n)
			n++
		}
	}
	class := func(r rune) int {
		switch {
		case unicode.IsLetter(r):
			return 1
		case unicode.IsDigit(r):
			return 2
		case unicode.IsSpace(r):
			return 3
		}
		return 4
	}
	var pieces [][]byte
	for i := 0; i < len(src); {
		j := i
		if src[j] == ' ' && j+1 < len(src) && src[j+1] != ' ' {
			j++
		}
		r, w := utf8.DecodeRune(src[j:])
		c := class(r)
		for j += w; j < len(src); j += w {
			r, w = utf8.DecodeRune(src[j:])
			if class(r) != c {
				break
			}
		}
		var p []byte
		for _, b := range src[i:j] {
			p = utf8.AppendRune(p, table[b])
		}
		pieces = append(pieces, p)
		i = j
	}
	return pieces
}

func benchPieces(b *testing.B, m model, pieces [][]byte, srcLen int) {
	b.SetBytes(int64(srcLen))
	b.ReportAllocs()
	var dst []token
	b.ResetTimer()
	for range b.N {
		for _, p := range pieces {
			dst = m.tokenize(dst[:0], p)
		}
	}
}

// BenchmarkBPEByteLevel counts Go source with a real byte-level BPE
// (Qwen3's 151k vocab) named by HFTOK_BENCH_BPE.
func BenchmarkBPEByteLevel(b *testing.B) {
	path := os.Getenv("HFTOK_BENCH_BPE")
	if path == "" {
		b.Skip("HFTOK_BENCH_BPE not set (a byte-level BPE tokenizer.json)")
	}
	m := loadModelFile(b, path)
	src := benchSource(b)
	benchPieces(b, m, byteLevelPieces(src), len(src))
}

// BenchmarkBPEByteLevelUncached is the same with every piece distinct
// from the cache's view: the merge itself.
func BenchmarkBPEByteLevelUncached(b *testing.B) {
	path := os.Getenv("HFTOK_BENCH_BPE")
	if path == "" {
		b.Skip("HFTOK_BENCH_BPE not set (a byte-level BPE tokenizer.json)")
	}
	m := loadModelFile(b, path).(*bpe)
	src := benchSource(b)
	pieces := byteLevelPieces(src)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	sc := &bpeScratch{}
	b.ResetTimer()
	for range b.N {
		for _, p := range pieces {
			m.symbols(sc, p)
			m.mergeAll(sc)
		}
	}
}

// BenchmarkModelBuild builds a model from a big tokenizer.json named by
// HFTOK_BENCH_BIG (Gemma 3's: 262k tokens, 515k merges).
func BenchmarkModelBuild(b *testing.B) {
	path := os.Getenv("HFTOK_BENCH_BIG")
	if path == "" {
		b.Skip("HFTOK_BENCH_BIG not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var file struct{ Model json.RawMessage }
	if err := json.Unmarshal(data, &file); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := newModel(file.Model); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnigramBuild builds a synthetic 250k-token Unigram model (the
// size of multilingual-e5's).
func BenchmarkUnigramBuild(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0]`)
	for i, t := range bigVocab(250000) {
		fmt.Fprintf(&sb, `,[%q,%g]`, t, -float64(i%1000)/7)
	}
	sb.WriteString(`]}`)
	raw := json.RawMessage(sb.String())
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := newModel(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnigram counts Go source (spaces as "▁") with a synthetic
// Unigram model of every 1- to 4-byte substring of the source.
func BenchmarkUnigram(b *testing.B) {
	src := benchSource(b)
	text := strings.ReplaceAll(string(src), " ", "▁")
	seen := map[string]bool{}
	var sb strings.Builder
	sb.WriteString(`{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0]`)
	for i := 0; i < len(text) && len(seen) < 150000; i++ {
		for n := 1; n <= 4 && i+n <= len(text); n++ {
			if s := text[i : i+n]; utf8.ValidString(s) && !seen[s] {
				seen[s] = true
				fmt.Fprintf(&sb, `,[%q,%g]`, s, -float64(len(seen)%997)/13-float64(n))
			}
		}
	}
	sb.WriteString(`]}`)
	m := mustModel(b, sb.String())
	var pieces [][]byte
	for _, line := range strings.SplitAfter(text, "\n") {
		for _, w := range strings.SplitAfter(line, "▁") {
			pieces = append(pieces, []byte(w))
		}
	}
	benchPieces(b, m, pieces, len(src))
}

// BenchmarkWordPiece counts Go source split at spaces and punctuation
// with a synthetic vocabulary of its 1- to 4-byte substrings.
func BenchmarkWordPiece(b *testing.B) {
	src := benchSource(b)
	vocab := map[string]int{"[UNK]": 0}
	words := strings.FieldsFunc(string(src), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		for i := 0; i < len(w); i++ {
			for n := 1; n <= 4 && i+n <= len(w); n++ {
				k := w[i : i+n]
				if i > 0 {
					k = "##" + k
				}
				if _, ok := vocab[k]; !ok {
					vocab[k] = len(vocab)
				}
			}
		}
	}
	vj, _ := json.Marshal(vocab)
	m := mustModel(b, `{"type":"WordPiece","unk_token":"[UNK]","vocab":`+string(vj)+`}`)
	pieces := make([][]byte, len(words))
	for i, w := range words {
		pieces[i] = []byte(w)
	}
	benchPieces(b, m, pieces, len(src))
}
