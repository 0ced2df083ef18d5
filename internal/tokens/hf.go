package tokens

import (
	"os"
	"strings"

	"github.com/castchunk/castchunk/internal/hftok"
)

// isTokenizerFile reports whether a --tokenizer value names a
// tokenizer.json rather than an encoding: a path (it has a separator or a
// .json name) or anything that exists on disk.
func isTokenizerFile(name string) bool {
	for _, s := range specs {
		if s.name == name {
			return false
		}
	}
	if strings.ContainsRune(name, os.PathSeparator) || strings.HasSuffix(name, ".json") {
		return true
	}
	_, err := os.Stat(name)
	return err == nil
}

// loadFile loads a Hugging Face tokenizer.json (or the folder holding
// one), which package hftok counts exactly or refuses.
func loadFile(name string) (*Encoding, error) {
	_, data, err := hftok.ReadFile(name)
	if err != nil {
		return nil, err
	}
	e, err := FromFileData(name, data)
	if err != nil {
		return nil, err
	}
	e.data = data
	return e, nil
}

// FromFileData is the Encoding of a tokenizer.json's bytes, as a worker
// process builds it from what its parent read (FileData), so that every
// process of a run counts with the same file.
func FromFileData(name string, data []byte) (*Encoding, error) {
	t, err := hftok.FromData(name, data)
	if err != nil {
		return nil, err
	}
	return &Encoding{name: name, hf: t}, nil
}

// FileData is the bytes of the tokenizer.json e was loaded from (nil for
// the named encodings, and for an Encoding built by FromFileData).
func (e *Encoding) FileData() []byte { return e.data }

// WithoutSpecials returns e counting without the special tokens a
// tokenizer.json's post-processor adds ([CLS] and [SEP], a <bos>), for an
// embedder that feeds the text without them; the named encodings add
// none.
func (e *Encoding) WithoutSpecials() *Encoding {
	if e.hf == nil || e.hf.Specials() == 0 {
		return e
	}
	c := *e
	c.noSpecials = true
	return &c
}

// Specials is the number of special tokens every count includes: those
// a tokenizer.json's post-processor adds to a text, unless
// WithoutSpecials; 0 for the named encodings.
func (e *Encoding) Specials() int {
	if e.hf == nil || e.noSpecials {
		return 0
	}
	return e.hf.Specials()
}

// dropped is the number of special tokens hftok counts that e does not.
func (e *Encoding) dropped() int {
	if e.hf != nil && e.noSpecials {
		return e.hf.Specials()
	}
	return 0
}

// Key names e for the cache key and the worker processes: the encoding's
// name, or for a tokenizer.json the SHA-256 of its bytes (a changed file
// misses the cache), and whether the specials are counted.
func (e *Encoding) Key() string {
	if e.hf == nil {
		return e.name
	}
	k := "tokenizer.json sha256:" + e.hf.SHA256()
	if e.noSpecials {
		k += " no-special-tokens"
	}
	return k
}
