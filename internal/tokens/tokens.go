// Package tokens counts tokens the way OpenAI's tiktoken encodings
// cl100k_base and o200k_base do, exactly and offline, fast enough to count
// every chunk of a run. It owns the tokenizer names, the pre-tokenizers
// (split.go: each encoding's split regex as hand-written scans, ASCII and
// Unicode alike) and byte-pair encoding (bpe.go). The vocabularies come from
// github.com/tiktoken-go/tokenizer, which embeds them; that module counts
// too, but its regex engine runs at about 6 MB/s, which would double a run.
//
// Counts follow Python tiktoken's encode_ordinary: special tokens such as
// "<|endoftext|>" are ordinary text. They equal the module's own Count
// except on a whitespace run with two newlines apart ("\n  \n"), which the
// module's generated regex code splits at the first newline where tiktoken
// (and js-tiktoken, and regexp2's interpreter) split after the last; the
// tests hold Count to both (ref_test.go) and to js-tiktoken (tokref_test.go).
//
// Character classes (\p{L}, \p{N}, ...) are Unicode 16.0.0's, as in the regex
// crate tiktoken splits with; Go's unicode tables are older (15.0.0), and
// unicode_table.go, generated from Unicode 16.0.0's data, adds the letters,
// digits and marks since (CJK Extension I, Garay, ...). js-tiktoken follows
// node's tables, 17.0 on node 20.20.2, and so can part from tiktoken on the
// runes Unicode 17.0 added or changed (tokref_test.go).
//
// Text must be valid UTF-8 (castchunk never chunks other text): an invalid
// byte is read as U+FFFD for splitting and counted as its own bytes, a case
// tiktoken, which takes strings, does not define.
package tokens

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/castchunk/castchunk/internal/hftok"
)

// An Encoding is a loaded vocabulary with its pre-tokenizer. It is shared
// and read-only after Load; count with a Counter.
type Encoding struct {
	name  string
	next  func(text []byte, i int) int // the end of the piece that starts at i
	ranks func() *table                // token bytes → rank (= token id), built on first use

	hf         *hfFile // a Hugging Face tokenizer.json (hf.go), shared by WithoutSpecials' copy; nil for the named encodings
	noSpecials bool    // hf: leave out the special tokens its post-processor adds
}

// spec is what Load needs to build one encoding.
type spec struct {
	name  string
	size  int // ranks 0..size-1 are the ordinary tokens
	codec func() *codec.Codec
	next  func(text []byte, i int) int
}

var specs = []spec{
	{"cl100k_base", 100256, codec.NewCl100kBase, nextCl100k},
	{"o200k_base", 199998, codec.NewO200kBase, nextO200k},
}

// Names returns the names Load accepts.
func Names() []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.name
	}
	return names
}

// loaded caches each Encoding: building its vocabulary costs tens of milliseconds and
// megabytes, and every Counter of a run shares it.
var loaded sync.Map // name → *Encoding, its vocabulary built once

// Load returns the named encoding. Its vocabulary (tens of milliseconds
// and megabytes) is built when a text is first counted, so that a run that
// counts nothing (every file a cache hit) never pays for it.
func Load(name string) (*Encoding, error) {
	if isTokenizerFile(name) {
		return loadFile(name, false)
	}
	for _, s := range specs {
		if s.name == name {
			// The pre-tokenizers read the class table: it must be ready
			// before the first split, whether or not a vocabulary is built.
			bmpClassOnce.Do(initClasses)
			e, _ := loaded.LoadOrStore(name, &Encoding{name: s.name, next: s.next, ranks: sync.OnceValue(func() *table { return mustBuild(s) })})
			return e.(*Encoding), nil
		}
	}
	return nil, fmt.Errorf("unknown tokenizer %q: want %s, or a Hugging Face tokenizer.json (the file, or a folder holding it)", name, strings.Join(Names(), ", "))
}

// mustBuild is build for an encoding castchunk embeds, which cannot fail
// but by a bug (the tests build every encoding).
func mustBuild(s spec) *table {
	t, err := build(s)
	if err != nil {
		panic(err)
	}
	return t
}

// build rebuilds rank ↔ bytes from the module's codec, whose vocabulary is
// unexported: decoding each rank alone gives its bytes (the default error
// mode returns them raw, even when they are not valid UTF-8 on their own).
func build(s spec) (*table, error) {
	bmpClassOnce.Do(initClasses)
	cd := s.codec()
	toks := make([]string, s.size)
	total := 0
	id := make([]uint, 1)
	for r := range toks {
		id[0] = uint(r)
		tok, err := cd.Decode(id)
		if err != nil || tok == "" {
			return nil, fmt.Errorf("tokens: %s: rank %d: %v", s.name, r, err)
		}
		toks[r] = tok
		total += len(tok)
	}
	ranks := newTable(s.size, total)
	for r, tok := range toks {
		if _, dup := ranks.get([]byte(tok)); dup {
			return nil, fmt.Errorf("tokens: %s: rank %d repeats token %q", s.name, r, tok)
		}
		ranks.put([]byte(tok), uint32(r))
	}
	return ranks, nil
}

