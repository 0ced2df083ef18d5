package cache

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// The database.
const (
	dbName = "cache.db"
	// appID is the database's application_id ("cchk"): a SQLite file
	// without it is not castchunk's cache.
	appID = 0x6363686b
	// schemaVersion is its user_version. A database of an older version is
	// replaced; one of a newer version is left to the castchunk that made
	// it, and not used.
	schemaVersion = 1
	// busyTimeout is how long a run waits for another's write (or lock)
	// before it gives up writing (or using the cache).
	busyTimeout = 5 * time.Second
	// walLimit bounds the log between runs' checkpoints (journal_size_limit).
	walLimit = 4 << 20
)

// schema is the one table. A row is an entry: its key, the time it was
// last used (Unix seconds, for Prune) and its bytes (see encode). Without
// rowid, the key is the table's own b-tree key: no second index.
const schema = `CREATE TABLE entries (
	key  BLOB PRIMARY KEY,
	used INTEGER NOT NULL,
	data BLOB NOT NULL
) WITHOUT ROWID`

// driverName is mattn/go-sqlite3 with the settings of every connection.
const driverName = "castchunk-cache-sqlite3"

var registerDriver = sync.OnceFunc(func() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{
		ConnectHook: func(conn *sqlite3.SQLiteConn) error {
			_, err := conn.Exec("PRAGMA journal_size_limit = "+strconv.Itoa(walLimit), nil)
			return err
		},
	})
})

// dsn is the data source name of the database at p (absolute): a URI, so
// any character of the path is escaped; a busy timeout; write
// transactions that take the write lock when they begin (BEGIN IMMEDIATE),
// so that two writers never deadlock; synchronous=NORMAL, which in WAL mode
// loses no commit when the process dies (only, at worst, the last ones on
// a power loss, the database staying whole).
func dsn(p string) string {
	u := url.URL{Scheme: "file", Path: p}
	return u.String() + "?_busy_timeout=" + strconv.Itoa(int(busyTimeout/time.Millisecond)) +
		"&_txlock=immediate&_synchronous=NORMAL"
}

// stmts are the prepared statements.
type stmts struct {
	get, put, del, touch *sql.Stmt
}

// fileID identifies a file or folder.
type fileID struct{ dev, ino uint64 }

func statID(p string) (fileID, error) {
	info, err := os.Stat(p)
	if err != nil {
		return fileID{}, err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, fmt.Errorf("%s: no file id", p)
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, nil
}

// damage is an error that shows the database damaged: it is replaced.
type damage struct{ err error }

func (d *damage) Error() string { return d.err.Error() }
func (d *damage) Unwrap() error { return d.err }

// damaged reports whether err shows the database damaged: not a database,
// malformed, not castchunk's.
func damaged(err error) bool {
	var d *damage
	var se sqlite3.Error
	return errors.As(err, &d) ||
		errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB)
}

// open takes the folder's lock and opens the database, replacing it when
// it is damaged; on failure it leaves c.broken set. c.dbMu is held.
func (c *Cache) open() {
	if err := lockShared(c.lock); err != nil {
		c.broken = fmt.Errorf("cache: %s: %w", c.dir, err)
		return
	}
	err := c.connect()
	if damaged(err) {
		c.replace(err)
		return
	}
	if err != nil {
		c.broken = fmt.Errorf("cache: cannot use %s: %w", filepath.Join(c.dir, dbName), err)
	}
}

