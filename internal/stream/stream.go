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
	"slices"
	"strings"

	"github.com/castchunk/castchunk/internal/record"
)

// File is the records of one file, as read.
type File struct {
	Repo  string // the repository's name; "" when the records have no repo
	Path  string
	key   string   // Key()
	IDs   []string // the records' ids, in order
	Lines [][]byte // the records' lines as read, without '\n'
	line  int      // the input's line of the first record (record i is on line+i)
	meta  []meta   // what Merge compares between records, one per record
	// overlap > 0: record overlap starts before the records above it end
	// (sliding windows made with overlap); 0: the records tile or have no
	// byte range.
	overlap int
}

// Key is what orders files in an output: the path, after the repository's
// name and a NUL when the records have a repo, so that byte order on keys
// is order by repository, then by path.
func (f *File) Key() string { return f.key }

// fileKey is the Key of the file path of repository repo.
func fileKey(repo, path string) string {
	if repo == "" {
		return path
	}
	return repo + "\x00" + path
}

// fileName names a file in messages: repo:path in a repository.
func fileName(repo, path string) string {
	if repo == "" {
		return path
	}
	return repo + ":" + path
}

// keyName is fileName of a key.
func keyName(key string) string { return strings.Replace(key, "\x00", ":", 1) }

// meta is what Merge compares between records of one run, and what Diff
// compares between records of one id.
type meta struct {
	fields string // the record's keys, sorted and NUL-separated
	method string // its method ("" when it has none)
	label  string // its language, host_language and languages, NUL-separated
}

// Reader reads an output one file at a time and checks that files come in
// path order, each file's records together, with ids unique in the file
// and, when the records have an index, numbered 0, 1, 2, … in order.
type Reader struct {
	name string // for errors: the file name, or "stdin"
	dec  *record.Decoder
	rec  record.Record

	ahead   *entry // the next record, read ahead
	line    []byte
	last    string // key of the last file returned
	started bool
	err     error // sticky

	keys    []string          // scratch: a record's keys
	set     []byte            // scratch: a record's field set, or its label
	interns map[string]string // field sets, methods and labels met, each held once
}

// entry is one record as read.
type entry struct {
	repo, path, id string
	key            string // fileKey(repo, path)
	line           []byte
	lineNo         int
	index          int
	hasIndex       bool // the record has an index field
	start          int
	end            int
	hasRange       bool // the record has start_byte and end_byte
	meta           meta
}

// NewReader reads records from r; name names r in errors. Records need
// path and id; other fields are passed on as they are.
func NewReader(r io.Reader, name string) *Reader {
	dec := record.NewDecoder(r)
	dec.Schema = record.All()
	dec.Need = []string{"id", "path"}
	return &Reader{name: name, dec: dec, interns: map[string]string{}}
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
	e := r.ahead
	if e == nil {
		r.err = io.EOF
		return nil, io.EOF
	}
	if r.last != "" && e.key <= r.last {
		return nil, r.fail(r.orderError(e))
	}
	f := &File{Repo: e.repo, Path: e.path, key: e.key, line: e.lineNo}
	ids := map[string]int{} // id -> its line
	prevEnd := 0
	for ; e != nil && e.key == f.key; e = r.ahead {
		if err := r.check(f, e, ids); err != nil {
			return nil, r.fail(err)
		}
		if f.overlap == 0 && len(f.IDs) > 0 && e.hasRange && e.start < prevEnd {
			f.overlap = len(f.IDs)
		}
		prevEnd = max(prevEnd, e.end)
		f.IDs = append(f.IDs, e.id)
		f.Lines = append(f.Lines, e.line)
		f.meta = append(f.meta, e.meta)
		if err := r.read(); err != nil {
			return nil, r.fail(err)
		}
	}
	r.last = f.key
	return f, nil
}

// check checks record e, the next of file f, against the records of f
// before it: ids unique (ids holds each one's line), and the index, when
// the record has one, its place in the file.
func (r *Reader) check(f *File, e *entry, ids map[string]int) error {
	if at, ok := ids[e.id]; ok {
		return fmt.Errorf("%s: line %d: duplicate id %s in %q (line %d has it too): ids are unique in an output; give outputs of castchunk chunk, or of merge", r.name, e.lineNo, e.id, fileName(f.Repo, f.Path), at)
	}
	ids[e.id] = e.lineNo
	if want := len(f.IDs); e.hasIndex && e.index != want {
		return fmt.Errorf("%s: line %d: index %d in %q, expected %d: a file's chunks are numbered 0, 1, 2, … in order (one is missing, repeated or out of order); give outputs of castchunk chunk, or of merge", r.name, e.lineNo, e.index, fileName(f.Repo, f.Path), want)
	}
	return nil
}

// read reads one record into r.ahead (nil at the end).
func (r *Reader) read() error {
	var err error
	r.line, err = r.dec.DecodeAppend(r.line[:0], &r.rec)
	if err == io.EOF {
		r.ahead = nil
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
	e := &entry{repo: r.rec.Repo, path: r.rec.Path, key: fileKey(r.rec.Repo, r.rec.Path), id: r.rec.ID, line: line, lineNo: r.dec.Line(),
		index: r.rec.Index, start: r.rec.StartByte, end: r.rec.EndByte}
	r.keys = appendKeys(r.keys[:0], line)
	e.hasIndex = slices.Contains(r.keys, "index")
	e.hasRange = slices.Contains(r.keys, "start_byte") && slices.Contains(r.keys, "end_byte")
	e.meta = meta{fields: r.fieldSet(r.keys), method: r.intern(r.rec.Method), label: r.label(&r.rec)}
	r.ahead = e
	return nil
}

// fieldSet returns the set of keys, sorted and NUL-separated, held once
// per reader.
func (r *Reader) fieldSet(keys []string) string {
	slices.Sort(keys)
	keys = slices.Compact(keys)
	r.set = r.set[:0]
	for _, k := range keys {
		if record.PerFileAbsent(k) {
			continue // only some files' records have it: not a flag of the run
		}
		if len(r.set) > 0 {
			r.set = append(r.set, 0)
		}
		r.set = append(r.set, k...)
	}
	return r.internSet()
}

// label returns the record's language, host_language and languages,
// NUL-separated, held once per reader.
func (r *Reader) label(rec *record.Record) string {
	r.set = append(append(append(r.set[:0], rec.Language...), 0), rec.HostLanguage...)
	for _, l := range rec.Languages {
		r.set = append(append(r.set, 0), l...)
	}
	return r.internSet()
}

// internSet returns the text of r.set, held once per reader.
func (r *Reader) internSet() string {
	if s, ok := r.interns[string(r.set)]; ok {
		return s
	}
	s := string(r.set)
	r.interns[s] = s
	return s
}

// intern returns s, held once per reader.
func (r *Reader) intern(s string) string {
	if t, ok := r.interns[s]; ok {
		return t
	}
	r.interns[s] = s
	return s
}

func (r *Reader) orderError(e *entry) error {
	what := "files are not in path order"
	if e.key == r.last {
		what = "a file's records are not together"
	}
	return fmt.Errorf("%s: line %d: %s (%q after %q): give outputs of castchunk chunk, or of merge", r.name, e.lineNo, what, fileName(e.repo, e.path), keyName(r.last))
}

func (r *Reader) fail(err error) error {
	r.err = err
	return err
}
