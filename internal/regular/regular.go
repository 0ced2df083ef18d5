// Package regular opens the files castchunk reads as data — sources, ignore
// and config files, cache entries, the files verify checks — the one way:
// regular files only, never blocking on a FIFO, never taking a terminal,
// and the type checked on the opened descriptor, which cannot change under
// the caller as a name can (docs/design.md, "Hostile input").
package regular

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/castchunk/castchunk/internal/bytesize"
)

// Flags are the flags every data file is opened with: read-only,
// non-blocking (a FIFO never blocks the open; on a regular file the flag
// changes nothing) and no controlling terminal.
const Flags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// Open opens name with Flags and extra (syscall.O_NOFOLLOW, say) and
// returns it with its information when it is a regular file. Anything
// else is closed and refused with a *NotRegularError.
func Open(name string, extra int) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(name, Flags|extra, 0)
	if err != nil {
		return nil, nil, err
	}
	info, err := Check(f)
	if err != nil {
		return nil, nil, err
	}
	return f, info, nil
}

// Check returns the information of f, opened with Flags, when it is a
// regular file; otherwise it closes f and returns the error (a
// *NotRegularError for a FIFO, a device, a socket or a folder).
func Check(f *os.File) (fs.FileInfo, error) {
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = &NotRegularError{Mode: info.Mode()}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return info, nil
}

// ID is a file's identity, its device and inode: what a listing saw, to
// tell whether the file opened later is the same one. The zero ID is
// unknown.
type ID struct{ Dev, Ino uint64 }

// IDOf is the identity of the file info describes (from Stat, Lstat, a
// directory entry's Info or an open file's Stat); the zero ID when the
// system does not give one.
func IDOf(info fs.FileInfo) ID {
	if info == nil {
		return ID{}
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ID{}
	}
	return ID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)} // the types differ by platform
}

// Known reports whether the ID was given.
func (id ID) Known() bool { return id != ID{} }

// OpenListed opens, as Open does, a file a listing saw, refusing with a
// *ChangedError a file that is no longer the one listed: the file that
// was listed with the identity id (unless unknown) and, unless follow,
// not a symbolic link. Without follow the last component is opened with
// O_NOFOLLOW, so a file swapped for a symlink is never opened through
// it; the identity, checked on the opened descriptor, catches a file
// replaced by another, or reached through a folder swapped for a link
// (the components above the file are followed: the listing may have
// reached it through links it followed). With follow (a symlink named as
// an argument, or -L), the link is followed, and the identity says
// whether it still leads to the file listed.
func OpenListed(name string, id ID, follow bool) (*os.File, fs.FileInfo, error) {
	extra := 0
	if !follow {
		extra = syscall.O_NOFOLLOW
	}
	f, info, err := Open(name, extra)
	if err != nil {
		if !follow && errors.Is(err, syscall.ELOOP) {
			if li, lerr := os.Lstat(name); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
				return nil, nil, &ChangedError{Now: "a symbolic link"}
			}
		}
		var nr *NotRegularError
		if id.Known() && errors.As(err, &nr) {
			return nil, nil, &ChangedError{Now: Kind(nr.Mode)}
		}
		return nil, nil, err
	}
	if id.Known() && IDOf(info) != id {
		f.Close()
		return nil, nil, &ChangedError{Now: "another file"}
	}
	return f, info, nil
}

// ChangedError refuses a file that changed since it was listed: it is
// now a symbolic link, another file, or no longer a regular file.
type ChangedError struct{ Now string }

func (e *ChangedError) Error() string { return "changed since it was listed: now " + e.Now }

// NotRegularError refuses a file that is not a regular file.
type NotRegularError struct{ Mode fs.FileMode }

func (e *NotRegularError) Error() string { return "not a regular file (" + Kind(e.Mode) + ")" }

// Kind names the type of a file for people: "a FIFO", "a directory".
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	}
	return "an irregular file"
}

// ReadFile reads the regular file name whole, appending to buf, refusing
// a file the file system says is over limit bytes (0: no limit) with a
// TooLargeError, before anything is read.
func ReadFile(buf []byte, name string, limit int64) ([]byte, error) {
	f, info, err := Open(name, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if limit > 0 && info.Size() > limit {
		return nil, TooLargeError{Size: info.Size(), Limit: limit}
	}
	return ReadAll(Grow(buf, info.Size()), f, limit)
}

// Grow returns buf with room for size more bytes and one to spare, so
// that reading a file of that size to its end takes one buffer. (The file
// is read to EOF rather than trusting its size: it may change.)
func Grow(buf []byte, size int64) []byte {
	if need := len(buf) + int(size) + 1; cap(buf) < need {
		buf = append(make([]byte, 0, need), buf...)
	}
	return buf
}

// ReadAll reads r to its end, appending to buf, refusing to hold more than
// limit bytes (0: no limit) with a TooLargeError. That error has no Size:
// reading stops past the limit, so how much r holds is not known.
func ReadAll(buf []byte, r io.Reader, limit int64) ([]byte, error) {
	for {
		if limit > 0 && int64(len(buf)) > limit {
			return nil, TooLargeError{Limit: limit}
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// TooLargeError is a file over a size limit (--max-file-size). Size is
// the file's size, 0 when it is not known (a stream read up to the limit):
// the message then says no size rather than a wrong one.
type TooLargeError struct {
	Size, Limit int64
}

func (e TooLargeError) Error() string {
	if e.Size <= 0 {
		return fmt.Sprintf("file too large (over the %s limit); skipped", bytesize.Format(e.Limit))
	}
	return fmt.Sprintf("file too large (%s > %s limit); skipped", bytesize.Format(e.Size), bytesize.Format(e.Limit))
}
