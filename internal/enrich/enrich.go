// Package enrich makes chunks ready for an embedding model or a search
// index (docs/design.md, "Chunks ready to embed"): where each chunk sits
// (its scope), what it defines, how many tokens it holds, and the text to
// embed, a short header naming the file and the scope followed by the
// content. It also keeps the budgets true of that text: room for the
// header is taken off the chunker's budget, and every finished chunk is
// checked on its own tokenization and split further when it is over
// (chunk.Refit). It knows nothing of languages: the definitions come from
// package outline, the tokens from package tokens.
package enrich

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/inject"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/tokens"
)

// Options are what a run asks for; the zero value asks for nothing.
type Options struct {
	Context   bool             // scope and defines (--context)
	Encoding  *tokens.Encoding // token counts (--tokenizer); nil: none
	MaxTokens int              // tokens per chunk at most (--max-tokens); needs Encoding
	Text      bool             // the embedding text (--embed-text); the budgets cover it
}

// Any reports whether the options ask for anything.
func (o Options) Any() bool { return o.Context || o.Encoding != nil || o.Text }

// NeedsDefs reports whether the file's definitions are needed: for scope
// and defines, and for the header's scope line.
func (o Options) NeedsDefs() bool { return o.Context || o.Text }

// Key sums up what the options change in a file's cache entry, for the
// cache key: its spans (the token budget, the header's room) and what is
// stored beside them (scope and defines, token counts, headers); "" when
// they ask for nothing.
func (o Options) Key() string {
	var parts []string
	if o.Context {
		parts = append(parts, "context")
	}
	if o.Encoding != nil {
		parts = append(parts, "tokenizer="+o.Encoding.Name())
	}
	if o.MaxTokens > 0 {
		parts = append(parts, fmt.Sprintf("max-tokens=%d", o.MaxTokens))
	}
	if o.Text {
		parts = append(parts, "embed-text")
	}
	return strings.Join(parts, " ")
}

// Header is the start of a chunk's embedding text: the path on one line,
// then, when the chunk has a scope, the scope chain on another, each entry
// its kind and name, outermost first, joined by " > ":
//
//	src/app.py
//	class App > method handle
func Header(path string, scope []outline.Def) string {
	return header(path, len(scope), func(i int) (string, string) { return scope[i].Kind, scope[i].Name })
}

