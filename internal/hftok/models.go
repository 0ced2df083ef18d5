package hftok

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math"
	"sort"
	"strconv"
	"sync"
	"unicode/utf8"
)

// newModel builds the model that tokenizer.json's "model" object
// describes, refusing a type or an option it does not implement exactly:
// a count is never approximate.
func newModel(raw json.RawMessage) (model, error) {
	fields, err := topFields(raw)
	if err != nil {
		return nil, fmt.Errorf("model: %v", err)
	}
	var typ string
	if ok, err := optField("", fields, "type", &typ); err != nil || !ok {
		return nil, fmt.Errorf("model: no \"type\" (WordPiece, BPE or Unigram)")
	}
	if err := checkFields(typ, fields); err != nil {
		return nil, err
	}
	switch typ {
	case "WordPiece":
		return newWordPiece(fields)
	case "BPE":
		return newBPE(fields)
	}
	return newUnigram(fields)
}

// topFields splits a JSON object into its keys' raw values with the
// scanner: encoding/json would check a 33 MB vocabulary twice more.
func topFields(raw []byte) (map[string]json.RawMessage, error) {
	s := &jsonScanner{b: raw}
	fields := map[string]json.RawMessage{}
	err := s.object(func() error {
		key, err := s.str(nil)
		if err != nil {
			return err
		}
		if err := s.colon(); err != nil {
			return err
		}
		s.ws()
		start := s.i
		if err := s.skip(); err != nil {
			return err
		}
		fields[string(key)] = raw[start:s.i]
		return nil
	})
	if err == nil {
		if s.ws(); s.i != len(s.b) {
			err = s.errorf("unexpected text after the object")
		}
	}
	return fields, err
}

// knownFields are the keys the Rust crate reads for each model; any other
// key is refused, since a newer option could change the count.
func knownFields(typ string) []string {
	switch typ {
	case "WordPiece":
		return []string{"type", "unk_token", "continuing_subword_prefix", "max_input_chars_per_word", "vocab"}
	case "BPE":
		return []string{"type", "dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix",
			"fuse_unk", "byte_fallback", "ignore_merges", "vocab", "merges"}
	case "Unigram":
		return []string{"type", "unk_id", "byte_fallback", "vocab"}
	}
	return nil
}

