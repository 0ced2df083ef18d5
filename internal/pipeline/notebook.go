package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/inject"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/notebook"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/parse"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/record"
)

// openNotebook reads the notebook whose bytes are src into r: its text
// becomes what the records cut (r.Src), its cells r.Cells. A notebook that
// cannot be read, or whose kernel language no grammar parses, leaves r
// with its fate and the reason. It returns the text.
func (w *worker) openNotebook(r *Result, src []byte) []byte {
	nb, err := notebook.Parse(src)
	if err != nil {
		r.Outcome, r.Message = plan.Failed, err.Error()
		return src
	}
	if lang.ForInfoString(nb.Kernel) == nil {
		r.Outcome, r.Message = plan.Unsupported, fmt.Sprintf("a notebook in %s, which no grammar castchunk has parses; skipped", nb.Kernel)
		return src
	}
	r.notebook, r.Src = nb, nb.Text
	for _, c := range nb.Cells {
		l := lang.ForInfoString(nb.Kernel).Name
		if c.Kind == "markdown" {
			l = "markdown"
		}
		r.Cells = append(r.Cells, record.NotebookCell{Start: c.Start, End: c.End, Index: c.Index, Language: l, Code: c.Kind == "code"})
	}
	return nb.Text
}

// chunkNotebook chunks a notebook as one document (docs/design.md,
// "Notebooks"): its cells each by its own language's tree (code cells in
// the kernel's, Markdown cells in Markdown), whole cells that fit merged
// with their neighbours, its definitions joined over the cells so that a
// heading scopes the cells under it. Should one cell's parse fail, every
// cell is chunked with the fallback: the records of a file name one
// method.
func (w *worker) chunkNotebook(r *Result) ([]chunk.Span, bool, error) {
	spans, parsed, err := w.chunkCells(r, false)
	if err == nil && r.Method != w.cfg.Setup.Method {
		msg := r.Message
		spans, _, err = w.chunkCells(r, true)
		r.Message, r.FellBack, r.Parsed = msg, true, true
	}
	return spans, parsed, err
}

// cellTree is one cell as parsed: its language, its tree and fences (none
// when it was not parsed) and their definitions, in the cell's offsets.
type cellTree struct {
	lang        *lang.Language
	tree        *sitter.Tree
	regions     []inject.Region
	own, fences []outline.Def
	defs        []chunk.Def                          // for a method that reads definitions (readsDefs)
	member      func(n *sitter.Node, owner int) bool // the rule for the members of defs' types
}

// chunkCells chunks the notebook, with the fallback method when fallback
// is set. Cells are parsed only when a tree is used: for the method or for
// definitions, never for the languages of a Markdown cell's fences, which
// its chunks do not take; a cell that is not parsed has no definitions.
// A cell whose parse gave up under a tree method leaves r.Method the
// fallback, for chunkNotebook to start again.
func (w *worker) chunkCells(r *Result, fallback bool) ([]chunk.Span, bool, error) {
	nb := r.notebook
	setup, chunker := w.cfg.Setup, w.chunker
	if fallback {
		setup, chunker = w.fallback, w.fallbackChunk()
	}
	r.Regions, r.Extras, r.Message, r.HasSyntaxErrors, r.FellBack = nil, nil, "", false, false
	r.Method = setup.Method
	parse := !fallback && (setup.Method.NeedsTree || w.enrich != nil && w.cfg.Enrich.NeedsDefs())
	release, err := w.bigFile(len(nb.Text))
	if err != nil {
		return nil, false, err
	}
	defer release()
	cells, parsed, err := w.parseCells(r, setup, parse)
	defer closeCells(cells, len(nb.Text), w)
	if err != nil || r.Method != setup.Method {
		return nil, false, err
	}
	for i, c := range nb.Cells {
		r.Regions = append(r.Regions, record.Region{Start: c.Start, End: c.End, From: c.Start, To: c.End, Language: cells[i].lang.Name})
	}
	budget := chunk.Budget{Size: setup.Budget}
	in := chunk.Input{Src: nb.Text, Budget: budget}
	if w.enrich != nil {
		r.Enriched = true
		budget.Tokens = w.cfg.Enrich.MaxTokens
		own, fences := make([][]outline.Def, len(cells)), make([][]outline.Def, len(cells))
		for i, c := range cells {
			own[i], fences[i] = c.own, c.fences
		}
		if in, err = w.enrich.BeginWith(r.Job.Path, nb.Text, nb.Join(own, fences), budget); err != nil {
			return nil, false, err
		}
	}
	spans := cellSpans(nb, cells, in, setup.Method, chunker)
	if w.enrich != nil {
		if spans, r.Extras, err = w.enrich.Finish(spans, budget, setup.Overlapping()); err != nil {
			return nil, false, err
		}
	}
	var bodies chunk.Bodies
	if setup.Method.Pieces {
		for i, c := range cells {
			bodies = bodies.AddBodies(c.defs, nb.Cells[i].Start)
		}
		bodies = bodies.Sorted()
	}
	if err := checkSpans(setup, spans, nb.Text, bodies); err != nil {
		return nil, false, fmt.Errorf("internal error, %s chunker broke a guarantee on a notebook: %v", setup.Method.Name, err)
	}
	return spans, parsed, nil
}

