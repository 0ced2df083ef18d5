package pipeline

import (
	"bytes"
	"fmt"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/notebook"
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
		r.Cells = append(r.Cells, record.NotebookCell{Start: c.Start, End: c.End, Index: c.Index})
	}
	return nb.Text
}

// chunkNotebook chunks a notebook's cells, each as a file of its own
// language (code cells in the kernel's, Markdown cells in Markdown), and
// puts their spans end to end over the notebook's text; each cell is an
// embedded region of its language, so every chunk is named by its cell's.
// Should one cell's parse fail, every cell is chunked with the fallback:
// the records of a file name one method.
func (w *worker) chunkNotebook(r *Result) ([]chunk.Span, bool, error) {
	spans, parsed, err := w.chunkCells(r, false)
	if err == nil && r.Method != w.cfg.Setup.Method {
		spans, _, err = w.chunkCells(r, true)
	}
	return spans, parsed, err
}

// chunkCells chunks every cell, with the fallback method when fallback is
// set. Cells are parsed only when a tree is used: for the method or for
// definitions, never for the languages of a Markdown cell's fences, which
// its chunks do not take (they are named by their cell); a cell that is
// not parsed has no tree, hence no definitions.
func (w *worker) chunkCells(r *Result, fallback bool) ([]chunk.Span, bool, error) {
	nb := r.notebook
	kernel, md := lang.ForInfoString(nb.Kernel), lang.ByName("markdown")
	parse := !fallback && (w.cfg.Setup.Method.NeedsTree || w.enrich != nil && w.cfg.Enrich.NeedsDefs())
	var spans []chunk.Span
	var extras []record.Extra
	r.Regions, r.Extras, r.Message, r.HasSyntaxErrors, r.FellBack = nil, nil, "", false, false
	r.Method = w.cfg.Setup.Method
	parsed, lines := true, 0
	for i, c := range nb.Cells {
		l := kernel
		if c.Kind == "markdown" {
			l = md
		}
		cell := &Result{Job: r.Job, Lang: l, Language: l.Name}
		if !parse {
			cell.Lang = nil
		}
		text := nb.Text[c.Start:c.End]
		got, ok, err := w.chunk(cell, text)
		if err != nil {
			return nil, false, fmt.Errorf("cell %d: %w", c.Index, err)
		}
		parsed = parsed && ok
		if cell.Method != r.Method {
			r.Method = cell.Method
		}
		if cell.Message != "" && r.Message == "" {
			r.Message = fmt.Sprintf("cell %d: %s", c.Index, cell.Message)
		}
		r.HasSyntaxErrors = r.HasSyntaxErrors || cell.HasSyntaxErrors
		r.FellBack = r.FellBack || cell.FellBack
		r.Parsed, r.Enriched = r.Parsed || cell.Parsed, r.Enriched || cell.Enriched
		for _, s := range got {
			spans = append(spans, chunk.Span{Start: s.Start + c.Start, End: s.End + c.Start, Size: s.Size})
		}
		if cell.Extras != nil {
			extras = append(extras, shiftLines(cell.Extras, lines)...)
		}
		r.Regions = append(r.Regions, record.Region{Start: c.Start, End: c.End, From: c.Start, To: c.End, Language: l.Name})
		if i+1 < len(nb.Cells) {
			lines += bytes.Count(text, []byte{'\n'})
		}
	}
	if w.enrich != nil {
		r.Extras = extras
		if r.Extras == nil {
			r.Extras = []record.Extra{}
		}
	}
	return spans, parsed, nil
}

// shiftLines moves the definitions' lines of a cell's extras down by the
// lines of the cells above it: they count in the notebook's text.
func shiftLines(extras []record.Extra, by int) []record.Extra {
	if by == 0 {
		return extras
	}
	out := make([]record.Extra, len(extras))
	for i, x := range extras {
		out[i] = x
		out[i].Scope = shiftDefs(x.Scope, by)
		out[i].Defines = shiftDefs(x.Defines, by)
	}
	return out
}

func shiftDefs(defs []record.Def, by int) []record.Def {
	if len(defs) == 0 {
		return defs
	}
	out := make([]record.Def, len(defs))
	for i, d := range defs {
		out[i] = d
		out[i].Line += by
	}
	return out
}
