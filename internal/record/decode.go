package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/chunk"
)

// DefaultMaxLine is the longest line the Decoder accepts unless told
// otherwise: generous enough for any chunk of a file under a sane
// --max-file-size, small enough to stop reading a runaway line.
const DefaultMaxLine = 1 << 30

// LineError is a malformed line. The decoder has consumed the line, so
// decoding can go on with the next one (verify reports them all).
type LineError struct {
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Decoder reads records strictly, one line at a time: memory is bounded by
// the longest line, not the stream. Each line must be exactly what the
// Encoder writes: a JSON object with every field, once, of the right type, in
// DESIGN order, no unknown field, integers non-negative, id 32 lowercase hex,
// no whitespace, the encoder's escapes, and a final '\n'. The last check
// (canonical form) is done by re-encoding the record and comparing bytes, so
// it also catches anything the field checks could miss.
type Decoder struct {
	// MaxLineBytes limits the length of a line (without its '\n');
	// 0 means DefaultMaxLine.
	MaxLineBytes int

	r     *bufio.Reader
	line  int
	buf   []byte // a line longer than the bufio buffer is assembled here
	canon []byte // re-encoding scratch
	err   error  // sticky: io.EOF or a read error
}

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10)}
}

// Line returns the number of the line last read (1-based).
func (d *Decoder) Line() int { return d.line }

var errTooLong = errors.New("line too long")

// Decode reads the next line into *rec. It returns io.EOF after the last
// line, a *LineError for a malformed line (rec is then unspecified, and the
// next call reads the next line), or a read error, which is final.
//
// Decode checks the format only; Record.Check checks that a record agrees
// with itself, and whether it agrees with the file is verify's business.
func (d *Decoder) Decode(rec *Record) error {
	if d.err != nil {
		return d.err
	}
	line, terminated, err := d.readLine()
	switch {
	case err == io.EOF && len(line) == 0:
		d.err = io.EOF
		return io.EOF
	case err == errTooLong:
		d.line++
		if !terminated {
			d.err = io.EOF
		}
		return &LineError{d.line, fmt.Errorf("line longer than %d bytes", d.maxLine())}
	case err != nil && err != io.EOF:
		d.err = fmt.Errorf("record: reading line %d: %w", d.line+1, err)
		return d.err
	}
	d.line++
	if err := d.parse(line, rec); err != nil {
		if !terminated {
			d.err = io.EOF
		}
		return &LineError{d.line, err}
	}
	if !terminated {
		d.err = io.EOF
		return &LineError{d.line, errors.New("no newline at the end of the last line (truncated output?)")}
	}
	return nil
}

func (d *Decoder) maxLine() int {
	if d.MaxLineBytes > 0 {
		return d.MaxLineBytes
	}
	return DefaultMaxLine
}

// readLine returns the next line without its '\n' and whether it had one.
// The line is valid until the next call. A line over the limit is read to
// its end and dropped (errTooLong), so the decoder stays in step.
func (d *Decoder) readLine() (line []byte, terminated bool, err error) {
	limit := d.maxLine()
	if cap(d.buf) > 64<<20 {
		d.buf = nil // do not hold on to the memory of one huge line
	}
	d.buf = d.buf[:0]
	tooLong := false
	for {
		frag, err := d.r.ReadSlice('\n')
		n := len(frag)
		if err == nil {
			n-- // drop the '\n'
		}
		if !tooLong && len(d.buf)+n > limit {
			tooLong, d.buf = true, d.buf[:0]
		}
		if !tooLong {
			if err == nil && len(d.buf) == 0 {
				return frag[:n], true, nil // the common case: no copy
			}
			d.buf = append(d.buf, frag[:n]...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case tooLong && (err == nil || err == io.EOF):
			return nil, err == nil, errTooLong
		}
		return d.buf, err == nil, err
	}
}

// Field kinds by index in fieldNames.
func isIntField(i int) bool { return i >= 4 && i <= 9 }

func fieldIndex(name string) int {
	for i, f := range fieldNames {
		if f == name {
			return i
		}
	}
	return -1
}

// parse decodes one line into rec and checks it; errors say what is wrong
// and, where it helps, at which column (1-based byte).
func (d *Decoder) parse(line []byte, rec *Record) error {
	if len(line) == 0 {
		return errors.New("empty line")
	}
	if !utf8.Valid(line) {
		return fmt.Errorf("not valid UTF-8 at column %d", chunk.FirstInvalid(line)+1)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return jsonError(err)
	}
	if tok != json.Delim('{') {
		return fmt.Errorf("not a JSON object (starts with %s)", typeName(tok))
	}
	*rec = Record{}
	var seen uint16
	last := -1
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return jsonError(err)
		}
		name, _ := tok.(string) // inside an object, Token yields string keys
		i := fieldIndex(name)
		switch {
		case i < 0:
			return fmt.Errorf("unknown field %q", name)
		case seen&(1<<i) != 0:
			return fmt.Errorf("duplicate field %q", name)
		case i < last:
			return fmt.Errorf("field %q comes after %q; the order is %s", name, fieldNames[last], strings.Join(fieldNames[:], ", "))
		}
		seen |= 1 << i
		last = i
		val, err := dec.Token()
		if err != nil {
			return jsonError(err)
		}
		if isIntField(i) {
			n, err := nonNegInt(val)
			if err != nil {
				return fmt.Errorf("field %q: %v", name, err)
			}
			setInt(rec, i, n)
			continue
		}
		s, ok := val.(string)
		if !ok {
			return fmt.Errorf("field %q: want a string, got %s", name, typeName(val))
		}
		setString(rec, i, s)
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return jsonError(err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("data after the object at column %d", end+1)
	}
	if missing := missingFields(seen); missing != "" {
		return fmt.Errorf("missing %s", missing)
	}
	if !validID(rec.ID) {
		return fmt.Errorf("field \"id\": %q is not %d lowercase hex digits", rec.ID, IDLen)
	}
	d.canon, err = AppendRecord(d.canon[:0], rec)
	if err != nil {
		return err
	}
	want := d.canon[:len(d.canon)-1]
	if !bytes.Equal(line, want) {
		col := 0
		for col < len(line) && col < len(want) && line[col] == want[col] {
			col++
		}
		return fmt.Errorf("not in canonical form at column %d (whitespace or escape spelling differs from the encoder's)", col+1)
	}
	return nil
}

