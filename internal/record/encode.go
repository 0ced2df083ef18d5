package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"strconv"
	"sync"

	"github.com/castchunk/castchunk/internal/chunk"
)

// File is what the encoder needs to know about one source file.
type File struct {
	Path     string // '/'-separated, as reached from the path argument
	Language string
	Method   string // the method's name
	Src      []byte // the file's bytes as read
}

// InvalidUTF8Error reports text that cannot be written to JSON exactly.
// Offset is a byte offset into the file (or into the path, when InPath).
type InvalidUTF8Error struct {
	Path   string
	Offset int
	InPath bool
}

func (e *InvalidUTF8Error) Error() string {
	if e.InPath {
		return fmt.Sprintf("%q: path is not valid UTF-8 (byte %d of the path)", e.Path, e.Offset)
	}
	return fmt.Sprintf("%s: not valid UTF-8 at byte %d", e.Path, e.Offset)
}

// Encoder turns spans into records of its schema. It keeps scratch state
// between files so that, once warmed up, encoding allocates nothing. The
// zero value writes the Default schema; an Encoder must not be used by two
// goroutines at once (use one per worker, or the package-level AppendFile).
type Encoder struct {
	Schema *Schema // nil: Default()

	h      hash.Hash
	sum    [sha256.Size]byte
	num    []byte // "\x00" + decimal occurrence, fed to the id hash
	prefix []byte // path + "\x00", fed to the id hash
	id     []byte // the current chunk's id in hex
	plan   []step // how to write one record of the current file
	lits   []byte // the literal text the plan's steps point into
	file   File   // the current file
	chunk  Chunk  // the current chunk: kept here, so passing it to fields costs no allocation

	// seen counts earlier chunks per content in the current file, keyed by
	// SHA-256(path, 0, content): path is fixed within a file, so this is a
	// collision-free key of the content, and it is the id hash's own state
	// just before the occurrence number is added, so it costs no extra pass.
	seen map[[sha256.Size]byte]int
}

// step is one part of a record: literal text (field names and the values
// that are the same for the whole file), or a field computed per chunk.
type step struct {
	lit   [2]int // lits[lit[0]:lit[1]] when field is nil
	field *Field
}

// maxKeptSeen bounds the occurrence map kept between files: clearing a map
// costs time in proportion to its capacity, so after an unusually large file
// a fresh map is cheaper than clearing the big one for every later file.
const maxKeptSeen = 4096

// AppendFile appends the records of all spans of f to dst, in order, index
// 0 first, and returns the extended buffer.
//
// spans must be sorted by Start (overlapping windows are fine), non-empty
// and within f.Src, and each Size must be the chunk.Size of its bytes; the
// encoder checks all of this as it goes, because a record that lies would
// break guarantees downstream. On error nothing of f is appended: dst is
// returned at its original length, so the caller can skip the file.
func (e *Encoder) AppendFile(dst []byte, f File, spans []chunk.Span) ([]byte, error) {
	if len(spans) == 0 {
		return dst, nil
	}
	orig := len(dst)
	if e.h == nil {
		e.h = sha256.New()
	}
	if e.seen == nil || len(e.seen) > maxKeptSeen {
		e.seen = make(map[[sha256.Size]byte]int)
	} else {
		clear(e.seen)
	}
	e.prefix = append(append(e.prefix[:0], f.Path...), 0)
	e.file = f
	defer func() { e.file, e.chunk = File{}, Chunk{} }() // do not pin the source
	if err := e.planFile(); err != nil {
		return dst[:orig], err
	}

	src := f.Src
	c := &e.chunk
	*c = Chunk{File: &e.file, checkSize: true}
	// Line cursor: curLine is the line of byte curPos. Starts never
	// decrease, so it only moves forward (linear in the file); end lines
	// are counted inside each chunk, linear in the output.
	curPos, curLine := 0, 1
	for i, s := range spans {
		if s.Start < curPos || s.End <= s.Start || s.End > len(src) {
			return dst[:orig], spanError(f.Path, i, s, curPos, len(src))
		}
		curLine += bytes.Count(src[curPos:s.Start], newline)
		curPos = s.Start
		c.Index, c.StartByte, c.EndByte, c.Size = i, s.Start, s.End, s.Size
		c.StartLine = curLine
		c.EndLine = curLine + bytes.Count(src[s.Start:s.End-1], newline)
		c.Content = src[s.Start:s.End]
		e.id = e.appendID(e.id[:0], c.Content)
		c.ID = e.id
		var err error
		if dst, err = e.appendChunk(dst, c); err != nil {
			return dst[:orig], err
		}
	}
	return dst, nil
}

