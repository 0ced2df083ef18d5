package conformance

import (
	"fmt"
	"slices"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/inject"
)

// topDeclarations re-derives what the declaration method chunks: the
// types and functions that no other type or function holds, in order,
// private ones included (their text must be in no chunk).
func topDeclarations(defs []chunk.Def) []chunk.Def {
	var top []chunk.Def
	end := -1
	for _, d := range defs {
		if d.Role != chunk.RoleOther && d.Start >= end && d.End > d.Start {
			top = append(top, d)
			end = d.End
		}
	}
	return top
}

// declarationRules: every piece lies in one public top-level declaration
// (after the previous one's end, no further than its own: it may start
// on what travels with it), holds no byte of a function's body nor of a
// private definition; every public declaration is in a chunk.
func declarationRules(f *corpusFile, c config, spans []chunk.Span) []string {
	tree, regions := parseWithRegions(f)
	defs, _ := fileDefs(f, tree, regions)
	inject.Close(regions)
	tree.Close()
	tops := topDeclarations(defs)
	var errs []string
	seen := make([]bool, len(tops))
	k := 0
	for i, s := range spans {
		for j, p := range s.Ranges() {
			for k < len(tops) && tops[k].End <= p.Start {
				k++
			}
			prev := 0
			if k > 0 {
				prev = tops[k-1].End
			}
			switch {
			case k == len(tops) || p.End > tops[k].End || p.Start < prev:
				errs = append(errs, fmt.Sprintf("chunk %d piece %d [%d,%d) lies outside every declaration", i, j, p.Start, p.End))
				continue
			case tops[k].Private:
				errs = append(errs, fmt.Sprintf("chunk %d piece %d [%d,%d) is of a private declaration", i, j, p.Start, p.End))
			}
			seen[k] = true
			errs = append(errs, pieceHolds(f, defs, i, j, p)...)
		}
	}
	for k, d := range tops {
		if !d.Private && !seen[k] {
			errs = append(errs, fmt.Sprintf("the declaration at line %d is in no chunk", f.line(d.Start)))
		}
	}
	return errs
}

// pieceHolds returns what piece j of chunk i must not hold: a character
// of a function's body (its node's range, which may end with whitespace
// and a comment the grammar put in it), or a byte of a private
// definition.
func pieceHolds(f *corpusFile, defs []chunk.Def, i, j int, p chunk.Piece) []string {
	var errs []string
	for _, d := range defs {
		if d.Start >= p.End {
			break
		}
		if b := d.Body; d.Role == chunk.RoleFunction && b.End > b.Start && f.size(max(b.Start, p.Start), min(b.End, p.End)) > 0 {
			errs = append(errs, fmt.Sprintf("chunk %d piece %d [%d,%d) holds the body [%d,%d) of a function", i, j, p.Start, p.End, b.Start, b.End))
		}
		if d.Private && d.Start < p.End && p.Start < d.End {
			errs = append(errs, fmt.Sprintf("chunk %d piece %d [%d,%d) holds the private definition [%d,%d)", i, j, p.Start, p.End, d.Start, d.End))
		}
	}
	return errs
}

// declarationMutations break the declaration method's rules.
var declarationMutations = []mutation{
	{name: "body kept", partial: "holds the body", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		tree, regions := parseWithRegions(f)
		defs, _ := fileDefs(f, tree, regions)
		inject.Close(regions)
		tree.Close()
		for _, d := range defs {
			b := d.Body
			if d.Role != chunk.RoleFunction || b.End <= b.Start || f.size(b.Start, b.End) > 20 {
				continue
			}
			for i, x := range s {
				if x.Start < b.Start && b.End <= x.End && x.Size+f.size(b.Start, b.End) <= c.Budget {
					s[i] = withPiece(f, x, chunk.Piece{Start: b.Start, End: b.End})
					return s
				}
			}
		}
		return nil
	}},
	{name: "declaration dropped", partial: "in no chunk", mutate: func(f *corpusFile, c config, s []chunk.Span) []chunk.Span {
		if len(s) < 2 {
			return nil
		}
		tree, regions := parseWithRegions(f)
		defs, _ := fileDefs(f, tree, regions)
		inject.Close(regions)
		tree.Close()
		tops := topDeclarations(defs)
		from := 0 // where what the last chunk's declaration holds starts
		for _, d := range tops {
			if d.End <= s[len(s)-1].Start {
				from = d.End
			}
		}
		for i, x := range s {
			if x.Start >= from {
				return s[:i]
			}
		}
		return nil
	}},
}

// withPiece returns s holding p too: its pieces and p, merged where they
// touch or overlap, sized again.
func withPiece(f *corpusFile, s chunk.Span, p chunk.Piece) chunk.Span {
	all := append(append([]chunk.Piece(nil), s.Ranges()...), p)
	slices.SortFunc(all, func(a, b chunk.Piece) int { return a.Start - b.Start })
	var out []chunk.Piece
	for _, q := range all {
		if n := len(out); n > 0 && q.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, q.End)
			continue
		}
		out = append(out, q)
	}
	s = chunk.Span{Start: out[0].Start, End: out[len(out)-1].End, Pieces: out}
	if len(out) == 1 {
		s.Pieces = nil
	}
	for _, q := range out {
		s.Size += f.size(q.Start, q.End)
	}
	return s
}
