package tokens

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers below split text into the pieces that byte-pair
// encoding then merges, exactly as each encoding's split regex does under
// leftmost-first (ordered alternation, greedy, backtracking) semantics:
//
//	cl100k_base: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//	o200k_base:  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	            |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	            |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Every position starts a match (some branch always matches at least one
// character), so the matches tile the text and a splitter is a function from
// a piece's start to its end. Instead of a regex engine (the module's
// regexp2 runs at about 6 MB/s) each branch is a forward scan over character
// classes; where the regex would backtrack, the scan remembers the one
// position backtracking would stop at. Character classes follow Python
// tiktoken, whose regex crate (regex-syntax) has Unicode 16.0.0's tables: \s
// is White_Space, \p{..} the General_Category values, and (?i) folds 's' with
// 'ſ' (U+017F). Go's unicode package is older (unicode.Version, 15.0.0 as of
// Go 1.26), so a rune's class is Go's unless newerClasses (unicode_table.go,
// generated from Unicode 16.0.0's data, see unicode_gen_test.go) lists it: the
// letters, digits and marks Unicode added since, such as CJK Extension I
// (U+2EBF0-U+2EE5D, Unicode 15.1).

// Character class bits; a rune has any combination.
const (
	cLetter  uint8 = 1 << iota // \p{L}
	cNumber                    // \p{N}
	cSpace                     // \s
	cNewline                   // \r or \n
	cUpper                     // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], o200k's word head
	cLower                     // [\p{Ll}\p{Lm}\p{Lo}\p{M}], o200k's word tail
	cSlash                     // '/', which o200k's punctuation branch lets trail
)

// cOther marks the runes of [^\s\p{L}\p{N}]; a rune is "other" when none of
// these bits is set.
const cWordish = cLetter | cNumber | cSpace

// bmpClass holds the class of every rune below U+10000 (64 KB, built once):
// the unicode package's range tables cost a binary search each, and a file
// with non-ASCII text repeats the same few runes.
var (
	bmpClass     [0x10000]uint8
	bmpClassOnce sync.Once
)

func initClasses() {
	for r := range rune(len(bmpClass)) {
		bmpClass[r] = classRune(r)
	}
}

// classRune is the class of one rune under Unicode 16.0.0.
func classRune(r rune) uint8 {
	if c, ok := newerClass(r); ok {
		return c
	}
	return goClass(r)
}

// newerClass is r's class from newerClasses, if r is there.
func newerClass(r rune) (uint8, bool) {
	t := newerClasses
	lo, hi := 0, len(t)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch {
		case r < t[m].lo:
			hi = m
		case r > t[m].hi:
			lo = m + 1
		default:
			return t[m].class, true
		}
	}
	return 0, false
}

// A classRange gives the runes lo..hi (inclusive) one class.
type classRange struct {
	lo, hi rune
	class  uint8
}

// goClass is the class of one rune from Go's unicode tables.
func goClass(r rune) uint8 {
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
	if r == '/' {
		c |= cSlash
	}
	mark := unicode.Is(unicode.M, r)
	lm := unicode.Is(unicode.Lm, r) || unicode.Is(unicode.Lo, r) || mark
	if lm || unicode.Is(unicode.Lu, r) || unicode.Is(unicode.Lt, r) {
		c |= cUpper
	}
	if lm || unicode.Is(unicode.Ll, r) {
		c |= cLower
	}
	return c
}

// classAt returns the class of the rune at text[i] and its length in bytes.
// Invalid UTF-8 reads as U+FFFD, one byte at a time.
func classAt(text []byte, i int) (uint8, int) {
	if b := text[i]; b < utf8.RuneSelf {
		return bmpClass[b], 1
	}
	r, n := utf8.DecodeRune(text[i:])
	if r < rune(len(bmpClass)) {
		return bmpClass[r], n
	}
	return classRune(r), n
}

// isPrefix reports whether class c matches [^\r\n\p{L}\p{N}], the optional
// one-rune prefix of a word.
func isPrefix(c uint8) bool { return c&(cLetter|cNumber|cNewline) == 0 }

// scan returns the end of the run of runes from i that have a bit of mask.
func scan(text []byte, i int, mask uint8) int {
	for i < len(text) {
		c, n := classAt(text, i)
		if c&mask == 0 {
			break
		}
		i += n
	}
	return i
}

// classAfter is the class at i, or 0 at the end of text.
func classAfter(text []byte, i int) uint8 {
	if i >= len(text) {
		return 0
	}
	c, _ := classAt(text, i)
	return c
}

// contraction returns the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or -1.
func contraction(text []byte, i int) int {
	if i+1 >= len(text) || text[i] != '\'' {
		return -1
	}
	switch text[i+1] | 0x20 { // ASCII lower case; other bytes never match below
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(text) && text[i+2]|0x20 == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(text) && text[i+2]|0x20 == 'l' {
			return i + 3
		}
	case 0xC5 | 0x20: // 0xC5 0xBF is U+017F LATIN SMALL LETTER LONG S, which folds to 's'
		if text[i+1] == 0xC5 && i+2 < len(text) && text[i+2] == 0xBF {
			return i + 3
		}
	}
	return -1
}

