package main

import (
	"fmt"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/inject"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/parse"
)

// engine is what one of castchunk's worker processes holds (the worker
// type of internal/pipeline, as Serve makes it): one parser, one chunker,
// one injection finder, one definition finder when the method reads
// definitions, one enrich worker when --context or a tokenizer asks for
// one, all reused across files, so that each language's queries are
// compiled once, on its first file.
type engine struct {
	setup   chunk.Setup
	opts    enrich.Options
	parser  *parse.Parser
	chunker chunk.Chunker
	inject  *inject.Finder
	defs    *outline.Finder
	enrich  *enrich.Worker
}

func newEngine(setup chunk.Setup, opts enrich.Options) *engine {
	e := &engine{setup: setup, opts: opts, parser: parse.New(0), chunker: setup.New(), inject: inject.NewFinder()}
	if opts.Any() {
		e.enrich = enrich.NewWorker(opts)
	}
	if setup.Method.NeedsDefs {
		e.defs = outline.NewFinder()
	}
	return e
}

func (e *engine) close() {
	e.parser.Close()
	e.inject.Close()
	if e.defs != nil {
		e.defs.Close()
	}
	e.chunker.Close()
	if e.enrich != nil {
		e.enrich.Close()
	}
}

// result is what chunking one file gave, for the sanity columns.
type result struct {
	spans    int
	parseErr bool // the parse failed: a worker would have fallen back
}

// bigFile is internal/pipeline's bigFile: past it, a freed tree's memory
// is handed back to the operating system at once.
const bigFile = 1 << 20

// chunk is the grammar work a worker process does on one file of a
// language (internal/pipeline's worker.chunk for a file with a grammar, no
// notebook): parse, embedded regions, definitions and token starts when
// asked, the method's chunker, the enrich pass, the guarantees' checks,
// and freeing the trees. A failed parse is reported, not chunked again
// with the fallback: with no parse timeout, only a grammar that gives up
// fails, and no file measured here did.
func (e *engine) chunk(path string, l *lang.Language, src []byte) (res result, err error) {
	var tree *sitter.Tree
	needTree := e.setup.Method.NeedsTree
	if needTree || inject.Has(l) || e.enrich != nil && e.opts.NeedsDefs() {
		if tree, err = e.parser.Parse(src, l); err != nil {
			res.parseErr, err = true, nil
			tree = nil
		}
	}
	defer func() {
		if tree != nil {
			tree.Close()
			if len(src) > bigFile {
				parse.ReleaseMemory()
			}
		}
	}()
	var regions []inject.Region
	if tree != nil {
		if regions, err = e.inject.Regions(e.parser, l, src, tree); err != nil {
			return res, err
		}
		defer inject.Close(regions)
		_ = inject.Records(regions) // what the worker sends back
	}
	if tree != nil && needTree {
		_ = tree.RootNode().HasError()
	}
	budget := chunk.Budget{Size: e.setup.Budget}
	in := chunk.Input{Src: src, Tree: tree, Budget: budget, Embedded: inject.ForChunker(regions)}
	if e.enrich != nil {
		budget.Tokens = e.opts.MaxTokens
		if in, err = e.enrich.Begin(path, l, src, tree, regions, budget); err != nil {
			return res, err
		}
	}
	if !needTree {
		in.Tree, in.Embedded = nil, nil
	}
	if e.setup.Method.NeedsDefs && tree != nil {
		trees := []outline.Tree{{Lang: l, Tree: tree, End: len(src)}}
		for _, g := range regions {
			trees = append(trees, outline.Tree{Lang: g.Lang, Tree: g.Tree, Start: g.Start, End: g.End})
		}
		if in.Defs, in.Member, err = e.defs.ForChunker(src, trees); err != nil {
			return res, err
		}
	}
	spans := e.chunker.Chunk(in)
	if e.enrich != nil {
		if spans, _, err = e.enrich.Finish(spans, budget, e.setup.Overlapping()); err != nil {
			return res, err
		}
	}
	if !e.setup.Method.Pieces {
		for i, s := range spans {
			if s.Pieces != nil {
				return res, fmt.Errorf("chunk %d is made of pieces", i)
			}
		}
	}
	if !e.setup.Overlapping() {
		if err := e.setup.Method.CheckSpans(spans, len(src), e.setup.Budget); err != nil {
			return res, fmt.Errorf("%s broke a guarantee: %v", e.setup.Method.Name, err)
		}
	}
	res.spans = len(spans)
	return res, nil
}
