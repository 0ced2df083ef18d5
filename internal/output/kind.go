// Package output holds the rules of what castchunk's outputs are, one
// declaration each: which files are exactly an output of castchunk
// (records, a manifest, a diff's changes, a Parquet file), recognised by
// content and strictly, so that no other file is ever taken for one
// (docs/design.md, "Outputs are never inputs").
package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"slices"

	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/record"
)

// Kind is what a file holds, as far as castchunk's outputs go.
type Kind int

// Kinds. Only None is not an output of castchunk.
const (
	None     Kind = iota // anything else: a source file, a route table, a fixture
	Empty                // no byte at all: an output of a run that wrote nothing (or a new file)
	Records              // JSON Lines, every line a record as chunk writes it
	Manifest             // JSON Lines, every line a manifest entry as chunk --manifest writes it
	Changes              // JSON Lines, every line a change as diff writes it
	Parquet              // a Parquet file: "PAR1" at both ends
)

func (k Kind) String() string {
	return [...]string{"not an output", "empty", "records", "a manifest", "a diff's changes", "Parquet records"}[k]
}

// headSize is how much of a file Probe reads.
const headSize = 16

// MinSize is the size under which no file is a non-empty output: Earlier
// does not open a smaller one.
const MinSize = headSize

// Probe is the cheap test of a file's first bytes: false when it cannot
// be a non-empty output of castchunk, true when Classify must read it
// whole to tell. Every line of an output starts with one of these.
func Probe(head []byte) bool {
	for _, p := range [][]byte{[]byte(`{"id":"`), []byte(`{"path":"`), []byte(`{"repo":"`), []byte(`{"op":"add",`), []byte(`{"op":"delet`), []byte("PAR1")} {
		n := min(len(p), len(head))
		if n > 0 && bytes.Equal(head[:n], p[:n]) && len(head) >= min(len(p), headSize) {
			return true
		}
	}
	return false
}

// Of reads the file named and tells which output of castchunk it is
// exactly; None for anything else, or a file that cannot be read.
func Of(name string) Kind {
	f, err := os.Open(name)
	if err != nil {
		return None
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return None
	}
	return Classify(f, info.Size())
}

