// Package inject finds the regions of a file written in another language
// than the file's own (a Markdown fence's Rust, an HTML page's <script>, a
// Vue component's <script lang="ts">) and parses each with its own grammar
// over the file's bytes, through tree-sitter's included ranges, so that
// every offset stays the file's. The host language's injection query
// (lang.Language.InjectionQuery) says where the regions are and what they
// are written in. One level only: a region's own regions (HTML inside a
// fence inside Markdown) are not looked for.
package inject

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/parse"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/tsc/match"
)

// Region is one embedded region: the byte range of its code's node in the
// host file (a fence's content), the range of the construct around it that
// is still written in its language for a reader (the fence, its ``` lines
// included: @injection.region, else the code's own range), its language
// and its tree (nil when its parse gave up: the region is then chunked as
// the host's text, still named by its language).
type Region struct {
	Start, End int // the code: what Tree describes
	From, To   int // the construct around it, From <= Start, End <= To
	Lang       *lang.Language
	Tree       *sitter.Tree
	Err        error         // why Tree is nil: the parse gave up (its work bound, a timeout)
	label      record.Region // what records say of it (Records)
}

// Finder finds regions. It is owned by one goroutine (a worker) and keeps
// each host language's compiled query.
type Finder struct {
	queries map[*lang.Language]*query
	runner  *match.Runner
	// OneOff, when set, runs each query's compilation (outline.Finder's).
	OneOff func(func())
}

// query is a host language's compiled injection query.
type query struct {
	q                        *sitter.Query
	roots                    []byte // by node symbol, where its patterns start (outline.RootSymbols)
	content, langCap, region int    // capture indexes; -1 when the query has none
	delimiter                int    // the capture of the construct's opening delimiter; -1 when none
}

// NewFinder returns a Finder; Close frees its C memory.
func NewFinder() *Finder {
	return &Finder{queries: map[*lang.Language]*query{}, runner: match.NewRunner()}
}

// Close frees the compiled queries.
func (f *Finder) Close() {
	for _, q := range f.queries {
		if q != nil {
			q.q.Close()
		}
	}
	f.queries = nil
	f.runner.Close()
}

// Has reports whether files of the language can have regions.
func Has(l *lang.Language) bool { return l != nil && l.InjectionQuery() != "" }

// Regions returns the regions of src, a file of language host whose tree
// is tree, each parsed with p, sorted by Start and apart (a region inside
// another is left to the outer one). A region in the host's own language,
// or in one castchunk has no grammar for, is not a region. Only a
// cancelled parse is an error; Close the regions' trees when done.
func (f *Finder) Regions(p *parse.Parser, host *lang.Language, src []byte, tree *sitter.Tree) ([]Region, error) {
	q, err := f.query(host)
	if q == nil || err != nil {
		return nil, err
	}
	found := q.find(f.runner, tree, src)
	var out []Region
	prevTo := 0
	for _, c := range found {
		if c.lang == host || c.from < prevTo {
			continue // the host's own language, or inside the region before it
		}
		r := Region{Start: c.start, End: c.end, From: c.from, To: c.to, Lang: c.lang, label: c.label(src, prevTo)}
		prevTo = c.to
		r.Tree, r.Err = p.ParseRanges(src, c.lang, c.ranges)
		if errors.Is(r.Err, parse.ErrCancelled) {
			Close(out)
			return nil, r.Err
		}
		out = append(out, r)
	}
	return out, nil
}

// Close closes the regions' trees.
func Close(regions []Region) {
	for _, r := range regions {
		if r.Tree != nil {
			r.Tree.Close()
		}
	}
}

// ForChunker returns the regions as the chunkers take them.
func ForChunker(regions []Region) []chunk.Embedded {
	var out []chunk.Embedded
	for _, r := range regions {
		out = append(out, chunk.Embedded{Start: r.Start, End: r.End, Tree: r.Tree})
	}
	return out
}

// Records is what records say of the regions (record.File.Regions), for
// the language of each chunk (docs/design.md, "Embedded regions"): their
// languages' names, where their code is, from its first to its last byte
// that is not white space in the included ranges (the host's marks around
// it, the `> ` before a quoted fence's closing line, are not code), and the
// construct around it, from the start of its first line when what stands
// before it there is the host's margin (label).
func Records(regions []Region) []record.Region {
	var out []record.Region
	for _, g := range regions {
		out = append(out, g.label)
	}
	return out
}

