package verify

import (
	"bytes"
	"fmt"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/inject"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/parse"
	"github.com/castchunk/castchunk/internal/record"
)

// checkBodies checks that no piece of a record of a method of pieces
// (declaration) holds a character of a function's body: the bodies of the
// file's functions as chunk finds them (outline), found once per file by
// parsing it again, as checkLanguages finds its regions. A file that
// cannot be parsed again leaves nothing to compare with.
func (v *Verifier) checkBodies(f *file, r *record.Record, pieces []chunk.Piece) {
	if f.method == nil || !f.method.Pieces || pieces == nil {
		return
	}
	if !f.bodiesDone {
		f.bodiesDone = true
		f.bodies = fileBodies(f, r)
	}
	var sz chunk.Sizer
	for _, p := range pieces {
		for _, b := range f.bodies {
			lo, hi := max(b.Start, p.Start), min(b.End, p.End)
			if lo >= hi {
				continue
			}
			if sz.Src() == nil {
				sz.Reset(f.data)
			}
			if sz.Size(lo, hi) > 0 {
				v.problem(r, fmt.Sprintf("range [%d,%d) holds part of the body [%d,%d) of a function (line %d): a declaration leaves bodies out", p.Start, p.End, b.Start, b.End, 1+bytes.Count(f.data[:b.Start], []byte{'\n'})))
				return
			}
		}
	}
}

// fileBodies returns the bodies of the functions of the current file: of
// its code cells for a notebook, else of its own tree and its embedded
// regions'; nil when it cannot be parsed.
func fileBodies(f *file, r *record.Record) []chunk.Piece {
	p := parse.New(0)
	defer p.Close()
	finder := outline.NewFinder()
	defer finder.Close()
	if f.notebook != nil {
		kernel := lang.ForInfoString(f.notebook.Kernel)
		if kernel == nil {
			return nil
		}
		var out []chunk.Piece
		for _, c := range f.notebook.Cells {
			if c.Kind == "code" {
				for _, b := range bodiesOf(p, finder, kernel, f.data[c.Start:c.End]) {
					out = append(out, chunk.Piece{Start: c.Start + b.Start, End: c.Start + b.End})
				}
			}
		}
		return out
	}
	host := r.HostLanguage
	if host == "" {
		host = r.Language
	}
	l := lang.ByName(host)
	if l == nil {
		return nil
	}
	return bodiesOf(p, finder, l, f.data)
}

// bodiesOf parses src as language l, finds its embedded regions and the
// definitions of both, and returns their functions' bodies.
func bodiesOf(p *parse.Parser, finder *outline.Finder, l *lang.Language, src []byte) []chunk.Piece {
	tree, err := p.Parse(src, l)
	if err != nil {
		return nil
	}
	defer tree.Close()
	trees := []outline.Tree{{Lang: l, Tree: tree, End: len(src)}}
	if inject.Has(l) {
		in := inject.NewFinder()
		defer in.Close()
		regions, err := in.Regions(p, l, src, tree)
		if err != nil {
			return nil
		}
		defer inject.Close(regions)
		for _, g := range regions {
			trees = append(trees, outline.Tree{Lang: g.Lang, Tree: g.Tree, Start: g.Start, End: g.End})
		}
	}
	defs, _, err := finder.ForChunker(src, trees)
	if err != nil {
		return nil
	}
	var out []chunk.Piece
	for _, d := range defs {
		if d.Role == chunk.RoleFunction && d.Body.End > d.Body.Start {
			out = append(out, d.Body)
		}
	}
	return out
}
