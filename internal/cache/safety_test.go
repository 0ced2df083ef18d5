package cache

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// write creates root/rel (slash-separated) and its folders.
func write(t *testing.T, root, rel string, data []byte) string {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// snapshot maps every path below root (symlinks not followed) to its
// content, its target, or "dir".
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.IsDir():
			m[rel] = "dir"
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			m[rel] = "-> " + target
			return err
		default:
			data, err := os.ReadFile(p)
			m[rel] = string(data)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fakeObjects fills dir like the objects folder of a SHA-256 git
// repository: two-hex-digit folders holding zlib-compressed objects named by
// the other 62 hex digits of their hash, exactly the cache's layout.
func fakeObjects(t *testing.T, dir string) {
	t.Helper()
	for _, obj := range []string{"blob 6\x00x = 1\n", "tree 0\x00", "commit 12\x00tree 0000000\n", "blob 2\x00y\n"} {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write([]byte(obj))
		w.Close()
		sum := sha256.Sum256([]byte(obj))
		name := hex.EncodeToString(sum[:])
		write(t, dir, name[:2]+"/"+name[2:], z.Bytes())
	}
	write(t, dir, "info/packs", []byte("\n"))
	write(t, dir, "pack/pack-"+strings.Repeat("0", 64)+".idx", []byte("\377tOc"))
}

const notACache = "is not a castchunk cache (no CACHEDIR.TAG) and is not empty; choose an empty or new folder"

// TestOpenRefusesAFolderThatIsNotACache: --cache pointed at a SHA-256 git
// repository's objects (or at any folder with something in it) is refused,
// and nothing is written there, so nothing can ever be pruned there.
func TestOpenRefusesAFolderThatIsNotACache(t *testing.T) {
	gitDir := filepath.Join(t.TempDir(), ".git")
	objects := filepath.Join(gitDir, "objects")
	fakeObjects(t, objects)
	write(t, gitDir, "HEAD", []byte("ref: refs/heads/main\n"))
	home := t.TempDir()
	write(t, home, "notes.txt", []byte("precious"))
	for _, dir := range []string{objects, gitDir, home} {
		before := snapshot(t, dir)
		if _, err := Open(dir, "v1"); err == nil || !strings.Contains(err.Error(), dir+" "+notACache) {
			t.Errorf("Open(%s) = %v, want an error saying %q", dir, err, notACache)
		}
		if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
			t.Errorf("Open(%s) changed it: %v, then %v", dir, before, after)
		}
	}
}

// TestOpenRefusesAnUntaggedCache: a cache made before the tag cannot be
// told from a folder of someone else's files: refused, with the fix.
func TestOpenRefusesAnUntaggedCache(t *testing.T) {
	dir := t.TempDir()
	writeLegacy(t, dir, Key{1})
	_, err := Open(dir, "v1")
	if err == nil || !strings.Contains(err.Error(), notACache) || !strings.Contains(err.Error(), "delete") {
		t.Errorf("Open of an untagged cache = %v, want %q and how to fix it", err, notACache)
	}
}

// TestOpenRefusesAnotherProgramsCache: a CACHEDIR.TAG that castchunk did
// not write marks another program's cache, even when nothing else is there.
func TestOpenRefusesAnotherProgramsCache(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"tag only":        {"CACHEDIR.TAG": tagSignature + "\n# This file is a cache directory tag created by pip.\n"},
		"tag and entries": {"CACHEDIR.TAG": tagSignature + "\n", "ab/" + strings.Repeat("c", 62): "x"},
		"not a tag":       {"CACHEDIR.TAG": "hello\n"},
	} {
		dir := t.TempDir()
		for f, data := range files {
			write(t, dir, f, []byte(data))
		}
		before := snapshot(t, dir)
		if _, err := Open(dir, "v1"); err == nil || !strings.Contains(err.Error(), "CACHEDIR.TAG") {
			t.Errorf("%s: Open = %v, want an error naming CACHEDIR.TAG", name, err)
		}
		if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
			t.Errorf("%s: Open changed the folder: %v, then %v", name, before, after)
		}
	}
	// Nor is a symlink to castchunk's tag a tag.
	real := t.TempDir()
	if _, err := Open(real, "v1"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	symlink(t, filepath.Join(real, "CACHEDIR.TAG"), filepath.Join(dir, "CACHEDIR.TAG"))
	if _, err := Open(dir, "v1"); err == nil {
		t.Error("a symlink to a tag is taken for a tag")
	}
}

