package record

import (
	"fmt"
	"io"

	"github.com/castchunk/castchunk/internal/chunk"
)

// Writer writes chunked files, in order, in one output format. A format
// may write a header when it is made and a footer in Close.
type Writer interface {
	// WriteFile writes the records of one file. An *EncodeError means the
	// file's records cannot be written exactly (a chunker bug): nothing of
	// the file was written and the caller may go on with the next file.
	// Any other error is the destination's.
	WriteFile(f File, spans []chunk.Span) error
	// Close ends the output (a footer, buffered data); it does not close
	// the destination.
	Close() error
}

// EncodeError is a file whose records could not be encoded.
type EncodeError struct{ Err error }

func (e *EncodeError) Error() string { return e.Err.Error() }
func (e *EncodeError) Unwrap() error { return e.Err }

// Format is one output format, chosen with --format.
type Format struct {
	Name string
	Help string
	// Binary formats are not for a terminal.
	Binary bool
	// New starts an output of the schema's records on w.
	New func(w io.Writer, s *Schema) (Writer, error)
}

// formats lists the output formats; the first is the default.
var formats = []*Format{
	{Name: "jsonl", Help: "JSON Lines: one record per line, the fields in schema order", New: newJSONL},
	{Name: "parquet", Binary: true, Help: "Parquet: one file, a typed column per field in schema order, zstd-compressed (for DuckDB, pandas/pyarrow, Spark, Ray)", New: newParquet},
}

// FormatByName finds a format; nil when there is none.
func FormatByName(name string) *Format {
	for _, f := range formats {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// FormatNames returns the formats' names, the default first.
func FormatNames() []string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.Name
	}
	return names
}

// jsonl writes JSON Lines: no header, no footer.
type jsonl struct {
	w   io.Writer
	enc Encoder
	buf []byte
}

func newJSONL(w io.Writer, s *Schema) (Writer, error) {
	if s == nil {
		return nil, fmt.Errorf("record: no schema")
	}
	return &jsonl{w: w, enc: Encoder{Schema: s}}, nil
}

// flushAt is how much a file's records are gathered before they are
// handed to the destination: a file's output streams in pieces of about
// this size, however large it is.
const flushAt = 64 << 10

// WriteFile checks the file's spans, then streams its records: memory
// stays bounded by one record and flushAt, not by the file's output.
func (j *jsonl) WriteFile(f File, spans []chunk.Span) error {
	if err := j.enc.Begin(f, spans); err != nil {
		return &EncodeError{err}
	}
	defer j.enc.End()
	buf := j.buf[:0]
	defer func() {
		if cap(buf) <= 4*flushAt {
			j.buf = buf[:0] // one huge record should not stay pinned
		}
	}()
	for {
		var ok bool
		var err error
		if buf, ok, err = j.enc.Next(buf); err != nil {
			return &EncodeError{err}
		}
		if len(buf) >= flushAt || !ok && len(buf) > 0 {
			if _, err := j.w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		if !ok {
			return nil
		}
	}
}

func (j *jsonl) Close() error { return nil }