// query returns the host language's compiled injection query, nil when it
// has none.
func (f *Finder) query(host *lang.Language) (*query, error) {
	if q, ok := f.queries[host]; ok {
		return q, nil
	}
	text := host.InjectionQuery()
	if text == "" {
		f.queries[host] = nil
		return nil, nil
	}
	var q *sitter.Query
	var qerr *sitter.QueryError
	var roots []byte
	compile := func() {
		if q, qerr = sitter.NewQuery(host.Grammar(), text); qerr == nil {
			roots = outline.RootSymbols(host.Grammar(), q, text)
		}
	}
	if f.OneOff != nil {
		f.OneOff(compile)
	} else {
		compile()
	}
	if qerr != nil {
		// The queries are embedded and tested: a broken one is a build mistake.
		return nil, fmt.Errorf("%s injection query: %w", host.Name, qerr)
	}
	c := &query{q: q, content: -1, langCap: -1, region: -1, delimiter: -1, roots: roots}
	for i, name := range q.CaptureNames() {
		switch name {
		case "injection.content":
			c.content = i
		case "injection.language":
			c.langCap = i
		case "injection.region":
			c.region = i
		case "injection.delimiter":
			c.delimiter = i
		}
	}
	f.queries[host] = c
	return c, nil
}

// candidate is a region a match found.
type candidate struct {
	start, end int
	from, to   int
	pattern    uint
	lang       *lang.Language
	ranges     []sitter.Range
}

// find runs the query over the tree, at its patterns' root nodes only
// (package match; over the whole tree when their roots cannot be told):
// one candidate per content node, from the first pattern (in the query
// file) that matches it, sorted by start.
func (q *query) find(runner *match.Runner, tree *sitter.Tree, src []byte) []candidate {
	best := map[[2]uint]candidate{}
	add := func(pattern uint, captures []sitter.QueryCapture) {
		var content, region *sitter.Node
		name, named, open := "", false, ""
		for i := range captures {
			c := &captures[i]
			switch int(c.Index) {
			case q.content:
				content = &c.Node
			case q.region:
				region = &c.Node
			case q.langCap:
				name, named = c.Node.Utf8Text(src), true
			case q.delimiter:
				open = c.Node.Utf8Text(src)
			}
		}
		if !named {
			for _, p := range q.q.PropertySettings(pattern) {
				if p.Key == "injection.language" && p.Value != nil {
					name, named = *p.Value, true
				}
			}
		}
		if content == nil || !named {
			return
		}
		key := [2]uint{content.StartByte(), content.EndByte()}
		if prev, ok := best[key]; ok && prev.pattern <= pattern {
			return
		}
		c := candidate{start: int(key[0]), end: int(key[1]), from: int(key[0]), to: int(key[1]),
			pattern: pattern, lang: lang.ForInfoString(name), ranges: dropClosing(src, ranges(*content), open)}
		if region != nil {
			c.from, c.to = min(c.from, int(region.StartByte())), max(c.to, int(region.EndByte()))
		}
		best[key] = c
	}
	if q.roots != nil {
		ms := runner.Run(q.q, tree.RootNode(), q.roots)
		for i := range ms.Len() {
			m := sitter.QueryMatch{Captures: ms.Captures(i), PatternIndex: ms.Pattern(i)}
			if m.SatisfiesTextPredicate(q.q, nil, nil, src) {
				add(m.PatternIndex, m.Captures)
			}
		}
	} else {
		cursor := sitter.NewQueryCursor()
		defer cursor.Close()
		matches := cursor.Matches(q.q, tree.RootNode(), src)
		for m := matches.Next(); m != nil; m = matches.Next() {
			add(m.PatternIndex, m.Captures)
		}
	}
	var out []candidate
	for _, c := range best {
		if c.lang != nil && c.end > c.start && len(c.ranges) > 0 {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].from != out[j].from {
			return out[i].from < out[j].from
		}
		return out[i].to > out[j].to
	})
	return out
}

// label is what records say of the region c found in src (Records), the
// region before it ending at prevTo.
func (c candidate) label(src []byte, prevTo int) record.Region {
	first, last := c.ranges[0], c.ranges[len(c.ranges)-1]
	g := record.Region{Start: int(first.StartByte), End: int(last.EndByte),
		From: margin(src, c.from, c.start, prevTo), To: c.to, Language: c.lang.Name}
	if start, end, ok := codeBounds(src, c.ranges); ok {
		g.Start, g.End = start, end
	}
	return g
}

// codeBounds returns the first byte of the ranges that is not white space
// and the end of the last one; ok is false when they hold white space
// alone.
func codeBounds(src []byte, ranges []sitter.Range) (start, end int, ok bool) {
	start, end = -1, -1
	for _, r := range ranges {
		if i := bytes.IndexFunc(src[r.StartByte:r.EndByte], notSpace); i >= 0 {
			start = int(r.StartByte) + i
			break
		}
	}
	for i := len(ranges) - 1; i >= 0 && start >= 0; i-- {
		r := ranges[i]
		if j := bytes.LastIndexFunc(src[r.StartByte:r.EndByte], notSpace); j >= 0 {
			end = int(r.StartByte) + j + 1
			break
		}
	}
	return start, end, start >= 0
}

