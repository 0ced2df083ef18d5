package record

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// This file is the Decoder's JSON scanner: it reads one line holding one
// JSON object in place, without encoding/json. Keys and numbers are looked
// at where they lie in the line; a string value becomes a Go string with
// one allocation of its decoded length (the one copy a Record field needs);
// values of fields the decoder does not know are checked and skipped
// without a copy. What it accepts is what encoding/json accepts (RFC 8259;
// a lone surrogate escape reads as U+FFFD, as encoding/json reads it; at
// most maxDepth levels of nesting), which FuzzDecoder checks.
//
// With strict set it also notes where the line first departs from the
// encoder's spelling (whitespace, an escape the encoder would not write, a
// character it would escape), by comparing each token with its canonical
// spelling as it goes rather than writing the line again.

// maxDepth is the deepest nesting of objects and arrays accepted, the line's
// own object included: encoding/json's limit.
const maxDepth = 10000

// errEOF is the line ending before the object does.
var errEOF = errors.New("malformed JSON: the line ends inside the object (records are one JSON object per line: pretty-printed JSON, as `jq .` writes it, is not read; use `jq -c`)")

// syntaxError is malformed JSON at a byte of the line.
type syntaxError struct {
	at  int // 0-based offset of the offending byte
	msg string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("malformed JSON at column %d: %s", e.at+1, e.msg)
}

// scanner reads one line. The zero value is ready after reset.
type scanner struct {
	s      []byte
	i      int  // the next byte to read
	strict bool // note departures from the canonical spelling in canon
	canon  int  // offset of the first byte that departs from it; -1: none yet
	// kinds is the nesting of the value skip is in: bit d set when level d
	// is an object.
	kinds [maxDepth/64 + 1]uint64
}

func (s *scanner) reset(line []byte, strict bool) {
	s.s, s.i, s.strict, s.canon = line, 0, strict, -1
}

// depart notes that the canonical spelling differs at offset at.
func (s *scanner) depart(at int) {
	if s.canon < 0 {
		s.canon = at
	}
}

// space skips JSON whitespace, which the encoder never writes.
func (s *scanner) space() {
	start := s.i
	for s.i < len(s.s) {
		switch s.s[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
			continue
		}
		break
	}
	if s.strict && s.i > start {
		s.depart(start)
	}
}

// more reports whether a byte is left, after whitespace.
func (s *scanner) more() bool {
	s.space()
	return s.i < len(s.s)
}

// syntax is a syntax error at the current byte.
func (s *scanner) syntax(context string) error {
	return &syntaxError{s.i, "invalid character " + quoteChar(s.s[s.i]) + " " + context}
}

// quoteChar spells a byte in a syntax error as encoding/json does.
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	q := strconv.Quote(string(rune(c)))
	return "'" + q[1:len(q)-1] + "'"
}

// str scans the string that starts at the current byte (a '"'): its body
// is s[start:end], n bytes once decoded, and escaped tells whether it holds
// escapes (otherwise the body is the string itself).
func (s *scanner) str() (start, end, n int, escaped bool, err error) {
	i := s.i + 1
	start = i
	saved := 0 // bytes the escapes take beyond what they stand for
	for {
		// A run of plain bytes: most of a string.
		for i < len(s.s) && plain[s.s[i]] {
			i++
		}
		if i >= len(s.s) {
			return 0, 0, 0, false, errEOF
		}
		switch c := s.s[i]; {
		case c == '"':
			s.i = i + 1
			return start, i, i - start - saved, escaped, nil
		case c == 0xE2:
			// U+2028 and U+2029 are valid JSON, but the encoder escapes them.
			if s.strict && i+2 < len(s.s) && s.s[i+1] == 0x80 && (s.s[i+2] == 0xA8 || s.s[i+2] == 0xA9) {
				s.depart(i)
			}
			i++
		case c < 0x20:
			s.i = i
			return 0, 0, 0, false, s.syntax("in string literal")
		default: // '\\'
			escaped = true
			r, w, err := s.escape(i)
			if err != nil {
				return 0, 0, 0, false, err
			}
			if s.strict && s.canon < 0 {
				s.compareEscape(i, w, r)
			}
			i += w
			saved += w - utf8.RuneLen(r)
		}
	}
}

// plain marks the bytes str passes over without a second look.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\' && c != 0xE2
	}
	return t
}()

