package eval

import (
	"unicode"
	"unicode/utf8"
)

// The tokenizer of the BM25 index and of every query (README, "How well it
// retrieves"): an identifier run is a maximal run of letters, digits and
// underscores (Unicode letters and digits included); each run is split into
// sub-words at underscores and at case changes, and each sub-word is
// lowercased. A case change is an upper-case letter after a lower-case
// letter or a digit (parseJSON2Value: parse, json2, value), or an upper-case
// letter followed by a lower-case one after another upper-case letter
// (HTTPServer: http, server). Digits stay with the letters before them
// (utf8Decode: utf8, decode; sha256: sha256). Everything else (punctuation,
// white space, operators) separates tokens and is not a token.

// scanTerms calls emit with every term of text, in order. The slice emit
// gets is only valid during the call.
func scanTerms(text []byte, scratch []byte, emit func(term []byte)) []byte {
	var runes []rune
	for i := 0; i < len(text); {
		r, w := decode(text[i:])
		if !isIdent(r) {
			i += w
			continue
		}
		runes = runes[:0]
		for i < len(text) {
			r, w = decode(text[i:])
			if !isIdent(r) {
				break
			}
			runes = append(runes, r)
			i += w
		}
		scratch = splitRun(runes, scratch, emit)
	}
	return scratch
}

// splitRun emits the lowercased sub-words of one identifier run.
func splitRun(run []rune, scratch []byte, emit func([]byte)) []byte {
	start := 0
	flush := func(end int) {
		if end > start {
			scratch = scratch[:0]
			for _, r := range run[start:end] {
				scratch = utf8.AppendRune(scratch, unicode.ToLower(r))
			}
			emit(scratch)
		}
	}
	for i, r := range run {
		if r == '_' {
			flush(i)
			start = i + 1
			continue
		}
		if i > start && unicode.IsUpper(r) {
			prev := run[i-1]
			next := rune(0)
			if i+1 < len(run) {
				next = run[i+1]
			}
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && unicode.IsLower(next) {
				flush(i)
				start = i
			}
		}
	}
	flush(len(run))
	return scratch
}

// Terms returns the terms of text, in order.
func Terms(text string) []string {
	var out []string
	scanTerms([]byte(text), nil, func(t []byte) { out = append(out, string(t)) })
	return out
}

// isIdent reports whether r belongs to an identifier run.
func isIdent(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// decode reads one rune; a byte that is not valid UTF-8 is one non-identifier
// rune.
func decode(b []byte) (rune, int) {
	if b[0] < utf8.RuneSelf {
		return rune(b[0]), 1
	}
	return utf8.DecodeRune(b)
}

// identifiers returns the distinct identifiers of text, as written: the
// identifier runs that do not start with a digit and hold at least two
// characters (IdRecall's unit). The set is returned in order of first
// appearance.
func identifiers(text []byte) []string {
	seen := map[string]bool{}
	var out []string
	eachIdentifier(text, func(id []byte) {
		if !seen[string(id)] {
			seen[string(id)] = true
			out = append(out, string(id))
		}
	})
	return out
}

// eachIdentifier calls fn with every identifier of text (see identifiers),
// repeats included.
func eachIdentifier(text []byte, fn func([]byte)) {
	for i := 0; i < len(text); {
		r, w := decode(text[i:])
		if !isIdent(r) {
			i += w
			continue
		}
		start, n := i, 0
		first := r
		for i < len(text) {
			r, w = decode(text[i:])
			if !isIdent(r) {
				break
			}
			i += w
			n++
		}
		if n >= 2 && !unicode.IsDigit(first) {
			fn(text[start:i])
		}
	}
}
