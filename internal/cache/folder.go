package cache

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/castchunk/castchunk/internal/regular"
)

// The tag marks the folder as a castchunk cache, following the Cache
// Directory Tagging specification (https://bford.info/cachedir/), so that
// backup tools skip it too. castchunk recognizes its own tag by tagHead.
const (
	tagName      = "CACHEDIR.TAG"
	tagSignature = "Signature: 8a477f597d28d172789f06886806bc55"
	tagHead      = tagSignature + "\n# This file is a cache directory tag created by castchunk.\n"
	tagText      = tagHead +
		"# castchunk keeps chunk boundaries (chunk --cache) and embedding vectors (eval --embedder) here, and removes only its own entries.\n" +
		"# For information about cache directory tags, see https://bford.info/cachedir/\n"
	// tagTemp starts the names of the tag's temporary files (os.CreateTemp
	// adds digits); legacyTemp, those of the entries of the old layout, in
	// its fan-out folders.
	tagTemp    = ".tmp-" + tagName + "-"
	legacyTemp = ".tmp-"
	// legacyMagic started every entry of the old layout, one file per
	// entry (see sweepLegacy).
	legacyMagic = "castchunk-cache-1\n"
)

// ErrNotCache is the error Open returns for a folder that is not a
// castchunk cache and cannot become one.
var ErrNotCache = errors.New("not a castchunk cache")

// claim makes sure dir is a castchunk cache: it holds castchunk's tag, or
// it is empty and gets it. The tag is written first and never removed, so
// a folder holding something other than the temporary tags of concurrent
// claims is ours only if the tag is there. The folder is listed before the
// tag is looked for, so a concurrent claim that tags it and adds its
// database meanwhile is not taken for someone else's files.
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
	f, err := openTag(dir)
	if err == nil {
		f.Close()
	}
	return err
}

// openTag opens dir's tag, if it is castchunk's, for reading: the cache
// holds it open, and locked (see lock), while it uses the folder.
func openTag(dir string) (*os.File, error) {
	p := filepath.Join(dir, tagName)
	f, _, err := openFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var head []byte
	if err == nil {
		head = make([]byte, len(tagHead))
		_, err = io.ReadFull(f, head)
	}
	switch {
	case err == nil, err == io.EOF, err == io.ErrUnexpectedEOF,
		errors.Is(err, syscall.ELOOP), notRegular(err):
	default:
		if f != nil {
			f.Close()
		}
		return nil, err // unreadable: we cannot tell
	}
	if string(head) != tagHead {
		if f != nil {
			f.Close()
		}
		return nil, fmt.Errorf("%s is %w: its %s was not written by castchunk (another program's cache?); choose an empty or new folder", dir, ErrNotCache, tagName)
	}
	return f, nil
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

// sweepLegacy removes what the cache's old layout left in dir: one file per
// entry, in fan-out folders named by the first two hex digits of its key.
// Those entries are never read (their format and their salts are the old
// version's), and they took a 4 KiB block each, so the first Prune of the
// new version removes them, and the fan-out folders once empty. As the old
// layout did, it removes only what it can tell is the cache's: a regular
// file in a fan-out folder, named by 62 hex digits, that starts with
// legacyMagic, or a temporary file of the old layout last written before
// stale; it follows no symlink, and leaves everything else (and a folder
// that is not empty) where it is. It goes on past a folder it cannot read,
// and returns the first such error.
func sweepLegacy(dir string, stale time.Time) error {
	top, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var first error
	for _, d := range top {
		p := filepath.Join(dir, d.Name())
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
				case isTemp(e.Name(), legacyTemp):
					removeStale(q, stale)
				case isHex(e.Name(), 2*sha256.Size-2):
					if err := removeLegacy(q); err != nil && first == nil {
						first = err
					}
				}
			}
			os.Remove(p) // only if empty
		}
	}
	return first
}

// removeLegacy removes the file at p if it is an entry of the old layout:
// a regular file that starts with legacyMagic. It returns nil when p is no
// longer such an entry: removed (by it or by a concurrent run), or never
// one.
func removeLegacy(p string) error {
	f, _, err := openFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ELOOP), notRegular(err):
		return nil // gone, a symlink, not a regular file
	case err != nil:
		return err
	}
	head := make([]byte, len(legacyMagic))
	_, err = io.ReadFull(f, head)
	f.Close()
	if err != nil || string(head) != legacyMagic {
		return nil // not ours
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// removeStale removes the temporary file p if it was last written before
// stale: a concurrent claim's is recent.
func removeStale(p string, stale time.Time) {
	if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() && info.ModTime().Before(stale) {
		os.Remove(p)
	}
}
