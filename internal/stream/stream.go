// Package stream works on outputs of castchunk chunk as streams of files in
// path order: it reads them a file at a time (Reader), compares two of them
// chunk by chunk (Diff) and merges shards back into one (Merge). Memory is
// bounded by the largest file's records, never by the outputs: that is what
// path order, which chunk guarantees, buys.
package stream

import (
	"errors"
	"fmt"
	"io"

	"github.com/castchunk/castchunk/internal/record"
)

// File is the records of one file, as read.
type File struct {
	Path  string
	IDs   []string // the records' ids, in order
	Lines [][]byte // the records' lines as read, without '\n'
	line  int      // the input's line of the first record
}

// Reader reads an output one file at a time and checks that files come in
// path order, each file's records together.
type Reader struct {
	name string // for errors: the file name, or "stdin"
	dec  *record.Decoder
	rec  record.Record

	next    *File // the first record of the next file, read ahead
	line    []byte
	last    string // path of the last file returned
	started bool
	err     error // sticky
}

// NewReader reads records from r; name names r in errors. Records need
// path and id; other fields are passed on as they are.
func NewReader(r io.Reader, name string) *Reader {
	dec := record.NewDecoder(r)
	dec.Schema = record.All()
	dec.Need = []string{"id", "path"}
	return &Reader{name: name, dec: dec}
}

// Name returns the name given to NewReader.
func (r *Reader) Name() string { return r.name }

// Next returns the next file's records, or io.EOF after the last. An
// error says which input and line; it is final.
func (r *Reader) Next() (*File, error) {
	if r.err != nil {
		return nil, r.err
	}
	if !r.started {
		r.started = true
		if err := r.read(); err != nil {
			return nil, r.fail(err)
		}
	}
	f := r.next
	if f == nil {
		r.err = io.EOF
		return nil, io.EOF
	}
	if r.last != "" && f.Path <= r.last {
		return nil, r.fail(r.orderError(f))
	}
	for {
		if err := r.read(); err != nil {
			return nil, r.fail(err)
		}
		if r.next == nil || r.next.Path != f.Path {
			break
		}
		f.IDs = append(f.IDs, r.next.IDs...)
		f.Lines = append(f.Lines, r.next.Lines...)
	}
	r.last = f.Path
	return f, nil
}

// read reads one record into r.next (nil at the end).
func (r *Reader) read() error {
	var err error
	r.line, err = r.dec.DecodeAppend(r.line[:0], &r.rec)
	if err == io.EOF {
		r.next = nil
		return nil
	}
	if err != nil {
		var le *record.LineError
		if errors.As(err, &le) {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		return fmt.Errorf("read %s: %w", r.name, err)
	}
	line := append([]byte(nil), r.line...)
	r.next = &File{Path: r.rec.Path, IDs: []string{r.rec.ID}, Lines: [][]byte{line}, line: r.dec.Line()}
	return nil
}

func (r *Reader) orderError(f *File) error {
	what := "files are not in path order"
	if f.Path == r.last {
		what = "a file's records are not together"
	}
	return fmt.Errorf("%s: line %d: %s (%q after %q): give outputs of castchunk chunk, or of merge", r.name, f.line, what, f.Path, r.last)
}

func (r *Reader) fail(err error) error {
	r.err = err
	return err
}