// parseCells parses each cell (when parse is set) with its language, its
// fences with theirs, and finds their definitions when enrich needs them.
// It reports whether every parse succeeded. A cell whose parse gives up
// under a tree method stops it, r.Method set to the fallback and
// r.Message saying why.
func (w *worker) parseCells(r *Result, setup chunk.Setup, parse bool) ([]cellTree, bool, error) {
	nb := r.notebook
	kernel, md := lang.ForInfoString(nb.Kernel), lang.ByName("markdown")
	cells := make([]cellTree, len(nb.Cells))
	parsed := true
	for i, c := range nb.Cells {
		ct := &cells[i]
		ct.lang = kernel
		if c.Kind == "markdown" {
			ct.lang = md
		}
		if !parse {
			continue
		}
		r.Parsed = true
		text := nb.Text[c.Start:c.End]
		tree, err := w.parser.Parse(text, ct.lang)
		if err != nil {
			parsed = false // without a tree, the cell has no definitions either
			if setup.Method.NeedsTree {
				r.Method, r.FellBack = w.fallback.Method, true
				r.Message = fmt.Sprintf("cell %d: %v; chunked with the %s method", c.Index, parseError(err, w.cfg.ParseTimeout), w.fallback.Method.Name)
				return cells, false, nil
			}
			continue
		}
		ct.tree = tree
		if setup.Method.NeedsTree {
			r.HasSyntaxErrors = r.HasSyntaxErrors || tree.RootNode().HasError()
		}
		if ct.regions, err = w.inject.Regions(w.parser, ct.lang, text, tree); err != nil {
			return cells, false, err
		}
		for _, g := range ct.regions {
			if g.Err != nil && r.Message == "" {
				// Said, and not cached: a timeout depends on the machine.
				parsed, r.FellBack = false, true
				r.Message = fmt.Sprintf("cell %d: embedded %s at line %d: %v; chunked as %s text", c.Index, g.Lang.Name, 1+bytes.Count(text[:g.Start], []byte{'\n'}), g.Err, ct.lang.Name)
			}
		}
		if w.enrich != nil {
			if ct.own, ct.fences, err = w.enrich.Defs(ct.lang, text, tree, ct.regions); err != nil {
				return cells, false, err
			}
		}
		if readsDefs(setup.Method) {
			if ct.defs, ct.member, err = w.methodDefs(ct.lang, text, tree, ct.regions); err != nil {
				return cells, false, err
			}
		}
	}
	return cells, parsed, nil
}

// parseError says why a parse gave up, for people.
func parseError(err error, timeout time.Duration) error {
	if errors.Is(err, parse.ErrTimeout) {
		return fmt.Errorf("parse timed out after %v", timeout)
	}
	return err
}

// closeCells frees the cells' trees.
func closeCells(cells []cellTree, size int, w *worker) {
	for _, c := range cells {
		inject.Close(c.regions)
		w.closeTree(c.tree, size)
	}
}

