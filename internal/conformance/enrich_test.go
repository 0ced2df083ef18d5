package conformance

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/inject"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/tokens"
)

// TestEmbedBudgets checks the guarantees of "Chunks ready to embed" on
// every corpus file, for every configuration of every registered method,
// at small budgets where the token ceiling bites: every chunk's text
// (header and content) holds at most the budget's characters and tokens,
// counted on its own tokenization; the chunks still tile the file (or
// cover it in order, for overlapping chunks); each scope entry encloses
// the chunk's first non-whitespace byte and starts before it, outermost
// first; each defines entry starts inside the chunk; tokens is the count of
// the text.
//
// Each header is also exactly the one its format builds from the record's
// scope and the chunk's first line, and the cache's check
// (enrich.Options.Check) accepts each file's extras.
func TestEmbedBudgets(t *testing.T) { checkEmbedBudgets(t, methods()) }

// checkEmbedBudgets is TestEmbedBudgets for the methods ms.
func checkEmbedBudgets(t *testing.T, ms []*chunk.Method) {
	for _, b := range []chunk.Budget{{Size: 300, Tokens: 48}, {Size: 2000, Tokens: 128}} {
		checkEmbedRun(t, ms, b, "", func(config) bool { return true })
	}
}

// TestEmbedHeaderFormats is TestEmbedBudgets for each header format but
// the zero value's (scope, which TestEmbedBudgets runs), on fewer
// configurations to keep the time down: cast and overlapping sliding
// windows (whose split pieces Finish puts back in order) at the small
// budget, where a header takes most room, and cast at the default one.
func TestEmbedHeaderFormats(t *testing.T) {
	for _, h := range enrich.HeaderFormats() {
		if h.Name == enrich.ScopeHeader {
			continue
		}
		t.Run(string(h.Name), func(t *testing.T) {
			checkEmbedRun(t, methods(), chunk.Budget{Size: 300, Tokens: 48}, h.Name, func(c config) bool {
				return c.name == "cast" || c.overlap && c.Method.Name == "sliding" && !strings.Contains(c.name, "window")
			})
			checkEmbedRun(t, methods(), chunk.Budget{Size: 2000, Tokens: 128}, h.Name, func(c config) bool { return c.name == "cast" })
		})
	}
}

// checkEmbedRun checks the guarantees of TestEmbedBudgets for the
// configurations of the methods ms that pick takes, at budget b, with
// headers in format header.
func checkEmbedRun(t *testing.T, ms []*chunk.Method, b chunk.Budget, header enrich.HeaderFormat, pick func(config) bool) {
	files := loadCorpus(t)
	enc, err := tokens.Load("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	counter := enc.NewCounter()
	picked := 0
	for _, c := range configs(t, ms, b.Size) {
		if !pick(c) {
			continue
		}
		picked++
		t.Run(fmt.Sprintf("%s-%d-%d", c.name, b.Size, b.Tokens), func(t *testing.T) {
			ch := c.New()
			defer ch.Close()
			opt := enrich.Options{Context: true, Encoding: enc, MaxTokens: b.Tokens, Text: true, Header: header}
			w := enrich.NewWorker(opt)
			defer w.Close()
			var lines enrich.Lines
			checked := 0
			for _, f := range files {
				tree, regions := parseWithRegions(f)
				in, err := w.Begin(f.rel, f.lang, f.src, tree, regions, b)
				if err != nil {
					tree.Close()
					inject.Close(regions)
					t.Logf("%s: %v", f.rel, err) // a header longer than a small budget: said, not written
					continue
				}
				if !c.Method.NeedsTree {
					in.Tree = nil
				}
				if c.Method.NeedsDefs {
					in.Defs, in.Member = fileDefs(f, tree, regions)
				}
				spans, extras, err := w.Finish(ch.Chunk(in), b, c.overlap)
				tree.Close()
				inject.Close(regions)
				if err != nil {
					t.Errorf("%s: %v", f.rel, err)
					continue
				}
				checked++
				var errs []string
				if err := opt.Check(f.rel, f.src, spans, extras, b.Size); err != nil {
					errs = append(errs, fmt.Sprintf("the cache's check refuses the extras: %v", err))
				}
				lines.Reset(f.src)
				if c.Method.Partial {
					errs = append(errs, checkPartial(spans)...)
				} else if c.overlap {
					errs = append(errs, checkCover(f, spans)...)
				} else if err := chunk.CheckTiling(spans, len(f.src), b.Size); err != nil {
					errs = append(errs, err.Error())
				}
				for i, s := range spans {
					x := extras[i]
					text := x.Header + string(s.Text(f.src))
					if n := nonSpace([]byte(text)); n > b.Size {
						errs = append(errs, fmt.Sprintf("chunk %d: text has %d characters, budget %d", i, n, b.Size))
					}
					if n := counter.Count([]byte(text)); n != x.Tokens || n > b.Tokens {
						errs = append(errs, fmt.Sprintf("chunk %d: text has %d tokens, record says %d, budget %d", i, n, x.Tokens, b.Tokens))
					}
					if !strings.HasPrefix(x.Header, f.rel+"\n") {
						errs = append(errs, fmt.Sprintf("chunk %d: header %q does not start with the path", i, x.Header))
					}
					if want := header.Build(f.rel, outlineDefs(x.Scope), &lines, f.line(s.Start)); x.Header != want {
						errs = append(errs, fmt.Sprintf("chunk %d: header %q, its scope gives %q", i, x.Header, want))
					}
					errs = append(errs, checkScope(f, s, x.Scope, x.Defines)...)
				}
				report(t, f, errs)
			}
			if checked < len(files)/2 {
				t.Errorf("only %d of %d files checked: headers longer than the budget", checked, len(files))
			}
		})
	}
	if picked == 0 {
		t.Errorf("no configuration of %d methods picked at budget %+v", len(ms), b)
	}
}

// outlineDefs are a record's definitions as a header is built from them.
func outlineDefs(defs []record.Def) []outline.Def {
	out := make([]outline.Def, len(defs))
	for i, d := range defs {
		out[i] = outline.Def{Kind: d.Kind, Name: d.Name, Line: d.Line}
	}
	return out
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
