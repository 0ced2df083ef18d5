package conformance

import (
	"errors"
	"slices"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/method"
)

// lineMethod is a method that no registry lists: it cuts every file at line
// breaks, each chunk the next --lines whole lines (1 by default) or as many
// of them as fit the budget, and a line alone over the budget at code
// points, into pieces that fit. It is written here from scratch, with
// nothing of the chunkers.
var lineMethod = chunk.Method{
	Name:    "test-lines",
	Summary: "whole lines up to the budget, a few at a time (a test's fake)",
	Options: []chunk.Option{{Name: "lines", Default: 1, Help: "lines per chunk at most"}},
	Check: func(budget int, v chunk.Values) error {
		if v["lines"] < 1 {
			return errors.New("--lines must be at least 1")
		}
		return nil
	},
	New: func(budget int, v chunk.Values) chunk.Chunker { return &lineChunker{lines: v["lines"]} },
}

// lineChunker is lineMethod's chunker.
type lineChunker struct {
	lines int
	out   []chunk.Span
	drop  bool // leave the file's last byte out (brokenMethod)
}

func (c *lineChunker) Chunk(in chunk.Input) []chunk.Span {
	src := in.Src
	if c.drop && len(src) > 0 {
		src = src[:len(src)-1]
	}
	c.out = c.out[:0]
	for start := 0; start < len(src); {
		end, size := start, 0
		for n := 0; n < c.lines && end < len(src); n++ { // whole lines
			e := end
			for e < len(src) && src[e] != '\n' {
				e++
			}
			if e < len(src) {
				e++
			}
			if size+nonSpace(src[end:e]) > in.Budget.Size {
				break
			}
			end, size = e, size+nonSpace(src[end:e])
		}
		if end == start { // the line alone is over the budget: the code points that fit, one at least
			for end < len(src) {
				r, w := utf8.DecodeRune(src[end:])
				if !unicode.IsSpace(r) {
					if size >= in.Budget.Size && end > start {
						break
					}
					size++
				}
				end += w
			}
		}
		c.out = append(c.out, chunk.Span{Start: start, End: end, Size: size})
		start = end
	}
	return c.out
}

func (*lineChunker) Close() {}

// brokenMethod is lineMethod with a bug: it leaves the last byte of every
// file out.
var brokenMethod = chunk.Method{
	Name: "test-broken-lines",
	New:  func(budget int, v chunk.Values) chunk.Chunker { return &lineChunker{lines: 1, drop: true} },
}

// TestANewMethodIsChecked shows that the checks cover a method no test
// names: the corpus checks (properties, embed budgets, mutations) run on the
// registry plus lineMethod, which no list holds, without editing them, and
// with the variants of its declared option; a broken fake fails them. The
// golden files are kept for the registered methods only, and the
// language-blindness test reads the methods' package sources, which a fake
// in a test file has not.
func TestANewMethodIsChecked(t *testing.T) {
	ms := append(methods(), &lineMethod)
	if method.ByName(lineMethod.Name) != nil {
		t.Fatalf("the registry has a method named %s", lineMethod.Name)
	}
	var names []string
	for _, s := range setups(t, ms, 300) {
		if s.Method == &lineMethod {
			names = append(names, configName(s))
		}
	}
	if want := []string{"test-lines", "test-lines-lines=3"}; !slices.Equal(names, want) {
		t.Errorf("the fake is checked as %q, want %q", names, want)
	}
	t.Run("Properties", func(t *testing.T) { checkProperties(t, ms) })
	t.Run("EmbedBudgets", func(t *testing.T) { checkEmbedBudgets(t, ms) })
	t.Run("Mutations", func(t *testing.T) { checkMutations(t, ms) })
	t.Run("Broken", func(t *testing.T) {
		c := newConfig(t, chunk.Setup{Method: &brokenMethod, Budget: 300})
		for _, f := range loadCorpus(t) {
			if errs := checkSpans(f, c, c.chunk(f)); (len(errs) > 0) != (len(f.src) > 0) {
				t.Errorf("%s: %d bytes, the checks say %q", f.rel, len(f.src), errs)
			}
		}
	})
	if method.ByName(lineMethod.Name) != nil || slices.Contains(methods(), &lineMethod) {
		t.Error("the checks registered the fake")
	}
}
