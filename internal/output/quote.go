package output

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Quote returns a file name as it is when it prints safely on one line,
// and in Go's quoted form ("a\nb.py", "caf\xe9.py") when it does not: a
// name must never forge a second message line or send escape sequences to
// a terminal (as `ls --quoting-style` does, in Go's syntax).
func Quote(name string) string {
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
