package cache

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/castchunk/castchunk/internal/chunk"
)

var entry = Entry{Method: "cast", Syntax: true, Spans: []chunk.Span{{Start: 0, End: 10, Size: 7}, {Start: 10, End: 25, Size: 12}, {Start: 25, End: 26, Size: 0}}}

// testEntry is a made-up entry of n spans, different for each seed.
func testEntry(seed uint64, n int) Entry {
	r := rand.New(rand.NewPCG(seed, 7))
	e := Entry{Method: []string{"cast", "sliding"}[seed%2], Syntax: seed%3 == 0, Spans: make([]chunk.Span, n)}
	start := 0
	for i := range e.Spans {
		end := start + 1 + r.IntN(3000)
		e.Spans[i] = chunk.Span{Start: start, End: end, Size: r.IntN(2001)}
		start = end
	}
	return e
}

// openCache opens a new cache in a temporary folder, closed at the end of
// the test.
func openCache(t *testing.T) *Cache {
	t.Helper()
	c, err := Open(t.TempDir(), "v1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sqlExec runs SQL on c's database, after writing the batch.
func sqlExec(t *testing.T, c *Cache, q string, args ...any) {
	t.Helper()
	c.flush(true)
	c.dbMu.RLock()
	defer c.dbMu.RUnlock()
	if _, err := c.db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// setUsed sets the last use of k's entry.
func setUsed(t *testing.T, c *Cache, k Key, used time.Time) {
	t.Helper()
	sqlExec(t, c, "UPDATE entries SET used = ? WHERE key = ?", used.Unix(), k[:])
}

// stored reports whether k has a row, after writing the batch.
func stored(t *testing.T, c *Cache, k Key) bool {
	t.Helper()
	c.flush(true)
	c.dbMu.RLock()
	defer c.dbMu.RUnlock()
	var n int
	if err := c.db.QueryRow("SELECT count(*) FROM entries WHERE key = ?", k[:]).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func TestHitAndMiss(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(dir, "v1|cast|2000")
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
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(k); ok {
		t.Error("a closed cache hits")
	}
	if err := c.Put(k, entry); err == nil {
		t.Error("Put into a closed cache succeeded")
	}
	// Written at Close, read by the next run; the log folded in.
	c, err = Open(dir, "v1|cast|2000")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, ok := c.Get(k); !ok || !reflect.DeepEqual(got, entry) {
		t.Fatalf("after Close and Open: Get = %+v, %v; want %+v", got, ok, entry)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, n := range names {
		if b := filepath.Base(n); b != tagName && b != dbName && b != dbName+"-wal" && b != dbName+"-shm" {
			t.Errorf("the cache folder holds %s", b)
		}
	}
}

// TestOpenSeesTheBatchOfAnotherCache: a run that opens the cache again in
// the same process (the pipeline's tests do) sees what the first stored,
// though the first is not closed.
func TestOpenSeesTheBatchOfAnotherCache(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir, "v1")
	defer a.Close()
	k := a.Key("python", []byte("x"))
	if err := a.Put(k, entry); err != nil {
		t.Fatal(err)
	}
	b, _ := Open(dir, "v1")
	defer b.Close()
	if _, ok := b.Get(k); !ok {
		t.Error("a second Cache on the folder misses the first one's entry")
	}
}

// TestSaltSeparatesVersionsAndOptions: a different version or option set
// never reads another's entries, even in the same directory.
func TestSaltSeparatesVersionsAndOptions(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir, "v1|cast|2000")
	defer a.Close()
	content := []byte("x = 1\n")
	if err := a.Put(a.Key("python", content), entry); err != nil {
		t.Fatal(err)
	}
	for _, salt := range []string{"v2|cast|2000", "v1|cast|300", "v1|sliding|2000"} {
		b, _ := Open(dir, salt)
		if _, ok := b.Get(b.Key("python", content)); ok {
			t.Errorf("salt %q reads the entry of v1|cast|2000", salt)
		}
		b.Close()
	}
}

// TestCorruptEntriesAreIgnoredAndRemoved flips each byte, and truncates at
// each length: every damaged entry must be a miss, never a wrong answer,
// and is deleted.
func TestCorruptEntriesAreIgnoredAndRemoved(t *testing.T) {
	c := openCache(t)
	k := c.Key("python", []byte("x"))
	good := encode(entry, k)
	check := func(data []byte, what string, args ...any) {
		t.Helper()
		sqlExec(t, c, "INSERT OR REPLACE INTO entries (key, used, data) VALUES (?, ?, ?)", k[:], time.Now().Unix(), data)
		if e, ok := c.Get(k); ok {
			t.Fatalf("%s: corrupt entry accepted as %+v", fmt.Sprintf(what, args...), e)
		}
		if stored(t, c, k) {
			t.Fatalf("%s: corrupt entry kept", fmt.Sprintf(what, args...))
		}
	}
	for i := range good {
		bad := append([]byte(nil), good...)
		bad[i] ^= 0x55
		check(bad, "byte %d flipped", i)
	}
	for n := 0; n < len(good); n++ {
		check(good[:n], "truncated to %d bytes", n)
	}
	// An entry filed under another key is not an answer for this one.
	check(encode(entry, c.Key("python", []byte("y"))), "entry of another key")
	// Nor is an entry of the old layout, nor one with something appended.
	check(append(append([]byte(legacyMagic), k[:]...), good...), "entry of the old layout")
	check(append(append([]byte(nil), good...), 0), "a byte appended")
	// The good one hits.
	sqlExec(t, c, "INSERT OR REPLACE INTO entries (key, used, data) VALUES (?, ?, ?)", k[:], time.Now().Unix(), good)
	if e, ok := c.Get(k); !ok || !reflect.DeepEqual(e, entry) {
		t.Fatalf("Get = %+v, %v", e, ok)
	}
}

// TestEncodeRoundTrips: entries of every shape come back as they went in.
func TestEncodeRoundTrips(t *testing.T) {
	var k Key
	for _, e := range []Entry{{}, {Method: "sliding", Spans: []chunk.Span{}}, entry, testEntry(1, 1), testEntry(2, 1000)} {
		got, err := decode(encode(e, k), k)
		if e.Spans == nil {
			e.Spans = []chunk.Span{}
		}
		if err != nil || !reflect.DeepEqual(got, e) {
			t.Errorf("decode(encode(%+v)) = %+v, %v", e, got, err)
		}
	}
}

// TestGetRecordsUse: a hit on an entry last used more than touchGrain ago
// records the use; a hit on one used recently writes nothing.
func TestGetRecordsUse(t *testing.T) {
	c := openCache(t)
	k := c.Key("python", []byte("x"))
	c.Put(k, entry)
	old := time.Now().Add(-2 * touchGrain)
	setUsed(t, c, k, old)
	c.Get(k)
	c.flush(true)
	var used int64
	c.db.QueryRow("SELECT used FROM entries WHERE key = ?", k[:]).Scan(&used)
	if used <= old.Unix() {
		t.Errorf("a hit did not record the use: used %d", used)
	}
	c.Get(k)
	c.mu.Lock()
	n := len(c.pending)
	c.mu.Unlock()
	if n != 0 {
		t.Errorf("a hit on an entry used just now queued %d changes", n)
	}
}

// TestPruneRemovesLeastRecentlyUsed fills the cache past its limit and
// checks that the entries used last survive: those kept are all newer
// than those removed, and a hit makes an old entry new.
func TestPruneRemovesLeastRecentlyUsed(t *testing.T) {
	c := openCache(t)
	var keys []Key
	base := time.Now().Add(-100 * 24 * time.Hour)
	for i := range 60 {
		k := c.Key("python", []byte{byte(i)})
		keys = append(keys, k)
		if err := c.Put(k, testEntry(uint64(i), 2000)); err != nil { // ~8 KB each
			t.Fatal(err)
		}
	}
	for i, k := range keys {
		setUsed(t, c, k, base.Add(time.Duration(i)*time.Hour))
	}
	c.Get(keys[0]) // used now: the most recent
	if err := c.Prune(200 << 10); err != nil {
		t.Fatal(err)
	}
	if size := diskBytes(c.dir); size > 200<<10 {
		t.Errorf("%d bytes on disk after Prune(200 KiB)", size)
	}
	if !stored(t, c, keys[0]) {
		t.Error("the entry used last was pruned")
	}
	first := -1
	for i, k := range keys[1:] {
		kept := stored(t, c, k)
		if kept && first < 0 {
			first = i + 1
		}
		if first >= 0 && !kept {
			t.Errorf("entry %d pruned, though entry %d, used before it, was kept", i+1, first)
		}
	}
	if first < 0 || first > 50 {
		t.Errorf("the oldest entry kept is %d of 60: %d kept in 200 KiB", first, 60-first)
	}
}

// TestPruneKeepsDiskUseWithinTheLimit: a cache filled well past its limit
// with entries of every size takes at most the limit on disk after Prune,
// and not much less; another run's entries, then another Prune, the same.
func TestPruneKeepsDiskUseWithinTheLimit(t *testing.T) {
	const limit = 2 << 20
	c := openCache(t)
	fill := func(from, to int) {
		for i := from; i < to; i++ {
			n := 1 + i%40 // mostly small, as files are
			if i%97 == 0 {
				n = 5000 // some large, overflowing pages
			}
			if err := c.Put(c.Key("python", fmt.Appendf(nil, "%d", i)), testEntry(uint64(i), n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	fill(0, 30000) // ~6 MB
	if err := c.Prune(limit); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		size := diskBytes(c.dir)
		total := duFolder(t, c.dir)
		t.Logf("%s: %d bytes on disk (folder: %d), %d entries, limit %d", when, size, total, c.count(), limit)
		if size > limit || total > limit*11/10 {
			t.Errorf("%s: %d bytes on disk (the folder: %d), over the limit of %d", when, size, total, limit)
		}
		if size < limit*7/10 {
			t.Errorf("%s: %d bytes on disk: pruned far below the limit of %d", when, size, limit)
		}
	}
	check("after Prune")
	fill(30000, 40000)
	if err := c.Prune(limit); err != nil {
		t.Fatal(err)
	}
	check("after more entries and Prune")
}

// TestIncrementalVacuumFreesEveryPage: the pages that deleted entries
// leave free are all given back to the file system (SQLite frees one per
// step of the statement).
func TestIncrementalVacuumFreesEveryPage(t *testing.T) {
	c := openCache(t)
	for i := range 100 {
		c.Put(c.Key("x", fmt.Appendf(nil, "%d", i)), testEntry(uint64(i), 3000)) // overflow pages
	}
	c.flush(true)
	if _, _, err := c.keepNewest(200<<10, 4096); err != nil {
		t.Fatal(err)
	}
	c.checkpoint()
	before := diskBytes(c.dir)
	free := func() (n int64) {
		c.db.QueryRow("PRAGMA freelist_count").Scan(&n)
		return n
	}
	pages := free()
	if pages < 100 {
		t.Fatalf("%d free pages after deleting most entries", pages)
	}
	if err := c.incrementalVacuum(); err != nil {
		t.Fatal(err)
	}
	c.checkpoint()
	if n, after := free(), diskBytes(c.dir); n != 0 || after > before-pages*4096 {
		t.Errorf("after incremental_vacuum: %d free pages, %d bytes on disk, %d before", n, after, before)
	}
}

// duFolder is what du counts for dir: the blocks of every file in it.
func duFolder(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err == nil && info.Mode().IsRegular() {
			n += statBlocks(info)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStats counts hits, misses, writes, entries and bytes.
func TestStats(t *testing.T) {
	c := openCache(t)
	for i := range 5 {
		c.Put(c.Key("python", []byte{byte(i)}), entry)
	}
	c.Get(c.Key("python", []byte{0}))
	c.Get(c.Key("python", []byte{1}))
	c.Get(c.Key("python", []byte{9}))
	s := c.Stats()
	if s.Hits != 2 || s.Misses != 1 || s.Writes != 5 || s.Entries != 5 || s.Bytes <= 0 {
		t.Errorf("Stats = %+v, want 2 hits, 1 miss, 5 writes, 5 entries, some bytes", s)
	}
}

// TestConcurrentGoroutines: workers put and get at once, some the same
// keys; every hit is right, and everything is stored in the end.
func TestConcurrentGoroutines(t *testing.T) {
	c := openCache(t)
	const workers, n = 8, 400
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range n {
				j := (i + w*37) % n // overlapping keys, in another order
				k := c.Key("go", fmt.Appendf(nil, "%d", j))
				if e, ok := c.Get(k); ok && !reflect.DeepEqual(e, testEntry(uint64(j), j%50)) {
					t.Errorf("key %d: wrong entry", j)
				}
				if err := c.Put(k, testEntry(uint64(j), j%50)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for j := range n {
		if e, ok := c.Get(c.Key("go", fmt.Appendf(nil, "%d", j))); !ok || !reflect.DeepEqual(e, testEntry(uint64(j), j%50)) {
			t.Errorf("key %d: %v", j, ok)
		}
	}
	if s := c.Stats(); s.Entries != n {
		t.Errorf("%d entries, want %d", s.Entries, n)
	}
}