// Earlier is Of for a file met among the inputs: an empty file is no
// earlier output there (an empty __init__.py is a source), and a file
// whose first bytes cannot start an output is not read further.
func Earlier(name string) Kind {
	f, err := os.Open(name)
	if err != nil {
		return None
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() < headSize {
		return None
	}
	head := make([]byte, headSize)
	if _, err := io.ReadFull(f, head); err != nil || !Probe(head) {
		return None
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return None
	}
	return Classify(f, info.Size())
}

// Classify reads r (size bytes) whole and tells which output of castchunk
// it is exactly: every line of one kind, each as castchunk writes it, the
// last ended by a newline.
func Classify(r io.ReaderAt, size int64) Kind {
	if size == 0 {
		return Empty
	}
	if size >= 8 {
		var head, tail [4]byte
		if _, err := r.ReadAt(head[:], 0); err == nil && string(head[:]) == "PAR1" {
			if _, err := r.ReadAt(tail[:], size-4); err == nil && string(tail[:]) == "PAR1" {
				return Parquet
			}
			return None
		}
	}
	var first [16]byte
	n, _ := r.ReadAt(first[:], 0)
	sr := io.NewSectionReader(r, 0, size)
	switch {
	case bytes.HasPrefix(first[:n], []byte(`{"id":"`)):
		if allRecords(sr) {
			return Records
		}
	case bytes.HasPrefix(first[:n], []byte(`{"path":"`)), bytes.HasPrefix(first[:n], []byte(`{"repo":"`)):
		if allLines(sr, manifestLine) {
			return Manifest
		}
	case bytes.HasPrefix(first[:n], []byte(`{"op":"`)):
		if allLines(sr, changeLine) {
			return Changes
		}
	}
	return None
}

// allRecords reports whether every line of r is a record exactly as chunk
// writes it, with whichever optional fields its flags asked for (the
// decoder's Strict mode over every field, then the record's own checks).
func allRecords(r io.Reader) bool {
	d := record.NewDecoder(r)
	d.Strict = true
	d.Schema = record.All() // the optional fields too (--context, --embed-text, --tokenizer), in the encoder's order
	d.MaxFileSize = -1
	var rec record.Record
	n := 0
	for {
		err := d.Decode(&rec)
		if err == io.EOF {
			return n > 0
		}
		if err != nil || rec.Check() != nil {
			return false
		}
		n++
	}
}

// maxLine is the longest line allLines reads: a manifest entry or a
// delete is short; an add holds a record (up to 1 GiB, the decoder's own
// limit).
const maxLine = 1 << 30

// allLines reports whether r is lines each ok, the last one ended.
func allLines(r io.Reader, ok func(line []byte) bool) bool {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	n := 0
	for {
		buf = buf[:0]
		for {
			part, err := br.ReadSlice('\n')
			buf = append(buf, part...)
			if len(buf) > maxLine {
				return false
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err == io.EOF {
				return len(buf) == 0 && n > 0 // the last line ended with its newline
			}
			if err != nil {
				return false
			}
			break
		}
		if !ok(buf) {
			return false
		}
		n++
	}
}

// ManifestEntry is one line of chunk --manifest: a file the run met and
// what became of it. docs/record-format.md's table of fields and statuses
// is the contract.
type ManifestEntry struct {
	Repo         string `json:"repo,omitempty"` // the repository's name; none when the run names none
	Path         string `json:"path"`
	Status       string `json:"status"`   // "chunked", or why the file was left out (plan.Fate)
	Language     string `json:"language"` // "" when not known
	Method       string `json:"method"`   // the method that made its chunks; "" when left out
	Chunks       int    `json:"chunks"`
	SyntaxErrors bool   `json:"syntax_errors"`
	Note         string `json:"note"` // what stderr said of it, or what no grammar parses; "" when nothing
}

// AppendManifestLine appends e as one line of a manifest, as chunk
// writes it.
func AppendManifestLine(dst []byte, e ManifestEntry) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "<" and ">" as they are, as in records
	if err := enc.Encode(e); err != nil {
		return dst, err
	}
	return append(dst, b.Bytes()...), nil
}

// manifestLine reports whether line (its newline included) is a manifest
// entry exactly as chunk writes it: the fields in order, a status chunk
// writes, spelt as the encoder spells it.
func manifestLine(line []byte) bool {
	var e ManifestEntry
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || !slices.Contains(plan.Fates(), e.Status) {
		return false
	}
	again, err := AppendManifestLine(nil, e)
	return err == nil && bytes.Equal(again, line)
}

// changeLine reports whether line (its newline included) is a change as
// diff writes it: {"op":"delete","id":…,"path":…} spelt as diff spells
// it, or {"op":"add",…} (with "reason":"language" or not) and a record
// exactly as chunk writes it.
func changeLine(line []byte) bool {
	switch {
	case bytes.HasPrefix(line, []byte(`{"op":"delete","id":"`)):
		var c struct {
			Op   string `json:"op"`
			ID   string `json:"id"`
			Repo string `json:"repo"`
			Path string `json:"path"`
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil || c.ID == "" || c.Path == "" {
			return false
		}
		return bytes.Equal(AppendDelete(nil, c.ID, c.Repo, c.Path), line)
	case bytes.HasPrefix(line, []byte(`{"op":"add",`)):
		rest := line[len(`{"op":"add",`):]
		rest = bytes.TrimPrefix(rest, []byte(`"reason":"language",`))
		rest = append([]byte{'{'}, rest...)
		return allRecords(bytes.NewReader(rest))
	}
	return false
}

// AppendAdd appends the line of diff that adds rec (a record's line,
// without its newline), with its reason when one is given.
func AppendAdd(dst []byte, reason string, rec []byte) []byte {
	dst = append(dst, `{"op":"add",`...)
	if reason != "" {
		dst = append(dst, `"reason":`...)
		dst = append(record.AppendQuoted(dst, reason), ',')
	}
	dst = append(dst, rec[1:]...) // the record without its '{'
	return append(dst, '\n')
}

// AppendDelete appends the line of diff that deletes the chunk id of path
// (in repository repo, "" for none).
func AppendDelete(dst []byte, id, repo, path string) []byte {
	dst = append(dst, `{"op":"delete","id":`...)
	dst = record.AppendQuoted(dst, id)
	if repo != "" {
		dst = append(dst, `,"repo":`...)
		dst = record.AppendQuoted(dst, repo)
	}
	dst = append(dst, `,"path":`...)
	dst = record.AppendQuoted(dst, path)
	return append(dst, "}\n"...)
}
