package record

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/bytesize"
	"github.com/castchunk/castchunk/internal/chunk"
)

// DefaultMaxFileSize is the default --max-file-size of chunk and verify:
// no record of chunk's defaults comes from a larger file.
const DefaultMaxFileSize = 10 << 20

// DefaultMaxLine is the longest line the Decoder accepts unless told
// otherwise: the longest record of a file of DefaultMaxFileSize
// (MaxLineFor), 61 MiB. verify, diff, merge and stats all read by it, so
// that a line one of them takes is never one another refuses.
const DefaultMaxLine = 6*DefaultMaxFileSize + 1<<20

// maxLineAny bounds a line when files have no size limit: a runaway line
// still stops being read.
const maxLineAny = 1 << 30

// MaxLineFor is the longest line a record of a file of at most fileSize
// bytes can take: its content escaped (6 bytes a byte at most: \u0000),
// and 1 MiB for the other fields. With no limit (fileSize <= 0), 1 GiB.
func MaxLineFor(fileSize int64) int {
	if fileSize <= 0 || fileSize > (maxLineAny-1<<20)/6 {
		return maxLineAny
	}
	return int(6*fileSize + 1<<20)
}

// LineError is a malformed line. The decoder has consumed the line, so
// decoding can go on with the next one (verify reports them all).
type LineError struct {
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// LongLineError is a line over the decoder's limit (the Err of a
// *LineError): read to its end, never held whole. FileSize is the file
// size the limit was made for (MaxFileSize), 0 when it was not.
type LongLineError struct {
	Max      int
	FileSize int64
}

func (e *LongLineError) Error() string {
	if e.FileSize > 0 {
		return fmt.Sprintf("line longer than %d bytes (longer than any record of a file within --max-file-size %s)", e.Max, bytesize.Format(e.FileSize))
	}
	return fmt.Sprintf("line longer than %d bytes", e.Max)
}

// Decoder reads records one line at a time: memory is bounded by the
// longest line, not the stream, and a line costs little more than itself
// and its content (the line is read in place: no second copy of it, and a
// string field is one allocation of its decoded length). Every line must be
// one JSON object (records are one object per line: pretty-printed JSON,
// as `jq .` prints it, is refused with a hint to use `jq -c`), with no
// duplicate field of the schema, each known field of its schema type,
// integers non-negative and the id, when present, 32 lowercase hex digits.
// Otherwise what the decoder accepts is what encoding/json accepts: valid
// UTF-8, RFC 8259 JSON, a lone surrogate escape read as U+FFFD, at most
// 10000 levels of nesting.
//
// By default the decoder accepts records that other tools enriched: fields
// it does not know are skipped (checked, not kept; a field it does not know
// may repeat), the order is free, and only the fields in Need must be
// present. Strict asks for exactly what the Encoder writes: every required
// field of the schema, no unknown field, the schema's order, no whitespace
// and the encoder's escapes, which is checked token by token against the
// encoder's spelling as the line is read.
type Decoder struct {
	// MaxFileSize is the largest file whose records are read: a line
	// longer than any record of such a file (MaxLineFor) is refused.
	// 0 means DefaultMaxFileSize; negative, no limit (lines up to 1 GiB).
	MaxFileSize int64
	// MaxLineBytes, when positive, limits the length of a line (without
	// its '\n') instead of MaxFileSize.
	MaxLineBytes int
	// Schema is the fields the decoder knows; nil means Default().
	Schema *Schema
	// Strict refuses anything the encoder would not have written.
	Strict bool
	// Need lists the fields a record must have when not Strict; nil means
	// every required field of the schema.
	Need []string

	r    *bufio.Reader
	line int
	cur  []byte // a line longer than the bufio buffer is assembled here: in buf or big
	buf  []byte // the decoder's own buffer, kept for the next line up to maxKeptLine
	seen []bool // fields of the schema met in the current line
	key  []byte // an escaped key, decoded
	sc   scanner
	err  error // sticky: io.EOF or a read error

	// A line longer than bigLineAt is assembled in big, address space for
	// the longest line (see mapLine), where it grows without copies and
	// whose pages are given back as soon as the line is decoded.
	big     []byte
	inBig   bool // cur is in big
	bigUsed int  // bytes of big written since they were last given back
	unmap   runtime.Cleanup
}

// bigLineAt is the length past which a line moves to the mapped buffer.
const bigLineAt = 1 << 20

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10)}
}

