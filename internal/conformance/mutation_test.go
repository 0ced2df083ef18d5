package conformance

import (
	"bytes"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
)

// TestCheckersCatchMutations keeps the checks honest: it breaks good spans
// on purpose, one guarantee or rule at a time, and requires the checks to
// report a violation they did not report for the spans as the chunker made
// them. The guarantees' mutations break the spans of every configuration of
// every registered method (budget 300, LruCache.java); a method's rules
// come with mutations of their own, for its configurations.
func TestCheckersCatchMutations(t *testing.T) { checkMutations(t, methods()) }

// mutation is one way of breaking good spans.
type mutation struct {
	name string
	// what the violation says, for tiling, for overlapping chunks and for
	// chunks that cover part of the file (chunk.Method.Partial); "" when
	// the mutation is not for such chunks
	tiling, overlap, partial string
	applies                  func(c config) bool // nil: for every configuration
	empty                    bool                // break the empty file's spans, not LruCache.java's
	// mutate breaks s, a copy of c's spans of f; nil when s offers nothing
	// to break this way.
	mutate func(f *corpusFile, c config, s []chunk.Span) []chunk.Span
}

// mutationBudget is the budget of the mutated configurations: small enough
// for many chunks.
const mutationBudget = 300

// guaranteeMutations break the guarantees every method keeps.
var guaranteeMutations = []mutation{
	{name: "recorded size off by one", tiling: "recorded size", overlap: "recorded size", partial: "recorded size", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		s[len(s)/2].Size++
		return s
	}},
	{name: "chunks merged over the budget", tiling: "over the budget", overlap: "over the budget", partial: "over the budget", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		for j := 1; j < len(s); j++ { // the first chunks, as few as are over the budget together
			if s[j].End > s[0].End && f.size(s[0].Start, s[j].End) > c.Budget {
				s[0].End = s[j].End
				return resize(f, append(s[:1], s[j+1:]...))
			}
		}
		return nil
	}},
	{name: "chunk dropped", tiling: "the previous ended", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		mid := len(s) / 2
		return append(s[:mid], s[mid+1:]...)
	}},
	{name: "chunk overlapping the next", tiling: "the previous ended", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		s[len(s)/2].End++
		return resize(f, s)
	}},
	{name: "chunks out of order", tiling: "the previous ended", overlap: "not after window", partial: "the previous ended", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		mid := len(s) / 2
		s[mid], s[mid+1] = s[mid+1], s[mid]
		return s
	}},
	{name: "last byte left out", tiling: "the file has", overlap: "in no chunk", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		out := s[:0]
		for _, x := range s {
			if x.End == len(f.src) {
				x.End--
			}
			if x.End > x.Start {
				out = append(out, x)
			}
		}
		return resize(f, out)
	}},
	{name: "a byte in no chunk", overlap: "in no chunk", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		p := s[len(s)/2+1].Start // leave byte p out of every chunk
		out := s[:0]
		for _, x := range s {
			if x.Start < p && x.End > p {
				x.End = p
			} else if x.Start == p {
				x.Start++
			}
			if x.End > x.Start {
				out = append(out, x)
			}
		}
		return resize(f, out)
	}},
	{name: "chunk for an empty file", tiling: "empty file", overlap: "empty file", partial: "empty file", empty: true, mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		return append(s, chunk.Span{})
	}},
	// Overlapping chunks of a tree method are not mutated: there is none.
	{name: "node that fits split", tiling: "is split at byte", applies: func(c config) bool { return c.Method.NeedsTree }, mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		for _, n := range f.nodes {
			k := chunkAt(s, n.start)
			if n.named && n.start > s[k].Start && n.end <= s[k].End && f.size(n.start, n.end) >= 2 {
				return splitAt(f, s, n.start+1)
			}
		}
		return nil
	}},
}

// castMutations break cast's rules: where boundaries fall, comments with
// their node, no crumbs.
var castMutations = []mutation{
	{name: "boundary one byte later", tiling: "want", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		mid := len(s) / 2
		s[mid].End++
		s[mid+1].Start++
		return resize(f, s)
	}},
	{name: "boundary after the indentation", tiling: "line's beginning", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		for i := 1; i < len(s); i++ {
			p := s[i].Start
			if f.src[p-1] != '\n' || (f.src[p] != ' ' && f.src[p] != '\t') {
				continue
			}
			for f.src[p] == ' ' || f.src[p] == '\t' {
				p++
			}
			s[i-1].End, s[i].Start = p, p
			return resize(f, s)
		}
		return nil
	}},
	{name: "comment parted from its node", tiling: "fit the budget together", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		for _, r := range commentRuns(f) {
			c1, n := f.nodes[r.first], f.nodes[r.node]
			a, _ := lineOf(f.src, n.start)
			if k := chunkAt(s, c1.start); k == chunkAt(s, n.end-1) && a > s[k].Start && f.size(c1.start, n.end) <= c.Budget {
				return splitAt(f, s, a)
			}
		}
		return nil
	}},
	{name: "crumb left alone", tiling: "could merge", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		last := s[len(s)-1]
		trimmed := bytes.TrimRight(f.src[last.Start:last.End], " \t\r\n")
		crumbAt := last.Start + bytes.LastIndexByte(trimmed, '\n') + 1
		if crumbAt == last.Start || f.size(crumbAt, last.End) > fewChars(c.Budget) {
			return nil
		}
		return splitAt(f, s, crumbAt)
	}},
}

