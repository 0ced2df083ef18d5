package conformance

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/cast"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/sliding"
	"github.com/castchunk/castchunk/internal/tokens"
)

// TestEmbedBudgets checks the guarantees of "Chunks ready to embed" on
// every corpus file, for cast and for sliding windows (with and without
// overlap), at small budgets where the token ceiling bites: every chunk's
// text (header and content) holds at most the budget's characters and
// tokens, counted on its own tokenization; the chunks still tile the file
// (or cover it in order, for overlapping windows); each scope entry
// encloses the chunk's first non-whitespace byte and starts before it,
// outermost first; each defines entry starts inside the chunk; tokens is
// the count of the text.
func TestEmbedBudgets(t *testing.T) {
	files := loadCorpus(t)
	enc, err := tokens.Load("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	counter := enc.NewCounter()
	for _, b := range []chunk.Budget{{Size: 300, Tokens: 48}, {Size: 2000, Tokens: 128}} {
		for _, m := range []struct {
			name string
			new  func() chunk.Chunker
			tree bool
			opt  sliding.Options
		}{
			{name: "cast", new: func() chunk.Chunker { return cast.New() }, tree: true},
			{name: "sliding", new: func() chunk.Chunker { return sliding.New(sliding.Options{Budget: b.Size}) }},
			{name: "sliding-overlap3", new: func() chunk.Chunker { return sliding.New(sliding.Options{Budget: b.Size, OverlapLines: 3}) },
				opt: sliding.Options{Budget: b.Size, OverlapLines: 3}},
		} {
			t.Run(fmt.Sprintf("%s-%d-%d", m.name, b.Size, b.Tokens), func(t *testing.T) {
				c := m.new()
				defer c.Close()
				w := enrich.NewWorker(enrich.Options{Context: true, Encoding: enc, MaxTokens: b.Tokens, Text: true})
				defer w.Close()
				for _, f := range files {
					tree, err := reparser().Parse(f.src, f.lang)
					if err != nil {
						t.Fatalf("%s: %v", f.rel, err)
					}
					in, err := w.Begin(f.rel, f.lang, f.src, tree, b)
					if err != nil {
						tree.Close()
						t.Logf("%s: %v", f.rel, err) // a header longer than a small budget: said, not written
						continue
					}
					if !m.tree {
						in.Tree = nil
					}
					spans, extras, err := w.Finish(c.Chunk(in), b, m.opt.Overlapping())
					tree.Close()
					if err != nil {
						t.Errorf("%s: %v", f.rel, err)
						continue
					}
					var errs []string
					if m.opt.Overlapping() {
						errs = checkCover(f, spans)
					} else if err := chunk.CheckTiling(spans, len(f.src), b.Size); err != nil {
						errs = append(errs, err.Error())
					}
					for i, s := range spans {
						x := extras[i]
						text := x.Header + string(f.src[s.Start:s.End])
						if n := nonSpace([]byte(text)); n > b.Size {
							errs = append(errs, fmt.Sprintf("chunk %d: text has %d characters, budget %d", i, n, b.Size))
						}
						if n := counter.Count([]byte(text)); n != x.Tokens || n > b.Tokens {
							errs = append(errs, fmt.Sprintf("chunk %d: text has %d tokens, record says %d, budget %d", i, n, x.Tokens, b.Tokens))
						}
						if !strings.HasPrefix(x.Header, f.rel+"\n") {
							errs = append(errs, fmt.Sprintf("chunk %d: header %q does not start with the path", i, x.Header))
						}
						errs = append(errs, checkScope(f, s, x.Scope, x.Defines)...)
					}
					report(t, f, errs)
				}
			})
		}
	}
}

// checkCover checks overlapping windows: starts strictly increasing, no
// gap, the whole file covered.
func checkCover(f *corpusFile, spans []chunk.Span) []string {
	var errs []string
	covered, prev := 0, -1
	for i, s := range spans {
		if s.Start <= prev || s.Start > covered || s.End <= s.Start {
			errs = append(errs, fmt.Sprintf("window %d [%d,%d) after start %d, covered %d", i, s.Start, s.End, prev, covered))
		}
		prev, covered = s.Start, max(covered, s.End)
	}
	if covered != len(f.src) {
		errs = append(errs, fmt.Sprintf("windows cover %d of %d bytes", covered, len(f.src)))
	}
	return errs
}

// checkScope checks scope and defines against the chunk's line numbers:
// every scope entry starts on a line at or before the anchor's, outermost
// first; every defines entry starts on a line of the chunk.
func checkScope(f *corpusFile, s chunk.Span, scope, defines []record.Def) []string {
	var errs []string
	anchor := s.Start
	for anchor < s.End {
		r, w := utf8.DecodeRune(f.src[anchor:])
		if !unicode.IsSpace(r) {
			break
		}
		anchor += w
	}
	line := f.line(anchor)
	prev := 0
	for _, d := range scope {
		if d.Line > line || d.Line < prev || d.Name == "" || d.Kind == "" {
			errs = append(errs, fmt.Sprintf("[%d,%d): scope entry %+v does not enclose line %d in order", s.Start, s.End, d, line))
		}
		prev = d.Line
	}
	first, last := f.line(s.Start), f.line(max(s.End-1, s.Start))
	for _, d := range defines {
		if d.Line < first || d.Line > last || d.Name == "" {
			errs = append(errs, fmt.Sprintf("[%d,%d): defines entry %+v is not on lines %d-%d", s.Start, s.End, d, first, last))
		}
	}
	return errs
}
