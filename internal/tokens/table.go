package tokens

import (
	"bytes"
	"hash/maphash"
	"math/bits"
)

// table maps byte strings to uint32 values: open addressing with linear
// probing, keys copied into one arena. It backs both the vocabulary and each
// Counter's piece cache because, unlike a map[string]uint32, an insert
// allocates nothing per key, emptying it costs a clear of the slots, and a
// slot is 16 bytes, so more of a hot table stays in the processor's cache.
type table struct {
	seed  maphash.Seed
	slots []slot // a power of two, at most half full
	keys  []byte
	n     int
}

// slot is an entry; keyLen 0 marks an empty one (keys are never empty).
type slot struct {
	tag    uint32 // the hash's low 32 bits, compared before the key
	keyOff uint32
	keyLen uint32
	val    uint32
}

// newTable returns a table sized for n keys of keyBytes bytes in all.
func newTable(n, keyBytes int) *table {
	size := 1 << bits.Len(uint(2*n-1))
	return &table{seed: maphash.MakeSeed(), slots: make([]slot, size), keys: make([]byte, 0, keyBytes)}
}

// get returns key's value.
func (t *table) get(key []byte) (uint32, bool) {
	h := maphash.Bytes(t.seed, key)
	mask := uint64(len(t.slots) - 1)
	for i := h >> 32 & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.keyLen == 0 {
			return 0, false
		}
		if s.tag == uint32(h) && int(s.keyLen) == len(key) && bytes.Equal(t.keys[s.keyOff:s.keyOff+s.keyLen], key) {
			return s.val, true
		}
	}
}

// put sets key's value; the caller keeps the table at most half full (full
// reports when it is) and key not empty.
func (t *table) put(key []byte, val uint32) {
	h := maphash.Bytes(t.seed, key)
	mask := uint64(len(t.slots) - 1)
	for i := h >> 32 & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.keyLen == 0 {
			*s = slot{tag: uint32(h), keyOff: uint32(len(t.keys)), keyLen: uint32(len(key)), val: val}
			t.keys = append(t.keys, key...)
			t.n++
			return
		}
		if s.tag == uint32(h) && int(s.keyLen) == len(key) && bytes.Equal(t.keys[s.keyOff:s.keyOff+s.keyLen], key) {
			s.val = val
			return
		}
	}
}

// full reports whether the table holds as many keys as its slots allow.
func (t *table) full() bool { return 2*t.n >= len(t.slots) }

// reset empties the table, keeping its memory.
func (t *table) reset() {
	clear(t.slots)
	t.keys = t.keys[:0]
	t.n = 0
}
