// Package enrich makes chunks ready for an embedding model or a search
// index (docs/design.md, "Chunks ready to embed"): where each chunk sits
// (its scope), what it defines, how many tokens it holds, and the text to
// embed, a short header naming the file and where the chunk sits (in one
// of HeaderFormats: the scope chain, its names, defining lines) followed
// by the content. It also keeps the budgets true of that text: room for the
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
	Header    HeaderFormat     // the header's format (--embed-header); "": ScopeHeader
}

// Any reports whether the options ask for anything.
func (o Options) Any() bool { return o.Context || o.Encoding != nil || o.Text }

// NeedsDefs reports whether the file's definitions are needed: for scope
// and defines, and for a header that names the scope (all formats but
// PathHeader).
func (o Options) NeedsDefs() bool { return o.Context || o.Text && o.Header.needsScope() }

// Key sums up what the options change in a file's cache entry, for the
// cache key: its spans (the token budget, the header's room) and what is
// stored beside them (scope and defines, token counts, headers); "" when
// they ask for nothing. The header's format is named when it is not
// ScopeHeader, so the keys of entries made before formats had names are
// those of ScopeHeader, and no format is answered by another's entry.
func (o Options) Key() string {
	var parts []string
	if o.Context {
		parts = append(parts, "context")
	}
	if o.Encoding != nil {
		parts = append(parts, "tokenizer="+o.Encoding.Key())
	}
	if o.MaxTokens > 0 {
		parts = append(parts, fmt.Sprintf("max-tokens=%d", o.MaxTokens))
	}
	if o.Text {
		parts = append(parts, "embed-text")
		if f := o.Header.named(); f != ScopeHeader {
			parts = append(parts, "embed-header="+string(f))
		}
	}
	return strings.Join(parts, " ")
}

// Header is the start of a chunk's embedding text in the format
// ScopeHeader: the path on one line, then, when the chunk has a scope, the
// scope chain on another, each entry its kind and name, outermost first,
// joined by " > ":
//
//	src/app.py
//	class App > method handle
func Header(path string, scope []outline.Def) string {
	return ScopeHeader.Build(path, scope, nil, 0)
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
	lines  Lines // its defining lines, for the formats that show them

	scope, defines []outline.Def // scratch
	open           []headerEntry // longestHeader's scratch
}

// headerEntry is an open definition as longestHeader sums it up: its end
// and line; what it adds to a header (own: its entry with the separator
// before it, or its defining line), unless dup: its defining line is its
// parent's, which LinesHeader shows once; and the size and tokens that
// the chain's entries up to it add.
type headerEntry struct {
	end, line        int
	ownSize, ownToks int
	dup              bool
	size, toks       int
}

// NewWorker returns a worker for opt; Close it when done.
func NewWorker(opt Options) *Worker {
	w := &Worker{opt: opt}
	if opt.NeedsDefs() {
		w.finder = outline.NewFinder()
	}
	return w
}

// tokenCounter is the worker's Counter, made when first needed: a worker
// that counts nothing (the parent's, when every file is a cache hit or
// goes to a worker process) never builds a tokenizer.json's vocabulary.
func (w *Worker) tokenCounter() *tokens.Counter {
	if w.counter == nil {
		w.counter = w.opt.Encoding.NewCounter()
	}
	return w.counter
}

// OneOff has run run each compilation of a definitions query
// (outline.Finder.OneOff).
func (w *Worker) OneOff(run func(func())) {
	if w.finder != nil {
		w.finder.OneOff = run
	}
}

// Close frees the C memory of the definition queries.
func (w *Worker) Close() {
	if w.finder != nil {
		w.finder.Close()
	}
}

// Begin starts on a file: it finds the file's definitions, the file's own
// (outline.FileDef: a component, named by path) and its embedded
// regions' among them (none when l or tree is nil: text no grammar
// parses), and returns the chunker's input, with the regions,
// whose budget is b less the room the file's longest header needs, with
// the file's token starts when tokens are bounded. The input is valid
// until the next Begin.
func (w *Worker) Begin(path string, l *lang.Language, src []byte, tree *sitter.Tree, regions []inject.Region, b chunk.Budget) (chunk.Input, error) {
	own, inner, err := w.Defs(l, src, tree, regions)
	if err != nil {
		return chunk.Input{}, err
	}
	if d, ok := outline.FileDef(l, path, src); ok && w.opt.NeedsDefs() && l != nil && tree != nil {
		// First, so that it comes before a host definition of the same
		// range (Merge is stable): a Vue or Svelte file's component.
		own = outline.Merge([]outline.Def{d}, own)
	}
	defs := own
	if len(inner) > 0 {
		defs = outline.Merge(own, inner)
	}
	in, err := w.BeginWith(path, src, defs, b)
	in.Tree, in.Embedded = tree, inject.ForChunker(regions)
	return in, err
}

