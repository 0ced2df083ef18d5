package stream

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// repeat reads as the byte c forever.
type repeat byte

func (c repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

// longRecord reads as a record of a.py whose line is n bytes long (without
// its '\n'), padded with a field no record of chunk has.
func longRecord(n int) io.Reader {
	head, tail := `{"id":"`+strings.Repeat("0", 32)+`","path":"a.py","pad":"`, "\"}\n"
	return io.MultiReader(strings.NewReader(head), io.LimitReader(repeat('x'), int64(n-len(head)-len(tail)+1)), strings.NewReader(tail))
}

// TestLineLimit: diff and merge refuse a line longer than any record of a
// file within chunk's default --max-file-size, as verify does, with its
// message; they took lines up to 1 GiB.
func TestLineLimit(t *testing.T) {
	const want = "in: line 1: line longer than 63963136 bytes (longer than any record of a file within --max-file-size 10 MiB)"
	_, err := Diff(NewReader(longRecord(63963137), "in"), reader("", "empty"), func(Change) error { return nil })
	if err == nil || err.Error() != want {
		t.Errorf("diff: error %v, want %q", err, want)
	}
	err = Merge([]*Reader{NewReader(longRecord(63963137), "in")}, io.Discard)
	if err == nil || err.Error() != want {
		t.Errorf("merge: error %v, want %q", err, want)
	}
	var out bytes.Buffer // a shorter long line is a record
	if err := Merge([]*Reader{NewReader(longRecord(1<<20), "in")}, &out); err != nil || out.Len() != 1<<20+1 {
		t.Errorf("a 1 MiB line: %d bytes out, %v", out.Len(), err)
	}
}
