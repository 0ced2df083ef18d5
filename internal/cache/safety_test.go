package cache

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/hex"
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
	old := &Cache{dir: dir, salt: sha256.Sum256([]byte("v1"))}
	if err := old.Put(old.Key("python", []byte("x")), entry); err != nil {
		t.Fatal(err)
	}
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
		tag, err := os.ReadFile(filepath.Join(dir, "CACHEDIR.TAG"))
		if err != nil || !strings.HasPrefix(string(tag), "Signature: 8a477f597d28d172789f06886806bc55\n") || !strings.Contains(string(tag), "castchunk") {
			t.Fatalf("tag %q, %v", tag, err)
		}
		if err := c.Put(c.Key("python", []byte("x")), entry); err != nil {
			t.Fatal(err)
		}
		for _, salt := range []string{"v1", "v2"} {
			if _, err := Open(dir, salt); err != nil {
				t.Errorf("Open of a tagged cache with salt %s: %v", salt, err)
			}
		}
	}
}

// TestOpenBesideAConcurrentOpen: runs that start at once on a new folder
// all get the cache, though each may see the others' temporary tags.
func TestOpenBesideAConcurrentOpen(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".tmp-CACHEDIR.TAG-12345", []byte(tagSignature[:10]))
	if _, err := Open(dir, "v1"); err != nil {
		t.Errorf("Open beside another Open's temporary tag: %v", err)
	}

	dir = filepath.Join(t.TempDir(), "cache")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { _, errs[i] = Open(dir, "v1") })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("concurrent Open %d: %v", i, err)
		}
	}
}

// openCache opens a new cache in a temporary folder.
func openCache(t *testing.T) *Cache {
	t.Helper()
	c, err := Open(t.TempDir(), "v1")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGetReadsNoFIFO: a FIFO where an entry should be is a miss at once,
// even with a writer ready to serve a valid entry through it. A Get that
// opened it for reading would block until the writer came, then hit.
func TestGetReadsNoFIFO(t *testing.T) {
	c := openCache(t)
	k := c.Key("python", []byte("x"))
	p := c.path(k)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0) // waits for a reader
		if err != nil {
			done <- err
			return
		}
		w.Write(encode(entry, k)) // EPIPE if the reader left: fine
		done <- w.Close()
	}()
	_, hit := c.Get(k)
	// Be the writer's reader, so that it ends whatever Get did.
	r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	<-done
	r.Close()
	if hit {
		t.Fatal("Get read an entry out of a FIFO")
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("Get removed the FIFO (%v): only files the cache wrote are removed", err)
	}
	// The next Put replaces it.
	if err := c.Put(k, entry); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(k); !ok {
		t.Error("no hit after a Put over the FIFO")
	}
}

// TestGetFollowsNoSymlink: a symlink where an entry should be is a miss,
// whether it leads to a valid entry or to /dev/zero (which a Get that
// followed it would read until memory ran out).
func TestGetFollowsNoSymlink(t *testing.T) {
	c := openCache(t)
	k := c.Key("python", []byte("x"))
	p := c.path(k)
	elsewhere := write(t, t.TempDir(), "entry", encode(entry, k))
	symlink(t, elsewhere, p)
	if _, ok := c.Get(k); ok {
		t.Fatal("Get followed a symlink to an entry")
	}
	if _, err := os.Lstat(p); err != nil {
		t.Errorf("Get removed the symlink: %v", err)
	}
	if data, err := os.ReadFile(elsewhere); err != nil || !bytes.Equal(data, encode(entry, k)) {
		t.Errorf("the symlink's target changed: %v", err)
	}
	os.Remove(p)
	symlink(t, "/dev/zero", p)
	if _, ok := c.Get(k); ok {
		t.Fatal("Get read an entry out of /dev/zero")
	}
	if err := c.Put(k, entry); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(k); !ok {
		t.Error("no hit after a Put over the symlink")
	}
}

