package conformance

import (
	"bytes"
	"fmt"
	"github.com/castchunk/castchunk/internal/inject"

	"github.com/castchunk/castchunk/internal/chunk"
)

// topFunctions re-derives the functions the method chunks: definitions of
// the function role (outline's kinds function, method and constructor) that
// no other such definition holds, in order.
func topFunctions(defs []chunk.Def) []chunk.Def {
	var top []chunk.Def
	end := -1
	for _, d := range defs {
		if d.Role == chunk.RoleFunction && d.Start >= end && d.End > d.Start {
			top = append(top, d)
			end = d.End
		}
	}
	return top
}

// functionRules: every chunk lies in one function: after the previous
// function's end and no further than its own (the first chunks may hold
// only what travels with it: its comments, decorators); every function is
// covered from its first chunk's start to its end with no gap, no blank
// line between that start and its node; and a function that fits the
// budget together with what travels with it is one chunk.
func functionRules(f *corpusFile, c config, spans []chunk.Span) []string {
	var errs []string
	tree, regions := parseWithRegions(f)
	defs, _ := fileDefs(f, tree, regions)
	inject.Close(regions)
	tree.Close()
	tops := topFunctions(defs)
	k := 0 // the function of the chunk under way
	var mine [][]chunk.Span
	for range tops {
		mine = append(mine, nil)
	}
	for i, s := range spans {
		for k < len(tops) && tops[k].End <= s.Start {
			k++
		}
		prevEnd := 0
		if k > 0 {
			prevEnd = tops[k-1].End
		}
		if k == len(tops) || s.End > tops[k].End || s.Start < prevEnd {
			errs = append(errs, fmt.Sprintf("chunk %d [%d,%d) holds bytes outside every function", i, s.Start, s.End))
			continue
		}
		mine[k] = append(mine[k], s)
	}
	for k, d := range tops {
		line := 1 + bytes.Count(f.src[:d.Start], []byte("\n"))
		got := mine[k]
		if len(got) == 0 {
			errs = append(errs, fmt.Sprintf("function at line %d is in no chunk", line))
			continue
		}
		if lead := got[0].Start; lead < d.Start && bytes.Contains(f.src[lead:d.Start], []byte("\n\n")) {
			errs = append(errs, fmt.Sprintf("function at line %d: a blank line between its first chunk's start and its node", line))
		}
		for j := 1; j < len(got); j++ {
			if got[j].Start != got[j-1].End {
				errs = append(errs, fmt.Sprintf("bytes [%d,%d) of function at line %d are in no chunk", got[j-1].End, got[j].Start, line))
			}
		}
		if last := got[len(got)-1].End; last != d.End {
			errs = append(errs, fmt.Sprintf("bytes [%d,%d) of function at line %d are in no chunk", last, d.End, line))
		}
		if len(got) > 1 && f.size(got[0].Start, d.End) <= c.Budget {
			errs = append(errs, fmt.Sprintf("function at line %d fits the budget and is split in %d chunks", line, len(got)))
		}
	}
	return errs
}

// functionMutations break the function method's rules.
var functionMutations = []mutation{
	{name: "chunk runs past its function", partial: "outside every function", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		for i := range s {
			if next := len(f.src); i+1 < len(s) && s[i+1].Start > s[i].End || i+1 == len(s) && s[i].End < next {
				s[i].End++
				return resize(f, s)
			}
		}
		return nil
	}},
	{name: "function that fits split", partial: "fits the budget and is split", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		for i, x := range s {
			if nl := bytes.IndexByte(f.src[x.Start:x.End], '\n'); nl >= 0 && x.Start+nl+1 < x.End {
				return resize(f, append(s[:i:i], append([]chunk.Span{{Start: x.Start, End: x.Start + nl + 1}, {Start: x.Start + nl + 1, End: x.End}}, s[i+1:]...)...))
			}
		}
		return nil
	}},
	{name: "function dropped", partial: "in no chunk", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		mid := len(s) / 2
		return append(s[:mid], s[mid+1:]...)
	}},
}
