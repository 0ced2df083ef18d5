package walk

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/castchunk/castchunk/internal/bytesize"
	"github.com/castchunk/castchunk/internal/regular"
)

// The most the walker reads of one rules or metadata file. A file over its
// cap is not read at all (a Notice says so where one applies).
const (
	// maxRulesSize caps .gitignore files, info/exclude, the global
	// excludes file, attribute files and git config files.
	maxRulesSize = 16 << 20
	// maxGitFileSize caps ".git" files and "commondir" files, one line
	// each; git itself refuses a .git file over 1 MiB.
	maxGitFileSize = 1 << 20
	// maxIndexSize caps the git index (about ten million entries).
	maxIndexSize = 1 << 30
)

// errSymlink is readMeta's answer for a symlink it was told not to follow.
var errSymlink = errors.New("a symbolic link")

// refusedError says why readMeta would not read a file that exists: it is
// not a regular file, or it is over the cap.
type refusedError struct{ why string }

func (e *refusedError) Error() string { return e.why }

// readMeta is the one way walk reads a file: the .gitignore files,
// info/exclude, the global excludes file, the attribute files
// (.gitattributes, info/attributes, the global and system files), git
// config files, ".git" and "commondir" files and the index all come
// through it.
//
// It reads regular files only. A FIFO would block the walk and a device
// such as /dev/zero never ends, so neither is read: the type is checked
// before opening (so no device is even opened) and again on the opened
// descriptor (the name may have changed in between), and the open is
// non-blocking so that a FIFO put in place meanwhile cannot block it. The
// null device reads as empty: it is the usual way to say "no file". A file
// over limit bytes is refused unread; otherwise at most the size fstat
// gave is read, as git does, so a file that grows is not chased.
//
// With noFollow, a symlink is refused with errSymlink. Errors for a file
// that is missing or cannot be opened are returned as they come (test
// them with missing); the others are *refusedError.
func readMeta(p string, limit int64, noFollow bool) ([]byte, error) {
	stat := os.Stat
	if noFollow {
		stat = os.Lstat
	}
	before, err := stat(p)
	if err != nil {
		return nil, err
	}
	if before.Mode()&fs.ModeSymlink != 0 {
		return nil, errSymlink
	}
	if !before.Mode().IsRegular() {
		return nil, refuseSpecial(before)
	}
	f, err := os.OpenFile(p, regular.Flags, 0)
	if err != nil {
		return nil, err
	}
	info, err := regular.Check(f) // closes f when it is not regular
	if err != nil {
		var nr *regular.NotRegularError
		if errors.As(err, &nr) {
			return nil, &refusedError{err.Error()}
		}
		return nil, err
	}
	defer f.Close()
	if !os.SameFile(before, info) {
		return nil, &refusedError{"replaced while being opened"}
	}
	size := info.Size()
	if size > limit {
		return nil, &refusedError{fmt.Sprintf("larger than %s (%d bytes)", bytesize.Format(limit), size)}
	}
	buf := make([]byte, size)
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF { // it shrank: what is there is what there is
		err = nil
	}
	return buf[:n], err
}

// refuseSpecial refuses a file that is not regular, but the null device
// reads as empty.
func refuseSpecial(info fs.FileInfo) error {
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(info, null) {
		return nil
	}
	return &refusedError{(&regular.NotRegularError{Mode: info.Mode()}).Error()}
}

// missing reports whether readMeta's error means "no such file" (git is
// silent then): not there, a path through a non-directory, or a symlink
// it was told not to follow.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, errSymlink)
}
