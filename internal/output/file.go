package output

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// File is where an output goes: stdout, or -o FILE written atomically.
// For a regular file (or a new one) the output goes to a temporary file
// beside it that is renamed over FILE only when the whole run succeeded,
// so a failed or interrupted run leaves the previous FILE untouched and no
// temporary file behind. A device or pipe (-o /dev/null, a FIFO) is
// written in place.
type File struct {
	*bufio.Writer
	file  *os.File // nil for stdout
	temp  string   // temporary file to rename; "" when writing in place
	final string
}

const bufferSize = 256 << 10

// Open opens name for writing, or wraps stdout when name is "" or "-".
func Open(name string, stdout io.Writer) (*File, error) {
	if name == "" || name == "-" {
		return &File{Writer: bufio.NewWriterSize(stdout, bufferSize)}, nil
	}
	if resolved, err := filepath.EvalSymlinks(name); err == nil {
		name = resolved // replace the file a symlink points to, not the link
	}
	info, err := os.Stat(name)
	if err == nil && !info.Mode().IsRegular() {
		if info.IsDir() {
			return nil, fmt.Errorf("output %s is a directory", name)
		}
		f, err := os.OpenFile(name, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &File{Writer: bufio.NewWriterSize(f, bufferSize), file: f}, nil
	}
	mode := os.FileMode(0o644)
	if err == nil {
		mode = info.Mode().Perm()
	}
	removeStaleTemps(name)
	f, err := os.CreateTemp(filepath.Dir(name), tempPrefix(name)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		if err := missingFolder(name); err != nil {
			return nil, err
		}
		var pe *fs.PathError
		if errors.As(err, &pe) { // name the user's file, not the temporary one
			err = &fs.PathError{Op: "create", Path: name, Err: pe.Err}
		}
		return nil, err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{Writer: bufio.NewWriterSize(f, bufferSize), file: f, temp: f.Name(), final: name}, nil
}

// missingFolder says plainly that the folder of an output is missing, or
// is not a folder: castchunk does not create folders (as a shell's > does
// not); nil when the folder is there.
func missingFolder(name string) error {
	dir := filepath.Dir(name)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: the folder %s does not exist: create it first (mkdir -p %s)", Quote(name), Quote(dir), Quote(dir))
	case errors.Is(err, syscall.ENOTDIR), err == nil && !info.IsDir():
		return fmt.Errorf("%s: %s is not a folder", Quote(name), Quote(dir))
	}
	return nil
}

// tempPrefix starts the names of -o FILE's temporary files: they go on with
// the process id of the run that made them, so a later run can tell the
// leftovers of a killed run from the file of one still going.
func tempPrefix(name string) string { return "." + filepath.Base(name) + ".tmp-" }

// removeStaleTemps removes the temporary files a killed run left beside
// FILE: those whose process is gone. A run still going keeps its own.
func removeStaleTemps(name string) {
	prefix := tempPrefix(name)
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(name), globEscape(prefix)+"*-*"))
	for _, m := range matches {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(m), prefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			os.Remove(m)
		}
	}
}

// globEscape quotes the characters filepath.Glob treats specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Commit flushes everything and, for a temporary file, moves it into place.
func (o *File) Commit() error {
	if err := o.Flush(); err != nil {
		o.Abort()
		return err
	}
	if o.file == nil {
		return nil
	}
	if o.temp != "" {
		if err := o.file.Sync(); err != nil {
			o.Abort()
			return err
		}
	}
	if err := o.file.Close(); err != nil {
		o.file = nil
		o.Abort()
		return err
	}
	o.file = nil
	if o.temp != "" {
		if err := os.Rename(o.temp, o.final); err != nil {
			os.Remove(o.temp)
			return err
		}
	}
	return nil
}

// Abort drops the output of a run that did not go through: the temporary
// file is removed, FILE untouched. Stdout or a device keeps what was
// written so far, flushed whole: never a line cut in half.
func (o *File) Abort() {
	if o.temp == "" {
		o.Flush() // the run is failing already; its error is the one told
	}
	if o.file != nil {
		o.file.Close()
		o.file = nil
	}
	if o.temp != "" {
		os.Remove(o.temp)
		o.temp = ""
	}
}

// Same reports whether two output names are one file: the same
// path once made absolute and its symbolic links followed (a dangling one
// too: writing through it creates its target), or (when both exist) the
// same file.
func Same(a, b string) bool {
	if finalPath(a) == finalPath(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// finalPath is name made absolute with its symbolic links followed, as
// far as they lead: a dangling link's target, a missing file's path.
func finalPath(name string) string {
	p, err := filepath.Abs(name)
	if err != nil {
		return name
	}
	for range 40 { // the kernel's limit on links followed
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real
		}
		target, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = target
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(dir, filepath.Base(p))
	}
	return p
}
