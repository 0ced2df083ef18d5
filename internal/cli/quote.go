package cli

import (
	"github.com/castchunk/castchunk/internal/output"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// quoteName is a file name as messages print it (package output's rule).
func quoteName(name string) string { return output.Quote(name) }

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
