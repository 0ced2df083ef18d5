package hftok

import (
	"bytes"
	"fmt"
	"regexp"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// A matcher finds the non-overlapping matches of a pattern, left to right,
// as the crate's Pattern::find_matches sees them: appended to dst as byte
// ranges of text.
type matcher interface {
	find(dst [][2]int, text []byte) [][2]int
}

// patternField reads a component's "pattern": {"String": s} or
// {"Regex": r}.
func patternField(f *fields) (matcher, error) {
	var p struct {
		String *string
		Regex  *string
	}
	if !f.get("pattern", &p) {
		return nil, f.errorf("pattern", "missing")
	}
	switch {
	case p.String != nil && p.Regex == nil:
		return literal([]byte(*p.String)), nil
	case p.Regex != nil && p.String == nil:
		m, err := compileRegex(*p.Regex)
		if err != nil {
			return nil, f.errorf("pattern", "regex %q %v", *p.Regex, err)
		}
		return m, nil
	}
	return nil, f.errorf("pattern", "neither a String nor a Regex")
}

// literal matches a string; an empty one matches nothing.
type literal []byte

func (l literal) find(dst [][2]int, text []byte) [][2]int {
	if len(l) == 0 {
		return dst
	}
	for i := 0; ; {
		k := bytes.Index(text[i:], l)
		if k < 0 {
			return dst
		}
		dst = append(dst, [2]int{i + k, i + k + len(l)})
		i += k + len(l)
	}
}

// goRegex is a regex whose Go translation matches exactly what Oniguruma
// matches (leftmost-first, empty matches abutting a match skipped, as the
// onig crate's find_iter does).
type goRegex struct{ re *regexp.Regexp }

func (g goRegex) find(dst [][2]int, text []byte) [][2]int {
	for _, m := range g.re.FindAllIndex(text, -1) {
		dst = append(dst, [2]int{m[0], m[1]})
	}
	return dst
}

// A tiling pattern matches at every position (some branch always takes at
// least one rune), so its matches cover the text and next, from a match's
// start to its end, is all of it: a hand-written scan instead of a regex
// engine, for the split regexes real tokenizers use (o200k.go has GPT-4o's).
type tiling func(text []byte, i int) int

func (t tiling) find(dst [][2]int, text []byte) [][2]int {
	for i := 0; i < len(text); {
		e := t(text, i)
		dst = append(dst, [2]int{i, e})
		i = e
	}
	return dst
}

// The split regexes recognized by their exact text.
const (
	gpt2Regex  = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
	llama3Rgx  = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	qwen2Regex = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// compileRegex maps a recognized regex to its scan, else translates it to
// Go's syntax when the translation is exact, else to regexp2's (for
// lookaround, atomic groups, \Z, \b), else says why not, naming the
// construct.
func compileRegex(pat string) (matcher, error) {
	switch pat {
	case gpt2Regex:
		return tiling(nextGPT2), nil
	case llama3Rgx:
		return tiling(func(t []byte, i int) int { return nextWordish(t, i, 3) }), nil
	case qwen2Regex:
		return tiling(func(t []byte, i int) int { return nextWordish(t, i, 1) }), nil
	case o200kRegex:
		return tiling(nextO200k), nil
	}
	if goPat, err := translateRegex(pat, goEngine); err == nil {
		re, err := regexp.Compile(goPat)
		if err != nil {
			return nil, fmt.Errorf("has no exact Go translation (%v)", err)
		}
		return goRegex{re}, nil
	}
	btPat, err := translateRegex(pat, backtracking)
	if err != nil {
		return nil, err
	}
	re, err := regexp2.Compile(btPat, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("has no exact translation (%v)", err)
	}
	re.MatchTimeout = regexTimeout
	return btRegex{re, pat}, nil
}

// regexTimeout bounds one match of a regex run by regexp2, in wall time,
// whatever the pattern (translateRegex refuses the shapes known to
// backtrack exponentially; this catches the rest). A worker's CPU deadline
// usually ends such a file first; this also bounds a count made in the
// parent (verify, --in-process).
var regexTimeout = 60 * time.Second

// btRegex is a regex run by regexp2, a backtracking engine like Oniguruma:
// leftmost-first, empty matches abutting a match skipped (as the onig
// crate's find_iter does); regexp2 matches runes and FindAllStringIndex
// gives byte offsets. A match that runs past regexTimeout or regexp2's
// bound on its backtracking stack ends the count with a panic naming the
// regex, never a wrong count: in a worker, that costs the file as a crash
// does (docs/design.md).
type btRegex struct {
	re  *regexp2.Regexp
	src string
}

func (r btRegex) find(dst [][2]int, text []byte) [][2]int {
	ms, err := r.re.FindAllStringIndex(string(text), -1)
	if err != nil {
		// regexp2's error quotes the text: cut it short.
		panic(fmt.Sprintf("hftok: the Split regex %q on %d bytes of text: %.200s", r.src, len(text), err.Error()))
	}
	for _, m := range ms {
		dst = append(dst, [2]int{m[0], m[1]})
	}
	return dst
}

// contraction returns the end of 's 't 're 've 'm 'll 'd at i, or -1; with
// fold, case-insensitively as Oniguruma folds them (S, and U+017F LONG S
// for s).
func contraction(text []byte, i int, fold bool) int {
	if i+1 >= len(text) || text[i] != '\'' {
		return -1
	}
	lower := func(b byte) byte {
		if fold && b >= 'A' && b <= 'Z' {
			return b + 'a' - 'A'
		}
		return b
	}
	switch lower(text[i+1]) {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(text) && lower(text[i+2]) == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(text) && lower(text[i+2]) == 'l' {
			return i + 3
		}
	case 0xC5:
		if fold && i+2 < len(text) && text[i+2] == 0xBF {
			return i + 3
		}
	}
	return -1
}

// spaceRun matches `\s+(?!\S)|\s+` at i (text[i] is \s), and with newlines
// first `\s*[\r\n]+`: the latter backtracks to just after the run's last
// newline; `\s+(?!\S)` takes the whole run at the end of text, else gives
// back the run's last rune for the next piece (needing two); `\s+` takes
// the one rune left.
func spaceRun(text []byte, i int, newlines bool) int {
	afterNewline, last, j := -1, i, i
	for j < len(text) {
		c, n := classAt(text, j)
		if c&cSpace == 0 {
			break
		}
		if c&cNewline != 0 {
			afterNewline = j + n
		}
		last = j
		j += n
	}
	switch {
	case newlines && afterNewline >= 0:
		return afterNewline
	case j == len(text) || last == i:
		return j
	}
	return last
}

// nextGPT2 is the end of the GPT-2 regex's piece at i.
func nextGPT2(text []byte, i int) int {
	if e := contraction(text, i, false); e >= 0 {
		return e
	}
	j := i
	if text[j] == ' ' && j+1 < len(text) {
		j++
	}
	c, n := classAt(text, j)
	switch {
	case c&cLetter != 0:
		return scanClass(text, j+n, cLetter)
	case c&cNumber != 0:
		return scanClass(text, j+n, cNumber)
	case c&cWordish == 0:
		return scanOther(text, j)
	}
	return spaceRun(text, i, false)
}

// nextWordish is the end of the Llama-3 (digits 3) or Qwen2 (digits 1)
// regex's piece at i.
func nextWordish(text []byte, i int, digits int) int {
	if e := contraction(text, i, true); e >= 0 {
		return e
	}
	c, n := classAt(text, i)
	switch {
	case c&cLetter != 0:
		return scanClass(text, i+n, cLetter)
	case c&(cNumber|cNewline) == 0 && classAfter(text, i+n)&cLetter != 0:
		return scanClass(text, i+n, cLetter)
	case c&cNumber != 0:
		j := i
		for k := 0; k < digits && j < len(text); k++ {
			c, n := classAt(text, j)
			if c&cNumber == 0 {
				break
			}
			j += n
		}
		return j
	}
	j := i
	if text[j] == ' ' {
		j++
	}
	if j < len(text) && classAfter(text, j)&cWordish == 0 {
		return scanClass(text, scanOther(text, j), cNewline)
	}
	return spaceRun(text, i, true)
}
