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
	Method   string // "cast" or "sliding"
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

// Encoder turns spans into records. It keeps scratch state between files so
// that, once warmed up, encoding allocates nothing. The zero value is ready
// to use; an Encoder must not be used by two goroutines at once (use one per
// worker, or the package-level AppendFile).
type Encoder struct {
	h      hash.Hash
	sum    [sha256.Size]byte
	num    []byte // "\x00" + decimal occurrence, fed to the id hash
	prefix []byte // path + "\x00", fed to the id hash
	middle []byte // `","path":"…","language":"…","method":"…","index":`

	// seen counts earlier chunks per content in the current file, keyed by
	// SHA-256(path, 0, content): path is fixed within a file, so this is a
	// collision-free key of the content, and it is the id hash's own state
	// just before the occurrence number is added, so it costs no extra pass.
	seen map[[sha256.Size]byte]int
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

	var err error
	e.middle, err = appendMiddle(e.middle[:0], e.prefix[:len(f.Path)], f.Language, f.Method)
	if err != nil {
		if u, ok := err.(*InvalidUTF8Error); ok {
			u.Path = f.Path
		}
		return dst[:orig], err
	}

	src := f.Src
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
		endLine := curLine + bytes.Count(src[s.Start:s.End-1], newline)
		content := src[s.Start:s.End]

		dst = append(dst, `{"id":"`...)
		dst = e.appendID(dst, content)
		dst = append(dst, e.middle...)
		dst = strconv.AppendInt(dst, int64(i), 10)
		dst = appendInts(dst, curLine, endLine, s.Start, s.End, s.Size)
		dst = append(dst, `,"content":"`...)
		var size, bad int
		dst, size, bad = appendEscaped(dst, content)
		if bad >= 0 {
			return dst[:orig], &InvalidUTF8Error{Path: f.Path, Offset: s.Start + bad}
		}
		if size != s.Size {
			return dst[:orig], fmt.Errorf("%s: chunk %d [%d,%d) has size %d, span says %d",
				f.Path, i, s.Start, s.End, size, s.Size)
		}
		dst = append(dst, '"', '}', '\n')
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

// appendMiddle appends the per-file part of every record, from the end of
// the id to the index value: it is escaped once per file, not per record.
func appendMiddle(dst, path []byte, language, method string) ([]byte, error) {
	dst = append(dst, `","path":"`...)
	dst, _, bad := appendEscaped(dst, path)
	if bad >= 0 {
		return dst, &InvalidUTF8Error{Offset: bad, InPath: true}
	}
	dst = append(dst, `","language":"`...)
	if dst, _, bad = appendEscaped(dst, []byte(language)); bad >= 0 {
		return dst, fmt.Errorf("%s: language %q is not valid UTF-8", path, language)
	}
	dst = append(dst, `","method":"`...)
	if dst, _, bad = appendEscaped(dst, []byte(method)); bad >= 0 {
		return dst, fmt.Errorf("%s: method %q is not valid UTF-8", path, method)
	}
	return append(dst, `","index":`...), nil
}

// appendInts appends the integer fields after index.
func appendInts(dst []byte, startLine, endLine, startByte, endByte, size int) []byte {
	dst = append(dst, `,"start_line":`...)
	dst = strconv.AppendInt(dst, int64(startLine), 10)
	dst = append(dst, `,"end_line":`...)
	dst = strconv.AppendInt(dst, int64(endLine), 10)
	dst = append(dst, `,"start_byte":`...)
	dst = strconv.AppendInt(dst, int64(startByte), 10)
	dst = append(dst, `,"end_byte":`...)
	dst = strconv.AppendInt(dst, int64(endByte), 10)
	dst = append(dst, `,"size":`...)
	return strconv.AppendInt(dst, int64(size), 10)
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

// AppendRecord appends r as one canonical line, exactly as AppendFile would
// have written it (fields are written as they are: size, lines and id are
// not recomputed). The decoder uses it to check that a line is canonical.
func AppendRecord(dst []byte, r *Record) ([]byte, error) {
	orig := len(dst)
	if r.Index < 0 || r.StartLine < 0 || r.EndLine < 0 || r.StartByte < 0 || r.EndByte < 0 || r.Size < 0 {
		return dst, fmt.Errorf("%s: negative integer field in record %d", r.Path, r.Index)
	}
	dst = append(dst, `{"id":"`...)
	dst, _, bad := appendEscaped(dst, []byte(r.ID))
	if bad >= 0 {
		return dst[:orig], fmt.Errorf("%s: id is not valid UTF-8", r.Path)
	}
	dst, err := appendMiddle(dst, []byte(r.Path), r.Language, r.Method)
	if err != nil {
		if u, ok := err.(*InvalidUTF8Error); ok {
			u.Path = r.Path
		}
		return dst[:orig], err
	}
	dst = strconv.AppendInt(dst, int64(r.Index), 10)
	dst = appendInts(dst, r.StartLine, r.EndLine, r.StartByte, r.EndByte, r.Size)
	dst = append(dst, `,"content":"`...)
	if dst, _, bad = appendEscaped(dst, []byte(r.Content)); bad >= 0 {
		return dst[:orig], &InvalidUTF8Error{Path: r.Path, Offset: r.StartByte + bad}
	}
	return append(dst, '"', '}', '\n'), nil
}