// Line returns the number of the line last read (1-based).
func (d *Decoder) Line() int { return d.line }

var errTooLong = errors.New("line too long")

// maxKeptLine is the largest line buffer of its own the decoder keeps for
// the next line (when it has no mapped buffer).
const maxKeptLine = 16 << 20

// Decode reads the next line into *rec. It returns io.EOF after the last
// line, a *LineError for a malformed line (rec is then unspecified, and the
// next call reads the next line), or a read error, which is final.
//
// Decode checks the format only; Record.Check checks that a record agrees
// with itself, and whether it agrees with the file is verify's business.
func (d *Decoder) Decode(rec *Record) error {
	_, err := d.decode(rec, nil, false)
	return err
}

// DecodeAppend is Decode that also appends the line as read, without its
// '\n', to dst (when the line is a record): for tools that pass records on
// byte for byte.
func (d *Decoder) DecodeAppend(dst []byte, rec *Record) ([]byte, error) {
	return d.decode(rec, dst, true)
}

func (d *Decoder) decode(rec *Record, dst []byte, keep bool) ([]byte, error) {
	if d.err != nil {
		return dst, d.err
	}
	defer d.release()
	line, terminated, err := d.readLine()
	switch {
	case err == io.EOF && len(line) == 0:
		d.err = io.EOF
		return dst, io.EOF
	case err == errTooLong:
		d.line++
		if !terminated {
			d.err = io.EOF
		}
		n, fileSize := d.limit()
		return dst, &LineError{d.line, &LongLineError{Max: n, FileSize: fileSize}}
	case err != nil && err != io.EOF:
		d.err = fmt.Errorf("record: reading line %d: %w", d.line+1, err)
		return dst, d.err
	}
	d.line++
	if err := d.parse(line, rec); err != nil {
		if !terminated {
			d.err = io.EOF
		}
		return dst, &LineError{d.line, err}
	}
	if !terminated {
		d.err = io.EOF
		return dst, &LineError{d.line, errors.New("no newline at the end of the last line (truncated output?)")}
	}
	if keep {
		dst = append(dst, line...)
	}
	return dst, nil
}

// release lets go of a long line once it is decoded, so that the caller's
// work on the record runs beside its content only, not beside the line too.
func (d *Decoder) release() {
	d.sc.s, d.cur, d.inBig = nil, nil, false
	if d.bigUsed > 0 {
		giveBack(d.big[:d.bigUsed])
		d.bigUsed = 0
	}
	if cap(d.buf) > maxKeptLine {
		d.buf = nil
	}
	if cap(d.key) > 4<<10 {
		d.key = nil
	}
}

// limit returns the longest line d accepts, and the file size it was made
// for (0 when none: MaxLineBytes, no file size limit, or one so large that
// its records may be longer than 1 GiB).
func (d *Decoder) limit() (n int, fileSize int64) {
	switch {
	case d.MaxLineBytes > 0:
		return d.MaxLineBytes, 0
	case d.MaxFileSize == 0:
		return DefaultMaxLine, DefaultMaxFileSize
	case d.MaxFileSize < 0:
		return maxLineAny, 0
	}
	if n = MaxLineFor(d.MaxFileSize); n == maxLineAny {
		return n, 0
	}
	return n, d.MaxFileSize
}

// readLine returns the next line without its '\n' and whether it had one.
// The line is valid until the next call. A line over the limit is read to
// its end and dropped (errTooLong), so the decoder stays in step.
func (d *Decoder) readLine() (line []byte, terminated bool, err error) {
	limit, _ := d.limit()
	d.cur = d.buf[:0]
	tooLong := false
	for {
		frag, err := d.r.ReadSlice('\n')
		n := len(frag)
		if err == nil {
			n-- // drop the '\n'
		}
		if !tooLong && len(d.cur)+n > limit {
			tooLong, d.cur = true, nil
		}
		if !tooLong {
			if err == nil && len(d.cur) == 0 {
				return frag[:n], true, nil // the common case: no copy
			}
			d.appendLine(frag[:n], limit)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case tooLong && (err == nil || err == io.EOF):
			return nil, err == nil, errTooLong
		}
		return d.cur, err == nil, err
	}
}

