package conformance

import (
	"bytes"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/sliding"
)

// TestCheckersCatchMutations keeps the checks honest: it breaks good spans
// on purpose, one guarantee at a time, and requires the checks to report a
// violation they did not report for the spans as the chunker made them.
func TestCheckersCatchMutations(t *testing.T) {
	files := loadCorpus(t)
	byName := map[string]*corpusFile{}
	for _, f := range files {
		byName[f.rel] = f
	}
	java := byName["java/org/acme/inventory/LruCache.java"]
	empty := byName["edge/empty.py"]
	if java == nil || empty == nil {
		t.Fatal("corpus files for the mutation test are missing")
	}
	const budget = 300

	castM := castMethod(budget)
	castSpans := castM.chunk(java)
	if len(castSpans) < 5 {
		t.Fatalf("want several chunks to mutate, got %d", len(castSpans))
	}
	mid := len(castSpans) / 2

	// Find what the cast mutations need: a boundary at a line start that
	// indentation follows, a node inside a chunk, a comment run in one
	// chunk, a crumb to split off the end of the last chunk.
	indented := -1
	for i := 1; i < len(castSpans); i++ {
		s := castSpans[i].Start
		if java.src[s-1] == '\n' && (java.src[s] == ' ' || java.src[s] == '\t') {
			indented = i
			break
		}
	}
	inner := -1
	for i, n := range java.nodes {
		k := chunkAt(castSpans, n.start)
		if n.named && n.start > castSpans[k].Start && n.end <= castSpans[k].End && java.size(n.start, n.end) >= 2 {
			inner = i
			break
		}
	}
	var run *commentRun
	for _, r := range commentRuns(java) {
		c1, n := java.nodes[r.first], java.nodes[r.node]
		a, _ := lineOf(java.src, n.start)
		if k := chunkAt(castSpans, c1.start); k == chunkAt(castSpans, n.end-1) && a > castSpans[k].Start {
			run = &r
			break
		}
	}
	last := castSpans[len(castSpans)-1]
	trimmed := bytes.TrimRight(java.src[last.Start:last.End], " \t\r\n")
	crumbAt := last.Start + bytes.LastIndexByte(trimmed, '\n') + 1
	if indented < 0 || inner < 0 || run == nil || java.size(crumbAt, last.End) > fewChars(budget) {
		t.Fatalf("LruCache.java no longer has what the mutations need (%d %d %v %d)", indented, inner, run != nil, java.size(crumbAt, last.End))
	}

	slidM := slidingMethod("sliding", sliding.Options{Budget: budget})
	overM := slidingMethod("sliding-overlap3", sliding.Options{Budget: budget, OverlapLines: 3})
	fixedM := slidingMethod("fixed-20-10", sliding.Options{Budget: budget, WindowLines: 20, Stride: 10})

	cases := []struct {
		name   string
		want   string // in the violation the mutation must cause
		f      *corpusFile
		m      method
		mutate func(s []chunk.Span) []chunk.Span
	}{
		{"recorded size off by one", "recorded size", java, castM, func(s []chunk.Span) []chunk.Span {
			s[mid].Size++
			return s
		}},
		{"two chunks merged over the budget", "over the budget", java, castM, func(s []chunk.Span) []chunk.Span {
			for i := 0; i+1 < len(s); i++ {
				if s[i].Size+s[i+1].Size > budget {
					s[i].End, s[i].Size = s[i+1].End, s[i].Size+s[i+1].Size
					return append(s[:i+1], s[i+2:]...)
				}
			}
			t.Fatal("no pair of chunks over the budget together")
			return s
		}},
		{"chunk dropped", "the previous ended", java, castM, func(s []chunk.Span) []chunk.Span {
			return append(s[:mid], s[mid+1:]...)
		}},
		{"chunk overlapping the next", "the previous ended", java, castM, func(s []chunk.Span) []chunk.Span {
			s[mid].End++
			return resize(java, s)
		}},
		{"last byte left out", "the file has", java, castM, func(s []chunk.Span) []chunk.Span {
			s[len(s)-1].End--
			return resize(java, s)
		}},
		{"boundary one byte later", "want", java, castM, func(s []chunk.Span) []chunk.Span {
			s[mid].End++
			s[mid+1].Start++
			return resize(java, s)
		}},
		{"boundary after the indentation", "line's beginning", java, castM, func(s []chunk.Span) []chunk.Span {
			p := s[indented].Start
			for java.src[p] == ' ' || java.src[p] == '\t' {
				p++
			}
			s[indented-1].End, s[indented].Start = p, p
			return resize(java, s)
		}},
		{"node that fits split", "is split at byte", java, castM, func(s []chunk.Span) []chunk.Span {
			return splitAt(java, s, java.nodes[inner].start+1)
		}},
		{"comment parted from its node", "fit the budget together", java, castM, func(s []chunk.Span) []chunk.Span {
			a, _ := lineOf(java.src, java.nodes[run.node].start)
			return splitAt(java, s, a)
		}},
		{"crumb left alone", "could merge", java, castM, func(s []chunk.Span) []chunk.Span {
			return splitAt(java, s, crumbAt)
		}},
		{"chunk for an empty file", "empty file", empty, castM, func(s []chunk.Span) []chunk.Span {
			return append(s, chunk.Span{})
		}},
		{"sliding cut inside a line", "inside line", java, slidM, func(s []chunk.Span) []chunk.Span {
			s[mid].End -= 2
			s[mid+1].Start -= 2
			return resize(java, s)
		}},
		{"sliding window stopped a line early", "which fits", java, slidM, func(s []chunk.Span) []chunk.Span {
			a, _ := lineOf(java.src, s[mid].End-1)
			s[mid].End, s[mid+1].Start = a, a
			return resize(java, s)
		}},
		{"overlapping windows out of order", "not after window", java, overM, func(s []chunk.Span) []chunk.Span {
			s[mid], s[mid+1] = s[mid+1], s[mid]
			return s
		}},
		{"overlapping windows leave a gap", "in no chunk", java, overM, func(s []chunk.Span) []chunk.Span {
			s[mid].End = s[mid+1].Start - 1
			return resize(java, s)
		}},
		{"fixed window dropped", "no span", java, fixedM, func(s []chunk.Span) []chunk.Span {
			return append(s[:mid], s[mid+1:]...)
		}},
		{"fixed window a line short", "no span", java, fixedM, func(s []chunk.Span) []chunk.Span {
			a, _ := lineOf(java.src, s[mid].End-1)
			s[mid].End = a
			return resize(java, s)
		}},
	}
	for _, c := range cases {
		good := c.m.chunk(c.f)
		before := map[string]bool{}
		for _, e := range checkSpans(c.f, c.m, good) {
			before[e] = true
		}
		mutated := c.mutate(append([]chunk.Span(nil), good...))
		caught := false
		for _, e := range checkSpans(c.f, c.m, mutated) {
			if !before[e] && strings.Contains(e, c.want) {
				caught = true
				t.Logf("%s: caught: %s", c.name, e)
				break
			}
		}
		if !caught {
			t.Errorf("%s: the checks report no new violation with %q", c.name, c.want)
		}
	}

	// Windows that share 3 lines break an overlap of 1.
	if errs := checkOverlapping(java, 1, overM.chunk(java)); len(errs) == 0 || !strings.Contains(errs[0], "share") {
		t.Errorf("overlap of more lines than asked: not caught (%q)", errs)
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