// Defs returns the definitions of src that the options need (none when
// they need none, or when l or tree is nil): its tree's own, and its
// embedded regions' merged in one list. A notebook's cells are found one
// by one and joined (package notebook) before BeginWith.
func (w *Worker) Defs(l *lang.Language, src []byte, tree *sitter.Tree, regions []inject.Region) (own, inner []outline.Def, err error) {
	if !w.opt.NeedsDefs() || l == nil || tree == nil {
		return nil, nil, nil
	}
	if own, err = w.finder.Find(l, src, tree); err != nil {
		return nil, nil, err
	}
	var lists [][]outline.Def
	for _, r := range regions {
		if r.Tree == nil {
			continue
		}
		found, err := w.finder.Find(r.Lang, src, r.Tree)
		if err != nil {
			return nil, nil, err
		}
		lists = append(lists, found)
	}
	if len(lists) > 0 {
		inner = outline.Merge(lists...)
	}
	return own, inner, nil
}

// BeginWith is Begin for a text whose definitions are already known (defs,
// sorted as outline.Find returns them): the input it returns has no tree.
func (w *Worker) BeginWith(path string, src []byte, defs []outline.Def, b chunk.Budget) (chunk.Input, error) {
	w.path, w.src, w.defs, w.index = path, src, defs, nil
	if w.opt.Text && !w.opt.Header.valid() {
		return chunk.Input{}, fmt.Errorf("unknown header format %q", w.opt.Header)
	}
	if w.opt.Text && w.opt.Header.needsLines() {
		w.lines.Reset(src)
	}
	if w.opt.NeedsDefs() {
		w.index = outline.NewIndex(w.defs)
	}
	in := chunk.Input{Src: src, Budget: b}
	if w.opt.MaxTokens > 0 {
		// The starts are the content's tokens: the special tokens a
		// tokenizer.json adds to every text take their room first.
		in.Budget.Tokens = w.opt.MaxTokens - w.opt.Encoding.Specials()
		w.starts = w.tokenCounter().AppendStarts(w.starts[:0], src)
		in.TokenStarts = w.starts
	}
	if w.opt.Text {
		size, toks := w.longestHeader()
		in.Budget.Size -= size
		if in.Budget.Tokens > 0 {
			in.Budget.Tokens -= toks
		}
		if in.Budget.Size < 1 || in.Budget.Tokens < 0 || w.opt.MaxTokens > 0 && in.Budget.Tokens < minTokens {
			return chunk.Input{}, fmt.Errorf("the embedding text's header (%s) takes %d characters and %d tokens, which leaves too little of the budget for content", w.opt.Header.what(), size, toks)
		}
	}
	return in, nil
}

// minTokens is the least room for content a token budget must leave: one
// character can take up to four tokens (one per byte).
const minTokens = 4

// longestHeader returns the largest size and token count of any header a
// chunk of the file can get, in the options' format: the path with the
// chain of definitions that ends at each definition, bounded as a record's
// scope is (outline.MaxScope), or with no scope at all; every defining line
// counted as shown (a chunk that starts below its definition's line).
//
// It takes one pass over the definitions, in O(1) each besides counting
// the tokens of its own entry and trimming its defining line: the open
// ones form one chain, kept as a stack with running sums of what their
// entries add, so the header of the chain that ends at a definition is
// added up from the sums of its ScopeOuter outermost and ScopeInner
// innermost entries, never built. Sizes add up exactly (the size counts
// non-whitespace characters); so do tokens, each entry counted with what
// stands around it in a header: the encodings' pre-tokenizers start a
// piece at the space before " > " and after a line break, so no piece
// spans two entries, and the last entry is counted with the header's end
// (its line break, and SignatureHeader's defining line)
// (TestLongestHeaderAddsUp checks it against the headers themselves; o200k
// joins a "/" that starts a line to punctuation ending the line before, so
// a defining line that starts with "/" may count one token apart, which
// Finish's exact count then settles). Building every definition's whole
// header took time and memory quadratic in the depth: 16 s to refuse
// 20,000 nested JSON objects.
func (w *Worker) longestHeader() (size, toks int) {
	f := w.opt.Header.named()
	pathLine := Header(w.path, nil)
	counting := w.opt.Encoding != nil && w.opt.MaxTokens > 0
	count := func(parts ...string) int {
		if !counting {
			return 0
		}
		w.text = w.text[:0]
		for _, p := range parts {
			w.text = append(w.text, p...)
		}
		return w.tokenCounter().Count(w.text) - w.opt.Encoding.Specials() // counted once per text, in the budget already
	}
	pathSize, pathToks := chunk.Size([]byte(pathLine)), count(pathLine)
	size, toks = pathSize, pathToks
	if !f.needsScope() {
		return size, toks
	}
	// open[k] is the k-th definition of the chain open at the current one
	// (outermost first), with the sums of what open[:k+1] add to a header.
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
		s0, t0 := sum(len(open))
		e, lastSize, lastToks := w.headerEntry(f, d, open, count)
		e.size, e.toks = s0, t0
		if !e.dup {
			e.size, e.toks = s0+e.ownSize, t0+e.ownToks
		}
		open = append(open, e)
		n := len(open)
		s, t := s0+lastSize, t0+lastToks
		if n > outline.MaxScope {
			elidedSize, elidedToks := elidedPart(f, n-outline.MaxScope, count)
			so, to := sum(outline.ScopeOuter)
			si, ti := sum(n - outline.ScopeInner)
			s, t = so+elidedSize+s-si, to+elidedToks+t-ti
			// The first inner entry follows the elided one: its line is
			// shown even when it is its parent's.
			if in := open[n-outline.ScopeInner]; in.dup {
				s, t = s+in.ownSize, t+in.ownToks
			}
		}
		size = max(size, pathSize+s)
		toks = max(toks, pathToks+t)
	}
	w.open = open[:0]
	return size, toks
}