// replace replaces the damaged database by a new one, if no other Cache
// has it open; if one has, the database is not used until a run that has
// it alone replaces it. c.dbMu is held, and the lock shared.
func (c *Cache) replace(why error) {
	c.closeDB()
	p := filepath.Join(c.dir, dbName)
	if err := syscall.Flock(int(c.lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		// Linux drops the shared lock when it cannot convert it.
		c.broken = fmt.Errorf("cache: %s is damaged (%v) and another castchunk run is using it: not used; the next run that has it alone replaces it", p, why)
		if err := lockShared(c.lock); err != nil {
			c.broken = fmt.Errorf("%w (%v)", c.broken, err)
		}
		return
	}
	// Alone: nobody else has the database open. The log goes first: a
	// log without its database would be read into the next one.
	var rerr error
	for _, name := range []string{dbName + "-wal", dbName + "-shm", dbName} {
		if err := os.Remove(filepath.Join(c.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) && rerr == nil {
			rerr = err
		}
	}
	err := rerr
	if err == nil {
		err = c.connect()
	}
	if lerr := lockShared(c.lock); lerr != nil && err == nil {
		err = lerr
	}
	if err != nil {
		c.closeDB()
		c.broken = fmt.Errorf("cache: %s is damaged (%v) and cannot be replaced: %w", p, why, err)
		return
	}
	c.repaired = fmt.Errorf("%s was damaged (%v): replaced by a new, empty cache", p, why)
}

// lockShared takes f's lock shared, waiting up to busyTimeout for a run
// that holds it exclusively (only while it replaces a damaged database).
func lockShared(f *os.File) error {
	deadline := time.Now().Add(busyTimeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case err != syscall.EWOULDBLOCK && err != syscall.EINTR:
			return fmt.Errorf("cannot lock %s: %w", tagName, err)
		case time.Now().After(deadline):
			return fmt.Errorf("%s stayed locked by another castchunk run for %v", tagName, busyTimeout)
		}
		time.Sleep(delay)
	}
}

// connections is how many connections the database keeps: one per
// processor and two more, but two under a low limit on open files (each
// holds the database and its log open), so that the run keeps room for
// its worker processes.
func connections() int {
	n := runtime.GOMAXPROCS(0) + 2
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur < 256 {
		n = 2
	}
	return n
}

// Descriptors is the most open files the cache holds at once: its tag, the
// database's shared memory, and each connection's database and log.
func (c *Cache) Descriptors() int { return 2 + 2*connections() }

// connect opens the database, creating it if need be. c.dbMu is held.
func (c *Cache) connect() error {
	registerDriver()
	dir, err := filepath.Abs(c.dir)
	if err != nil {
		return err
	}
	p := filepath.Join(dir, dbName)
	for _, name := range []string{dbName, dbName + "-wal", dbName + "-shm"} {
		info, err := os.Lstat(filepath.Join(dir, name))
		if err == nil && !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file: remove it", name)
		}
	}
	if err := inspect(p); err != nil {
		return err
	}
	db, err := sql.Open(driverName, dsn(p))
	if err != nil {
		return err
	}
	conns := connections()
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	if err := initSchema(db); err != nil {
		db.Close()
		return err
	}
	var s stmts
	for _, q := range []struct {
		s   **sql.Stmt
		sql string
	}{
		{&s.get, "SELECT used, data FROM entries WHERE key = ? AND length(data) <= ?"},
		{&s.put, "INSERT OR REPLACE INTO entries (key, used, data) VALUES (?, ?, ?)"},
		{&s.del, "DELETE FROM entries WHERE key = ?"},
		{&s.touch, "UPDATE entries SET used = ? WHERE key = ? AND used < ?"},
	} {
		if *q.s, err = db.Prepare(q.sql); err != nil {
			db.Close()
			return err
		}
	}
	id, err := statID(p)
	if err != nil {
		db.Close()
		return err
	}
	c.db, c.stmts, c.dbID, c.broken = db, s, id, nil
	return nil
}

// closeDB closes the database if it is open. c.dbMu is held.
func (c *Cache) closeDB() {
	if c.db == nil {
		return
	}
	for _, s := range []*sql.Stmt{c.stmts.get, c.stmts.put, c.stmts.del, c.stmts.touch} {
		s.Close()
	}
	c.db.Close()
	c.db, c.stmts = nil, stmts{}
}

