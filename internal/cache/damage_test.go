package cache

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// filled makes a cache in a new folder with n entries, closes it (its log
// folded in) and returns the folder and the database's bytes.
func filled(t *testing.T, n int) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	c, err := Open(dir, "v1")
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		k, e := damageKey(c, i)
		if err := c.Put(k, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, dbName+"-wal")); err == nil {
		t.Fatal("the log is still there after Close")
	}
	data, err := os.ReadFile(filepath.Join(dir, dbName))
	if err != nil {
		t.Fatal(err)
	}
	return dir, data
}

func damageKey(c *Cache, i int) (Key, Entry) {
	n := 1 + i%40
	if i%50 == 0 {
		n = 2000
	}
	return c.Key("rust", fmt.Appendf(nil, "damage-%d", i)), testEntry(uint64(i), n)
}

// useDamaged opens the cache in dir and reads the n entries: each must be
// a miss or exactly right. It returns the Cache (closed at the end of the
// test) and the number of hits.
func useDamaged(t *testing.T, dir string, n int, what string) (*Cache, int) {
	t.Helper()
	c, err := Open(dir, "v1")
	if err != nil {
		t.Fatalf("%s: Open: %v", what, err)
	}
	t.Cleanup(func() { c.Close() })
	hits := 0
	for i := range n {
		k, want := damageKey(c, i)
		got, ok := c.Get(k)
		if ok && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: entry %d is wrong", what, i)
		}
		if ok {
			hits++
		}
	}
	return c, hits
}

// worksAfter checks that c stores and reads entries, and that its
// database is whole.
func worksAfter(t *testing.T, c *Cache, what string) {
	t.Helper()
	k := c.Key("go", []byte("after"))
	if err := c.Put(k, entry); err != nil {
		t.Fatalf("%s: Put after the repair: %v", what, err)
	}
	c.flush(true)
	if got, ok := c.Get(k); !ok || !reflect.DeepEqual(got, entry) {
		t.Fatalf("%s: no hit after the repair", what)
	}
	checkIntegrity(t, c)
}

// TestTruncatedDatabase: a database cut short (a full disk, a bad copy) is
// found at Open and replaced by a new one, reported; an empty file is a
// new database. No entry of a truncated database is ever read wrong.
func TestTruncatedDatabase(t *testing.T) {
	const n = 1500
	src, data := filled(t, n)
	if len(data) < 20*4096 {
		t.Fatalf("the database takes only %d bytes", len(data))
	}
	for _, size := range []int{0, 50, 99, 100, 4096, 4096 + 100, len(data) / 2, len(data) - 4096, len(data) - 1} {
		what := fmt.Sprintf("truncated to %d of %d bytes", size, len(data))
		dir := t.TempDir()
		write(t, dir, tagName, []byte(tagText))
		write(t, dir, dbName, data[:size])
		c, hits := useDamaged(t, dir, n, what)
		if hits != 0 {
			t.Errorf("%s: %d hits", what, hits)
		}
		if err := c.Repaired(); (err != nil) != (size > 0) {
			t.Errorf("%s: Repaired() = %v", what, err)
		} else if size > 0 {
			t.Logf("%s: %v", what, err)
		}
		worksAfter(t, c, what)
	}
	// The original, untouched, hits.
	if _, hits := useDamaged(t, src, n, "the original"); hits != n {
		t.Errorf("the original: %d hits of %d", hits, n)
	}
}

