package eval

import (
	"bytes"

	"github.com/castchunk/castchunk/internal/chunk"
)

// Assemble builds a context of at most budget non-whitespace characters
// (the size metric of --max-size) from texts in rank order: each text that
// fits in what is left is taken whole; the first that does not is cut to
// its leading whole lines that fit (a line ends after its "\n", or at the
// end of the text), and the context ends there. next returns the next
// text, or false when there is none. Assemble returns, for each text it
// took, how many of its bytes the context holds (0 when not even its first
// line fit; that text ends the context too).
func Assemble(budget int, next func() ([]byte, bool)) []int {
	var kept []int
	used := 0
	for {
		text, ok := next()
		if !ok {
			return kept
		}
		if n := chunk.Size(text); used+n <= budget {
			used += n
			kept = append(kept, len(text))
			continue
		}
		keep := 0
		for keep < len(text) {
			end := len(text)
			if i := bytes.IndexByte(text[keep:], '\n'); i >= 0 {
				end = keep + i + 1
			}
			n := chunk.Size(text[keep:end])
			if used+n > budget {
				break
			}
			used += n
			keep = end
		}
		return append(kept, keep)
	}
}