// margin returns where a region's construct starts for its label: from,
// or the start of from's line when what stands before from on that line
// is the host's margin: white space, or the same text (but for white
// space at its end) as the host puts before the code's first line, which
// the included ranges leave out of every line of the code (a block
// quote's `> `: the markers are the host's, and a chunk of a whole quoted
// fence is the fence's language). The file's BOM is the host's too: the
// first region's construct starts at 0 when only the BOM and white space
// stand before it, so the BOM does not change the label of the first
// chunk. start is where the code's node starts, prevTo where the region
// before ends: the margin never reaches back into it.
func margin(src []byte, from, start, prevTo int) int {
	if prevTo == 0 && bytes.IndexFunc(trimBOM(src[:from]), notSpace) < 0 {
		return 0 // the first region, after a BOM and blank lines
	}
	i := bytes.LastIndexByte(src[prevTo:from], '\n')
	if i < 0 && prevTo > 0 {
		return from // from's line starts inside the region before
	}
	line := prevTo + i + 1
	pre := src[line:from]
	if line == 0 {
		pre = trimBOM(pre)
	}
	if bytes.IndexFunc(pre, notSpace) < 0 {
		return line
	}
	if j := bytes.LastIndexByte(src[from:start], '\n'); j >= 0 {
		code := src[from+j+1 : start] // before the code on its first line
		if bytes.Equal(bytes.TrimRightFunc(pre, isSpace), bytes.TrimRightFunc(code, isSpace)) {
			return line
		}
	}
	return from
}

// trimBOM returns b, the start of a file, without its BOM: the host's
// bytes, before the first node of its tree.
func trimBOM(b []byte) []byte {
	const bom = "\ufeff"
	if len(b) >= len(bom) && string(b[:len(bom)]) == bom {
		return b[len(bom):]
	}
	return b
}

// isSpace reports whether r is ASCII white space, all that labels trim
// (record.File.LanguageAt).
func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

func notSpace(r rune) bool { return !isSpace(r) }

// dropClosing leaves out of a region's ranges a closing delimiter that
// the grammar took for code: the code's last line when it ends the file,
// with no line break after it, and closes the construct that open (the
// @injection.delimiter capture, "" when none) opened. tree-sitter-markdown
// parses a fence's closing ``` at the end of a file without a final
// newline as the fence's content. Its opening delimiter holds the fence's
// indentation (up to three spaces), which is not part of the fence.
func dropClosing(src []byte, ranges []sitter.Range, open string) []sitter.Range {
	open = strings.TrimLeft(open, " ")
	if open == "" || len(ranges) == 0 {
		return ranges
	}
	last := &ranges[len(ranges)-1]
	if int(last.EndByte) != len(src) {
		return ranges
	}
	text := src[last.StartByte:last.EndByte]
	i := bytes.LastIndexByte(text, '\n') + 1
	switch {
	case !closes(text[i:], open):
		return ranges
	case i == 0:
		return ranges[:len(ranges)-1] // the line is all the range holds
	}
	last.EndByte = last.StartByte + uint(i)
	last.EndPoint = sitter.Point{Row: last.EndPoint.Row, Column: 0}
	return ranges
}

// closes reports whether line closes a Markdown fence opened by open, as
// CommonMark says: up to three spaces, then open's character at least as
// many times as open has it, then only spaces and tabs.
func closes(line []byte, open string) bool {
	for n := 0; n < 3 && len(line) > 0 && line[0] == ' '; n++ {
		line = line[1:]
	}
	k := 0
	for k < len(line) && line[k] == open[0] {
		k++
	}
	return k >= len(open) && len(bytes.Trim(line[k:], " \t")) == 0
}

// ranges are the included ranges of a region's content node: the node
// without its named children, as tree-sitter's injections leave out the
// children (a Markdown fence in a block quote leaves out each line's `> `,
// its block_continuation children). Anonymous children are kept: the
// Markdown grammar marks the punctuation in a fence's code so.
func ranges(n sitter.Node) []sitter.Range {
	var out []sitter.Range
	start, startPoint := n.StartByte(), n.StartPosition()
	add := func(end uint, endPoint sitter.Point) {
		if end > start {
			out = append(out, sitter.Range{StartByte: start, EndByte: end, StartPoint: startPoint, EndPoint: endPoint})
		}
	}
	for i := uint(0); i < n.NamedChildCount(); i++ {
		k := n.NamedChild(i)
		if k.EndByte() == k.StartByte() {
			continue // a zero-width mark at each line's start: one range per line made parses quadratic
		}
		add(k.StartByte(), k.StartPosition())
		start, startPoint = k.EndByte(), k.EndPosition()
	}
	add(n.EndByte(), n.EndPosition())
	return out
}