// TestOpenTagsNewAndEmptyFolders: a new or empty folder becomes a cache,
// tagged as the Cache Directory Tagging spec says, and opens again.
func TestOpenTagsNewAndEmptyFolders(t *testing.T) {
	for _, dir := range []string{filepath.Join(t.TempDir(), "new", "cache"), t.TempDir()} {
		c, err := Open(dir, "v1")
		if err != nil {
			t.Fatalf("Open(%s): %v", dir, err)
		}
		defer c.Close()
		tag, err := os.ReadFile(filepath.Join(dir, "CACHEDIR.TAG"))
		if err != nil || !strings.HasPrefix(string(tag), "Signature: 8a477f597d28d172789f06886806bc55\n") || !strings.Contains(string(tag), "castchunk") {
			t.Fatalf("tag %q, %v", tag, err)
		}
		if err := c.Put(c.Key("python", []byte("x")), entry); err != nil {
			t.Fatal(err)
		}
		for _, salt := range []string{"v1", "v2"} {
			d, err := Open(dir, salt)
			if err != nil {
				t.Errorf("Open of a tagged cache with salt %s: %v", salt, err)
				continue
			}
			d.Close()
		}
	}
}

// TestOpenBesideAConcurrentOpen: runs that start at once on a new folder
// all get the cache, though each may see the others' temporary tags.
func TestOpenBesideAConcurrentOpen(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".tmp-CACHEDIR.TAG-12345", []byte(tagSignature[:10]))
	if c, err := Open(dir, "v1"); err != nil {
		t.Errorf("Open beside another Open's temporary tag: %v", err)
	} else {
		c.Close()
	}

	// Each also creates the database, and stores an entry.
	dir = filepath.Join(t.TempDir(), "cache")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			c, err := Open(dir, "v1")
			if err != nil {
				errs[i] = err
				return
			}
			errs[i] = cmpErr(c.Put(c.Key("python", []byte{byte(i)}), entry), c.Close())
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("concurrent Open %d: %v", i, err)
		}
	}
	c, err := Open(dir, "v1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range errs {
		if _, ok := c.Get(c.Key("python", []byte{byte(i)})); !ok {
			t.Errorf("the entry of concurrent Open %d is missing", i)
		}
	}
	if err := c.Repaired(); err != nil {
		t.Errorf("concurrent creations damaged the database: %v", err)
	}
}

// writeLegacy writes an entry of the old layout for k in dir, and returns
// its path.
func writeLegacy(t *testing.T, dir string, k Key) string {
	t.Helper()
	name := hex.EncodeToString(k[:])
	return write(t, dir, name[:2]+"/"+name[2:], append(append([]byte(legacyMagic), k[:]...), "old entry"...))
}

// withoutDB drops the database's files from a snapshot.
func withoutDB(m map[string]string) map[string]string {
	for _, name := range []string{dbName, dbName + "-wal", dbName + "-shm"} {
		delete(m, name)
	}
	return m
}

