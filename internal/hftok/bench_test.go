package hftok

import (
	"os"
	"testing"
)

// BenchmarkPipeline measures the pipeline without a real model (each piece
// one token), on this package's own source: the cost castchunk pays on top
// of the model.
func BenchmarkPipeline(b *testing.B) {
	src, err := os.ReadFile("normalize.go")
	if err != nil {
		b.Fatal(err)
	}
	tk, err := parse([]byte(doc(`{"type":"NFC"}`, `{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":`+
		"\"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}| ?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+\""+
		`},"behavior":"Isolated","invert":false},{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":false,"use_regex":false}]}`, "", "")), newFake)
	if err != nil {
		b.Fatal(err)
	}
	c := tk.NewCounter()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		c.Count(src)
	}
}