// inspect reads the header of the database file at p, if there is one
// (see https://www.sqlite.org/fileformat.html), and returns a damage error
// when it is not a SQLite database, is another application's, or is
// shorter than its header says and has no log to hold the rest: a
// truncated database would answer some queries and fail others. An empty or missing file is a new database. A
// header that says 0 for the application is one being created (its first
// transactions are still in the log).
func inspect(p string) error {
	f, info, err := openFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if info.Size() == 0 {
		return nil
	}
	h := make([]byte, 100)
	if _, err := io.ReadFull(f, h); err != nil {
		return &damage{fmt.Errorf("%d bytes, shorter than a database header", info.Size())}
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return &damage{errors.New("not a SQLite database")}
	}
	if id := binary.BigEndian.Uint32(h[68:]); id != 0 && id != appID {
		return &damage{fmt.Errorf("a SQLite database of another application (id %#x)", id)}
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(binary.BigEndian.Uint32(h[28:]))
	changes, validFor := binary.BigEndian.Uint32(h[24:]), binary.BigEndian.Uint32(h[92:])
	if changes == validFor && pages > 0 && info.Size() < pages*pageSize && !hasLog(p) {
		return &damage{fmt.Errorf("truncated: %d bytes of %d", info.Size(), pages*pageSize)}
	}
	return nil
}

// hasLog reports whether the database at p has a write-ahead log beside it.
// The database is then the file and its log together: a checkpoint cut
// short (a full disk) leaves the file shorter than its header says, and
// SQLite reads the missing pages from the log. What neither holds, SQLite
// reports as damage when it is read, and the database is replaced then.
func hasLog(p string) bool {
	f, _, err := openFile(p + "-wal")
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 4)
	if _, err := io.ReadFull(f, magic); err != nil {
		return false
	}
	m := binary.BigEndian.Uint32(magic)
	return m == 0x377f0682 || m == 0x377f0683
}