// cellSpans chunks the notebook's text. A method that needs no tree runs
// over it whole: sliding windows cross cells as they cross lines. A tree
// method chunks each cell by its tree, and merges a cell that fits whole
// into the chunk before it when that chunk is whole cells too and the two
// fit the budget together, as cast merges siblings: greedily, in order; a
// cell split in several chunks keeps them, and stands between merges. A
// Markdown cell that starts with a heading joins the chunk before it only
// when the first cell after the headings there joins too (or when that
// chunk is headings alone): a chunk never ends on the heading of a section
// the next chunk holds. A method whose chunks cover part of the file
// (Partial) merges no cells: what lies between its chunks is not its; nor
// does a chunk of several pieces (chunk.Span.Pieces) take a cell.
func cellSpans(nb *notebook.Notebook, cells []cellTree, in chunk.Input, method *chunk.Method, chunker chunk.Chunker) []chunk.Span {
	if !method.NeedsTree {
		return append([]chunk.Span(nil), chunker.Chunk(in)...)
	}
	var m chunk.Measure
	m.Reset(nb.Text, in.Budget, in.TokenStarts)
	defer m.Release()
	got := make([][]chunk.Span, len(nb.Cells)) // each cell's chunks, in the notebook's text
	var starts []int32
	for i, c := range nb.Cells {
		cell := chunk.Input{Src: nb.Text[c.Start:c.End], Tree: cells[i].tree, Budget: in.Budget, Embedded: inject.ForChunker(cells[i].regions), Defs: cells[i].defs, Member: cells[i].member}
		if in.TokenStarts != nil {
			starts = cellStarts(starts[:0], in.TokenStarts, c.Start, c.End)
			cell.TokenStarts = starts
		}
		for _, s := range chunker.Chunk(cell) {
			got[i] = append(got[i], shifted(s, c.Start))
		}
	}
	var spans []chunk.Span
	open := false     // the last span is whole cells, and may take the next
	headings := false // and they are all headings
	for i, c := range nb.Cells {
		n := len(spans)
		joins := func(j int) bool {
			return len(got[j]) == 1 && got[j][0].Whole() && m.Fits(spans[n-1].Start, nb.Cells[j].End)
		}
		section := startsSection(nb, i)
		if open && !method.Partial && joins(i) && (!section || headings || bodyJoins(nb, i, joins)) {
			spans[n-1].End, spans[n-1].Size = c.End, spans[n-1].Size+got[i][0].Size
			headings = headings && section
			continue
		}
		spans = append(spans, got[i]...)
		open = len(got[i]) == 1 && got[i][0].Whole()
		headings = open && section
	}
	return spans
}

// shifted returns a cell's span s moved by off bytes, into the notebook's
// text, its pieces too, copied: the chunker's are valid until its next
// call.
func shifted(s chunk.Span, off int) chunk.Span {
	out := chunk.Span{Start: s.Start + off, End: s.End + off, Size: s.Size}
	if s.Pieces != nil {
		out.Pieces = make([]chunk.Piece, len(s.Pieces))
		for i, p := range s.Pieces {
			out.Pieces[i] = chunk.Piece{Start: p.Start + off, End: p.End + off}
		}
	}
	return out
}

// bodyJoins reports whether the first cell after the headings that start
// at cell i joins the chunk too: headings one after the other (`# H1`,
// then `## H2`) join only with what they head.
func bodyJoins(nb *notebook.Notebook, i int, joins func(int) bool) bool {
	j := i + 1
	for j < len(nb.Cells) && startsSection(nb, j) && joins(j) {
		j++
	}
	return j < len(nb.Cells) && !startsSection(nb, j) && joins(j)
}

// startsSection reports whether cell i is Markdown whose first line that
// is not blank is a heading.
func startsSection(nb *notebook.Notebook, i int) bool {
	c := nb.Cells[i]
	text := nb.Text[c.Start:c.End]
	for len(text) > 0 {
		line, rest, _ := bytes.Cut(text, []byte{'\n'})
		if len(bytes.TrimSpace(line)) > 0 {
			break
		}
		text = rest
	}
	return c.Kind == "markdown" && notebook.HeadingLevel(text) > 0
}

// cellStarts appends to dst the token starts in [start, end), counted from
// start: a cell's share of the notebook's tokens.
func cellStarts(dst, starts []int32, start, end int) []int32 {
	i := sort.Search(len(starts), func(i int) bool { return int(starts[i]) >= start })
	for ; i < len(starts) && int(starts[i]) < end; i++ {
		dst = append(dst, starts[i]-int32(start))
	}
	return dst
}