// slidingMutations break the sliding windows' rules: cuts between whole
// lines, budget windows that take every line that fits and share at most
// the overlap, fixed windows of N lines every S.
var slidingMutations = []mutation{
	{name: "cut inside a line", tiling: "inside line", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		for i := len(s) / 2; i+1 < len(s); i++ {
			if p := s[i].End - 2; p > s[i].Start && f.src[p-1] != '\n' && f.src[p] != '\n' {
				s[i].End, s[i+1].Start = p, p
				return resize(f, s)
			}
		}
		return nil
	}},
	{name: "budget window stopped a line early", tiling: "which fits",
		applies: func(c config) bool { return slidingOptions(c).WindowLines == 0 },
		mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
			for i := len(s) / 2; i+1 < len(s); i++ {
				if a, _ := lineOf(f.src, s[i].End-1); a > s[i].Start && f.size(a, s[i+1].End) <= c.Budget {
					s[i].End, s[i+1].Start = a, a
					return resize(f, s)
				}
			}
			return nil
		}},
	{name: "budget windows share more lines than the overlap", overlap: "share",
		applies: func(c config) bool { return slidingOptions(c).WindowLines == 0 },
		mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
			overlap := slidingOptions(c).OverlapLines
			for i := len(s) / 2; i < len(s); i++ {
				for start := s[i].Start; start > s[i-1].Start+1; { // a line earlier each time
					start, _ = lineOf(f.src, start-1)
					if start <= s[i-1].Start || f.size(start, s[i].End) > c.Budget {
						break
					}
					if bytes.Count(f.src[start:s[i-1].End], []byte("\n")) > overlap {
						s[i].Start = start
						return resize(f, s)
					}
				}
			}
			return nil
		}},
	{name: "fixed window dropped", overlap: "no span",
		applies: func(c config) bool { return slidingOptions(c).WindowLines > 0 },
		mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
			for i := len(s) / 2; i+1 < len(s); i++ {
				if s[i-1].End >= s[i+1].Start { // no gap without it
					return append(s[:i], s[i+1:]...)
				}
			}
			return nil
		}},
	{name: "fixed window a line short", overlap: "no span",
		applies: func(c config) bool { return slidingOptions(c).WindowLines > 0 },
		mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
			for i := len(s) / 2; i+1 < len(s); i++ {
				if a, _ := lineOf(f.src, s[i].End-1); a > s[i].Start && a >= s[i+1].Start {
					s[i].End = a
					return resize(f, s)
				}
			}
			return nil
		}},
}

// checkMutations is TestCheckersCatchMutations for the methods ms. Every
// mutation of the guarantees must be caught for every configuration it is
// for; every mutation of a method's rules, for each configuration it can
// break, and it must break at least one.
func checkMutations(t *testing.T, ms []*chunk.Method) {
	byName := map[string]*corpusFile{}
	for _, f := range loadCorpus(t) {
		byName[f.rel] = f
	}
	java := byName["java/org/acme/inventory/LruCache.java"]
	empty := byName["edge/empty.py"]
	if java == nil || empty == nil {
		t.Fatal("corpus files for the mutation test are missing")
	}
	broken := map[string]int{} // by rule mutation: the configurations it broke
	for _, c := range configs(t, ms, mutationBudget) {
		if n := len(c.chunk(java)); n < 5 {
			t.Errorf("%s: want several chunks to mutate, got %d", c.name, n)
			continue
		}
		ruleMutations := rules[c.Method].mutations
		for k, m := range append(append([]mutation(nil), guaranteeMutations...), ruleMutations...) {
			isRule := k >= len(guaranteeMutations)
			want := m.tiling
			if c.overlap {
				want = m.overlap
			}
			if c.Method.Partial {
				want = m.partial
			}
			if want == "" || (m.applies != nil && !m.applies(c)) {
				continue
			}
			f := java
			if m.empty {
				f = empty
			}
			good := c.chunk(f)
			before := map[string]bool{}
			for _, e := range checkSpans(f, c, good) {
				before[e] = true
			}
			mutated := m.mutate(f, c, append([]chunk.Span(nil), good...))
			if mutated == nil {
				if !isRule {
					t.Errorf("%s, %s: the spans offer nothing to mutate", c.name, m.name)
				}
				continue
			}
			if isRule {
				broken[c.Method.Name+": "+m.name]++
			}
			caught := false
			for _, e := range checkSpans(f, c, mutated) {
				if !before[e] && strings.Contains(e, want) {
					caught = true
					t.Logf("%s, %s: caught: %s", c.name, m.name, e)
					break
				}
			}
			if !caught {
				t.Errorf("%s, %s: the checks report no new violation with %q", c.name, m.name, want)
			}
		}
	}
	for _, m := range ms {
		for _, r := range rules[m].mutations {
			if broken[m.Name+": "+r.name] == 0 {
				t.Errorf("%s, %s: broke no configuration of the method", m.Name, r.name)
			}
		}
	}
}

// resize recomputes the sizes of spans after their bounds moved, so that a
// mutation breaks only what it means to.
func resize(f *corpusFile, spans []chunk.Span) []chunk.Span {
	for i, s := range spans {
		if s.Start >= 0 && s.Start <= s.End && s.End <= len(f.src) {
			spans[i].Size = f.size(s.Start, s.End)
		}
	}
	return spans
}

// splitAt cuts the chunk holding byte pos in two at pos.
func splitAt(f *corpusFile, spans []chunk.Span, pos int) []chunk.Span {
	k := chunkAt(spans, pos)
	out := append([]chunk.Span(nil), spans[:k+1]...)
	out[k].End = pos
	out = append(out, chunk.Span{Start: pos, End: spans[k].End})
	out = append(out, spans[k+1:]...)
	return resize(f, out)
}