// TestGetLeavesFilesThatAreNotEntries: a file at an entry's place that
// does not start as entries do, or is larger than any entry, is a miss and
// left alone; the latter is not even read.
func TestGetLeavesFilesThatAreNotEntries(t *testing.T) {
	c := openCache(t)
	k := c.Key("python", []byte("x"))
	p := c.path(k)
	for _, data := range [][]byte{[]byte("x\x01precious"), {}, []byte(magic[:5])} {
		write(t, c.dir, strings.TrimPrefix(filepath.ToSlash(p), filepath.ToSlash(c.dir)+"/"), data)
		if _, ok := c.Get(k); ok {
			t.Fatalf("%q is a hit", data)
		}
		if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, data) {
			t.Errorf("Get removed or changed %q: %v", data, err)
		}
	}
	// Larger than any entry, though it starts as one: sparse, so the test
	// stays cheap when Get reads nothing of it.
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(encode(entry, k))
	if err := f.Truncate(maxEntry + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, ok := c.Get(k); ok {
		t.Fatal("an oversized file is a hit")
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() != maxEntry+1 {
		t.Errorf("Get removed or changed an oversized file: %v", err)
	}
	// A directory.
	os.Remove(p)
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(k); ok {
		t.Fatal("a directory is a hit")
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		t.Errorf("Get removed a directory: %v", err)
	}
}

// TestPruneDeletesOnlyItsOwnEntries: in a cache, files laid out like
// entries (git objects copied in, anything named like an entry) are not
// the cache's unless they start with its magic: Prune leaves them alone.
func TestPruneDeletesOnlyItsOwnEntries(t *testing.T) {
	c := openCache(t)
	k := c.Key("python", []byte("x"))
	if err := c.Put(k, entry); err != nil {
		t.Fatal(err)
	}
	fakeObjects(t, c.dir)
	for f, data := range map[string]string{
		"notes.txt":                     "precious",
		"ab/notes.txt":                  "precious",
		"zz/" + strings.Repeat("a", 62): "precious",
		"ab/" + strings.Repeat("A", 62): "precious",
		"ab/" + strings.Repeat("b", 62): "",
		"ab/" + strings.Repeat("c", 62): magic[:len(magic)-1],
		"ab/.tmp-notes":                 "precious",
		".tmp-CACHEDIR.TAG-notes":       "precious",
	} {
		p := write(t, c.dir, f, []byte(data))
		old := time.Now().Add(-48 * time.Hour)
		os.Chtimes(p, old, old)
	}
	// The cache's own leftovers: temporary files of a run that died.
	for _, f := range []string{"ab/.tmp-123456", ".tmp-CACHEDIR.TAG-123456"} {
		p := write(t, c.dir, f, []byte(magic))
		old := time.Now().Add(-2 * time.Hour)
		os.Chtimes(p, old, old)
	}
	fresh := write(t, c.dir, "ab/.tmp-654321", []byte(magic))

	want := snapshot(t, c.dir)
	for _, p := range []string{c.path(k), filepath.Join(c.dir, "ab", ".tmp-123456"), filepath.Join(c.dir, ".tmp-CACHEDIR.TAG-123456")} {
		rel, _ := filepath.Rel(c.dir, p)
		delete(want, rel)
	}
	if err := c.Prune(0); err != nil {
		t.Fatal(err)
	}
	compare(t, "Prune(0)", snapshot(t, c.dir), want)
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("Prune removed the temporary file of a running Put: %v", err)
	}
}

