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
	// New starts an output of the schema's records on w.
	New func(w io.Writer, s *Schema) (Writer, error)
}

// formats lists the output formats; the first is the default.
var formats = []*Format{
	{Name: "jsonl", Help: "JSON Lines: one record per line, the fields in schema order", New: newJSONL},
}

// Formats returns the output formats, the default first.
func Formats() []*Format { return append([]*Format(nil), formats...) }

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

// maxKeptBuffer is the largest encoding buffer kept between files.
const maxKeptBuffer = 4 << 20

func (j *jsonl) WriteFile(f File, spans []chunk.Span) error {
	out, err := j.enc.AppendFile(j.buf[:0], f, spans)
	if err != nil {
		return &EncodeError{err}
	}
	_, err = j.w.Write(out)
	if cap(out) <= maxKeptBuffer {
		j.buf = out[:0]
	} else {
		j.buf = nil
	}
	return err
}

func (j *jsonl) Close() error { return nil }