// escape reads the escape at s[i] (a '\\') as encoding/json does: the rune
// it stands for and its length in the line. A \u escape of a high surrogate
// followed by one of a low surrogate is one character; any other surrogate
// reads as U+FFFD.
func (s *scanner) escape(i int) (r rune, w int, err error) {
	if i+1 >= len(s.s) {
		return 0, 0, errEOF
	}
	switch c := s.s[i+1]; c {
	case '"', '\\', '/':
		return rune(c), 2, nil
	case 'b':
		return '\b', 2, nil
	case 'f':
		return '\f', 2, nil
	case 'n':
		return '\n', 2, nil
	case 'r':
		return '\r', 2, nil
	case 't':
		return '\t', 2, nil
	case 'u':
		r, err := s.hex4(i + 2)
		if err != nil {
			return 0, 0, err
		}
		if !utf16.IsSurrogate(r) {
			return r, 6, nil
		}
		// A pair when a \u escape of the other half follows; encoding/json
		// does not require it to be well formed here: it is read on its
		// own next, and reported then if it is not.
		if i+12 <= len(s.s) && s.s[i+6] == '\\' && s.s[i+7] == 'u' {
			if r2, err := s.hex4(i + 8); err == nil {
				if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
					return pair, 12, nil
				}
			}
		}
		return utf8.RuneError, 6, nil
	}
	s.i = i + 1
	return 0, 0, s.syntax("in string escape code")
}

// hex4 reads the four hex digits at s[i:].
func (s *scanner) hex4(i int) (rune, error) {
	var r rune
	for j := i; j < i+4; j++ {
		if j >= len(s.s) {
			return 0, errEOF
		}
		c := s.s[j]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, &syntaxError{j, "invalid character " + quoteChar(c) + " in \\u hexadecimal character escape"}
		}
		r = r<<4 | rune(c)
	}
	return r, nil
}

// compareEscape notes where the escape s[i:i+w], which stands for r,
// departs from the encoder's spelling of r.
func (s *scanner) compareEscape(i, w int, r rune) {
	var buf [8]byte
	want := canonical(buf[:0], r)
	got := s.s[i : i+w]
	for j := range min(len(got), len(want)) {
		if got[j] != want[j] {
			s.depart(i + j)
			return
		}
	}
	if len(got) != len(want) {
		s.depart(i + min(len(got), len(want)))
	}
}