// TestPruneFollowsNoSymlinks: entries reached through a symlink (an entry
// that is one, a fan-out folder that is one) and entries deeper than the
// fan-out folders are not the cache's: Prune neither removes nor counts
// them. The cache's own folder may be a symlink: the user named it.
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
		other := c.Key("python", []byte("y"))
		name := hex.EncodeToString(other[:])
		data := encode(entry, other)
		write(t, outside, "entry", data)
		write(t, outside, "cd/"+name[2:], data)
		symlink(t, filepath.Join(outside, "entry"), filepath.Join(real, name[:2], name[2:]))
		symlink(t, filepath.Join(outside, "cd"), filepath.Join(real, "cd"))
		write(t, real, "sub/"+name[:2]+"/"+name[2:], data)
		write(t, real, "sub/x/"+name[:2]+"/"+name[2:], data)

		wantOutside := snapshot(t, outside)
		want := snapshot(t, real)
		rel, _ := filepath.Rel(dir, c.path(k))
		delete(want, rel)
		if err := c.Prune(0); err != nil {
			t.Fatal(err)
		}
		compare(t, fmt.Sprintf("via a symlink %v: Prune(0)", viaLink), snapshot(t, real), want)
		compare(t, fmt.Sprintf("via a symlink %v: Prune(0), outside the cache,", viaLink), snapshot(t, outside), wantOutside)
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

// TestConcurrentPrunes: two runs pruning one cache at once both succeed,
// each counting an entry the other removed as gone, and keep the entries
// used last.
func TestConcurrentPrunes(t *testing.T) {
	c := openCache(t)
	var keys []Key
	for i := range 60 {
		k := c.Key("python", []byte{byte(i)})
		keys = append(keys, k)
		if err := c.Put(k, entry); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(time.Duration(i-100) * time.Minute)
		os.Chtimes(c.path(k), old, old)
	}
	size := int64(len(encode(entry, keys[0])))
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { errs[i] = c.Prune(5 * size) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Prune %d: %v", i, err)
		}
	}
	for i, k := range keys {
		_, err := os.Stat(c.path(k))
		if kept, want := err == nil, i >= 55; kept != want {
			t.Errorf("entry %d kept=%v, want %v", i, kept, want)
		}
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
	if _, err := os.Stat(c.path(k)); err != nil {
		t.Errorf("Prune without the tag removed an entry: %v", err)
	}
}

