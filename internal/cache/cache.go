// Package cache remembers how files were chunked, so a re-run over a mostly
// unchanged repository skips parsing and chunking for the files it has seen,
// and the vectors embedding models gave texts (see Vectors).
//
// An entry is keyed by SHA-256 of a salt (castchunk's version, the
// chunking options and the embedding options) and the file's language and
// content, and holds what was computed from them: the chunk spans, and what
// the embedding flags add to each chunk (scope, defines, token count,
// header: record.Extra). Records are re-encoded from the file on a hit, so
// the current path (and the id, which depends on it) is always right, and a
// hit needs no parse, no chunker and no tokenizer. Each entry carries a
// checksum over its key and content: an entry that fails it, or fails to
// decode, is a miss, never emitted, and is deleted.
//
// # Vectors
//
// The cache also remembers the vectors an embedding model gave texts
// (castchunk eval --embedder, package embed), so a second evaluation of an
// unchanged repository sends the endpoint no request. A vector is an
// entry like a file's, in the same table, with the same batching, damage
// handling and pruning (least recently used first, files and vectors
// alike): its key is SHA-256 of the model's name and the text
// (VectorKey), without a salt, so that a new castchunk does not embed
// everything again; its bytes are the numbers as float32 little-endian,
// under a checksum of their own layout (see encodeVector). A vector is read
// by its key, one at a time: the cache is never loaded whole.
//
// # One file
//
// The entries live in one SQLite database, cache.db, in the cache's folder
// (with SQLite's cache.db-wal and cache.db-shm while it is in use): one row
// per entry, in one table keyed by the key, with the entry's last use. A
// file per entry took a 4 KiB block and an inode each (38 MB on disk for
// 2 MB of entries), and CI caches upload and restore many small files
// slowly. The database is in WAL mode, so:
//
//   - a commit is atomic and survives the process being killed (kill -9):
//     the next run recovers the log and sees every committed entry and
//     nothing of the rest;
//   - castchunk runs sharing the folder read concurrently, and write one at
//     a time: each waits up to busyTimeout for another's write, and a write
//     is short (changes are batched: one transaction when batchMax of them
//     wait, or batchAge after the first, and at Close);
//   - the space it takes on disk is the database file and its log, which
//     Prune measures and shrinks (see Prune).
//
// A cache never blocks a run for long and never fails it: when the
// database cannot be used (locked for longer than busyTimeout, unreadable,
// damaged while another run uses it), every Get misses and Put returns the
// reason, for the caller to report once.
//
// # Damage
//
// A database that is not one (garbage, a foreign file), that is truncated
// (shorter than its header says, with no write-ahead log to hold the rest),
// or that SQLite finds malformed while it is used, is replaced by a new,
// empty one, and Repaired reports what was found. A run replaces it only
// when no other run has it open: every Cache holds a shared lock (flock) on
// the folder's tag while it has the database open, and takes it
// exclusively, without waiting, to replace the database, deleting its log
// first. Until then the damaged database is not used. What SQLite cannot
// see (an entry's bytes damaged) the entry's checksum does.
//
// # What the cache deletes
//
// The cache deletes only what it can tell it wrote. Its folder carries a
// tag (CACHEDIR.TAG, see tagText) written before anything else, and Open
// refuses a folder that holds anything but no tag: the cache never writes,
// let alone prunes, among someone else's files. Inside, it deletes rows of
// its own database, the database itself when damaged (only if it is a
// regular file, as are its log and index: a symlink, a FIFO or a folder in
// their place makes the cache unusable and is left where it is), and what
// the old layout of the cache left behind (see sweepLegacy).
package cache

import (
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/record"
)

// maxEntry is the size of the largest entry: Put refuses larger ones and
// Get reads no more. A chunk takes 3 to 15 bytes (a few more with the
// embedding flags: its token count, and indexes into the entry's
// definitions and strings, each stored once); even a window per line
// of a 10MiB file (the default --max-file-size) of empty lines, in
// overlapping sliding windows, takes under 64 MiB. A file whose entry would
// be larger is chunked again on each run. A variable for tests.
var maxEntry int64 = 64 << 20

// Writes are batched: a batch is written when it holds batchMax changes,
// batchAge after its first change, and by Prune, Stats and Close. Past
// maxPending changes waiting (a write blocked by another run), Put waits
// for the write.
const (
	batchMax   = 100
	batchAge   = 50 * time.Millisecond
	maxPending = 10000
)

// touchGrain is how stale an entry's last use must be for a hit to record
// it again: a warm re-run within the hour writes nothing, and the least
// recently used entries are still told apart to the hour.
const touchGrain = time.Hour

