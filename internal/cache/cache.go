// Package cache remembers how files were chunked, so a re-run over a mostly
// unchanged repository skips parsing and chunking for the files it has seen.
//
// An entry is keyed by SHA-256 of a salt (castchunk's version and the
// chunking options) and the file's language and content, and holds only the
// chunk spans: records are re-encoded from the file on a hit, so the current
// path (and the id, which depends on it) is always right and the entry stays
// tiny. Each entry carries a checksum; a corrupt or truncated entry is
// detected, ignored and removed, never emitted. Entries are written to a
// temporary file and renamed, so concurrent runs sharing a cache are safe.
// Prune keeps the cache under a size limit by removing the entries used
// least recently (a hit refreshes an entry's modification time).
package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/castchunk/castchunk/internal/chunk"
)

// magic starts every entry; bump it when the layout changes.
const magic = "castchunk-cache-1\n"

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

// Open uses dir (created if needed) as a cache for runs whose version and
// options are summed up by salt.
func Open(dir, salt string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return &Cache{dir: dir, salt: sha256.Sum256([]byte(salt))}, nil
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

// Get returns the entry for k. A missing, unreadable, truncated or corrupt
// entry is a miss; a corrupt one is removed.
func (c *Cache) Get(k Key) (Entry, bool) {
	p := c.path(k)
	data, err := os.ReadFile(p)
	if err != nil {
		return Entry{}, false
	}
	e, err := decode(data, k)
	if err != nil {
		os.Remove(p)
		return Entry{}, false
	}
	now := time.Now()
	os.Chtimes(p, now, now) // recently used: pruned last
	return e, true
}

// Put stores e under k. Errors are returned for the caller to report; a
// failed Put leaves no partial entry.
func (c *Cache) Put(k Key, e Entry) error {
	p := c.path(k)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(encode(e, k))
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

// isEntryDir reports whether name is one of the 256 fan-out folders.
func isEntryDir(name string) bool { return isHex(name, 2) }

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

// Prune removes the least recently used entries until the cache holds at
// most maxBytes, and leftover temporary files older than an hour.
func (c *Cache) Prune(maxBytes int64) error {
	type item struct {
		path string
		size int64
		used time.Time
	}
	var items []item
	var total int64
	stale := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed by a concurrent run
		}
		dir, name := filepath.Split(p)
		if !isEntryDir(filepath.Base(dir)) {
			return nil // not ours: Prune only ever removes cache files
		}
		if strings.HasPrefix(name, ".tmp-") {
			if info.ModTime().Before(stale) {
				os.Remove(p)
			}
			return nil
		}
		if !isHex(name, 2*sha256.Size-2) {
			return nil
		}
		items = append(items, item{p, info.Size(), info.ModTime()})
		total += info.Size()
		return nil
	})
	if err != nil || total <= maxBytes {
		return err
	}
	sort.Slice(items, func(i, j int) bool { return items[i].used.Before(items[j].used) })
	for _, it := range items {
		if total <= maxBytes {
			break
		}
		if err := os.Remove(it.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= it.size
		}
	}
	return nil
}