// checkFields refuses an unknown model type, or a key the model does
// not know.
func checkFields(typ string, fields map[string]json.RawMessage) error {
	known := knownFields(typ)
	if known == nil {
		return fmt.Errorf("model %s is not supported (WordPiece, BPE and Unigram are)", typ)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !containsString(known, k) {
			return fmt.Errorf("model %s: option %q is not supported", typ, k)
		}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// optField decodes an optional small field into v; it reports whether the
// field was present and not null.
func optField(typ string, fields map[string]json.RawMessage, key string, v any) (bool, error) {
	raw, ok := fields[key]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, fmt.Errorf("model %s: %q: %v", typ, key, err)
	}
	return true, nil
}

// strTable maps token bytes to ids without a Go string per token: one
// byte arena and an open-addressing table of entry indexes (a 262k-token
// vocabulary costs a few MB and no per-token allocation).
type strTable struct {
	seed   maphash.Seed
	arena  []byte
	offs   []uint32 // entry i is arena[offs[i]:offs[i+1]]
	ids    []int32
	slots  []uint32 // entry index + 1; 0 is empty
	mask   uint64
	maxLen int
}

func newStrTable(sizeHint int) *strTable {
	return &strTable{seed: maphash.MakeSeed(), offs: make([]uint32, 1, sizeHint+1), ids: make([]int32, 0, sizeHint)}
}

// add appends an entry; index builds the hash table once all are added.
func (t *strTable) add(tok []byte, id int32) {
	t.arena = append(t.arena, tok...)
	t.offs = append(t.offs, uint32(len(t.arena)))
	t.ids = append(t.ids, id)
	t.maxLen = max(t.maxLen, len(tok))
}

func (t *strTable) entry(e uint32) []byte { return t.arena[t.offs[e]:t.offs[e+1]] }

// index builds the hash table; of duplicate tokens the last id wins, as
// in the crate's HashMap built from the file.
func (t *strTable) index() {
	n := 1
	for n < 2*len(t.ids)+2 {
		n <<= 1
	}
	t.slots = make([]uint32, n)
	t.mask = uint64(n - 1)
	for e := range t.ids {
		tok := t.entry(uint32(e))
		i := maphash.Bytes(t.seed, tok) & t.mask
		for {
			s := t.slots[i]
			if s == 0 {
				t.slots[i] = uint32(e) + 1
				break
			}
			if bytes.Equal(t.entry(s-1), tok) {
				t.ids[s-1] = t.ids[e]
				break
			}
			i = (i + 1) & t.mask
		}
	}
}

func (t *strTable) lookup(b []byte) (int32, bool) {
	if len(b) > t.maxLen || len(t.slots) == 0 {
		return 0, false
	}
	i := maphash.Bytes(t.seed, b) & t.mask
	for {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if bytes.Equal(t.entry(s-1), b) {
			return t.ids[s-1], true
		}
		i = (i + 1) & t.mask
	}
}

func (t *strTable) lookupString(s string) (int32, bool) {
	var buf [64]byte
	return t.lookup(append(buf[:0], s...))
}

// parseVocabObject reads a {"token": id, ...} object into a strTable.
func parseVocabObject(raw []byte) (*strTable, error) {
	s := &jsonScanner{b: raw}
	t := newStrTable(len(raw) / 12)
	var key []byte
	err := s.object(func() error {
		var err error
		if key, err = s.str(key[:0]); err != nil {
			return err
		}
		if err = s.colon(); err != nil {
			return err
		}
		num, err := s.number()
		if err != nil {
			return err
		}
		id, err := strconv.ParseUint(string(num), 10, 31)
		if err != nil {
			return fmt.Errorf("id of %q: %s is not a token id", key, num)
		}
		t.add(key, int32(id))
		return nil
	})
	if err != nil {
		return nil, err
	}
	t.index()
	return t, nil
}

// jsonScanner reads the large vocabulary and merges arrays straight into
// arenas, where encoding/json would make a Go value per token.
type jsonScanner struct {
	b     []byte
	i     int
	tmp   []byte // skip's buffer
	depth int    // skip's nesting, bounded by maxDepth
}

// maxDepth bounds the nesting skip follows, counted from the values of
// the file's top-level object: 127 levels of arrays and objects in all.
// The crate reads tokenizer.json with serde_json, which refuses 128, so
// no file the crate loads is refused; a real one nests a handful. A
// hostile one 10 million deep overflowed the stack, and Sequences of
// Sequences thousands deep made the components' readers, which copy each
// level's JSON, take gigabytes.
const maxDepth = 127

func (s *jsonScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", s.i, fmt.Sprintf(format, args...))
}

func (s *jsonScanner) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

func (s *jsonScanner) expect(c byte) error {
	if s.peek() != c {
		return s.errorf("expected %q", c)
	}
	s.i++
	return nil
}

func (s *jsonScanner) colon() error { return s.expect(':') }

// list calls elem for each element of a JSON array (open, the opening
// bracket; close, the closing one).
func (s *jsonScanner) list(open, close byte, elem func() error) error {
	if err := s.expect(open); err != nil {
		return err
	}
	if s.peek() == close {
		s.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case close:
			s.i++
			return nil
		default:
			return s.errorf("expected ',' or %q", close)
		}
	}
}

func (s *jsonScanner) array(elem func() error) error  { return s.list('[', ']', elem) }
func (s *jsonScanner) object(elem func() error) error { return s.list('{', '}', elem) }

// number returns the text of a JSON number.
func (s *jsonScanner) number() ([]byte, error) {
	s.ws()
	start := s.i
	for s.i < len(s.b) && isNumberByte(s.b[s.i]) {
		s.i++
	}
	if start == s.i {
		return nil, s.errorf("expected a number")
	}
	return s.b[start:s.i], nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// skip passes over one JSON value, checking its strings and brackets;
// the value's own reader checks the rest.
func (s *jsonScanner) skip() error {
	if s.depth++; s.depth > maxDepth {
		return s.errorf("nested more than %d deep", maxDepth)
	}
	defer func() { s.depth-- }()
	switch c := s.peek(); {
	case c == '"':
		var err error
		s.tmp, err = s.str(s.tmp[:0])
		return err
	case c == '[':
		return s.array(s.skip)
	case c == '{':
		return s.object(func() error {
			var err error
			if s.tmp, err = s.str(s.tmp[:0]); err != nil {
				return err
			}
			if err := s.colon(); err != nil {
				return err
			}
			return s.skip()
		})
	case isNumberByte(c) || c >= 'a' && c <= 'z':
		for s.i < len(s.b) && (isNumberByte(s.b[s.i]) || s.b[s.i] >= 'a' && s.b[s.i] <= 'z') {
			s.i++
		}
		return nil
	}
	return s.errorf("expected a JSON value")
}

// str appends the decoded JSON string at the scanner to dst.
func (s *jsonScanner) str(dst []byte) ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return dst, err
	}
	for {
		j := s.i
		for j < len(s.b) && s.b[j] != '"' && s.b[j] != '\\' && s.b[j] >= 0x20 {
			j++
		}
		dst = append(dst, s.b[s.i:j]...)
		s.i = j
		if j >= len(s.b) || s.b[j] < 0x20 {
			return dst, s.errorf("unterminated string")
		}
		s.i++
		if s.b[j] == '"' {
			return dst, nil
		}
		var err error
		if dst, err = s.escape(dst); err != nil {
			return dst, err
		}
	}
}

