package cache

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestVectorsRoundTrip: a vector comes back exactly, from the batch and,
// after Close, from the database of a new Cache; the model and the text
// both name it.
func TestVectorsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	v := []float32{0.5, -0.25, float32(math.SmallestNonzeroFloat32), -0, 1e30}
	k := VectorKey("nomic-embed-text", "func main() {}")
	if err := c.PutVector(k, v); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.GetVector(k); !ok || !reflect.DeepEqual(got, v) {
		t.Fatalf("from the batch: %v %v, want %v", got, ok, v)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c, err = Open(dir, "another salt")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, ok := c.GetVector(k); !ok || !reflect.DeepEqual(got, v) {
		t.Fatalf("from the database: %v %v, want %v", got, ok, v)
	}
	for _, other := range []Key{
		VectorKey("nomic-embed-text:v2", "func main() {}"),
		VectorKey("nomic-embed-text", "func main() { }"),
		VectorKey("", "nomic-embed-textfunc main() {}"), // the model's length is in the key
	} {
		if _, ok := c.GetVector(other); ok {
			t.Errorf("key %x: a hit for another model or text", other)
		}
	}
	if st := c.Stats(); st.Hits != 1 || st.Misses != 3 {
		t.Errorf("stats %+v: want 1 hit, 3 misses", st)
	}
}

// TestVectorsAndEntriesNeverMix: under the same key, a file's entry is not
// a vector and a vector is not a file's entry (their checksums name their
// layouts).
func TestVectorsAndEntriesNeverMix(t *testing.T) {
	c := openCache(t)
	k := c.Key("go", []byte("package a"))
	if err := c.Put(k, entry); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.GetVector(k); ok {
		t.Error("a file's entry read as a vector")
	}
	kv := VectorKey("m", "t")
	if err := c.PutVector(kv, []float32{1}); err != nil {
		t.Fatal(err)
	}
	c.flush(true)
	if _, ok := c.Get(kv); ok {
		t.Error("a vector read as a file's entry")
	}
}

// TestDamagedVectorsAreMissesAndRemoved: a vector whose bytes were
// changed, cut or lengthened is a miss, and its row is deleted.
func TestDamagedVectorsAreMissesAndRemoved(t *testing.T) {
	c := openCache(t)
	k := VectorKey("m", "text")
	good := encodeVector([]float32{0.6, 0.8}, k)
	flipped := append([]byte(nil), good...)
	flipped[3] ^= 1
	for name, data := range map[string][]byte{
		"flipped": flipped,
		"cut":     good[:len(good)-1],
		"longer":  append(append([]byte(nil), good...), 0),
		"empty":   {},
		"other":   encodeVector([]float32{0.6, 0.8}, VectorKey("m", "other")),
	} {
		sqlExec(t, c, "INSERT OR REPLACE INTO entries (key, used, data) VALUES (?, ?, ?)", k[:], 0, data)
		if v, ok := c.GetVector(k); ok {
			t.Errorf("%s: a hit: %v", name, v)
		}
		if stored(t, c, k) {
			t.Errorf("%s: still stored", name)
		}
	}
	// A vector of the right checksum but a wrong layout (a length that
	// does not match its numbers) is refused too.
	body := []byte{3, 0, 0, 0x80, 0x3f}
	sum := checksumOf(vectorMagic, body, k)
	if _, err := decodeVector(append(body, sum[:]...), k); err == nil {
		t.Error("a vector of 3 numbers in 4 bytes decoded")
	}
}

// TestPutVectorRefuses vectors that could not be used.
func TestPutVectorRefuses(t *testing.T) {
	c := openCache(t)
	k := VectorKey("m", "t")
	for name, v := range map[string][]float32{
		"empty":    {},
		"NaN":      {1, float32(math.NaN())},
		"infinite": {float32(math.Inf(-1))},
		"too long": make([]float32, MaxVectorDim+1),
	} {
		if err := c.PutVector(k, v); err == nil || !strings.Contains(err.Error(), "not stored") {
			t.Errorf("%s: %v, want an error saying it is not stored", name, err)
		}
	}
	if _, ok := c.GetVector(k); ok {
		t.Error("a refused vector is stored")
	}
}

// TestPruneRemovesVectorsLeastRecentlyUsed: vectors take part in Prune as
// files' entries do.
func TestPruneRemovesVectorsLeastRecentlyUsed(t *testing.T) {
	c := openCache(t)
	v := make([]float32, 1024)
	v[0] = 1
	var keys []Key
	for i := range 300 {
		k := VectorKey("m", strings.Repeat("x", i))
		keys = append(keys, k)
		if err := c.PutVector(k, v); err != nil {
			t.Fatal(err)
		}
	}
	c.flush(true)
	sqlExec(t, c, "UPDATE entries SET used = 1")
	newest := keys[len(keys)-1]
	sqlExec(t, c, "UPDATE entries SET used = 2 WHERE key = ?", newest[:])
	if err := c.Prune(256 << 10); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Bytes > 256<<10 || st.Entries >= 300 || st.Entries == 0 {
		t.Fatalf("after Prune: %+v", st)
	}
	if _, ok := c.GetVector(newest); !ok {
		t.Error("the vector used last was pruned")
	}
}
