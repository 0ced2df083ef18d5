package eval

import (
	"bytes"
	"sort"
	"unicode"
)

// Lines are 1-based and a line ends after its "\n" (docs/design.md,
// "A record"): the numbering of records' start_line and end_line.

// lineSpan is lines [First, Last] of one file.
type lineSpan struct {
	Path        string
	First, Last int
}

// goldFile is the gold of one file: sorted, distinct line numbers.
type goldFile struct {
	Path  string
	Lines []int
}

// lineRecall is the share of the gold lines inside the spans, and whether
// some span lies in a gold file (FileHit).
func lineRecall(gold []goldFile, spans []lineSpan) (recall, fileHit float64) {
	total, in := 0, 0
	hit := false
	for _, g := range gold {
		var mine []lineSpan
		for _, s := range spans {
			if s.Path == g.Path && s.First <= s.Last {
				mine = append(mine, s)
			}
		}
		if len(mine) > 0 {
			hit = true
		}
		for _, l := range g.Lines {
			total++
			for _, s := range mine {
				if s.First <= l && l <= s.Last {
					in++
					break
				}
			}
		}
	}
	if total > 0 {
		recall = float64(in) / float64(total)
	}
	if hit {
		fileHit = 1
	}
	return recall, fileHit
}

// minLine is the fewest non-whitespace characters of a non-trivial line.
const minLine = 8

// nonTrivial returns the lines of text that carry code, white space
// trimmed at both ends: at least minLine non-whitespace characters, one of
// them a letter. Lines like "}", "});", "} else {" or "end" are trivial:
// every context holds them.
func nonTrivial(text []byte) []string {
	var out []string
	eachLine(text, func(line []byte) {
		t := bytes.TrimFunc(line, unicode.IsSpace)
		n, letter := 0, false
		for _, r := range string(t) {
			if !unicode.IsSpace(r) {
				n++
			}
			letter = letter || unicode.IsLetter(r)
		}
		if n >= minLine && letter {
			out = append(out, string(t))
		}
	})
	return out
}

// trimmedLines returns the set of text's lines, white space trimmed.
func trimmedLines(text []byte) map[string]bool {
	set := map[string]bool{}
	eachLine(text, func(line []byte) { set[string(bytes.TrimFunc(line, unicode.IsSpace))] = true })
	return set
}

// eachLine calls fn with each line of text, its "\n" left out.
func eachLine(text []byte, fn func([]byte)) {
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			fn(text)
			return
		}
		fn(text[:i])
		text = text[i+1:]
	}
}

// ansLine is the share of the gold's non-trivial lines that the context
// holds verbatim as lines (white space at both ends aside); repeats count
// each time.
func ansLine(goldLines []string, context []byte) float64 {
	if len(goldLines) == 0 {
		return 0
	}
	have := trimmedLines(context)
	in := 0
	for _, l := range goldLines {
		if have[l] {
			in++
		}
	}
	return float64(in) / float64(len(goldLines))
}

// idRecall is the share of the gold's distinct identifiers that the
// context holds as identifiers.
func idRecall(goldIDs []string, context []byte) float64 {
	if len(goldIDs) == 0 {
		return 0
	}
	have := map[string]bool{}
	eachIdentifier(context, func(id []byte) { have[string(id)] = true })
	in := 0
	for _, id := range goldIDs {
		if have[id] {
			in++
		}
	}
	return float64(in) / float64(len(goldIDs))
}

// lineStarts returns the byte offset of each line's start: lineStarts[k]
// is where line k+1 starts.
func lineStarts(dst []int, src []byte) []int {
	dst = append(dst[:0], 0)
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			dst = append(dst, i+1)
		}
	}
	return dst
}

// lineAt is the 1-based line of byte offset off, given lineStarts.
func lineAt(starts []int, off int) int {
	return sort.Search(len(starts), func(i int) bool { return starts[i] > off })
}

// countNonBlank counts the lines of text that hold a non-whitespace
// character.
func countNonBlank(text []byte) int {
	n := 0
	eachLine(text, func(line []byte) {
		if len(bytes.TrimFunc(line, unicode.IsSpace)) > 0 {
			n++
		}
	})
	return n
}