// planFile lays out the records of the current file: the per-file fields
// are escaped once here, not once per record.
func (e *Encoder) planFile() error {
	schema := e.Schema
	if schema == nil {
		schema = Default()
	}
	e.plan, e.lits = e.plan[:0], e.lits[:0]
	from := 0
	e.chunk = Chunk{File: &e.file}
	for i, fd := range schema.fields {
		if i == 0 {
			e.lits = append(e.lits, '{')
		} else {
			e.lits = append(e.lits, ',')
		}
		e.lits = append(strconv.AppendQuote(e.lits, fd.Name), ':')
		if !fd.PerFile {
			e.plan = append(e.plan, step{lit: [2]int{from, len(e.lits)}}, step{field: fd})
			from = len(e.lits)
			continue
		}
		var err error
		if e.lits, err = fd.Append(e.lits, &e.chunk); err != nil {
			return err
		}
	}
	e.lits = append(e.lits, '}', '\n')
	e.plan = append(e.plan, step{lit: [2]int{from, len(e.lits)}})
	return nil
}

// appendChunk writes one record by the plan.
func (e *Encoder) appendChunk(dst []byte, c *Chunk) ([]byte, error) {
	for _, s := range e.plan {
		if s.field == nil {
			dst = append(dst, e.lits[s.lit[0]:s.lit[1]]...)
			continue
		}
		var err error
		if dst, err = s.field.Append(dst, c); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

var newline = []byte{'\n'}

// appendID appends the hex id of content, the next chunk of the current
// file, and counts its occurrence.
func (e *Encoder) appendID(dst, content []byte) []byte {
	e.h.Reset()
	e.h.Write(e.prefix)
	e.h.Write(content)
	key := [sha256.Size]byte(e.h.Sum(e.sum[:0])) // Sum leaves the state as is
	k := e.seen[key]
	e.seen[key] = k + 1
	e.num = strconv.AppendInt(append(e.num[:0], 0), int64(k), 10)
	e.h.Write(e.num)
	return hex.AppendEncode(dst, e.h.Sum(e.sum[:0])[:IDLen/2])
}

func spanError(path string, i int, s chunk.Span, prevStart, n int) error {
	switch {
	case s.End <= s.Start:
		return fmt.Errorf("%s: chunk %d is empty or reversed [%d,%d)", path, i, s.Start, s.End)
	case s.Start < 0 || s.End > n:
		return fmt.Errorf("%s: chunk %d [%d,%d) lies outside the file's %d bytes", path, i, s.Start, s.End, n)
	default:
		return fmt.Errorf("%s: chunk %d starts at byte %d, before chunk %d (at %d): spans must be sorted by start",
			path, i, s.Start, i-1, prevStart)
	}
}

var encoders = sync.Pool{New: func() any { return new(Encoder) }}

// AppendFile is Encoder.AppendFile with an encoder from a pool, for callers
// that do not keep one per worker.
func AppendFile(dst []byte, f File, spans []chunk.Span) ([]byte, error) {
	e := encoders.Get().(*Encoder)
	dst, err := e.AppendFile(dst, f, spans)
	encoders.Put(e)
	return dst, err
}

// AppendRecord appends r as the encoder writes it: the same plan as
// AppendFile, fed from a decoded record instead of spans (the numbers, the
// id and the size are written as they are, not recomputed). Tools that
// pass records through use it, and tests compare it with AppendFile.
func (e *Encoder) AppendRecord(dst []byte, r *Record) ([]byte, error) {
	e.file = File{Path: r.Path, Language: r.Language, Method: r.Method}
	defer func() { e.file, e.chunk = File{}, Chunk{} }()
	if err := e.planFile(); err != nil {
		return dst, err
	}
	e.chunk = Chunk{
		File: &e.file, Index: r.Index, StartLine: r.StartLine, EndLine: r.EndLine,
		StartByte: r.StartByte, EndByte: r.EndByte, Size: r.Size,
		Content: []byte(r.Content), ID: []byte(r.ID),
	}
	orig := len(dst)
	dst, err := e.appendChunk(dst, &e.chunk)
	if err != nil {
		return dst[:orig], err
	}
	return dst, nil
}