// escape decodes one escape after its backslash; a lone surrogate is an
// error, as in serde_json.
func (s *jsonScanner) escape(dst []byte) ([]byte, error) {
	if s.i >= len(s.b) {
		return dst, s.errorf("unterminated string")
	}
	c := s.b[s.i]
	s.i++
	if i := bytes.IndexByte([]byte(`"\/bfnrt`), c); i >= 0 {
		return append(dst, "\"\\/\b\f\n\r\t"[i]), nil
	}
	if c != 'u' {
		return dst, s.errorf("bad escape \\%c", c)
	}
	r, err := s.hex4()
	if err != nil {
		return dst, err
	}
	if r >= 0xD800 && r < 0xDC00 {
		if s.i+2 > len(s.b) || s.b[s.i] != '\\' || s.b[s.i+1] != 'u' {
			return dst, s.errorf("lone surrogate")
		}
		s.i += 2
		lo, err := s.hex4()
		if err != nil || lo < 0xDC00 || lo >= 0xE000 {
			return dst, s.errorf("lone surrogate")
		}
		r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
	} else if r >= 0xDC00 && r < 0xE000 {
		return dst, s.errorf("lone surrogate")
	}
	return utf8.AppendRune(dst, r), nil
}

func (s *jsonScanner) hex4() (rune, error) {
	if s.i+4 > len(s.b) {
		return 0, s.errorf("bad \\u escape")
	}
	v, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 32)
	if err != nil {
		return 0, s.errorf("bad \\u escape")
	}
	s.i += 4
	return rune(v), nil
}

// pieceCache remembers the tokens of short pieces (code repeats its
// identifiers); sharded so that jobs sharing a model rarely wait.
type pieceCache struct {
	seed   maphash.Seed
	shards [cacheShards]cacheShard
}

const (
	cacheShards   = 64
	cacheShardMax = 1024 // entries per shard before it is emptied
	cacheMaxPiece = 128  // longer pieces are not cached
)

type cacheShard struct {
	mu sync.Mutex
	m  map[string][]token
	_  [40]byte // keeps shards on separate cache lines
}

func newPieceCache() *pieceCache {
	c := &pieceCache{seed: maphash.MakeSeed()}
	for i := range c.shards {
		c.shards[i].m = make(map[string][]token)
	}
	return c
}

func (c *pieceCache) shard(piece []byte) *cacheShard {
	return &c.shards[maphash.Bytes(c.seed, piece)&(cacheShards-1)]
}

// get appends the cached tokens of piece to dst.
func (c *pieceCache) get(dst []token, piece []byte) ([]token, bool) {
	if len(piece) > cacheMaxPiece {
		return dst, false
	}
	sh := c.shard(piece)
	sh.mu.Lock()
	toks, ok := sh.m[string(piece)]
	if ok {
		dst = append(dst, toks...)
	}
	sh.mu.Unlock()
	return dst, ok
}

func (c *pieceCache) put(piece []byte, toks []token) {
	if len(piece) > cacheMaxPiece {
		return
	}
	cp := append([]token(nil), toks...)
	sh := c.shard(piece)
	sh.mu.Lock()
	if len(sh.m) >= cacheShardMax {
		clear(sh.m)
	}
	sh.m[string(piece)] = cp
	sh.mu.Unlock()
}

// byteToken is the name byte_fallback gives byte b: "<0x0A>".
func byteToken(b byte) string { return fmt.Sprintf("<0x%02X>", b) }

// checkID refuses a token id that does not fit the int32 tokens carry.
func checkID(typ, what string, v int64) error {
	if v < 0 || v > math.MaxInt32 {
		return fmt.Errorf("model %s: %s %d is not a token id", typ, what, v)
	}
	return nil
}
