// Package cache remembers how files were chunked, so a re-run over a mostly
// unchanged repository skips parsing and chunking for the files it has seen.
//
// An entry is keyed by SHA-256 of a salt (castchunk's version and the
// chunking options) and the file's language and content, and holds only the
// chunk spans: records are re-encoded from the file on a hit, so the current
// path (and the id, which depends on it) is always right and the entry stays
// tiny. Each entry carries a checksum; a corrupt or truncated entry is
// detected and ignored, never emitted, and removed if it still starts as an
// entry does. Entries are written to a temporary file and renamed, so
// concurrent runs sharing a cache are safe. Prune keeps the cache under a
// size limit by removing the entries used least recently (a hit refreshes
// an entry's modification time).
//
// The cache deletes only what it can tell it wrote. Its folder carries a
// tag (CACHEDIR.TAG, see tagText) written before anything else, and Open
// refuses a folder that holds anything but no tag: the cache never writes,
// let alone prunes, among someone else's files. Inside, a file is an entry
// only if it is a regular file in a fan-out folder (the first two hex
// digits of its key), named by the other 62, that starts with magic; the
// only other files the cache removes are its own stale temporary files.
// Prune follows no symlink below the cache's folder and Put writes through
// none; Get and Remove do not follow an entry that is a symlink. A symlink,
// a FIFO, a device or a file larger than any entry is never read: it is a
// miss, left where it is (the next Put of its key renames an entry over it).
package cache

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/regular"
)

// magic starts every entry; bump it when the layout changes.
const magic = "castchunk-cache-1\n"

// maxEntry is the size of the largest entry: Put refuses larger ones and
// Get reads no more. A chunk takes 3 to 15 bytes; even a window per line
// of a 10MiB file (the default --max-file-size) of empty lines, in
// overlapping sliding windows, takes under 64 MiB. A file whose entry would
// be larger is chunked again on each run. A variable for tests.
var maxEntry int64 = 64 << 20

// The tag marks the folder as a castchunk cache, following the Cache
// Directory Tagging specification (https://bford.info/cachedir/), so that
// backup tools skip it too. castchunk recognizes its own tag by tagHead.
const (
	tagName      = "CACHEDIR.TAG"
	tagSignature = "Signature: 8a477f597d28d172789f06886806bc55"
	tagHead      = tagSignature + "\n# This file is a cache directory tag created by castchunk.\n"
	tagText      = tagHead +
		"# castchunk chunk --cache keeps chunk boundaries here, and removes only its own entries.\n" +
		"# For information about cache directory tags, see https://bford.info/cachedir/\n"
	// tagTemp and entryTemp start the names of temporary files (os.CreateTemp
	// adds digits): the tag's, in the folder, and the entries', in the fan-out
	// folders.
	tagTemp   = ".tmp-" + tagName + "-"
	entryTemp = ".tmp-"
)

// ErrNotCache is the error Open returns for a folder that is not a
// castchunk cache and cannot become one.
var ErrNotCache = errors.New("not a castchunk cache")

// Cache is a directory of entries. Its methods are safe for concurrent use.
type Cache struct {
	dir  string
	salt [sha256.Size]byte
}

// Entry is what is remembered about one file.
type Entry struct {
	Method string // method the spans were made with
	Syntax bool   // the tree had syntax errors
	Spans  []chunk.Span
}

// Key names an entry.
type Key [sha256.Size]byte

// Open uses dir as a cache for runs whose version and options are summed up
// by salt. dir must be a castchunk cache (it holds castchunk's tag), or new
// or empty: then it is created if needed and tagged. Any other folder is
// refused with an error that wraps ErrNotCache, and left untouched.
func Open(dir, salt string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if err := claim(dir); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return &Cache{dir: dir, salt: sha256.Sum256([]byte(salt))}, nil
}