// initSchema checks that db is castchunk's cache, and makes it one when it
// is new: auto_vacuum (set before the first table, so that Prune can shrink
// the file), WAL mode, the table, the application id and the version.
func initSchema(db *sql.DB) error {
	ok, err := checkSchema(db)
	if ok || err != nil {
		return err
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA auto_vacuum = INCREMENTAL"); err != nil {
		return err
	}
	// Switching to WAL may find the database busy with another run
	// creating it, without waiting: retry.
	deadline := time.Now().Add(busyTimeout)
	for {
		var mode string
		err := conn.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
		if err == nil && mode == "wal" {
			break
		}
		if err == nil {
			err = fmt.Errorf("journal mode %s, not wal", mode)
		}
		if !busy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
	tx, err := conn.BeginTx(ctx, nil) // BEGIN IMMEDIATE: one run creates it
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var app, version, tables int64
	if err := tx.QueryRow("PRAGMA application_id").Scan(&app); err != nil {
		return err
	}
	if err := tx.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if err := tx.QueryRow("SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
		return err
	}
	switch {
	case app == appID && version == schemaVersion:
		return nil // another run made it meanwhile
	case app != 0 || version != 0 || tables != 0:
		return schemaError(app, version)
	}
	for _, q := range []string{
		schema,
		"PRAGMA application_id = " + strconv.Itoa(appID),
		"PRAGMA user_version = " + strconv.Itoa(schemaVersion),
	} {
		if _, err := tx.Exec(q); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// checkSchema reports whether db is castchunk's cache of this version; it
// returns false and no error for a new database.
func checkSchema(db *sql.DB) (bool, error) {
	var app, version int64
	if err := db.QueryRow("SELECT application_id, user_version FROM pragma_application_id, pragma_user_version").Scan(&app, &version); err != nil {
		return false, err
	}
	switch {
	case app == appID && version == schemaVersion:
		return true, nil
	case app == 0 && version == 0:
		return false, nil
	}
	return false, schemaError(app, version)
}

func schemaError(app, version int64) error {
	switch {
	case app == appID && version > schemaVersion:
		return fmt.Errorf("made by a newer castchunk (cache version %d; this one reads %d): not used", version, schemaVersion)
	case app == appID:
		return &damage{fmt.Errorf("cache version %d, older than %d", version, schemaVersion)}
	}
	return &damage{fmt.Errorf("a SQLite database of another application (id %#x, version %d)", app, version)}
}

// busy reports whether err is SQLite's "database is locked".
func busy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

// lookup reads the entry of k. A damaged database is replaced.
func (c *Cache) lookup(k Key) (data []byte, used int64, err error) {
	c.dbMu.RLock()
	db := c.db
	if db == nil {
		err = cmpErr(c.broken, ErrClosed)
	} else {
		err = c.stmts.get.QueryRow(k[:], maxEntry).Scan(&used, &data)
	}
	c.dbMu.RUnlock()
	if damaged(err) {
		c.damagedWhileOpen(db, err)
	}
	return data, used, err
}

// damagedWhileOpen replaces db, which a query found damaged, unless
// another goroutine did already.
func (c *Cache) damagedWhileOpen(db *sql.DB, err error) {
	c.dbMu.Lock()
	defer c.dbMu.Unlock()
	if c.db == nil || c.db != db {
		return
	}
	c.replace(err)
}

// write writes a batch in one transaction and returns how many entries it
// stored.
func (c *Cache) write(batch map[Key]op) (int, error) {
	c.dbMu.RLock()
	db := c.db
	puts, err := c.writeLocked(batch)
	c.dbMu.RUnlock()
	if damaged(err) {
		c.damagedWhileOpen(db, err)
	}
	if err != nil {
		return 0, fmt.Errorf("cache: %w", err)
	}
	return puts, nil
}

func (c *Cache) writeLocked(batch map[Key]op) (int, error) {
	if c.db == nil {
		return 0, cmpErr(c.broken, ErrClosed)
	}
	// The database removed or replaced under the run (the folder deleted,
	// say): what would be written there would be lost.
	if id, err := statID(filepath.Join(c.dir, dbName)); err != nil || id != c.dbID {
		return 0, fmt.Errorf("%s was removed or replaced during the run", filepath.Join(c.dir, dbName))
	}
	tx, err := c.db.Begin()
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	put, del, touch := tx.Stmt(c.stmts.put), tx.Stmt(c.stmts.del), tx.Stmt(c.stmts.touch)
	puts := 0
	for k, o := range batch {
		switch o.kind {
		case opPut:
			_, err = put.Exec(k[:], o.used, o.data)
			puts++
		case opDelete:
			_, err = del.Exec(k[:])
		case opTouch:
			_, err = touch.Exec(o.used, k[:], o.used)
		}
		if err != nil {
			return 0, err
		}
	}
	return puts, tx.Commit()
}

// count returns the number of entries, -1 if it cannot be read.
func (c *Cache) count() int64 {
	c.dbMu.RLock()
	defer c.dbMu.RUnlock()
	if c.db == nil {
		return -1
	}
	var n int64
	if err := c.db.QueryRow("SELECT count(*) FROM entries").Scan(&n); err != nil {
		return -1
	}
	return n
}

// diskBytes is the space the database takes on disk, in allocated blocks
// (as du counts): its file, its log and its index. Anything else in the
// folder (the tag, what the old layout left) is not counted.
func diskBytes(dir string) int64 {
	var n int64
	for _, name := range []string{dbName, dbName + "-wal", dbName + "-shm"} {
		info, err := os.Lstat(filepath.Join(dir, name))
		if err == nil && info.Mode().IsRegular() {
			n += statBlocks(info)
		}
	}
	return n
}

// statBlocks is the space allocated to a file.
func statBlocks(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return info.Size()
}