// TestGarbageDatabase: a file that is not castchunk's database (garbage,
// another application's SQLite database, an older cache) is replaced; one
// made by a newer castchunk is left to it, and not used.
func TestGarbageDatabase(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 64<<10)
	for i := range garbage {
		garbage[i] = byte(r.Uint32())
	}
	foreign := func(setup ...string) []byte {
		dir := t.TempDir()
		p := filepath.Join(dir, "x.db")
		db, err := sql.Open("sqlite3", p)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range setup {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	_, ours := filled(t, 10)
	newer := bytes.Clone(ours)
	newer[63] = schemaVersion + 1 // user_version, big-endian at 60
	for _, tc := range []struct {
		name     string
		data     []byte
		replaced bool
	}{
		{"garbage", garbage, true},
		{"text", []byte(strings.Repeat("precious notes\n", 1000)), true},
		{"a SQLite header then garbage", append([]byte("SQLite format 3\x00"), garbage...), true},
		{"another application's database", foreign("CREATE TABLE notes (x)", "INSERT INTO notes VALUES ('precious')"), true},
		{"another application's id", foreign("PRAGMA application_id = 42", "CREATE TABLE notes (x)"), true},
		{"an older cache", foreign("PRAGMA application_id = "+fmt.Sprint(appID), "PRAGMA user_version = 0", "CREATE TABLE entries (x)"), true},
		{"a newer cache", newer, false},
	} {
		dir := t.TempDir()
		write(t, dir, tagName, []byte(tagText))
		write(t, dir, dbName, tc.data)
		c, hits := useDamaged(t, dir, 10, tc.name)
		if hits != 0 {
			t.Errorf("%s: %d hits", tc.name, hits)
		}
		err := c.Repaired()
		if (err != nil) != tc.replaced {
			t.Errorf("%s: Repaired() = %v, want an error: %v", tc.name, err, tc.replaced)
		}
		if tc.replaced {
			t.Logf("%s: %v", tc.name, err)
			worksAfter(t, c, tc.name)
			continue
		}
		perr := c.Put(c.Key("go", []byte("x")), entry)
		if perr == nil || !strings.Contains(perr.Error(), "newer castchunk") {
			t.Errorf("%s: Put = %v, want an error naming a newer castchunk", tc.name, perr)
		}
		c.Close()
		if got, _ := os.ReadFile(filepath.Join(dir, dbName)); !bytes.Equal(got, tc.data) {
			t.Errorf("%s: the database was changed", tc.name)
		}
	}
}

// TestDamagedPages: a database whose header is whole but whose pages are
// partly garbage passes Open; SQLite finds the damage when a query reads
// a damaged page, and the database is replaced then, in the middle of the
// run. Until then and after, every entry is a miss or exactly right.
func TestDamagedPages(t *testing.T) {
	const n = 1500
	src, data := filled(t, n)
	r := rand.New(rand.NewPCG(3, 4))
	pages := len(data) / 4096
	for p := 2; p < pages; p += 3 { // every third page from the third on
		for i := p * 4096; i < (p+1)*4096; i++ {
			data[i] = byte(r.Uint32())
		}
	}
	write(t, src, dbName, data)
	c, hits := useDamaged(t, src, n, "damaged pages")
	err := c.Repaired()
	if err == nil {
		t.Error("the damage was not found")
	}
	t.Logf("%d hits of %d; %v", hits, n, err)
	worksAfter(t, c, "damaged pages")
}

// TestDamagedDatabaseInUse: a run that finds the database damaged while
// another run has it open does not replace it under that run: it goes on
// without the cache (misses, and Put says why). The next run that has it
// alone replaces it.
func TestDamagedDatabaseInUse(t *testing.T) {
	dir, data := filled(t, 100)
	a, err := Open(dir, "v1")
	if err != nil {
		t.Fatal(err)
	}
	garbage := bytes.Repeat([]byte("garbage!"), len(data)/8)
	write(t, dir, dbName, garbage)
	b, hits := useDamaged(t, dir, 100, "in use")
	if hits != 0 {
		t.Errorf("%d hits", hits)
	}
	if err := b.Repaired(); err != nil {
		t.Errorf("replaced while in use: %v", err)
	}
	err = b.Put(b.Key("go", []byte("x")), entry)
	if err == nil || !strings.Contains(err.Error(), "another castchunk run is using it") {
		t.Errorf("Put = %v, want an error saying another run uses the database", err)
	}
	if err := b.Prune(0); err == nil {
		t.Error("Prune of a damaged database succeeded")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, dbName)); !bytes.Equal(got, garbage) {
		t.Error("the database in use was changed")
	}
	a.Close()
	b.Close()
	c, _ := useDamaged(t, dir, 100, "alone")
	if c.Repaired() == nil {
		t.Error("the run alone did not replace the damaged database")
	}
	worksAfter(t, c, "alone")
}

