package verify

import (
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/inject"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/parse"
	"github.com/castchunk/castchunk/internal/record"
)

// checkBodies checks that no piece of a record of a method of pieces
// (declaration) holds a character of a function's body: the bodies of the
// file's functions as chunk finds them (outline.BodyRange, from the end of
// a function's header: a comment above its first statement is its body's),
// checked as the pipeline checks them (chunk.Bodies), found once per file
// by parsing it again, as checkLanguages finds its regions. A file that
// cannot be parsed again leaves nothing to compare with.
func (v *Verifier) checkBodies(f *file, r *record.Record, pieces []chunk.Piece) {
	if f.method == nil || !f.method.Pieces || pieces == nil {
		return
	}
	if !f.bodiesDone {
		f.bodiesDone = true
		f.bodies = fileBodies(f, r).Sorted()
	}
	if err := f.bodies.Check(f.data, pieces); err != nil {
		v.problem(r, err.Error())
	}
}

// fileBodies returns the bodies of the functions of the current file: of
// its code cells for a notebook, else of its own tree and its embedded
// regions'; nil when it cannot be parsed.
func fileBodies(f *file, r *record.Record) chunk.Bodies {
	p := parse.New(0)
	defer p.Close()
	finder := outline.NewFinder()
	defer finder.Close()
	if f.notebook != nil {
		kernel := lang.ForInfoString(f.notebook.Kernel)
		if kernel == nil {
			return nil
		}
		var out chunk.Bodies
		for _, c := range f.notebook.Cells {
			if c.Kind == "code" {
				out = out.AddBodies(defsOf(p, finder, kernel, f.data[c.Start:c.End]), c.Start)
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
	return chunk.Bodies(nil).AddBodies(defsOf(p, finder, l, f.data), 0)
}

// defsOf parses src as language l, finds its embedded regions and returns
// the definitions of both as the chunker reads them.
func defsOf(p *parse.Parser, finder *outline.Finder, l *lang.Language, src []byte) []chunk.Def {
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
	return defs
}