// TestDatabaseThatIsNotAFile: a FIFO, a symlink (to a database elsewhere,
// to /dev/zero) or a folder where the database or its log should be is
// neither opened (a FIFO would block) nor followed nor removed: the run
// goes on without the cache, every Get a miss and every Put an error.
func TestDatabaseThatIsNotAFile(t *testing.T) {
	elsewhere := t.TempDir()
	other, err := Open(elsewhere, "v1")
	if err != nil {
		t.Fatal(err)
	}
	k := other.Key("python", []byte("x"))
	other.Put(k, entry)
	other.Close()
	for _, tc := range []struct {
		name string
		make func(p string) error
	}{
		{dbName + " FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{dbName + "-wal FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{dbName + " symlink", func(p string) error { return os.Symlink(filepath.Join(elsewhere, dbName), p) }},
		{dbName + " /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{dbName + "-shm symlink", func(p string) error { return os.Symlink(filepath.Join(elsewhere, "shm"), p) }},
		{dbName + " folder", func(p string) error { return os.Mkdir(p, 0o755) }},
	} {
		dir := t.TempDir()
		if c, err := Open(dir, "v1"); err != nil {
			t.Fatal(err)
		} else {
			c.Close()
		}
		name, _, _ := strings.Cut(tc.name, " ")
		os.Remove(filepath.Join(dir, name))
		if err := tc.make(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		before := snapshotLinks(t, dir)
		wantElsewhere := snapshot(t, elsewhere)
		c, err := Open(dir, "v1")
		if err != nil {
			t.Fatalf("%s: Open: %v", tc.name, err)
		}
		if _, ok := c.Get(k); ok {
			t.Errorf("%s: a hit", tc.name)
		}
		if err := c.Put(k, entry); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: Put = %v, want an error saying it is not a regular file", tc.name, err)
		}
		if err := c.Prune(0); err == nil {
			t.Errorf("%s: Prune succeeded", tc.name)
		}
		c.Close()
		if after := snapshotLinks(t, dir); !reflect.DeepEqual(before, after) {
			t.Errorf("%s: the folder changed: %v, then %v", tc.name, before, after)
		}
		compare(t, tc.name+": elsewhere", snapshot(t, elsewhere), wantElsewhere)
	}
}

// snapshotLinks is snapshot without reading a FIFO: its type only.
func snapshotLinks(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		info, _ := e.Info()
		m[e.Name()] = info.Mode().String()
		if info.Mode().IsRegular() && e.Name() != dbName {
			data, _ := os.ReadFile(filepath.Join(root, e.Name()))
			m[e.Name()] += string(data)
		}
	}
	return m
}

// TestPruneRemovesTheOldLayout: a cache folder of the previous version
// (one file per entry, in fan-out folders) opens; its entries are never
// read, and Prune removes them and their emptied folders, and the old
// layout's stale temporary files. Files laid out like entries (git objects
// copied in, anything named like an entry) are not the cache's unless they
// start with its old magic: they stay, and so do their folders.
func TestPruneRemovesTheOldLayout(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, tagName, []byte(tagText))
	k := Key{0xab, 1}
	old := writeLegacy(t, dir, k)
	lone := writeLegacy(t, dir, Key{0x12, 2}) // alone in its folder
	c, err := Open(dir, "v1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.Get(k); ok {
		t.Fatal("an entry of the old layout is a hit")
	}
	nk := c.Key("python", []byte("x"))
	if err := c.Put(nk, entry); err != nil {
		t.Fatal(err)
	}
	fakeObjects(t, dir)
	for f, data := range map[string]string{
		"notes.txt":                     "precious",
		"ab/notes.txt":                  "precious",
		"zz/" + strings.Repeat("a", 62): "precious",
		"ab/" + strings.Repeat("A", 62): "precious",
		"ab/" + strings.Repeat("b", 62): "",
		"ab/" + strings.Repeat("c", 62): legacyMagic[:len(legacyMagic)-1],
		"ab/.tmp-notes":                 "precious",
		".tmp-CACHEDIR.TAG-notes":       "precious",
	} {
		p := write(t, dir, f, []byte(data))
		old := time.Now().Add(-48 * time.Hour)
		os.Chtimes(p, old, old)
	}
	// The old layout's leftovers: temporary files of a run that died.
	for _, f := range []string{"ab/.tmp-123456", ".tmp-CACHEDIR.TAG-123456"} {
		p := write(t, dir, f, []byte(legacyMagic))
		old := time.Now().Add(-2 * time.Hour)
		os.Chtimes(p, old, old)
	}
	fresh := write(t, dir, "ab/.tmp-654321", []byte(legacyMagic))

	want := withoutDB(snapshot(t, dir))
	for _, p := range []string{old, lone, filepath.Dir(lone), filepath.Join(dir, "ab", ".tmp-123456"), filepath.Join(dir, ".tmp-CACHEDIR.TAG-123456")} {
		rel, _ := filepath.Rel(dir, p)
		delete(want, rel)
	}
	if err := c.Prune(1 << 30); err != nil {
		t.Fatal(err)
	}
	compare(t, "Prune", withoutDB(snapshot(t, dir)), want)
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("Prune removed a recent temporary file: %v", err)
	}
	if _, ok := c.Get(nk); !ok {
		t.Error("Prune within the limit removed an entry")
	}
}

