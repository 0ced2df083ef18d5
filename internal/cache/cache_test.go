package cache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/castchunk/castchunk/internal/chunk"
)

var entry = Entry{Method: "cast", Syntax: true, Spans: []chunk.Span{{Start: 0, End: 10, Size: 7}, {Start: 10, End: 25, Size: 12}, {Start: 25, End: 26, Size: 0}}}

func TestHitAndMiss(t *testing.T) {
	c, err := Open(t.TempDir(), "v1|cast|2000")
	if err != nil {
		t.Fatal(err)
	}
	k := c.Key("python", []byte("x = 1\n"))
	if _, ok := c.Get(k); ok {
		t.Fatal("hit in an empty cache")
	}
	if err := c.Put(k, entry); err != nil {
		t.Fatal(err)
	}
	got, ok := c.Get(k)
	if !ok || !reflect.DeepEqual(got, entry) {
		t.Fatalf("Get = %+v, %v; want %+v", got, ok, entry)
	}
	if _, ok := c.Get(c.Key("python", []byte("x = 2\n"))); ok {
		t.Error("a changed file hits")
	}
	if _, ok := c.Get(c.Key("java", []byte("x = 1\n"))); ok {
		t.Error("another language hits")
	}
}

// TestSaltSeparatesVersionsAndOptions: a different version or option set
// never reads another's entries, even in the same directory.
func TestSaltSeparatesVersionsAndOptions(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir, "v1|cast|2000")
	content := []byte("x = 1\n")
	if err := a.Put(a.Key("python", content), entry); err != nil {
		t.Fatal(err)
	}
	for _, salt := range []string{"v2|cast|2000", "v1|cast|300", "v1|sliding|2000"} {
		b, _ := Open(dir, salt)
		if _, ok := b.Get(b.Key("python", content)); ok {
			t.Errorf("salt %q reads the entry of v1|cast|2000", salt)
		}
	}
}

// TestCorruptEntriesAreIgnoredAndRemoved flips each byte, and truncates at
// each length: every damaged entry must be a miss, never a wrong answer. It
// is removed when it still starts as an entry does: a file that does not is
// not provably the cache's, and is left alone.
func TestCorruptEntriesAreIgnoredAndRemoved(t *testing.T) {
	c, _ := Open(t.TempDir(), "v1")
	k := c.Key("python", []byte("x"))
	good := encode(entry, k)
	for i := range good {
		bad := append([]byte(nil), good...)
		bad[i] ^= 0x55
		check(t, c, k, bad, "byte %d flipped", i)
	}
	for n := 0; n < len(good); n++ {
		check(t, c, k, good[:n], "truncated to %d bytes", n)
	}
	// An entry filed under another key is not an answer for this one.
	check(t, c, k, encode(entry, c.Key("python", []byte("y"))), "entry of another key")
}

func check(t *testing.T, c *Cache, k Key, data []byte, what string, args ...any) {
	t.Helper()
	p := c.path(k)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if e, ok := c.Get(k); ok {
		t.Fatalf("%s: corrupt entry accepted as %+v", fmt.Sprintf(what, args...), e)
	}
	_, err := os.Stat(p)
	if removed, want := os.IsNotExist(err), bytes.HasPrefix(data, []byte(magic)); removed != want {
		t.Fatalf("%s: corrupt entry removed=%v, want %v", fmt.Sprintf(what, args...), removed, want)
	}
}

// TestPruneRemovesLeastRecentlyUsed fills the cache past its limit and
// checks that the entries used last survive.
func TestPruneRemovesLeastRecentlyUsed(t *testing.T) {
	c, _ := Open(t.TempDir(), "v1")
	var keys []Key
	for i := range 10 {
		k := c.Key("python", []byte{byte(i)})
		keys = append(keys, k)
		if err := c.Put(k, entry); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(time.Duration(i-20) * time.Minute)
		os.Chtimes(c.path(k), old, old)
	}
	c.Get(keys[0]) // used now: the most recent
	size := int64(len(encode(entry, keys[0])))
	if err := c.Prune(3 * size); err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		_, err := os.Stat(c.path(k))
		kept := err == nil
		if want := i == 0 || i >= 8; kept != want {
			t.Errorf("entry %d kept=%v, want %v", i, kept, want)
		}
	}
}
