// Package regular opens the files castchunk reads as data — sources, ignore
// and config files, cache entries, the files verify checks — the one way:
// regular files only, never blocking on a FIFO, never taking a terminal,
// and the type checked on the opened descriptor, which cannot change under
// the caller as a name can (docs/design.md, "Hostile input").
package regular

import (
	"io/fs"
	"os"
	"syscall"
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
