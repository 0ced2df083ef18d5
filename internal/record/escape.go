package record

import (
	"unicode"
	"unicode/utf8"
)

// ASCII byte classes for the escaping loop, one table lookup per byte.
const (
	clsNonSpace = 1 << iota // counts towards size (unicode.IsSpace is false)
	clsEscape               // must be escaped in a JSON string
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := 0; c < utf8.RuneSelf; c++ {
		if !unicode.IsSpace(rune(c)) {
			t[c] |= clsNonSpace
		}
		if c < 0x20 || c == '"' || c == '\\' {
			t[c] |= clsEscape
		}
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendEscaped appends the body of a JSON string holding s (without the
// quotes) to dst. It also returns the size of s (non-whitespace code points,
// the chunk.Size metric) because it visits every code point anyway, and the
// offset of the first byte that is not valid UTF-8, or -1. On invalid UTF-8
// it stops there; dst then holds a partial string the caller must discard.
func appendEscaped(dst, s []byte) (out []byte, size, bad int) {
	start := 0 // first byte not yet copied to dst
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			cls := asciiClass[c]
			size += int(cls & clsNonSpace)
			if cls&clsEscape == 0 {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, w := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && w == 1 {
			return dst, size, i
		}
		if !unicode.IsSpace(r) {
			size++
		}
		if r == '\u2028' || r == '\u2029' {
			// Valid JSON, but a line terminator for JavaScript: escape it
			// so the line can be pasted into JS and read by naive tools.
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			start = i + w
		}
		i += w
	}
	return append(dst, s[start:]...), size, -1
}
