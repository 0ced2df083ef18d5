package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// output is where records go: stdout, or -o FILE written atomically. For a
// regular file (or a new one) the records go to a temporary file beside it
// that is renamed over FILE only when the whole run succeeded, so a failed
// or interrupted run leaves the previous FILE untouched and no temporary
// file behind. A device or pipe (-o /dev/null, a FIFO) is written in place.
type output struct {
	*bufio.Writer
	file  *os.File // nil for stdout
	temp  string   // temporary file to rename; "" when writing in place
	final string
}

const outputBuffer = 256 << 10

// openOutput opens name for writing, or wraps stdout when name is "" or "-".
func openOutput(name string, stdout io.Writer) (*output, error) {
	if name == "" || name == "-" {
		return &output{Writer: bufio.NewWriterSize(stdout, outputBuffer)}, nil
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
		return &output{Writer: bufio.NewWriterSize(f, outputBuffer), file: f}, nil
	}
	mode := os.FileMode(0o644)
	if err == nil {
		mode = info.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp-*")
	if err != nil {
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
	return &output{Writer: bufio.NewWriterSize(f, outputBuffer), file: f, temp: f.Name(), final: name}, nil
}

// commit flushes everything and, for a temporary file, moves it into place.
func (o *output) commit() error {
	if err := o.Flush(); err != nil {
		o.abort()
		return err
	}
	if o.file == nil {
		return nil
	}
	if o.temp != "" {
		if err := o.file.Sync(); err != nil {
			o.abort()
			return err
		}
	}
	if err := o.file.Close(); err != nil {
		o.file = nil
		o.abort()
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

// abort drops the output: the temporary file is removed, FILE untouched.
func (o *output) abort() {
	if o.file != nil {
		o.file.Close()
		o.file = nil
	}
	if o.temp != "" {
		os.Remove(o.temp)
		o.temp = ""
	}
}

// closedPipe reports a write to a reader that went away (`| head`): the
// run stops quietly, as a filter should.
func closedPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE)
}