// appendLine appends frag to the line in d.cur, which is at most limit
// bytes long. A line that grows past bigLineAt moves to the mapped buffer,
// where it grows in place; otherwise (or when there is no mapped buffer)
// the buffer doubles, made anew rather than appended to, so that its spare
// capacity costs no memory until it is written.
func (d *Decoder) appendLine(frag []byte, limit int) {
	need := len(d.cur) + len(frag)
	if need > cap(d.cur) && !d.inBig && need > bigLineAt && d.mapBig(limit) {
		n := copy(d.big, d.cur)
		d.cur, d.inBig = d.big[:n], true
	}
	if need > cap(d.cur) {
		grown := make([]byte, len(d.cur), min(max(2*cap(d.cur), need, 64<<10), max(limit, need)))
		copy(grown, d.cur)
		d.cur = grown
	}
	d.cur = append(d.cur, frag...)
	if d.inBig {
		d.bigUsed = max(d.bigUsed, len(d.cur))
	} else {
		d.buf = d.cur
	}
}

// mapBig makes sure d.big holds a line of limit bytes.
func (d *Decoder) mapBig(limit int) bool {
	if len(d.big) >= limit {
		return true
	}
	if d.big != nil {
		d.unmap.Stop()
		unmapLine(d.big)
		d.big = nil
	}
	mem, ok := mapLine(limit)
	if !ok {
		return false
	}
	// The mapping is not Go memory: unmap it when the decoder goes.
	d.big, d.unmap = mem, runtime.AddCleanup(d, unmapLine, mem)
	return true
}

// parse decodes one line into rec and checks it; errors say what is wrong
// and, where it helps, at which column (1-based byte). The work is split
// by what it needs: the line's bytes, the object's opening, its members,
// then the rules only the whole record can answer.
func (d *Decoder) parse(line []byte, rec *Record) error {
	if len(line) == 0 {
		return errors.New("empty line")
	}
	if !utf8.Valid(line) {
		return fmt.Errorf("not valid UTF-8 at column %d", chunk.FirstInvalid(line)+1)
	}
	schema := d.Schema
	if schema == nil {
		schema = Default()
	}
	d.sc.reset(line, d.Strict)
	if err := d.openObject(); err != nil {
		return err
	}
	*rec = Record{}
	if len(d.seen) != len(schema.fields) {
		d.seen = make([]bool, len(schema.fields))
	}
	clear(d.seen)
	if err := d.members(schema, rec); err != nil {
		return err
	}
	return d.checkRecord(schema, rec)
}

// openObject consumes the '{' that must start the line. Anything else is
// named by its JSON kind, so that the message says what the line holds
// (an array, a string...) rather than which byte is unexpected.
func (d *Decoder) openObject() error {
	sc := &d.sc
	if !sc.more() {
		return errEOF
	}
	if sc.s[sc.i] != '{' {
		kind, err := sc.kind()
		if err != nil {
			return err
		}
		return fmt.Errorf("not a JSON object (starts with %s)", kind)
	}
	sc.i++
	return nil
}

// members reads the object's key:value pairs through its closing '}'.
// It holds the object's grammar (keys, commas, the end) and leaves what a
// pair means to member, so that each reads as one concern.
func (d *Decoder) members(schema *Schema, rec *Record) error {
	sc := &d.sc
	if !sc.more() {
		return errEOF
	}
	if sc.s[sc.i] == '}' {
		sc.i++
		return nil
	}
	last := -1 // the schema index of the last known field read
	for {
		if !sc.more() {
			return errEOF
		}
		if sc.s[sc.i] != '"' {
			return sc.syntax("looking for beginning of object key string")
		}
		var err error
		if last, err = d.member(schema, rec, last); err != nil {
			return err
		}
		if !sc.more() {
			return errEOF
		}
		if sc.s[sc.i] == '}' {
			sc.i++
			return nil
		}
		if sc.s[sc.i] != ',' {
			return sc.syntax("after object key:value pair")
		}
		sc.i++
	}
}

