package cli

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// quoteName returns a file name as it is when it prints safely on one
// line, and in Go's quoted form ("a\nb.py", "caf\xe9.py") when it does
// not: a name must never forge a second message line or send escape
// sequences to a terminal (as `ls --quoting-style` does, in Go's syntax).
func quoteName(name string) string {
	if plainName(name) {
		return name
	}
	return strconv.Quote(name)
}

// plainName reports whether name needs no quoting: valid UTF-8, printable,
// no quote or backslash that would make the quoted form ambiguous, no
// space at either end.
func plainName(name string) bool {
	if name == "" || !utf8.ValidString(name) || name[0] == ' ' || name[len(name)-1] == ' ' {
		return false
	}
	for _, r := range name {
		if r == '"' || r == '\\' || r != ' ' && !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// safeText escapes, in a message that may quote user input (an error from
// the operating system names the path it failed on), every character that
// could end the line or reach a terminal as a control sequence.
func safeText(s string) string {
	if plainText(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i]), 16))
		case r == ' ' || unicode.IsPrint(r):
			b.WriteString(s[i : i+w])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += w
	}
	return b.String()
}

func plainText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != ' ' && !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