// digits matches \p{N}{1,3} at i (the caller checked the first rune).
func digits(text []byte, i int) int {
	for k := 0; k < 3 && i < len(text); k++ {
		c, n := classAt(text, i)
		if c&cNumber == 0 {
			break
		}
		i += n
	}
	return i
}

// punct matches ` ?[^\s\p{L}\p{N}]+` followed by the run of trail runes
// ([\r\n]* or o200k's [\r\n/]*) at i, or returns -1. Both loops are greedy
// and what follows them cannot fail, so no backtracking is needed; a leading
// space that is not followed by "other" fails the branch because the space
// itself is \s.
func punct(text []byte, i int, trail uint8) int {
	j := i
	if text[j] == ' ' {
		j++
	}
	if j >= len(text) {
		return -1
	}
	if c, _ := classAt(text, j); c&cWordish != 0 {
		return -1
	}
	j = scanOther(text, j)
	return scan(text, j, trail)
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

// spaces matches `\s*[\r\n]+|\s+(?!\S)|\s+` at i, where text[i] is \s (every
// other rune is taken by an earlier branch). Over the whole run of \s:
// `\s*[\r\n]+` backtracks to end after the run's last newline; `\s+(?!\S)`
// takes the whole run at the end of text, else gives back its last rune
// (which the next piece, ` ?\p{L}+` and the like, begins with), needing one
// rune left; `\s+` takes the single rune that remains.
func spaces(text []byte, i int) int {
	afterNewline, lastStart, j := -1, i, i
	for j < len(text) {
		c, n := classAt(text, j)
		if c&cSpace == 0 {
			break
		}
		if c&cNewline != 0 {
			afterNewline = j + n
		}
		lastStart = j
		j += n
	}
	switch {
	case afterNewline >= 0:
		return afterNewline
	case j == len(text) || lastStart == i:
		return j
	default:
		return lastStart
	}
}

// nextCl100k returns the end of the cl100k_base piece that starts at i.
func nextCl100k(text []byte, i int) int {
	if text[i] == '\'' {
		if e := contraction(text, i); e >= 0 {
			return e
		}
	}
	c, n := classAt(text, i)
	switch {
	case c&cLetter != 0:
		return scan(text, i+n, cLetter)
	case isPrefix(c) && classAfter(text, i+n)&cLetter != 0:
		return scan(text, i+n, cLetter)
	case c&cNumber != 0:
		return digits(text, i)
	}
	if e := punct(text, i, cNewline); e >= 0 {
		return e
	}
	return spaces(text, i)
}

// nextO200k returns the end of the o200k_base piece that starts at i.
func nextO200k(text []byte, i int) int {
	c, n := classAt(text, i)
	if e := o200kWord(text, i, c, n); e >= 0 {
		return e
	}
	if c&cNumber != 0 {
		return digits(text, i)
	}
	if e := punct(text, i, cNewline|cSlash); e >= 0 {
		return e
	}
	return spaces(text, i)
}

// o200kWord tries o200k's two word branches at i, whose first rune has class
// c and length n: first `P?U*L+C?` with both choices of the optional prefix
// P, then `P?U+L*C?` likewise. It returns the end, or -1.
func o200kWord(text []byte, i int, c uint8, n int) int {
	prefix := isPrefix(c)
	if !prefix && c&(cUpper|cLower) == 0 {
		return -1 // a digit or a newline: neither branch can start here
	}
	if prefix {
		if e := headTail(text, i+n); e >= 0 {
			return e
		}
	}
	if e := headTail(text, i); e >= 0 {
		return e
	}
	if prefix {
		if e := headThenTail(text, i+n); e >= 0 {
			return e
		}
	}
	return headThenTail(text, i)
}

// headTail matches `U*L+C?` at s: U* is greedy, so backtracking gives back
// head runes until a tail rune follows; the tail then starts at the latest
// such position: the end of the head run if a tail rune is there, else the
// last head rune that is also a tail rune (Lm, Lo, M are both). Returns -1
// when there is none.
func headTail(text []byte, s int) int {
	lastBoth, j := -1, s
	for j < len(text) {
		c, n := classAt(text, j)
		if c&cUpper == 0 {
			break
		}
		if c&cLower != 0 {
			lastBoth = j
		}
		j += n
	}
	if classAfter(text, j)&cLower == 0 {
		if lastBoth < 0 {
			return -1
		}
		j = lastBoth
	}
	return withContraction(text, scan(text, j, cLower))
}

// headThenTail matches `U+L*C?` at s, or returns -1.
func headThenTail(text []byte, s int) int {
	j := scan(text, s, cUpper)
	if j == s {
		return -1
	}
	return withContraction(text, scan(text, j, cLower))
}

// withContraction extends a word ending at e by an optional contraction.
func withContraction(text []byte, e int) int {
	if e < len(text) && text[e] == '\'' {
		if c := contraction(text, e); c >= 0 {
			return c
		}
	}
	return e
}