// header is the header of path with a scope of n entries, entry i's kind
// and name given by def.
func header(path string, n int, def func(i int) (kind, name string)) string {
	var b strings.Builder
	b.WriteString(oneLine(path))
	b.WriteByte('\n')
	for i := range n {
		if i > 0 {
			b.WriteString(" > ")
		}
		kind, name := def(i)
		b.WriteString(kind)
		b.WriteByte(' ')
		b.WriteString(name)
	}
	if n > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

// Worker does embed's work for one pipeline worker, file after file,
// reusing its buffers; it is not safe for concurrent use.
type Worker struct {
	opt     Options
	finder  *outline.Finder
	counter *tokens.Counter
	sizer   chunk.Sizer
	text    []byte // header + content, for counting

	// The file under way, from Begin.
	path   string
	src    []byte
	defs   []outline.Def
	index  *outline.Index // of defs
	starts []int32

	scope, defines []outline.Def // scratch
	open           []headerEntry // longestHeader's scratch
}

// headerEntry is an open definition as longestHeader sums it up: its end,
// and the size and tokens of the chain's entries up to it.
type headerEntry struct{ end, size, toks int }

// NewWorker returns a worker for opt; Close it when done.
func NewWorker(opt Options) *Worker {
	w := &Worker{opt: opt}
	if opt.NeedsDefs() {
		w.finder = outline.NewFinder()
	}
	if opt.Encoding != nil {
		w.counter = opt.Encoding.NewCounter()
	}
	return w
}

// Close frees the C memory of the definition queries.
func (w *Worker) Close() {
	if w.finder != nil {
		w.finder.Close()
	}
}

// Begin starts on a file: it finds the file's definitions, its embedded
// regions' among them (none when l or tree is nil: text no grammar
// parses), and returns the chunker's input, with the regions,
// whose budget is b less the room the file's longest header needs, with
// the file's token starts when tokens are bounded. The input is valid
// until the next Begin.
func (w *Worker) Begin(path string, l *lang.Language, src []byte, tree *sitter.Tree, regions []inject.Region, b chunk.Budget) (chunk.Input, error) {
	w.path, w.src, w.defs, w.index = path, src, nil, nil
	if w.opt.NeedsDefs() && l != nil && tree != nil {
		defs, err := w.finder.Find(l, src, tree)
		if err != nil {
			return chunk.Input{}, err
		}
		lists := [][]outline.Def{defs}
		for _, r := range regions {
			if r.Tree == nil {
				continue
			}
			inner, err := w.finder.Find(r.Lang, src, r.Tree)
			if err != nil {
				return chunk.Input{}, err
			}
			lists = append(lists, inner)
		}
		w.defs = defs
		if len(lists) > 1 {
			w.defs = outline.Merge(lists...)
		}
	}
	if w.opt.NeedsDefs() {
		w.index = outline.NewIndex(w.defs)
	}
	in := chunk.Input{Src: src, Tree: tree, Budget: b, Embedded: inject.ForChunker(regions)}
	if w.opt.MaxTokens > 0 {
		in.Budget.Tokens = w.opt.MaxTokens
		w.starts = w.counter.AppendStarts(w.starts[:0], src)
		in.TokenStarts = w.starts
	}
	if w.opt.Text {
		size, toks := w.longestHeader()
		in.Budget.Size -= size
		if in.Budget.Tokens > 0 {
			in.Budget.Tokens -= toks
		}
		if in.Budget.Size < 1 || in.Budget.Tokens < 0 || w.opt.MaxTokens > 0 && in.Budget.Tokens < minTokens {
			return chunk.Input{}, fmt.Errorf("the embedding text's header (path and scope) takes %d characters and %d tokens, which leaves too little of the budget for content", size, toks)
		}
	}
	return in, nil
}

// minTokens is the least room for content a token budget must leave: one
// character can take up to four tokens (one per byte).
const minTokens = 4

// longestHeader returns the largest size and token count of any header a
// chunk of the file can get: the path with the chain of definitions that
// ends at each definition, bounded as a record's scope is
// (outline.MaxScope), or with no scope at all.
//
// It takes one pass over the definitions, in O(1) each besides counting
// the tokens of its own entry: the open ones form one chain, kept as a
// stack with running sums of its entries' sizes and tokens, so the header
// of the chain that ends at a definition is added up from the sums of its
// ScopeOuter outermost and ScopeInner innermost entries, never built.
// Sizes add up exactly (the size counts non-whitespace characters); so do
// tokens, each entry counted with what stands around it in a header: the
// encodings' pre-tokenizers start a piece at the space before " > " and
// after the path's line break, so no piece spans two entries
// (TestLongestHeaderAddsUp checks it against the headers themselves).
// Building every definition's whole header took time and memory quadratic
// in the depth: 16 s to refuse 20,000 nested JSON objects.
func (w *Worker) longestHeader() (size, toks int) {
	pathLine := Header(w.path, nil)
	counting := w.counter != nil && w.opt.MaxTokens > 0
	count := func(parts ...string) int {
		if !counting {
			return 0
		}
		w.text = w.text[:0]
		for _, p := range parts {
			w.text = append(w.text, p...)
		}
		return w.counter.Count(w.text)
	}
	pathSize, pathToks := chunk.Size([]byte(pathLine)), count(pathLine)
	size, toks = pathSize, pathToks
	// open[k] is the k-th definition of the chain open at the current one
	// (outermost first), with the sums of the sizes and tokens of open[:k+1]
	// as header entries ("kind name" first, " > kind name" after).
	open := w.open[:0]
	sum := func(k int) (int, int) { // of open[:k]
		if k == 0 {
			return 0, 0
		}
		return open[k-1].size, open[k-1].toks
	}
	for _, d := range w.defs { // sorted by Start, outer before inner
		for len(open) > 0 && open[len(open)-1].end <= d.Start {
			open = open[:len(open)-1]
		}
		sep := " > "
		if len(open) == 0 {
			sep = ""
		}
		s0, t0 := sum(len(open))
		open = append(open, headerEntry{d.End, s0 + chunk.Size([]byte(d.Kind)) + chunk.Size([]byte(d.Name)), t0 + count(sep, d.Kind, " ", d.Name)})
		// The header of the chain that ends at d: its entries, d's with the
		// line break after it, and a '>' between each two.
		n := len(open)
		last := count(sep, d.Kind, " ", d.Name, "\n")
		var s, t int
		if n <= outline.MaxScope {
			s, _ = sum(n)
			t = t0 + last
		} else {
			elided := strconv.Itoa(n - outline.MaxScope)
			so, to := sum(outline.ScopeOuter)
			si, ti := sum(n - outline.ScopeInner)
			s = so + chunk.Size([]byte(outline.Elided)) + len(elided) + open[n-1].size - si
			t = to + count(" > ", outline.Elided, " ", elided) + t0 - ti + last
			n = outline.MaxScope + 1
		}
		size = max(size, pathSize+s+n-1)
		toks = max(toks, pathToks+t)
	}
	w.open = open[:0]
	return size, toks
}

// Finish makes the file's spans hold true of the budget b on their own
// text (header included) and describes each chunk. It returns the spans,
// split further where a chunk was over, and what embed adds to each.
func (w *Worker) Finish(spans []chunk.Span, b chunk.Budget, overlapping bool) ([]chunk.Span, []record.Extra, error) {
	chunks := w.describe(spans)
	if w.over(spans, chunks, b) {
		w.sizer.Reset(w.src)
		defer w.sizer.Release()
		fits := func(start, end int) bool {
			h := w.header(start, end)
			return chunk.Size([]byte(h))+w.sizer.Size(start, end) <= b.Size &&
				(b.Tokens <= 0 || w.count(h, start, end) <= b.Tokens)
		}
		var err error
		if spans, err = chunk.Refit(nil, &w.sizer, spans, fits); err != nil {
			return nil, nil, err
		}
		if overlapping {
			spans = inOrder(spans)
		}
		chunks = w.describe(spans)
	}
	return spans, chunks, nil
}

// over reports whether a chunk's text is over the budget b.
func (w *Worker) over(spans []chunk.Span, chunks []record.Extra, b chunk.Budget) bool {
	for i, s := range spans {
		if w.opt.Text && chunk.Size([]byte(chunks[i].Header))+s.Size > b.Size {
			return true
		}
		if b.Tokens > 0 && chunks[i].Tokens > b.Tokens {
			return true
		}
	}
	return false
}

// describe computes what embed adds to each span: the values of the
// records' optional fields.
func (w *Worker) describe(spans []chunk.Span) []record.Extra {
	out := make([]record.Extra, len(spans))
	for i, s := range spans {
		c := &out[i]
		var scope []outline.Def
		if w.index != nil {
			scope = w.index.Scope(w.scope[:0], w.src, s.Start, s.End)
			w.scope = scope
		}
		if w.opt.Context {
			c.Scope = recordDefs(scope)
			w.defines = outline.Defines(w.defines[:0], w.defs, s.Start, s.End)
			c.Defines = recordDefs(w.defines)
		}
		if w.opt.Text {
			c.Header = Header(w.path, scope)
		}
		if w.counter != nil {
			c.Tokens = w.count(c.Header, s.Start, s.End)
		}
	}
	return out
}

// recordDefs turns definitions into the records' view of them.
func recordDefs(ds []outline.Def) []record.Def {
	out := make([]record.Def, len(ds))
	for i, d := range ds {
		out[i] = record.Def{Kind: d.Kind, Name: d.Name, Line: d.Line}
	}
	return out
}

// header returns the header of the chunk src[start:end] ("" without
// Options.Text).
func (w *Worker) header(start, end int) string {
	if !w.opt.Text {
		return ""
	}
	var scope []outline.Def
	if w.index != nil {
		scope = w.index.Scope(w.scope[:0], w.src, start, end)
		w.scope = scope
	}
	return Header(w.path, scope)
}

// count returns the tokens of header followed by src[start:end].
func (w *Worker) count(header string, start, end int) int {
	if header == "" {
		return w.counter.Count(w.src[start:end])
	}
	w.text = append(append(w.text[:0], header...), w.src[start:end]...)
	return w.counter.Count(w.text)
}

// inOrder restores the order of overlapping windows after some were split:
// starts and ends strictly increasing. A piece that ends where the spans
// before it already reach (a piece of a window that the next window holds
// whole) adds nothing and is dropped; coverage is unchanged.
func inOrder(spans []chunk.Span) []chunk.Span {
	slices.SortStableFunc(spans, func(a, b chunk.Span) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	out := spans[:0]
	for _, s := range spans {
		if n := len(out); n > 0 && (out[n-1].Start == s.Start || out[n-1].End >= s.End) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// oneLine keeps a path on the header's first line: a line break in a file
// name would start a line of its own.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}