// member reads one key:value pair, its key at the scanner: a known
// field's value goes into rec, an unknown field's is checked and skipped
// (refused when Strict). last is the schema index of the previous known
// field (-1: none), which Strict's order is checked against; member
// returns the index to check the next field against.
func (d *Decoder) member(schema *Schema, rec *Record, last int) (int, error) {
	sc := &d.sc
	start, end, n, escaped, err := sc.str()
	if err != nil {
		return last, err
	}
	if err := sc.colon(); err != nil {
		return last, err
	}
	f, i := d.field(schema, start, end, n, escaped)
	switch {
	case f == nil && d.Strict:
		return last, fmt.Errorf("unknown field %q (without --strict, fields castchunk does not know are ignored)", d.keyName(start, end, escaped))
	case f == nil:
		return last, sc.skip(1)
	case d.seen[i]:
		return last, fmt.Errorf("duplicate field %q", f.Name)
	case d.Strict && i < last:
		return last, fmt.Errorf("field %q comes after %q; the order is %s", f.Name, schema.fields[last].Name, strings.Join(schema.Names(), ", "))
	}
	d.seen[i] = true
	return i, d.value(f, rec)
}

// checkRecord applies the rules that need the whole object read: nothing
// after it, every needed field present, a well-formed id, and (Strict)
// the encoder's spelling throughout, noted by the scanner as it went.
func (d *Decoder) checkRecord(schema *Schema, rec *Record) error {
	sc := &d.sc
	end := sc.i
	if sc.more() {
		return fmt.Errorf("data after the object at column %d", end+1)
	}
	if missing := d.missing(schema); missing != "" {
		return fmt.Errorf("missing %s", missing)
	}
	if f, i := schema.field("id"); f != nil && d.seen[i] && !validID(rec.ID) {
		return fmt.Errorf("field \"id\": %q is not %d lowercase hex digits", rec.ID, IDLen)
	}
	if d.Strict && sc.canon >= 0 {
		return fmt.Errorf("not in canonical form at column %d (whitespace or escape spelling differs from the encoder's)", sc.canon+1)
	}
	return nil
}

// field finds the schema field of the key whose body is line[start:end]
// (n bytes decoded): nil and -1 when the schema has none.
func (d *Decoder) field(schema *Schema, start, end, n int, escaped bool) (*Field, int) {
	name := d.sc.s[start:end]
	if escaped {
		if n > maxNameLen(schema) {
			return nil, -1
		}
		d.key = d.sc.appendUnquoted(d.key[:0], start, end)
		name = d.key
	}
	i, ok := schema.byName[string(name)]
	if !ok {
		return nil, -1
	}
	return schema.fields[i], i
}

// keyName is the decoded key whose body is line[start:end], for a message.
func (d *Decoder) keyName(start, end int, escaped bool) string {
	if !escaped {
		return string(d.sc.s[start:end])
	}
	return string(d.sc.appendUnquoted(nil, start, end))
}

// maxNameLen is the length of the schema's longest field name: a longer
// key names no field.
func maxNameLen(schema *Schema) int {
	n := 0
	for _, f := range schema.fields {
		n = max(n, len(f.Name))
	}
	return n
}

// want names what a field of each type holds, for messages.
var want = [...]string{String: "a string", Int: "an integer", Defs: "an array", Strings: "an array of strings", Ranges: "an array of [start, end] pairs"}

// value reads the value of a known field into rec.
func (d *Decoder) value(f *Field, rec *Record) error {
	sc := &d.sc
	if !sc.more() {
		return errEOF
	}
	c := sc.s[sc.i]
	switch {
	case f.Type == Int && (c == '-' || '0' <= c && c <= '9'):
		start := sc.i
		if err := sc.number(); err != nil {
			return err
		}
		n, err := nonNegInt(sc.s[start:sc.i])
		if err != nil {
			return fmt.Errorf("field %q: %v", f.Name, err)
		}
		f.Set(rec, Value{Int: n})
	case f.Type == String && c == '"':
		start, end, n, escaped, err := sc.str()
		if err != nil {
			return err
		}
		f.Set(rec, Value{Str: sc.unquote(start, end, n, escaped)})
	case f.Type == Defs && c == '[':
		start := sc.i
		if err := sc.skip(1); err != nil {
			return err
		}
		f.Set(rec, Value{Str: string(sc.s[start:sc.i])})
	case f.Type == Strings && c == '[':
		strs, err := d.strings(f)
		if err != nil {
			return err
		}
		f.Set(rec, Value{Strs: strs})
	case f.Type == Ranges && c == '[':
		pieces, err := d.ranges(f)
		if err != nil {
			return err
		}
		f.Set(rec, Value{Pieces: pieces})
	default:
		kind, err := sc.kind()
		if err != nil {
			return err
		}
		return fmt.Errorf("field %q: want %s, got %s", f.Name, want[f.Type], kind)
	}
	return nil
}

