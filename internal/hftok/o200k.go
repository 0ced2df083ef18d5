package hftok

// o200kRegex is the split regex of GPT-4o's and gpt-oss's tokenizer.json
// (tiktoken's o200k_base); nextO200k is its scan, a port of
// internal/tokens' (which follows tiktoken's Unicode 16.0 classes) to this
// package's (Go's tables, Oniguruma's).
const o200kRegex = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// nextO200k is the end of the o200k regex's piece at i: a word (two
// branches), one to three digits, punctuation with trailing line ends and
// slashes, or white space as Llama 3's regex takes it.
func nextO200k(text []byte, i int) int {
	c, n := classAt(text, i)
	if e := o200kWord(text, i, c, n); e >= 0 {
		return e
	}
	if c&cNumber != 0 {
		j := i
		for k := 0; k < 3 && j < len(text); k++ {
			d, m := classAt(text, j)
			if d&cNumber == 0 {
				break
			}
			j += m
		}
		return j
	}
	j := i
	if text[j] == ' ' {
		j++
	}
	if j < len(text) && classAfter(text, j)&cWordish == 0 {
		j = scanOther(text, j)
		for j < len(text) && (text[j] == '\r' || text[j] == '\n' || text[j] == '/') {
			j++
		}
		return j
	}
	return spaceRun(text, i, true)
}

// o200kWord tries the two word branches at i, whose first rune has class c
// and length n: `P?U*L+C?` with and then without the optional prefix P
// ([^\r\n\p{L}\p{N}]), then `P?U+L*C?` likewise. It returns the end, or
// -1.
func o200kWord(text []byte, i int, c uint8, n int) int {
	prefix := c&(cLetter|cNumber|cNewline) == 0
	if !prefix && c&(cUpper|cLower) == 0 {
		return -1 // a digit or a line end: neither branch starts here
	}
	if prefix {
		if e := o200kHeadTail(text, i+n); e >= 0 {
			return e
		}
	}
	if e := o200kHeadTail(text, i); e >= 0 {
		return e
	}
	if prefix {
		if e := o200kHeadThenTail(text, i+n); e >= 0 {
			return e
		}
	}
	return o200kHeadThenTail(text, i)
}

// o200kHeadTail matches `U*L+C?` at s: U* is greedy, so backtracking gives
// back head runes until a tail rune follows; the tail then starts at the
// latest such position: the end of the head run if a tail rune is there,
// else the last head rune that is also a tail rune (Lm, Lo, M are both).
// Returns -1 when there is none.
func o200kHeadTail(text []byte, s int) int {
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
	return o200kContraction(text, scanClass(text, j, cLower))
}

// o200kHeadThenTail matches `U+L*C?` at s, or returns -1.
func o200kHeadThenTail(text []byte, s int) int {
	j := scanClass(text, s, cUpper)
	if j == s {
		return -1
	}
	return o200kContraction(text, scanClass(text, j, cLower))
}

// o200kContraction extends a word ending at e by an optional
// (?i:'s|'t|'re|'ve|'m|'ll|'d).
func o200kContraction(text []byte, e int) int {
	if c := contraction(text, e, true); c >= 0 {
		return c
	}
	return e
}
