package tokens

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"

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

// hfFile is a tokenizer.json: its bytes, their SHA-256, and the
// tokenizer built from them, on first need (parse): a run whose every file
// is a cache hit never builds it (Deferred).
type hfFile struct {
	name string
	data []byte // for the worker processes; nil once a worker has built it
	sum  string // hex SHA-256 of data
	once sync.Once
	t    *hftok.Tokenizer
	err  error
	// specials is the post-processor's count, known once the file is
	// parsed or trusted (Trust); -1 before.
	specials atomic.Int64
}

// parse builds the tokenizer, once.
func (f *hfFile) parse() (*hftok.Tokenizer, error) {
	f.once.Do(func() {
		if f.t == nil {
			f.t, f.err = hftok.FromData(f.name, f.data)
		}
		if f.err == nil {
			f.specials.Store(int64(f.t.Specials()))
		}
	})
	return f.t, f.err
}

// tok is the tokenizer, for counting: the file was checked before
// (Validate, or Load), so it cannot fail but by a bug.
func (f *hfFile) tok() *hftok.Tokenizer {
	t, err := f.parse()
	if err != nil {
		panic(fmt.Sprintf("tokens: a tokenizer.json used before it was checked: %v", err))
	}
	return t
}

// rawSpecials is the post-processor's count (parsing the file when it
// was neither parsed nor trusted).
func (f *hfFile) rawSpecials() int {
	if n := f.specials.Load(); n >= 0 {
		return int(n)
	}
	if _, err := f.parse(); err != nil {
		return 0
	}
	return int(f.specials.Load())
}

// loadFile reads a Hugging Face tokenizer.json (or the folder holding
// one), which package hftok counts exactly or refuses, and checks it
// (Validate) unless deferred.
func loadFile(name string, deferred bool) (*Encoding, error) {
	_, data, err := hftok.ReadFile(name)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	f := &hfFile{name: name, data: data, sum: hex.EncodeToString(sum[:])}
	f.specials.Store(-1)
	e := &Encoding{name: name, hf: f}
	if !deferred {
		if err := e.Validate(); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// LoadDeferred is Load, but a tokenizer.json is only read: it is built
// when first needed, and checked by Validate, or trusted by Trust (a cache
// that saw the same bytes checked), either before its Specials are asked
// for.
func LoadDeferred(name string) (*Encoding, error) {
	if isTokenizerFile(name) {
		return loadFile(name, true)
	}
	return Load(name)
}

// Validate builds a tokenizer.json's tokenizer now, and says why it
// cannot be; nil for the named encodings.
func (e *Encoding) Validate() error {
	if e.hf == nil {
		return nil
	}
	_, err := e.hf.parse()
	return err
}

// Deferred reports whether e is a tokenizer.json not yet built.
func (e *Encoding) Deferred() bool {
	return e.hf != nil && e.hf.specials.Load() < 0
}

// Trust takes e's tokenizer.json as checked, with specials special tokens
// (what Validate found in a run before, on the same bytes: Sum), without
// building it.
func (e *Encoding) Trust(specials int) {
	if e.hf != nil && e.hf.specials.Load() < 0 {
		e.hf.specials.Store(int64(specials))
	}
}

// Sum is the hex SHA-256 of a tokenizer.json's bytes; "" for the named
// encodings.
func (e *Encoding) Sum() string {
	if e.hf == nil {
		return ""
	}
	return e.hf.sum
}

// FromFileData is the Encoding of a tokenizer.json's bytes, as a worker
// process builds it from what its parent read (FileData), so that every
// process of a run counts with the same file.
func FromFileData(name string, data []byte) (*Encoding, error) {
	t, err := hftok.FromData(name, data)
	if err != nil {
		return nil, err
	}
	f := &hfFile{name: name, sum: t.SHA256(), t: t}
	f.specials.Store(-1)
	e := &Encoding{name: name, hf: f}
	return e, e.Validate()
}

// FileData is the bytes of the tokenizer.json e was loaded from (nil for
// the named encodings, and for an Encoding built by FromFileData).
func (e *Encoding) FileData() []byte {
	if e.hf == nil {
		return nil
	}
	return e.hf.data
}

// WithoutSpecials returns e counting without the special tokens a
// tokenizer.json's post-processor adds ([CLS] and [SEP], a <bos>), for an
// embedder that feeds the text without them; the named encodings add
// none. For a tokenizer.json not yet built (Deferred) it marks the
// encoding without asking: the caller checks Specials once it knows them.
func (e *Encoding) WithoutSpecials() *Encoding {
	if e.hf == nil || !e.Deferred() && e.hf.rawSpecials() == 0 {
		return e
	}
	c := *e
	c.noSpecials = true
	return &c
}

// CountsSpecials reports whether e counts the special tokens its
// tokenizer.json's post-processor adds (not WithoutSpecials).
func (e *Encoding) CountsSpecials() bool { return !e.noSpecials }

// Specials is the number of special tokens every count includes: those
// a tokenizer.json's post-processor adds to a text, unless
// WithoutSpecials; 0 for the named encodings.
func (e *Encoding) Specials() int {
	if e.hf == nil || e.noSpecials {
		return 0
	}
	return e.hf.rawSpecials()
}

// RawSpecials is Specials as if e counted them (not WithoutSpecials).
func (e *Encoding) RawSpecials() int {
	if e.hf == nil {
		return 0
	}
	return e.hf.rawSpecials()
}

// dropped is the number of special tokens hftok counts that e does not.
func (e *Encoding) dropped() int {
	if e.hf != nil && e.noSpecials {
		return e.hf.rawSpecials()
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
	k := "tokenizer.json sha256:" + e.hf.sum
	if e.noSpecials {
		k += " no-special-tokens"
	}
	return k
}

// Built reports whether a tokenizer.json's tokenizer was built in this
// process (for the tests: a warm run builds none).
func (e *Encoding) Built() bool {
	return e.hf != nil && e.hf.t != nil
}
