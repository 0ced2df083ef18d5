package cache

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// pruneTarget is the share of the limit that Prune fills when it prunes:
// the rest is room for the next runs' entries, so that the database is not
// rebuilt (VACUUM) after every run once the cache is full.
const pruneTarget = 0.9

// Prune keeps the space the database takes on disk (its file, its log and
// its index: see Stats.Bytes) at most maxBytes. When it takes more, Prune
// deletes the entries used least recently, of every salt, until those left
// would fill about pruneTarget of maxBytes, and gives the space back to
// the file system: it folds the log into the database and truncates it,
// frees the pages left empty (incremental vacuum) and, when that is not
// enough, rebuilds the database (VACUUM), checking the result until it
// fits. It also writes the batch first, and removes what the old layout of
// the cache left in the folder (see sweepLegacy).
//
// Concurrent runs may prune at once: each deletes and rebuilds in its own
// transactions, and the second finds the cache already within the limit.
func (c *Cache) Prune(maxBytes int64) error {
	if err := checkTag(c.dir); err != nil {
		return fmt.Errorf("cache: not pruning: %w", err)
	}
	ferr := c.flush(true)
	lerr := sweepLegacy(c.dir, time.Now().Add(-time.Hour))
	c.writeMu.Lock() // no batch written meanwhile
	defer c.writeMu.Unlock()
	c.dbMu.RLock()
	db := c.db
	perr := c.prune(maxBytes)
	c.dbMu.RUnlock()
	if damaged(perr) {
		c.damagedWhileOpen(db, perr)
	}
	if err := errors.Join(ferr, lerr, perr); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// prune does Prune's work on the database. c.dbMu is held for reading.
func (c *Cache) prune(maxBytes int64) error {
	if c.db == nil {
		return cmpErr(c.broken, ErrClosed)
	}
	c.checkpoint()
	size := diskBytes(c.dir)
	if size <= maxBytes {
		return nil
	}
	var pageSize int64
	if err := c.db.QueryRow("PRAGMA page_size").Scan(&pageSize); err != nil {
		return err
	}
	// An entry's estimated bytes on disk are its cell (see cellBytes);
	// a database rebuilt from them takes factor times their sum, learnt
	// from each round, starting from a guess.
	factor := 1.03
	for range 4 {
		left, entries, err := c.keepNewest(int64(pruneTarget*float64(maxBytes)/factor), pageSize)
		if err != nil {
			return err
		}
		if err := c.incrementalVacuum(); err != nil {
			return err
		}
		c.checkpoint()
		if size = diskBytes(c.dir); size <= maxBytes {
			return nil
		}
		if _, err := c.db.Exec("VACUUM"); err != nil {
			return err
		}
		c.checkpoint()
		if size = diskBytes(c.dir); size <= maxBytes || entries == 0 {
			return nil // fits, or an empty database: nothing left to delete
		}
		if left > 0 {
			// Bounded: while another connection prunes or reads, its
			// write-ahead log is not checkpointed and the folder looks far
			// larger than the entries; learning from that alone emptied
			// the cache (TestConcurrentPrunes, 1 run in 200). A database
			// rebuilt by VACUUM never takes twice its cells.
			factor = min(maxPruneFactor, max(factor, float64(size)/float64(left)*1.02))
		}
	}
	return fmt.Errorf("the cache takes %d bytes on disk, over the limit of %d", size, maxBytes)
}

// maxPruneFactor bounds prune's estimate of disk bytes per byte of
// entries.
const maxPruneFactor = 2.0

// keepNewest deletes the entries used least recently, in one transaction,
// until the estimated bytes of those left are at most budget; it returns
// those bytes and the number of entries left. Entries used at the same
// time go in key order.
func (c *Cache) keepNewest(budget, pageSize int64) (left, entries int64, err error) {
	tx, err := c.db.Begin()
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	rows, err := tx.Query("SELECT key, used, length(data) FROM entries ORDER BY used DESC, key DESC")
	if err != nil {
		return 0, 0, err
	}
	var (
		cutKey  []byte
		cutUsed int64
		cut     bool
	)
	for rows.Next() {
		var key []byte
		var used, n int64
		if err := rows.Scan(&key, &used, &n); err != nil {
			rows.Close()
			return 0, 0, err
		}
		b := cellBytes(int64(len(key)), n, pageSize)
		if left+b > budget {
			cutKey, cutUsed, cut = key, used, true
			break
		}
		left += b
		entries++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, err
	}
	if !cut {
		return left, entries, nil
	}
	if _, err := tx.Exec("DELETE FROM entries WHERE used < ? OR used = ? AND key <= ?", cutUsed, cutUsed, cutKey); err != nil {
		return 0, 0, err
	}
	return left, entries, tx.Commit()
}

// cellBytes estimates the bytes an entry takes in the table's b-tree
// (https://www.sqlite.org/fileformat.html, "B-tree Pages"): its record
// (a header, the key, the time and the data), the cell's length and
// pointer, and, for a record too large for one page's share, the overflow
// pages, whole.
func cellBytes(key, data, pageSize int64) int64 {
	record := 4 + key + 6 + data
	usable := pageSize
	maxLocal := (usable-12)*64/255 - 23 // an index b-tree's: WITHOUT ROWID
	minLocal := (usable-12)*32/255 - 23
	if record <= maxLocal {
		return record + 3 + 2
	}
	local := minLocal + (record-minLocal)%(usable-4)
	if local > maxLocal {
		local = minLocal
	}
	pages := (record - local + usable - 5) / (usable - 4)
	return local + 4 + 3 + 2 + pages*pageSize
}

// incrementalVacuum gives the free pages back to the file system: it moves
// pages in use into the free ones and truncates the file. SQLite frees one
// page per step of the statement: all its rows are read.
func (c *Cache) incrementalVacuum() error {
	rows, err := c.db.Query("PRAGMA incremental_vacuum")
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	rows.Close()
	return rows.Err()
}

// checkpoint folds the log into the database and truncates it, if no other
// run is reading an older state of it (then it leaves it).
func (c *Cache) checkpoint() {
	var busy, log, done sql.NullInt64
	c.db.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &log, &done)
}