// strings reads an array of strings, its '[' at the scanner: never nil,
// so that a record's empty list differs from none.
func (d *Decoder) strings(f *Field) ([]string, error) {
	sc := &d.sc
	sc.i++
	out := []string{}
	for {
		if !sc.more() {
			return nil, errEOF
		}
		switch c := sc.s[sc.i]; {
		case c == ']' && len(out) == 0:
			sc.i++
			return out, nil
		case c != '"':
			kind, err := sc.kind()
			if err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("field %q: want %s, got an array holding %s", f.Name, want[f.Type], kind)
		}
		start, end, n, escaped, err := sc.str()
		if err != nil {
			return nil, err
		}
		out = append(out, sc.unquote(start, end, n, escaped))
		if !sc.more() {
			return nil, errEOF
		}
		switch sc.s[sc.i] {
		case ']':
			sc.i++
			return out, nil
		case ',':
			sc.i++
		default:
			return nil, sc.syntax("after array element")
		}
	}
}

// ranges reads an array of [start, end] pairs, its '[' at the scanner:
// at least one, each a non-empty range, in order and apart. How they
// stand to the record's other fields is Record.Check's.
func (d *Decoder) ranges(f *Field) ([]chunk.Piece, error) {
	sc := &d.sc
	sc.i++
	var out []chunk.Piece
	for {
		if !sc.more() {
			return nil, errEOF
		}
		if sc.s[sc.i] == ']' && out == nil {
			return nil, fmt.Errorf("field %q: an empty array (a chunk holds at least one range)", f.Name)
		}
		p, err := d.pair(f)
		if err != nil {
			return nil, err
		}
		if n := len(out); n > 0 && p.Start <= out[n-1].End {
			return nil, fmt.Errorf("field %q: [%d,%d] does not start after [%d,%d] ends (ranges are in order and apart)", f.Name, p.Start, p.End, out[n-1].Start, out[n-1].End)
		}
		out = append(out, p)
		if !sc.more() {
			return nil, errEOF
		}
		switch sc.s[sc.i] {
		case ']':
			sc.i++
			return out, nil
		case ',':
			sc.i++
		default:
			return nil, sc.syntax("after array element")
		}
	}
}

// pair reads one [start, end] pair of ranges, a non-empty range.
func (d *Decoder) pair(f *Field) (chunk.Piece, error) {
	sc := &d.sc
	var n [2]int
	for k, sep := range [...]byte{'[', ',', ']'} {
		if !sc.more() {
			return chunk.Piece{}, errEOF
		}
		if c := sc.s[sc.i]; c != sep {
			if k == 0 || k == 1 && c == ']' || k == 2 && c == ',' {
				return chunk.Piece{}, fmt.Errorf("field %q: want %s, got an element that is not a pair of integers", f.Name, want[f.Type])
			}
			return chunk.Piece{}, sc.syntax("after array element")
		}
		sc.i++
		if k == 2 {
			break
		}
		if !sc.more() {
			return chunk.Piece{}, errEOF
		}
		if c := sc.s[sc.i]; c != '-' && (c < '0' || c > '9') {
			kind, err := sc.kind()
			if err != nil {
				return chunk.Piece{}, err
			}
			return chunk.Piece{}, fmt.Errorf("field %q: want %s, got a pair holding %s", f.Name, want[f.Type], kind)
		}
		start := sc.i
		if err := sc.number(); err != nil {
			return chunk.Piece{}, err
		}
		v, err := nonNegInt(sc.s[start:sc.i])
		if err != nil {
			return chunk.Piece{}, fmt.Errorf("field %q: %v", f.Name, err)
		}
		n[k] = v
	}
	if n[1] <= n[0] {
		return chunk.Piece{}, fmt.Errorf("field %q: [%d,%d] is an empty or reversed range", f.Name, n[0], n[1])
	}
	return chunk.Piece{Start: n[0], End: n[1]}, nil
}