// Cache is a castchunk cache folder, opened. Its methods are safe for
// concurrent use.
type Cache struct {
	dir  string
	salt [sha256.Size]byte
	id   fileID   // the folder's, to find the other Caches of this process on it
	lock *os.File // the tag, locked shared while the database is open

	// dbMu guards the database: queries hold it for reading; replacing
	// the database and Close, for writing.
	dbMu     sync.RWMutex
	db       *sql.DB // nil: unusable (broken says why) or closed
	dbID     fileID  // the database file's, when opened
	stmts    stmts
	broken   error // why the database is not used
	repaired error // the damage found, and repaired

	writeMu sync.Mutex // one write transaction at a time

	mu       sync.Mutex // guards the batch
	pending  map[Key]op // changes not yet written
	inflight map[Key]op // changes being written
	armed    bool       // a timer will write pending
	writeErr error      // the error of a write nobody has been told about
	closed   bool

	hits, misses, writes atomic.Int64
}

// Entry is what is remembered about one file.
type Entry struct {
	Method string // method the spans were made with
	Syntax bool   // the tree had syntax errors
	Spans  []chunk.Span
	// Extras are what the embedding flags add to each span (package
	// enrich), one per span; nil when the run asks for none.
	Extras []record.Extra
	// Regions are the file's embedded regions (code in another language);
	// nil when none.
	Regions []record.Region
}

// Key names an entry.
type Key [sha256.Size]byte

// op is a change waiting to be written.
type op struct {
	kind opKind
	data []byte // opPut: the entry, encoded
	used int64  // opPut, opTouch: the time of use, in Unix seconds
}

type opKind uint8

const (
	opPut opKind = iota
	opDelete
	opTouch
)

// Stats is what a Cache did, and what the cache holds.
type Stats struct {
	Hits, Misses int64 // Get calls that found an entry, and that did not
	Writes       int64 // entries this Cache stored
	// Entries is the number of entries in the database, of every salt,
	// vectors included; -1 when it cannot be read.
	Entries int64
	// Bytes is the space the database takes on disk: the blocks allocated
	// to its file, its log and its index.
	Bytes int64
}

// EntriesText is Entries as --stats says it: "12 entries", or "an unknown
// number of entries" when the database cannot be read, as -1 is no count.
func (s Stats) EntriesText() string {
	if s.Entries < 0 {
		return "an unknown number of entries"
	}
	return strconv.FormatInt(s.Entries, 10) + " entries"
}