// TestPruneFollowsNoSymlinks: old entries reached through a symlink (an
// entry that is one, a fan-out folder that is one) and entries deeper than
// the fan-out folders are not the cache's: Prune removes none of them. The
// cache's own folder may be a symlink: the user named it.
func TestPruneFollowsNoSymlinks(t *testing.T) {
	for _, viaLink := range []bool{false, true} {
		real := t.TempDir()
		dir := real
		if viaLink {
			dir = filepath.Join(t.TempDir(), "cache")
			symlink(t, real, dir)
		}
		c, err := Open(dir, "v1")
		if err != nil {
			t.Fatal(err)
		}
		k := c.Key("python", []byte("x"))
		if err := c.Put(k, entry); err != nil {
			t.Fatal(err)
		}

		outside := t.TempDir()
		other := Key{0xcd, 3}
		name := hex.EncodeToString(other[:])
		p := writeLegacy(t, outside, other)
		data, _ := os.ReadFile(p)
		write(t, outside, "entry", data)
		symlink(t, filepath.Join(outside, "entry"), filepath.Join(real, "ef", name[2:]))
		symlink(t, filepath.Join(outside, "cd"), filepath.Join(real, "cd"))
		write(t, real, "sub/"+name[:2]+"/"+name[2:], data)
		write(t, real, "sub/x/"+name[:2]+"/"+name[2:], data)

		wantOutside := snapshot(t, outside)
		want := withoutDB(snapshot(t, real))
		if err := c.Prune(0); err != nil {
			t.Fatal(err)
		}
		compare(t, fmt.Sprintf("via a symlink %v: Prune(0)", viaLink), withoutDB(snapshot(t, real)), want)
		compare(t, fmt.Sprintf("via a symlink %v: Prune(0), outside the cache,", viaLink), snapshot(t, outside), wantOutside)
		if stored(t, c, k) {
			t.Errorf("via a symlink %v: Prune(0) kept an entry", viaLink)
		}
		c.Close()
	}
}

// compare reports the paths of a snapshot that differ from want's.
func compare(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for f, data := range got {
		if w, ok := want[f]; !ok {
			t.Errorf("%s kept %s", what, f)
		} else if w != data {
			t.Errorf("%s changed %s", what, f)
		}
	}
	for f := range want {
		if _, ok := got[f]; !ok {
			t.Errorf("%s removed %s", what, f)
		}
	}
}

