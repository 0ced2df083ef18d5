package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
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

// Decoder reads records one line at a time: memory is bounded by the
// longest line, not the stream. Every line must be one JSON object (records
// are one object per line: pretty-printed JSON, as `jq .` prints it, is
// refused with a hint to use `jq -c`), with no duplicate field, each known
// field of its schema type, integers non-negative and the id, when present,
// 32 lowercase hex digits.
//
// By default the decoder accepts records that other tools enriched: fields
// it does not know are skipped, the order is free, and only the fields in
// Need must be present. Strict asks for exactly what the Encoder writes:
// every required field of the schema, no unknown field, the schema's order,
// no whitespace and the encoder's escapes, which is checked by writing the
// line again canonically and comparing bytes.
type Decoder struct {
	// MaxLineBytes limits the length of a line (without its '\n');
	// 0 means DefaultMaxLine.
	MaxLineBytes int
	// Schema is the fields the decoder knows; nil means Default().
	Schema *Schema
	// Strict refuses anything the encoder would not have written.
	Strict bool
	// Need lists the fields a record must have when not Strict; nil means
	// every required field of the schema.
	Need []string

	r     *bufio.Reader
	line  int
	buf   []byte // a line longer than the bufio buffer is assembled here
	canon []byte // the line written canonically (Strict)
	seen  []bool // fields of the schema met in the current line
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

// parse decodes one line into rec and checks it; errors say what is wrong
// and, where it helps, at which column (1-based byte).
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
	d.seen = append(d.seen[:0], make([]bool, len(schema.fields))...)
	d.canon = append(d.canon[:0], '{')
	last := -1
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return jsonError(err)
		}
		name, _ := tok.(string) // inside an object, Token yields string keys
		if len(d.canon) > 1 {
			d.canon = append(d.canon, ',')
		}
		d.canon, _, _ = appendString(d.canon, []byte(name))
		d.canon = append(d.canon, ':')
		f, i := schema.field(name)
		switch {
		case f == nil && d.Strict:
			return fmt.Errorf("unknown field %q (without --strict, fields castchunk does not know are ignored)", name)
		case f == nil:
			if d.canon, err = copyValue(dec, d.canon); err != nil {
				return err
			}
			continue
		case d.seen[i]:
			return fmt.Errorf("duplicate field %q", name)
		case d.Strict && i < last:
			return fmt.Errorf("field %q comes after %q; the order is %s", name, schema.fields[last].Name, strings.Join(schema.Names(), ", "))
		}
		d.seen[i], last = true, i
		if err := d.value(dec, f, rec); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return jsonError(err)
	}
	d.canon = append(d.canon, '}')
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("data after the object at column %d", end+1)
	}
	if missing := d.missing(schema); missing != "" {
		return fmt.Errorf("missing %s", missing)
	}
	if f, i := schema.field("id"); f != nil && d.seen[i] && !validID(rec.ID) {
		return fmt.Errorf("field \"id\": %q is not %d lowercase hex digits", rec.ID, IDLen)
	}
	if d.Strict && !bytes.Equal(line, d.canon) {
		col := 0
		for col < len(line) && col < len(d.canon) && line[col] == d.canon[col] {
			col++
		}
		return fmt.Errorf("not in canonical form at column %d (whitespace or escape spelling differs from the encoder's)", col+1)
	}
	return nil
}

// value reads the value of a known field into rec, and writes it
// canonically.
func (d *Decoder) value(dec *json.Decoder, f *Field, rec *Record) error {
	val, err := dec.Token()
	if err != nil {
		return jsonError(err)
	}
	switch f.Type {
	case Int:
		n, err := nonNegInt(val)
		if err != nil {
			return fmt.Errorf("field %q: %v", f.Name, err)
		}
		f.Set(rec, Value{Int: n})
		d.canon = append(d.canon, val.(json.Number)...)
	default:
		s, ok := val.(string)
		if !ok {
			return fmt.Errorf("field %q: want a string, got %s", f.Name, typeName(val))
		}
		f.Set(rec, Value{Str: s})
		d.canon, _, _ = appendString(d.canon, []byte(s))
	}
	return nil
}

// copyValue reads one JSON value of any kind (a field the decoder does not
// know) and writes it canonically to dst.
func copyValue(dec *json.Decoder, dst []byte) ([]byte, error) {
	type open struct {
		object bool
		n      int // keys and values written so far
	}
	var stack []open
	for {
		tok, err := dec.Token()
		if err != nil {
			return dst, jsonError(err)
		}
		if delim, ok := tok.(json.Delim); ok && (delim == '}' || delim == ']') {
			dst = append(dst, byte(delim))
			stack = stack[:len(stack)-1]
		} else {
			if len(stack) > 0 {
				top := &stack[len(stack)-1]
				switch {
				case top.object && top.n%2 == 1:
					dst = append(dst, ':')
				case top.n > 0:
					dst = append(dst, ',')
				}
				top.n++
			}
			switch v := tok.(type) {
			case json.Delim:
				dst = append(dst, byte(v))
				stack = append(stack, open{object: v == '{'})
			case string:
				dst, _, _ = appendString(dst, []byte(v))
			case json.Number:
				dst = append(dst, v...)
			case bool:
				dst = strconv.AppendBool(dst, v)
			case nil:
				dst = append(dst, "null"...)
			}
		}
		if len(stack) == 0 {
			return dst, nil
		}
	}
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
		return !f.Optional
	}
	return slices.Contains(d.Need, f.Name)
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
		return errors.New("malformed JSON: the line ends inside the object (records are one JSON object per line: pretty-printed JSON, as `jq .` writes it, is not read; use `jq -c`)")
	}
	return fmt.Errorf("malformed JSON: %v", err)
}

// Check reports the first way r contradicts itself: an empty or reversed
// byte range, content whose length, line count or size disagrees with the
// numbers, an empty path, language or method. It does not look at the file
// or know the methods (verify does).
func (r *Record) Check() error {
	switch {
	case r.Path == "":
		return errors.New("empty path")
	case r.Language == "":
		return errors.New("empty language")
	case r.Method == "":
		return errors.New("empty method")
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