// Open uses dir as a cache for runs whose version and options are summed up
// by salt (Key's: vectors have keys of their own, so a Cache used for
// vectors only may have the salt ""). dir must be a castchunk cache (it
// holds castchunk's tag), or new or empty: then it is created if needed and
// tagged. Any other folder is refused with an error that wraps ErrNotCache,
// and left untouched.
//
// A database that cannot be used does not fail Open: the Cache then misses
// and Put returns why (see the package comment); a damaged one is replaced,
// and Repaired says so. Close releases what Open takes; a Cache that is not
// closed loses the changes of its last batchAge.
func Open(dir, salt string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if err := claim(dir); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	tag, err := openTag(dir)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	id, err := statID(dir)
	if err != nil {
		tag.Close()
		return nil, fmt.Errorf("cache: %w", err)
	}
	c := &Cache{
		dir:     dir,
		salt:    sha256.Sum256([]byte(salt)),
		id:      id,
		lock:    tag,
		pending: map[Key]op{},
	}
	// Another Cache of this process on the folder writes its batch first,
	// so that this one sees what it stored.
	for _, o := range register(c) {
		o.flush(true)
	}
	c.dbMu.Lock()
	c.open()
	c.dbMu.Unlock()
	return c, nil
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

// Get returns the entry for k. Anything else is a miss: no entry, an entry
// that fails its checksum or does not decode (deleted), a database that
// cannot be read.
func (c *Cache) Get(k Key) (Entry, bool) {
	e, ok := c.get(k)
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return e, ok
}

// Note is Get for an entry that is castchunk's own, not a file's (a
// tokenizer.json it checked): it counts as neither a hit nor a miss.
func (c *Cache) Note(k Key) (Entry, bool) { return c.get(k) }

func (c *Cache) get(k Key) (Entry, bool) { return load(c, k, decode) }

// load finds k's bytes (in the batch, else in the database) and decodes
// them with dec, which checks them: bytes that fail are a miss, and
// deleted. A hit read from the database records its use. It serves Get
// and GetVector, whose entries differ only in their layout.
func load[T any](c *Cache, k Key, dec func([]byte, Key) (T, error)) (T, bool) {
	var zero T
	c.mu.Lock()
	o, ok := c.pending[k]
	if !ok {
		o, ok = c.inflight[k]
	}
	c.mu.Unlock()
	if ok && o.kind != opTouch {
		if o.kind == opDelete {
			return zero, false
		}
		v, err := dec(o.data, k)
		return v, err == nil
	}
	data, used, err := c.lookup(k)
	if err != nil {
		return zero, false
	}
	v, err := dec(data, k)
	if err != nil {
		c.queue(k, op{kind: opDelete})
		return zero, false
	}
	if now := time.Now(); time.Unix(used, 0).Before(now.Add(-touchGrain)) {
		c.queue(k, op{kind: opTouch, used: now.Unix()})
	}
	return v, true
}

// Put stores e under k. It returns an error for the caller to report: the
// entry's or that of an earlier write that failed (a failed write stores
// none of its batch). An entry larger than maxEntry is not stored (an
// error says so).
func (c *Cache) Put(k Key, e Entry) error {
	data := encode(e, k)
	if int64(len(data)) > maxEntry {
		return fmt.Errorf("cache: the entry of a file in %d chunks would take %d bytes, over the limit of %d: not stored", len(e.Spans), len(data), maxEntry)
	}
	return c.queue(k, op{kind: opPut, data: data, used: time.Now().Unix()})
}

// Remove removes the entry for k, for a caller that finds it wrong for its
// file although its checksum holds (a miss needs no Remove: Get removes a
// damaged entry itself). No entry is not an error.
func (c *Cache) Remove(k Key) error {
	return c.queue(k, op{kind: opDelete})
}

// queue adds a change to the batch, and writes the batch when it is full.
// A touch does not replace another change of the same entry.
func (c *Cache) queue(k Key, o op) error {
	if err := c.unusable(); err != nil {
		return err
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	if _, ok := c.pending[k]; !ok || o.kind != opTouch {
		c.pending[k] = o
	}
	n := len(c.pending)
	if !c.armed {
		c.armed = true
		time.AfterFunc(batchAge, func() {
			if err := c.flush(true); err != nil {
				c.mu.Lock()
				c.writeErr = err
				c.mu.Unlock()
			}
		})
	}
	err := c.writeErr
	c.writeErr = nil
	c.mu.Unlock()
	switch {
	case n >= maxPending:
		err = cmpErr(err, c.flush(true))
	case n >= batchMax:
		err = cmpErr(err, c.flush(false))
	}
	return err
}

// cmpErr returns the first error.
func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// unusable returns why the database is not used, if it is not.
func (c *Cache) unusable() error {
	c.dbMu.RLock()
	defer c.dbMu.RUnlock()
	return c.broken
}

// ErrClosed is what a closed Cache's Put and PutVector return.
var ErrClosed = errors.New("cache: closed")

// flush writes the batch in one transaction. With wait, it waits for a
// write in progress, then writes what is left; without, a write in
// progress will be followed by the timer's.
func (c *Cache) flush(wait bool) error {
	if wait {
		c.writeMu.Lock()
	} else if !c.writeMu.TryLock() {
		return nil
	}
	defer c.writeMu.Unlock()
	c.mu.Lock()
	batch := c.pending
	if len(batch) == 0 {
		c.mu.Unlock()
		return nil
	}
	c.pending, c.inflight, c.armed = map[Key]op{}, batch, false
	c.mu.Unlock()
	puts, err := c.write(batch)
	c.mu.Lock()
	c.inflight = nil
	c.mu.Unlock()
	c.writes.Add(int64(puts))
	return err
}

// Stats returns what the Cache did, and what the cache holds now, after
// writing the batch. Entries and Bytes are read from the database and the
// disk: call it before Close.
func (c *Cache) Stats() Stats {
	c.flush(true)
	s := Stats{
		Hits:    c.hits.Load(),
		Misses:  c.misses.Load(),
		Writes:  c.writes.Load(),
		Entries: c.count(),
		Bytes:   diskBytes(c.dir),
	}
	return s
}

// Repaired returns the damage Open or a query found in the database, which
// was then replaced by a new, empty one, for the caller to report; nil
// when there was none.
func (c *Cache) Repaired() error {
	c.dbMu.RLock()
	defer c.dbMu.RUnlock()
	return c.repaired
}

// Close writes the batch and closes the database (the last run to close it
// folds its log into it and deletes the log), then releases the folder. It
// returns the error of the last write, if it failed. A closed Cache misses,
// and Put returns an error.
func (c *Cache) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	err := c.flush(true)
	c.mu.Lock()
	err = cmpErr(c.writeErr, err)
	c.writeErr = nil
	c.mu.Unlock()
	c.dbMu.Lock()
	c.closeDB()
	c.broken = ErrClosed
	c.dbMu.Unlock()
	unregister(c)
	return cmpErr(err, c.lock.Close())
}

// The Caches of this process, by folder.
var (
	openMu sync.Mutex
	opened = map[fileID]map[*Cache]bool{}
)

// register adds c to the open Caches and returns the others on its folder.
func register(c *Cache) []*Cache {
	openMu.Lock()
	defer openMu.Unlock()
	var others []*Cache
	for o := range opened[c.id] {
		others = append(others, o)
	}
	if opened[c.id] == nil {
		opened[c.id] = map[*Cache]bool{}
	}
	opened[c.id][c] = true
	return others
}

func unregister(c *Cache) {
	openMu.Lock()
	defer openMu.Unlock()
	delete(opened[c.id], c)
	if len(opened[c.id]) == 0 {
		delete(opened, c.id)
	}
}