func setInt(rec *Record, i, n int) {
	switch fieldNames[i] {
	case "index":
		rec.Index = n
	case "start_line":
		rec.StartLine = n
	case "end_line":
		rec.EndLine = n
	case "start_byte":
		rec.StartByte = n
	case "end_byte":
		rec.EndByte = n
	case "size":
		rec.Size = n
	}
}

func setString(rec *Record, i int, s string) {
	switch fieldNames[i] {
	case "id":
		rec.ID = s
	case "path":
		rec.Path = s
	case "language":
		rec.Language = s
	case "method":
		rec.Method = s
	case "content":
		rec.Content = s
	}
}

// nonNegInt accepts a JSON number that is a non-negative integer in int
// range, spelled plainly (no sign, fraction or exponent).
func nonNegInt(v json.Token) (int, error) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("want an integer, got %s", typeName(v))
	}
	s := string(num)
	if strings.HasPrefix(s, "-") {
		return 0, fmt.Errorf("%s is negative", s)
	}
	if strings.ContainsAny(s, ".eE") {
		return 0, fmt.Errorf("%s is not an integer", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s is out of range", s)
	}
	return n, nil
}

func missingFields(seen uint16) string {
	var names []string
	for i, f := range fieldNames {
		if seen&(1<<i) == 0 {
			names = append(names, strconv.Quote(f))
		}
	}
	if len(names) == 0 {
		return ""
	}
	if len(names) == 1 {
		return "field " + names[0]
	}
	return "fields " + strings.Join(names, ", ")
}

func typeName(v json.Token) string {
	switch v := v.(type) {
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		if v == '[' {
			return "an array"
		}
		return fmt.Sprintf("%q", string(v))
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func jsonError(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("malformed JSON at column %d: %v", se.Offset, se)
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("malformed JSON: the line ends inside the object")
	}
	return fmt.Errorf("malformed JSON: %v", err)
}

// Check reports the first way r contradicts itself: an empty or reversed
// byte range, content whose length, line count or size disagrees with the
// numbers, an unknown method, an empty path or language. It does not look
// at the file (verify does).
func (r *Record) Check() error {
	switch {
	case r.Path == "":
		return errors.New("empty path")
	case r.Language == "":
		return errors.New("empty language")
	case r.Method != "cast" && r.Method != "sliding":
		return fmt.Errorf("method %q is neither \"cast\" nor \"sliding\"", r.Method)
	case r.EndByte <= r.StartByte:
		return fmt.Errorf("empty or reversed byte range [%d,%d)", r.StartByte, r.EndByte)
	case len(r.Content) != r.EndByte-r.StartByte:
		return fmt.Errorf("content has %d bytes, the range [%d,%d) %d", len(r.Content), r.StartByte, r.EndByte, r.EndByte-r.StartByte)
	case r.StartLine < 1:
		return fmt.Errorf("start_line %d is not 1-based", r.StartLine)
	}
	if want := r.StartLine + strings.Count(r.Content[:len(r.Content)-1], "\n"); r.EndLine != want {
		return fmt.Errorf("end_line is %d, content from line %d ends on line %d", r.EndLine, r.StartLine, want)
	}
	if want := chunk.Size([]byte(r.Content)); r.Size != want {
		return fmt.Errorf("size is %d, content has %d non-whitespace characters", r.Size, want)
	}
	return nil
}