// headerEntry returns what definition d, inside the open chain, adds to a
// header of format f: its entry, and what it adds as the chain's last
// entry, with the header's end.
func (w *Worker) headerEntry(f HeaderFormat, d outline.Def, open []headerEntry, count func(...string) int) (e headerEntry, lastSize, lastToks int) {
	e = headerEntry{end: d.End, line: d.Line}
	if f == LinesHeader {
		// A line its parent shares is its parent's: what it adds, when it
		// is shown (after the elided entry), is the parent's own.
		if e.dup = len(open) > 0 && open[len(open)-1].line == d.Line; e.dup {
			e.ownSize, e.ownToks = open[len(open)-1].ownSize, open[len(open)-1].ownToks
			return e, 0, 0
		}
		if line := w.lines.Defining(d.Line); line != "" {
			e.ownSize, e.ownToks = chunk.Size([]byte(line)), count(line, "\n")
		}
		return e, e.ownSize, e.ownToks
	}
	sep, kind := " > ", d.Kind+" "
	if len(open) == 0 {
		sep = ""
	}
	if f == NamesHeader {
		kind = ""
	}
	e.ownSize = chunk.Size([]byte(sep)) + chunk.Size([]byte(kind)) + chunk.Size([]byte(d.Name))
	e.ownToks = count(sep, kind, d.Name)
	if f != SignatureHeader {
		return e, e.ownSize, count(sep, kind, d.Name, "\n")
	}
	line := w.lines.Defining(d.Line)
	if line == "" {
		return e, e.ownSize, count(sep, kind, d.Name, "\n")
	}
	return e, e.ownSize + chunk.Size([]byte(line)), count(sep, kind, d.Name, "\n", line, "\n")
}

// elidedPart returns what the elided entry standing for n definitions adds
// to a header of format f: " > elided N" in a scope line, "elided N" on a
// line of its own in LinesHeader.
func elidedPart(f HeaderFormat, n int, count func(...string) int) (size, toks int) {
	num := strconv.Itoa(n)
	if f == LinesHeader {
		return chunk.Size([]byte(outline.Elided)) + len(num), count(outline.Elided, " ", num, "\n")
	}
	return 1 + chunk.Size([]byte(outline.Elided)) + len(num), count(" > ", outline.Elided, " ", num)
}

// Finish makes the file's spans hold true of the budget b on their own
// text (header included) and describes each chunk. It returns the spans,
// split further where a chunk was over, and what embed adds to each.
func (w *Worker) Finish(spans []chunk.Span, b chunk.Budget, overlapping bool) ([]chunk.Span, []record.Extra, error) {
	chunks := w.describe(spans)
	if w.over(spans, chunks, b) {
		w.sizer.Reset(w.src)
		defer w.sizer.Release()
		fits := func(s chunk.Span) bool {
			h := w.header(s.Start, s.End)
			return chunk.Size([]byte(h))+w.sizer.SizeOf(s) <= b.Size &&
				(b.Tokens <= 0 || w.count(h, s) <= b.Tokens)
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
			w.defines = w.definesIn(s)
			c.Defines = recordDefs(w.defines)
		}
		if w.opt.Text {
			c.Header = w.headerOf(scope, s.Start)
		}
		if w.opt.Encoding != nil {
			c.Tokens = w.count(c.Header, s)
		}
	}
	return out
}

// definesIn returns, in w.defines' buffer, the definitions that start in
// the text of s: in its pieces, not in the gaps between them (a body a
// chunk of pieces leaves out).
func (w *Worker) definesIn(s chunk.Span) []outline.Def {
	if s.Whole() {
		return outline.Defines(w.defines[:0], w.defs, s.Start, s.End)
	}
	out := w.defines[:0]
	for _, p := range s.Pieces {
		out = outline.Defines(out, w.defs, p.Start, p.End)
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
	return w.headerOf(scope, start)
}

// headerOf returns the header, in the options' format, of a chunk that
// starts at byte start and whose scope is scope.
func (w *Worker) headerOf(scope []outline.Def, start int) string {
	first := 0
	if w.opt.Header.needsLines() && len(scope) > 0 {
		first = w.lines.LineOf(start)
	}
	return w.opt.Header.Build(w.path, scope, &w.lines, first)
}

// count returns the tokens of header followed by the text of s.
func (w *Worker) count(header string, s chunk.Span) int {
	if header == "" && s.Whole() {
		return w.tokenCounter().Count(w.src[s.Start:s.End])
	}
	w.text = s.AppendText(append(w.text[:0], header...), w.src)
	return w.tokenCounter().Count(w.text)
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