// TestShortDatabaseWithLog: a run that filled the disk in the middle of a
// checkpoint leaves the database's header counting pages the file does not
// hold yet, and the log that holds them. SQLite opens that database whole
// (it reads those pages from the log): it is used, not judged truncated
// and replaced.
func TestShortDatabaseWithLog(t *testing.T) {
	const first, more = 300, 200
	_, data := filled(t, first)
	live := t.TempDir()
	write(t, live, tagName, []byte(tagText))
	write(t, live, dbName, data)
	c, err := Open(live, "v1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.db.Exec("PRAGMA wal_autocheckpoint = 0"); err != nil {
		t.Fatal(err)
	}
	for i := first; i < first+more; i++ {
		k, e := damageKey(c, i)
		if err := c.Put(k, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.flush(true); err != nil {
		t.Fatal(err)
	}
	// The state a checkpoint cut short leaves: the log whole, the
	// database's first page already the log's newest one, its last pages
	// not written.
	wal, err := os.ReadFile(filepath.Join(live, dbName+"-wal"))
	if err != nil {
		t.Fatal(err)
	}
	page1 := newestPage1(t, wal, len(data))
	if bytes.Equal(page1[28:32], data[28:32]) {
		t.Fatal("the log does not grow the database")
	}
	dir := t.TempDir()
	write(t, dir, tagName, []byte(tagText))
	write(t, dir, dbName+"-wal", wal)
	write(t, dir, dbName, append(append([]byte{}, page1...), data[len(page1):]...))
	c2, hits := useDamaged(t, dir, first+more, "short database with its log")
	if err := c2.Repaired(); err != nil {
		t.Errorf("replaced: %v", err)
	}
	if hits != first+more {
		t.Errorf("%d hits of %d", hits, first+more)
	}
	worksAfter(t, c2, "short database with its log")
}

// newestPage1 returns the newest copy of the database's first page in the
// write-ahead log wal (https://www.sqlite.org/fileformat.html#the_write_ahead_log).
func newestPage1(t *testing.T, wal []byte, dbSize int) []byte {
	t.Helper()
	if len(wal) < 32 {
		t.Fatalf("the log has %d bytes", len(wal))
	}
	pageSize := int(binary.BigEndian.Uint32(wal[8:]))
	var page1 []byte
	for off := 32; off+24+pageSize <= len(wal); off += 24 + pageSize {
		if binary.BigEndian.Uint32(wal[off:]) == 1 {
			page1 = wal[off+24 : off+24+pageSize]
		}
	}
	if page1 == nil || pageSize > dbSize {
		t.Fatal("no first page in the log")
	}
	return page1
}

// TestStatsOfAnUnusableDatabase: a Cache that cannot read its database
// (damaged while another run has it open) does not know how many entries
// it holds, and says so, not "-1 entries".
func TestStatsOfAnUnusableDatabase(t *testing.T) {
	dir, data := filled(t, 10)
	a, err := Open(dir, "v1")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got, want := a.Stats().EntriesText(), "10 entries"; got != want {
		t.Errorf("usable: %q, want %q", got, want)
	}
	write(t, dir, dbName, bytes.Repeat([]byte("garbage!"), len(data)/8))
	b, _ := useDamaged(t, dir, 10, "in use")
	s := b.Stats()
	if got, want := s.EntriesText(), "an unknown number of entries"; s.Entries != -1 || got != want {
		t.Errorf("unusable: Entries %d, %q; want -1, %q", s.Entries, got, want)
	}
}