// TestPruneSurvivesEntriesVanishing: between the scan and the removals,
// another run removes entries or puts other files in their place. Gone
// entries count as removed; files that are not entries are left alone and
// no longer counted.
func TestPruneSurvivesEntriesVanishing(t *testing.T) {
	c := openCache(t)
	var keys []Key
	for i := range 6 {
		k := c.Key("python", []byte{byte(i)})
		keys = append(keys, k)
		if err := c.Put(k, entry); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(time.Duration(i-10) * time.Minute)
		os.Chtimes(c.path(k), old, old)
	}
	size := int64(len(encode(entry, keys[0])))
	stale := time.Now().Add(-time.Hour)

	items, total, err := c.scan(stale)
	if err != nil || len(items) != 6 || total != 6*size {
		t.Fatalf("scan: %d items, %d bytes, %v", len(items), total, err)
	}
	os.Remove(c.path(keys[0]))
	os.Remove(c.path(keys[1]))
	evict(items, total, total-2*size) // the two gone are enough
	for i, k := range keys[2:] {
		if _, err := os.Stat(c.path(k)); err != nil {
			t.Errorf("entry %d removed though two vanished: %v", i+2, err)
		}
	}

	items, total, err = c.scan(stale)
	if err != nil || len(items) != 4 {
		t.Fatalf("scan: %d items, %v", len(items), err)
	}
	foreign := bytes.Repeat([]byte("p"), int(size))
	if err := os.WriteFile(c.path(keys[2]), foreign, 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := write(t, t.TempDir(), "entry", encode(entry, keys[3]))
	os.Remove(c.path(keys[3]))
	symlink(t, elsewhere, c.path(keys[3]))
	evict(items, total, total-3*size) // the file and the symlink do not count
	if data, err := os.ReadFile(c.path(keys[2])); err != nil || !bytes.Equal(data, foreign) {
		t.Errorf("evict removed or changed a file that is not an entry: %v", err)
	}
	if fi, err := os.Lstat(c.path(keys[3])); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("evict removed a symlink: %v", err)
	}
	if _, err := os.Stat(elsewhere); err != nil {
		t.Errorf("evict removed a symlink's target: %v", err)
	}
	if _, err := os.Stat(c.path(keys[4])); !os.IsNotExist(err) {
		t.Errorf("evict kept entry 4: %v", err)
	}
	if _, err := os.Stat(c.path(keys[5])); err != nil {
		t.Errorf("evict removed entry 5: %v", err)
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
	if err := c.Remove(k); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(k); ok {
		t.Error("hit after Remove")
	}
	if _, err := os.Lstat(c.path(k)); !os.IsNotExist(err) {
		t.Errorf("entry still there after Remove: %v", err)
	}
	if err := c.Remove(k); err != nil {
		t.Errorf("Remove of no entry: %v", err)
	}
	// What is not an entry stays: a file that does not start as one, a
	// symlink to one, a FIFO.
	p := c.path(k)
	if err := os.WriteFile(p, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Remove(k); err != nil {
		t.Error(err)
	}
	if data, err := os.ReadFile(p); err != nil || string(data) != "precious" {
		t.Errorf("Remove removed a file that is not an entry: %v", err)
	}
	os.Remove(p)
	elsewhere := write(t, t.TempDir(), "entry", encode(entry, k))
	symlink(t, elsewhere, p)
	if err := c.Remove(k); err != nil {
		t.Error(err)
	}
	if _, err := os.Lstat(p); err != nil {
		t.Errorf("Remove removed a symlink: %v", err)
	}
	if _, err := os.Stat(elsewhere); err != nil {
		t.Errorf("Remove removed a symlink's target: %v", err)
	}
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.Remove(k); err != nil {
		t.Error(err)
	}
	if _, err := os.Lstat(p); err != nil {
		t.Errorf("Remove removed a FIFO: %v", err)
	}
}

// TestPutRefusesWhatGetWouldNotRead: an entry over maxEntry is not stored,
// and leaves nothing behind.
func TestPutRefusesWhatGetWouldNotRead(t *testing.T) {
	defer func(old int64) { maxEntry = old }(maxEntry)
	c := openCache(t)
	k, big := c.Key("python", []byte("x")), c.Key("python", []byte("y"))
	size := int64(len(encode(entry, k)))
	maxEntry = size
	if err := c.Put(k, entry); err != nil {
		t.Fatalf("Put of an entry of exactly maxEntry bytes: %v", err)
	}
	if _, ok := c.Get(k); !ok {
		t.Fatal("no hit for an entry of exactly maxEntry bytes")
	}
	maxEntry = size - 1
	if err := c.Put(big, entry); err == nil {
		t.Error("Put stored an entry over maxEntry")
	}
	if _, err := os.Lstat(c.path(big)); !os.IsNotExist(err) {
		t.Errorf("an entry over maxEntry is there: %v", err)
	}
	if _, ok := c.Get(k); ok {
		t.Error("Get read an entry over maxEntry")
	}
}

// TestPutWritesOnlyWhereItPrunes: Put writes through no symlinked fan-out
// folder (Prune never looks there), and does not make the cache's folder
// again, untagged, when it was removed.
func TestPutWritesOnlyWhereItPrunes(t *testing.T) {
	c := openCache(t)
	k := c.Key("python", []byte("x"))
	outside := t.TempDir()
	symlink(t, outside, filepath.Dir(c.path(k)))
	if err := c.Put(k, entry); err == nil {
		t.Error("Put through a symlinked fan-out folder succeeded")
	}
	if got := snapshot(t, outside); len(got) != 1 {
		t.Errorf("Put wrote outside the cache: %v", got)
	}

	c = openCache(t)
	if err := os.RemoveAll(c.dir); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(k, entry); err == nil {
		t.Error("Put into a removed cache succeeded")
	}
	if _, err := os.Lstat(c.dir); !os.IsNotExist(err) {
		t.Errorf("Put made the removed cache folder again: %v", err)
	}
}