// TestConcurrentPrunes: two Caches on one folder pruning at once both
// succeed, and keep the entries used last.
func TestConcurrentPrunes(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir, "v1")
	defer a.Close()
	b, _ := Open(dir, "v1")
	defer b.Close()
	var keys []Key
	base := time.Now().Add(-100 * time.Hour)
	for i := range 60 {
		k := a.Key("python", []byte{byte(i)})
		keys = append(keys, k)
		if err := a.Put(k, testEntry(uint64(i), 2000)); err != nil {
			t.Fatal(err)
		}
	}
	for i, k := range keys {
		setUsed(t, a, k, base.Add(time.Duration(i)*time.Minute))
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = []*Cache{a, b}[i%2].Prune(200 << 10) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Prune %d: %v", i, err)
		}
	}
	if size := diskBytes(dir); size > 200<<10 {
		t.Errorf("%d bytes on disk", size)
	}
	if !stored(t, a, keys[59]) || stored(t, a, keys[0]) {
		var kept []int
		for i, k := range keys {
			if stored(t, a, k) {
				kept = append(kept, i)
			}
		}
		t.Errorf("the concurrent prunes did not keep the newest entries: kept %v, %d bytes on disk", kept, diskBytes(dir))
	}
}

// TestPruneNeedsTheTag: a cache folder that lost its tag since Open (the
// folder replaced, say) is not pruned.
func TestPruneNeedsTheTag(t *testing.T) {
	c := openCache(t)
	k := c.Key("python", []byte("x"))
	if err := c.Put(k, entry); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(c.dir, "CACHEDIR.TAG"))
	if err := c.Prune(0); err == nil {
		t.Error("Prune of a folder without the tag succeeded")
	}
	if !stored(t, c, k) {
		t.Error("Prune without the tag removed an entry")
	}
}

// TestRemove: the pipeline drops an entry whose checksum holds but whose
// spans do not fit its file.
func TestRemove(t *testing.T) {
	c := openCache(t)
	k := c.Key("python", []byte("x"))
	if err := c.Put(k, entry); err != nil {
		t.Fatal(err)
	}
	c.flush(true)
	if err := c.Remove(k); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(k); ok {
		t.Error("hit after Remove")
	}
	if stored(t, c, k) {
		t.Error("entry still there after Remove")
	}
	if err := c.Remove(k); err != nil {
		t.Errorf("Remove of no entry: %v", err)
	}
	// Put, then Remove in one batch.
	c.Put(k, entry)
	c.Remove(k)
	if _, ok := c.Get(k); ok || stored(t, c, k) {
		t.Error("an entry put then removed is there")
	}
}

// TestPutRefusesWhatGetWouldNotRead: an entry over maxEntry is not stored,
// and one stored before the limit fell is not read.
func TestPutRefusesWhatGetWouldNotRead(t *testing.T) {
	defer func(old int64) { maxEntry = old }(maxEntry)
	c := openCache(t)
	k, big := c.Key("python", []byte("x")), c.Key("python", []byte("y"))
	size := int64(len(encode(entry, k)))
	maxEntry = size
	if err := c.Put(k, entry); err != nil {
		t.Fatalf("Put of an entry of exactly maxEntry bytes: %v", err)
	}
	c.flush(true)
	if _, ok := c.Get(k); !ok {
		t.Fatal("no hit for an entry of exactly maxEntry bytes")
	}
	maxEntry = size - 1
	if err := c.Put(big, entry); err == nil {
		t.Error("Put stored an entry over maxEntry")
	}
	if stored(t, c, big) {
		t.Error("an entry over maxEntry is there")
	}
	if _, ok := c.Get(k); ok {
		t.Error("Get read an entry over maxEntry")
	}
}

// TestCacheFolderRemovedDuringRun: a cache folder deleted while a run uses
// it is not made again (untagged), and what the run stores after that is
// reported as not stored.
func TestCacheFolderRemovedDuringRun(t *testing.T) {
	c := openCache(t)
	if err := os.RemoveAll(c.dir); err != nil {
		t.Fatal(err)
	}
	err := c.Put(c.Key("python", []byte("x")), entry)
	err = cmpErr(err, c.Close())
	if err == nil {
		t.Error("Put into a removed cache succeeded")
	}
	if _, err := os.Lstat(c.dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the removed cache folder was made again: %v", err)
	}
}
