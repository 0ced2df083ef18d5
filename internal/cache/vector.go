package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"time"
)

// vectorMagic names the layout of a vector entry, as magic does a file's:
// it starts what the checksum covers, so a vector never checks out as a
// file's entry nor the reverse, even under the same key.
const vectorMagic = "castchunk-vector-1\n"

// vectorKeyPrefix starts what a vector's key sums, so that no file's key
// (which starts with a salt's sum) can be a vector's.
const vectorKeyPrefix = "castchunk-vector-key\x00"

// MaxVectorDim is the longest vector the cache stores: longer than any
// embedding model's (a few thousand numbers), short enough that an entry
// stays far below maxEntry.
const MaxVectorDim = 1 << 16

// VectorKey returns the key of the vector an embedding model gives a text.
// It depends on the model's name and the text only: not on castchunk's
// version (a new version need not embed everything again), nor on the
// endpoint that served the model.
func VectorKey(model, text string) Key {
	h := sha256.New()
	h.Write([]byte(vectorKeyPrefix))
	h.Write(binary.AppendUvarint(nil, uint64(len(model))))
	h.Write([]byte(model))
	h.Write([]byte(text))
	var k Key
	h.Sum(k[:0])
	return k
}

// GetVector returns the vector stored under k. As with Get, anything else
// is a miss: no entry, an entry that fails its checksum or its layout
// (deleted), a database that cannot be read.
func (c *Cache) GetVector(k Key) ([]float32, bool) {
	v, ok := load(c, k, decodeVector)
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return v, ok
}

// PutVector stores v under k (see Put: the error is for the caller to
// report, and the vector is then not stored). An empty vector, one longer
// than MaxVectorDim or one holding a NaN or an infinity is refused.
func (c *Cache) PutVector(k Key, v []float32) error {
	if len(v) == 0 || len(v) > MaxVectorDim {
		return fmt.Errorf("cache: a vector of %d numbers: not stored (1 to %d)", len(v), MaxVectorDim)
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("cache: a vector holding %v: not stored", x)
		}
	}
	return c.queue(k, op{kind: opPut, data: encodeVector(v, k), used: time.Now().Unix()})
}

// encodeVector lays a vector out as it is stored: its length as a
// uvarint, its numbers as float32 little-endian, then SHA-256 of
// vectorMagic, the key and all that.
func encodeVector(v []float32, k Key) []byte {
	b := make([]byte, 0, binary.MaxVarintLen64+4*len(v)+sha256.Size)
	b = binary.AppendUvarint(b, uint64(len(v)))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	sum := checksumOf(vectorMagic, b, k)
	return append(b, sum[:]...)
}

func decodeVector(b []byte, k Key) ([]float32, error) {
	if len(b) < sha256.Size {
		return nil, errCorrupt
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if want := checksumOf(vectorMagic, body, k); string(want[:]) != string(sum) {
		return nil, errCorrupt
	}
	n, w := binary.Uvarint(body)
	if w <= 0 || n == 0 || n > MaxVectorDim || uint64(len(body)-w) != 4*n {
		return nil, errCorrupt
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[w+4*i:]))
		if math.IsNaN(float64(v[i])) || math.IsInf(float64(v[i]), 0) {
			return nil, errCorrupt
		}
	}
	return v, nil
}