// missing names the fields a record must have and this line lacks.
func (d *Decoder) missing(schema *Schema) string {
	var names []string
	for i, f := range schema.fields {
		if !d.seen[i] && d.needs(f) {
			names = append(names, strconv.Quote(f.Name))
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "field " + names[0]
	}
	return "fields " + strings.Join(names, ", ")
}

// needs reports whether a record must have f.
func (d *Decoder) needs(f *Field) bool {
	if d.Strict || d.Need == nil {
		return !f.Optional && f.Omit == nil
	}
	return slices.Contains(d.Need, f.Name)
}

// Check reports the first way r contradicts itself: an empty or reversed
// byte range, ranges that do not run from start_byte to end_byte in order,
// content whose length, line count or size disagrees with the numbers
// (content is then the ranges' bytes joined by a line feed, and its
// end_line, which the gaps decide, is verify's), an empty path, language
// or method. It does not look at the file or know the methods (verify
// does).
func (r *Record) Check() error {
	if r.HasRepo {
		if err := CheckRepo(r.Repo); err != nil {
			return err
		}
	}
	switch {
	case r.Path == "":
		return errors.New("empty path")
	case r.Language == "":
		return errors.New("empty language")
	case r.Method == "":
		return errors.New("empty method")
	case r.EndByte <= r.StartByte:
		return fmt.Errorf("empty or reversed byte range [%d,%d)", r.StartByte, r.EndByte)
	case r.StartLine < 1:
		return fmt.Errorf("start_line %d is not 1-based", r.StartLine)
	}
	if len(r.Ranges) > 1 {
		if err := r.checkPieces(); err != nil {
			return err
		}
	} else if err := r.checkWhole(); err != nil {
		return err
	}
	if want := chunk.Size(bytesOf(r.Content)); r.Size != want {
		return fmt.Errorf("size is %d, content has %d non-whitespace characters", r.Size, want)
	}
	return nil
}

// checkWhole checks a record of one stretch: its range, if it has one,
// is [start_byte, end_byte), and its content as long as that and of its
// lines.
func (r *Record) checkWhole() error {
	if len(r.Ranges) == 1 && (r.Ranges[0].Start != r.StartByte || r.Ranges[0].End != r.EndByte) {
		return fmt.Errorf("ranges is [[%d,%d]], the chunk is [%d,%d)", r.Ranges[0].Start, r.Ranges[0].End, r.StartByte, r.EndByte)
	}
	if len(r.Content) != r.EndByte-r.StartByte {
		return fmt.Errorf("content has %d bytes, the range [%d,%d) %d", len(r.Content), r.StartByte, r.EndByte, r.EndByte-r.StartByte)
	}
	if want := r.StartLine + strings.Count(r.Content[:len(r.Content)-1], "\n"); r.EndLine != want {
		return fmt.Errorf("end_line is %d, content from line %d ends on line %d", r.EndLine, r.StartLine, want)
	}
	return nil
}

// checkPieces checks a record of several ranges: well formed
// (chunk.CheckPieces), from start_byte to end_byte, and a content of
// their lengths with a line feed between two.
func (r *Record) checkPieces() error {
	if err := chunk.CheckPieces(r.Span()); err != nil {
		return fmt.Errorf("ranges: %v", err)
	}
	at := 0
	for i, p := range r.Ranges {
		if i > 0 {
			if at >= len(r.Content) || r.Content[at] != chunk.Joiner[0] {
				return fmt.Errorf("content is not its %d ranges joined by a line feed (no line feed at byte %d)", len(r.Ranges), at)
			}
			at += len(chunk.Joiner)
		}
		at += p.End - p.Start
	}
	if at != len(r.Content) {
		return fmt.Errorf("content has %d bytes, its %d ranges and the line feeds between them %d", len(r.Content), len(r.Ranges), at)
	}
	if r.EndLine < r.StartLine {
		return fmt.Errorf("end_line %d is before start_line %d", r.EndLine, r.StartLine)
	}
	return nil
}

// nonNegInt reads a JSON number (already checked to be one) that must be
// a non-negative integer in int range, spelled plainly (no sign, fraction
// or exponent).
func nonNegInt(num []byte) (int, error) {
	if num[0] == '-' {
		return 0, fmt.Errorf("%s is negative", num)
	}
	n := 0
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%s is not an integer", num)
		}
	}
	for _, c := range num {
		d := int(c - '0')
		if n > (math.MaxInt-d)/10 {
			return 0, fmt.Errorf("%s is out of range", num)
		}
		n = n*10 + d
	}
	return n, nil
}