// claim makes sure dir is a castchunk cache: it holds castchunk's tag, or
// it is empty and gets it. The tag is written first and never removed, so
// a folder holding something other than the temporary tags of concurrent
// claims is ours only if the tag is there. The folder is listed before the
// tag is looked for, so a concurrent claim that tags it and adds entries
// meanwhile is not taken for someone else's files.
func claim(dir string) error {
	empty, err := untouched(dir)
	if err != nil {
		return err
	}
	err = checkTag(dir)
	if !errors.Is(err, fs.ErrNotExist) {
		return err // nil: ours
	}
	if !empty {
		return fmt.Errorf("%s is %w (no %s) and is not empty; choose an empty or new folder "+
			"(a cache made by castchunk before it tagged its caches has no %s either: delete that folder, and castchunk starts a new cache there)",
			dir, ErrNotCache, tagName, tagName)
	}
	return writeTag(dir)
}

// untouched reports whether dir holds nothing but temporary tags.
func untouched(dir string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	for {
		names, err := f.Readdirnames(64)
		for _, name := range names {
			if !isTemp(name, tagTemp) {
				return false, nil
			}
		}
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// checkTag returns nil when dir holds castchunk's tag, an error that wraps
// fs.ErrNotExist when it holds none, and another error when its tag is not
// castchunk's.
func checkTag(dir string) error {
	p := filepath.Join(dir, tagName)
	f, _, err := openFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var head []byte
	if err == nil {
		head = make([]byte, len(tagHead))
		_, err = io.ReadFull(f, head)
		f.Close()
	}
	switch {
	case err == nil, err == io.EOF, err == io.ErrUnexpectedEOF,
		errors.Is(err, syscall.ELOOP), notRegular(err):
	default:
		return err // unreadable: we cannot tell
	}
	if string(head) != tagHead {
		return fmt.Errorf("%s is %w: its %s was not written by castchunk (another program's cache?); choose an empty or new folder", dir, ErrNotCache, tagName)
	}
	return nil
}

// writeTag tags dir atomically, so that a concurrent claim reads a whole
// tag or none.
func writeTag(dir string) error {
	f, err := os.CreateTemp(dir, tagTemp+"*")
	if err != nil {
		return err
	}
	_, werr := f.WriteString(tagText)
	merr := f.Chmod(0o644)
	cerr := f.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, tagName)); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// openFile opens p for reading if it is a regular file, without following
// a symlink, without blocking on a FIFO and without taking a terminal: a
// symlink, a FIFO, a device or a folder is an error.
func openFile(p string) (*os.File, fs.FileInfo, error) {
	return regular.Open(p, syscall.O_NOFOLLOW)
}

// notRegular reports an error that refused a file for not being regular.
func notRegular(err error) bool {
	var nr *regular.NotRegularError
	return errors.As(err, &nr)
}

// isTemp reports whether name is prefix followed by digits, as
// os.CreateTemp makes them.
func isTemp(name, prefix string) bool {
	digits, ok := strings.CutPrefix(name, prefix)
	if !ok || digits == "" {
		return false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Key returns the key of a file's content in a language.
func (c *Cache) Key(language string, content []byte) Key {
	h := sha256.New()
	h.Write(c.salt[:])
	h.Write([]byte(language))
	h.Write([]byte{0})
	h.Write(content)
	var k Key
	h.Sum(k[:0])
	return k
}

func (c *Cache) path(k Key) string {
	name := hex.EncodeToString(k[:])
	return filepath.Join(c.dir, name[:2], name[2:])
}

// Get returns the entry for k. Anything else is a miss: no file, a file
// that is not an entry (see the package comment, left alone), or a corrupt
// or truncated entry (removed when it starts with magic).
func (c *Cache) Get(k Key) (Entry, bool) {
	p := c.path(k)
	data, err := readEntry(p)
	if err != nil {
		return Entry{}, false
	}
	e, err := decode(data, k)
	if err != nil {
		if bytes.HasPrefix(data, []byte(magic)) {
			os.Remove(p) // ours, damaged
		}
		return Entry{}, false
	}
	now := time.Now()
	os.Chtimes(p, now, now) // recently used: pruned last
	return e, true
}

// readEntry reads the file at p if it is a regular file of at most
// maxEntry bytes.
func readEntry(p string) ([]byte, error) {
	f, info, err := openFile(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > maxEntry {
		return nil, errTooLarge
	}
	data := make([]byte, info.Size()+1)
	n, err := io.ReadFull(f, data)
	switch err {
	case io.EOF, io.ErrUnexpectedEOF:
		return data[:n], nil
	case nil:
		return nil, errTooLarge // grew since fstat
	default:
		return nil, err
	}
}

var errTooLarge = errors.New("larger than any cache entry")

// Put stores e under k. Errors are returned for the caller to report; a
// failed Put leaves no partial entry. An entry larger than maxEntry is not
// stored (an error says so).
func (c *Cache) Put(k Key, e Entry) error {
	data := encode(e, k)
	if int64(len(data)) > maxEntry {
		return fmt.Errorf("cache: the entry of a file in %d chunks would take %d bytes, over the limit of %d: not stored", len(e.Spans), len(data), maxEntry)
	}
	p := c.path(k)
	dir := filepath.Dir(p)
	// Mkdir, not MkdirAll: a cache folder removed during the run is not
	// made again untagged. A fan-out folder that is not a folder (a
	// symlink) is refused: Prune would never see what was written there.
	if err := os.Mkdir(dir, 0o755); errors.Is(err, fs.ErrExist) {
		if info, err := os.Lstat(dir); err != nil || !info.IsDir() {
			return fmt.Errorf("cache: %s is not a folder", dir)
		}
	} else if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, entryTemp+"*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// Remove removes the entry for k, for a caller that finds it wrong for its
// file although its checksum holds (a miss needs no Remove: Get removes a
// damaged entry itself). No entry is not an error; a file in its place that
// is not an entry is left alone, and is not an error either.
func (c *Cache) Remove(k Key) error {
	return removeEntry(c.path(k))
}

// removeEntry removes the file at p if it is an entry: a regular file that
// starts with magic. It returns nil when p is no longer an entry: removed
// (by it or by a concurrent run), or never one.
func removeEntry(p string) error {
	f, _, err := openFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ELOOP), notRegular(err):
		return nil // gone, a symlink, not a regular file
	case err != nil:
		return err
	}
	head := make([]byte, len(magic))
	_, err = io.ReadFull(f, head)
	f.Close()
	if err != nil || string(head) != magic {
		return nil // not ours
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// encode lays an entry out as: magic, key, method, syntax flag, span count,
// spans as uvarints (start delta, length, size), then SHA-256 of all that.
func encode(e Entry, k Key) []byte {
	b := make([]byte, 0, len(magic)+len(k)+16+6*len(e.Spans)+sha256.Size)
	b = append(b, magic...)
	b = append(b, k[:]...)
	b = binary.AppendUvarint(b, uint64(len(e.Method)))
	b = append(b, e.Method...)
	syntax := byte(0)
	if e.Syntax {
		syntax = 1
	}
	b = append(b, syntax)
	b = binary.AppendUvarint(b, uint64(len(e.Spans)))
	prev := 0
	for _, s := range e.Spans {
		b = binary.AppendUvarint(b, uint64(s.Start-prev))
		b = binary.AppendUvarint(b, uint64(s.End-s.Start))
		b = binary.AppendUvarint(b, uint64(s.Size))
		prev = s.Start
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

var errCorrupt = errors.New("corrupt cache entry")

func decode(b []byte, k Key) (Entry, error) {
	if len(b) < len(magic)+len(k)+sha256.Size {
		return Entry{}, errCorrupt
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if want := sha256.Sum256(body); string(want[:]) != string(sum) {
		return Entry{}, errCorrupt
	}
	if string(body[:len(magic)]) != magic || string(body[len(magic):len(magic)+len(k)]) != string(k[:]) {
		return Entry{}, errCorrupt
	}
	r := reader{b: body[len(magic)+len(k):]}
	var e Entry
	e.Method = string(r.bytes(r.uvarint()))
	e.Syntax = r.byte() == 1
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		return Entry{}, errCorrupt
	}
	e.Spans = make([]chunk.Span, 0, n)
	prev := 0
	for range n {
		start := prev + int(r.uvarint())
		end := start + int(r.uvarint())
		e.Spans = append(e.Spans, chunk.Span{Start: start, End: end, Size: int(r.uvarint())})
		prev = start
	}
	if r.err != nil || len(r.b) != 0 {
		return Entry{}, errCorrupt
	}
	return e, nil
}

// reader decodes an entry body, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > 1<<40 {
		r.err = errCorrupt
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.err = errCorrupt
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.err = errCorrupt
		r.b = nil
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

// isHex reports whether s is n lowercase hex digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Prune removes the least recently used entries until those left hold at
// most maxBytes, and the cache's temporary files older than an hour. It
// reads only the cache's folder and its fan-out folders, follows no
// symlink, and removes only entries (see the package comment), checking
// each before removing it. Concurrent runs may prune at once: an entry
// that vanished meanwhile counts as removed.
func (c *Cache) Prune(maxBytes int64) error {
	if err := checkTag(c.dir); err != nil {
		return fmt.Errorf("cache: not pruning: %w", err)
	}
	items, total, err := c.scan(time.Now().Add(-time.Hour))
	evict(items, total, maxBytes)
	return err
}

// item is a file that looked like an entry when the cache was scanned.
type item struct {
	path string
	size int64
	used time.Time
}

// scan lists what looks like an entry and the total size of those files,
// removing temporary files older than stale on the way. It goes on past a
// fan-out folder it cannot read, and returns the first such error.
func (c *Cache) scan(stale time.Time) ([]item, int64, error) {
	top, err := os.ReadDir(c.dir)
	if err != nil {
		return nil, 0, err
	}
	var items []item
	var total int64
	var first error
	for _, d := range top {
		p := filepath.Join(c.dir, d.Name())
		switch {
		case isTemp(d.Name(), tagTemp) && d.Type().IsRegular():
			removeStale(p, stale)
		case isHex(d.Name(), 2) && d.IsDir(): // a symlink is not a dir here
			f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY, 0)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) && first == nil {
					first = err
				}
				continue
			}
			entries, err := f.ReadDir(-1)
			f.Close()
			if err != nil && first == nil {
				first = err
			}
			for _, e := range entries {
				q := filepath.Join(p, e.Name())
				switch {
				case !e.Type().IsRegular():
				case isTemp(e.Name(), entryTemp):
					removeStale(q, stale)
				case isHex(e.Name(), 2*sha256.Size-2):
					info, err := e.Info()
					if err != nil || !info.Mode().IsRegular() {
						continue // vanished, or replaced
					}
					items = append(items, item{q, info.Size(), info.ModTime()})
					total += info.Size()
				}
			}
		}
	}
	return items, total, first
}

// removeStale removes the temporary file p if it was last written before
// stale: a concurrent Put's is recent.
func removeStale(p string, stale time.Time) {
	if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() && info.ModTime().Before(stale) {
		os.Remove(p)
	}
}

// evict removes items, least recently used first, until total is at most
// maxBytes. An item that is gone counts as removed, and one that turns out
// not to be an entry is left and no longer counted; one that cannot be
// removed still counts.
func evict(items []item, total, maxBytes int64) {
	slices.SortFunc(items, func(a, b item) int {
		return cmp.Or(a.used.Compare(b.used), strings.Compare(a.path, b.path))
	})
	for _, it := range items {
		if total <= maxBytes {
			break
		}
		if removeEntry(it.path) == nil {
			total -= it.size
		}
	}
}