// canonical appends r as the encoder writes it inside a string.
func canonical(dst []byte, r rune) []byte {
	switch r {
	case '"', '\\':
		return append(dst, '\\', byte(r))
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\u2028', '\u2029':
		return append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
	}
	if r < 0x20 {
		return append(dst, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
	}
	return utf8.AppendRune(dst, r)
}

// unquote returns the string whose body is s[start:end], n bytes once
// decoded (from str): one allocation of n bytes.
func (s *scanner) unquote(start, end, n int, escaped bool) string {
	if !escaped {
		return string(s.s[start:end])
	}
	var b strings.Builder
	b.Grow(n)
	for i := start; i < end; {
		j := i
		for j < end && s.s[j] != '\\' {
			j++
		}
		b.Write(s.s[i:j])
		if j == end {
			break
		}
		r, w, _ := s.escape(j) // str checked it
		b.WriteRune(r)
		i = j + w
	}
	return b.String()
}

// appendUnquoted appends the decoded body s[start:end] to dst.
func (s *scanner) appendUnquoted(dst []byte, start, end int) []byte {
	for i := start; i < end; {
		if s.s[i] != '\\' {
			dst = append(dst, s.s[i])
			i++
			continue
		}
		r, w, _ := s.escape(i)
		dst = utf8.AppendRune(dst, r)
		i += w
	}
	return dst
}

// number scans a JSON number at the current byte.
func (s *scanner) number() error {
	if s.s[s.i] == '-' {
		s.i++
	}
	if s.i >= len(s.s) {
		return errEOF
	}
	switch c := s.s[s.i]; {
	case c == '0':
		s.i++
	case '1' <= c && c <= '9':
		s.digits()
	default:
		return s.syntax("in numeric literal")
	}
	if s.i < len(s.s) && s.s[s.i] == '.' {
		s.i++
		if err := s.needDigit("after decimal point in numeric literal"); err != nil {
			return err
		}
		s.digits()
	}
	if s.i < len(s.s) && (s.s[s.i] == 'e' || s.s[s.i] == 'E') {
		s.i++
		if s.i < len(s.s) && (s.s[s.i] == '+' || s.s[s.i] == '-') {
			s.i++
		}
		if err := s.needDigit("in exponent of numeric literal"); err != nil {
			return err
		}
		s.digits()
	}
	return nil
}

func (s *scanner) digits() {
	for s.i < len(s.s) && '0' <= s.s[s.i] && s.s[s.i] <= '9' {
		s.i++
	}
}

func (s *scanner) needDigit(context string) error {
	if s.i >= len(s.s) {
		return errEOF
	}
	if c := s.s[s.i]; c < '0' || c > '9' {
		return s.syntax(context)
	}
	return nil
}

// literal scans true, false or null at the current byte.
func (s *scanner) literal() error {
	var lit string
	switch s.s[s.i] {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	default:
		lit = "null"
	}
	for j := 0; j < len(lit); j++ {
		if s.i >= len(s.s) {
			return errEOF
		}
		if s.s[s.i] != lit[j] {
			return s.syntax(fmt.Sprintf("in literal %s (expecting %s)", lit, quoteChar(lit[j])))
		}
		s.i++
	}
	return nil
}

// kind scans the value at the current byte when it is a scalar, and names
// its type; an object or an array is named without being read.
func (s *scanner) kind() (string, error) {
	switch c := s.s[s.i]; {
	case c == '{':
		return "an object", nil
	case c == '[':
		return "an array", nil
	case c == '"':
		_, _, _, _, err := s.str()
		return "a string", err
	case c == '-' || '0' <= c && c <= '9':
		return "a number", s.number()
	case c == 't' || c == 'f':
		return "a boolean", s.literal()
	case c == 'n':
		return "null", s.literal()
	}
	return "", s.syntax("looking for beginning of value")
}

// skip scans one value of any kind at the current byte, nested depth
// levels deep (the line's object is level 1), without keeping any of it.
func (s *scanner) skip(depth int) error {
	base := depth
	for {
		// A value.
		if !s.more() {
			return errEOF
		}
		switch c := s.s[s.i]; c {
		case '{', '[':
			if depth >= maxDepth {
				return &syntaxError{s.i, "exceeded max depth"}
			}
			s.setKind(depth, c == '{')
			depth++
			s.i++
			if !s.more() {
				return errEOF
			}
			if end := s.s[s.i]; end == '}' && c == '{' || end == ']' && c == '[' {
				s.i++
				depth--
				break // an empty object or array is a whole value
			}
			if c == '{' {
				if err := s.key(); err != nil {
					return err
				}
			}
			continue
		default:
			if _, err := s.kind(); err != nil {
				return err
			}
		}
		// After a value: close what ends here, until a ',' asks for the
		// next value.
		for {
			if depth == base {
				return nil
			}
			if !s.more() {
				return errEOF
			}
			object := s.isObject(depth - 1)
			c := s.s[s.i]
			if c == ',' {
				s.i++
				if object {
					if err := s.key(); err != nil {
						return err
					}
				}
				break
			}
			if object && c == '}' || !object && c == ']' {
				s.i++
				depth--
				continue
			}
			if object {
				return s.syntax("after object key:value pair")
			}
			return s.syntax("after array element")
		}
	}
}

// key scans an object key and its ':' inside a skipped value.
func (s *scanner) key() error {
	if !s.more() {
		return errEOF
	}
	if s.s[s.i] != '"' {
		return s.syntax("looking for beginning of object key string")
	}
	if _, _, _, _, err := s.str(); err != nil {
		return err
	}
	return s.colon()
}

// colon scans the ':' after a key.
func (s *scanner) colon() error {
	if !s.more() {
		return errEOF
	}
	if s.s[s.i] != ':' {
		return s.syntax("after object key")
	}
	s.i++
	return nil
}

func (s *scanner) setKind(depth int, object bool) {
	if object {
		s.kinds[depth/64] |= 1 << (depth % 64)
	} else {
		s.kinds[depth/64] &^= 1 << (depth % 64)
	}
}

func (s *scanner) isObject(depth int) bool { return s.kinds[depth/64]&(1<<(depth%64)) != 0 }

// bytesOf returns the bytes of s without a copy, for reading only.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