// Name returns the encoding's name, as given to Load.
func (e *Encoding) Name() string { return e.name }

// rank is the rank of the token with these bytes, or noRank.
func (e *Encoding) rank(b []byte) uint32 {
	if r, ok := e.ranks().get(b); ok {
		return r
	}
	return noRank
}

// A Counter counts with one Encoding. It caches the tokenization of the
// pieces it has seen (code repeats its identifiers and indentation), so it
// is not safe for concurrent use: one per goroutine.
type Counter struct {
	e      *Encoding
	hf     *hftok.Counter // for a tokenizer.json; nil for the named encodings
	cache  *table         // piece → offset in starts
	starts []int32        // at an offset: n, then the n starts of a piece's tokens
	parts  []part         // mergeScan's scratch
	buf    []int32        // scratch for a piece too long to cache
}

// Cache bounds. A piece longer than maxCached is looked up in the vocabulary
// and merged each time (it is rare, and its merge costs more than a lookup
// anyway). The cache is emptied when its table is half full or its arenas
// reach their sizes, which bounds a Counter's memory to about 2 MB whatever
// the input.
const (
	maxCached    = 256
	cacheSlots   = 1 << 16
	cacheKeys    = 1 << 19
	cacheStarts  = 1 << 17
	singleOffset = 0 // starts[0:2] is the entry of every single-token piece
)

// NewCounter returns a Counter for e.
func (e *Encoding) NewCounter() *Counter {
	if e.hf != nil {
		return &Counter{e: e, hf: e.hf.tok().NewCounter()}
	}
	c := &Counter{e: e, cache: newTable(cacheSlots/2, cacheKeys), starts: make([]int32, 0, cacheStarts)}
	c.starts = append(c.starts, 1, 0)
	return c
}

// Count returns the number of tokens text encodes to. text must be valid
// UTF-8 (see the package comment).
func (c *Counter) Count(text []byte) int {
	if c.hf != nil {
		return c.hf.Count(text) - c.e.dropped()
	}
	n := 0
	for i := 0; i < len(text); {
		j := c.e.next(text, i)
		n += len(c.tokens(text[i:j]))
		i = j
	}
	return n
}

// AppendStarts appends, for text tokenized as a whole, the byte offset where
// each token starts, ascending (the first is 0 when text is non-empty). For
// the named encodings it is exact, ASCII or not: it appends Count(text)
// offsets, and they cut text into its tokens. A token may start inside a
// multi-byte rune: tokens are bytes. For a tokenizer.json it appends the
// starts of the tokens that are not the post-processor's specials
// (Count(text) - Specials() of them), where normalization rewrote the text
// the start of the character a token came from: the chunkers measure with
// them, and every chunk is then counted exactly.
func (c *Counter) AppendStarts(dst []int32, text []byte) []int32 {
	if c.hf != nil {
		return c.hf.AppendStarts(dst, text)
	}
	for i := 0; i < len(text); {
		j := c.e.next(text, i)
		for _, s := range c.tokens(text[i:j]) {
			dst = append(dst, int32(i)+s)
		}
		i = j
	}
	return dst
}

// one is the starts of a piece that is a single token.
var one = []int32{0}

// tokens returns the starts of piece's tokens, relative to the piece. The
// slice is shared: callers only read it, before the next call.
//
// The Counter's cache is consulted first, for single tokens too: the pieces
// of code are few and repeat, and a small table that stays in the
// processor's cache answers faster than the vocabulary's 100,000 to 200,000
// entries.
func (c *Counter) tokens(piece []byte) []int32 {
	if len(piece) > maxCached {
		if _, ok := c.e.ranks().get(piece); ok {
			return one
		}
		c.buf = c.merge(c.buf[:0], piece)
		return c.buf
	}
	if off, ok := c.cache.get(piece); ok {
		return c.entry(off)
	}
	if c.cache.full() || len(c.cache.keys)+len(piece) > cacheKeys || len(c.starts)+len(piece)+1 > cacheStarts {
		c.cache.reset()
		c.starts = c.starts[:singleOffset+2]
	}
	off := uint32(singleOffset)
	if _, ok := c.e.ranks().get(piece); !ok {
		off = uint32(len(c.starts))
		c.starts = append(c.starts, 0)
		c.starts = c.merge(c.starts, piece)
		c.starts[off] = int32(len(c.starts)) - int32(off) - 1
	}
	c.cache.put(piece, off)
	return c.entry(off)
}

// entry returns the starts cached at off.
func (c *Counter) entry(off uint32) []int32 {
	n := c.starts[off]
	return c.starts[off+1 : int32(off)+1+n]
}
