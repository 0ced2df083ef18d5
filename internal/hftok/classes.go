package hftok

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// Character classes as the crate sees them. Its regexes run on Oniguruma
// (the onig crate bundles Oniguruma 6.9.8, whose tables are Unicode 15.0,
// the version of Go's unicode package), so Go's tables are used as they
// are: unlike internal/tokens, which follows tiktoken's Unicode 16.0 regex
// crate and amends Go's tables, this package must not.
const (
	cLetter  uint8 = 1 << iota // \p{L}
	cNumber                    // \p{N}
	cSpace                     // \s: White_Space (9-D, 85, Z)
	cNewline                   // \r or \n
	cWord                      // Oniguruma's \w: Alphabetic, M, Nd, Pc
	cPunct                     // BERT punctuation: ASCII punctuation or P
	cUpper                     // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], o200k's word head
	cLower                     // [\p{Ll}\p{Lm}\p{Lo}\p{M}], o200k's word tail
)

// cWordish marks the runes [^\s\p{L}\p{N}] excludes.
const cWordish = cLetter | cNumber | cSpace

// bmpClass caches the class of every rune below U+10000; it is written once
// (sync.Once) and only read after.
var (
	bmpClass     [0x10000]uint8
	bmpClassOnce sync.Once
)

func initClasses() {
	for r := range rune(len(bmpClass)) {
		bmpClass[r] = classOf(r)
	}
}

// classOf computes the class of r from Go's tables.
func classOf(r rune) uint8 {
	var c uint8
	if unicode.IsLetter(r) {
		c |= cLetter
	}
	if unicode.IsNumber(r) {
		c |= cNumber
	}
	if unicode.IsSpace(r) {
		c |= cSpace
	}
	if r == '\r' || r == '\n' {
		c |= cNewline
	}
	if isAlphabetic(r) || unicode.In(r, unicode.M, unicode.Nd, unicode.Pc) {
		c |= cWord
	}
	if unicode.IsPunct(r) || r < utf8.RuneSelf && unicode.IsSymbol(r) {
		c |= cPunct
	}
	if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M) {
		c |= cUpper
	}
	if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M) {
		c |= cLower
	}
	return c
}

// isAlphabetic is the Alphabetic property: L, Nl and Other_Alphabetic.
func isAlphabetic(r rune) bool {
	return unicode.IsLetter(r) || unicode.In(r, unicode.Nl, unicode.Other_Alphabetic)
}

// classAt is the class of the rune at text[i] and its length; invalid
// UTF-8 reads as U+FFFD, one byte at a time.
func classAt(text []byte, i int) (uint8, int) {
	bmpClassOnce.Do(initClasses)
	if b := text[i]; b < utf8.RuneSelf {
		return bmpClass[b], 1
	}
	r, n := utf8.DecodeRune(text[i:])
	if r < rune(len(bmpClass)) {
		return bmpClass[r], n
	}
	return classOf(r), n
}

// classAfter is the class at i, or 0 at the end of text.
func classAfter(text []byte, i int) uint8 {
	if i >= len(text) {
		return 0
	}
	c, _ := classAt(text, i)
	return c
}

// scanClass returns the end of the run of runes from i having a bit of mask.
func scanClass(text []byte, i int, mask uint8) int {
	for i < len(text) {
		c, n := classAt(text, i)
		if c&mask == 0 {
			break
		}
		i += n
	}
	return i
}

// scanOther returns the end of the run of [^\s\p{L}\p{N}] from i.
func scanOther(text []byte, i int) int {
	for i < len(text) {
		c, n := classAt(text, i)
		if c&cWordish != 0 {
			break
		}
		i += n
	}
	return i
}

// isWordChar is regex-syntax's \w, which the crate's added vocabulary uses
// for single_word: Alphabetic, M, Nd, Pc, Join_Control.
func isWordChar(r rune) bool {
	return isAlphabetic(r) || unicode.In(r, unicode.M, unicode.Nd, unicode.Pc) || r == 0x200C || r == 0x200D
}

// trimLeftSpace drops leading White_Space.
func trimLeftSpace(b []byte) []byte {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if !unicode.IsSpace(r) {
			break
		}
		b = b[n:]
	}
	return b
}

// trimRightSpace drops trailing White_Space.
func trimRightSpace(b []byte) []byte {
	for len(b) > 0 {
		r, n := utf8.DecodeLastRune(b)
		if !unicode.IsSpace(r) {
			break
		}
		b = b[:len(b)-n]
	}
	return b
}
