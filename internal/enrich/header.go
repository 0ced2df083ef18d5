package enrich

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/outline"
)

// HeaderFormat names what the embedding text's header holds after the
// path's line (docs/design.md, "Chunks ready to embed"). The zero value is
// ScopeHeader, the one format there was before formats had names, so
// options made without a format keep their headers and their cache keys.
type HeaderFormat string

// The header formats, in the order HeaderFormats lists them. Every header
// starts with the path's line; a scope is the chunk's bounded chain
// (outline.Index.Scope), and its elided entry is written "elided N" in
// every format.
const (
	// ScopeHeader: the scope chain, "class App > method handle".
	ScopeHeader HeaderFormat = "scope"
	// PathHeader: the path's line alone.
	PathHeader HeaderFormat = "path"
	// NamesHeader: the scope's names without their kinds, "App > handle".
	NamesHeader HeaderFormat = "names"
	// SignatureHeader: the scope chain, then the defining line of the
	// innermost definition when it lies above the chunk.
	SignatureHeader HeaderFormat = "signature"
	// LinesHeader: the defining line of each definition of the scope that
	// lies above the chunk, outermost first, a line shared by several once.
	LinesHeader HeaderFormat = "lines"
)

// DefaultHeader is the format castchunk chunk and castchunk verify use
// when --embed-header is not given. It is not the zero value's meaning:
// changing it changes what the commands ask for, not what Options{} means,
// so the cache keys of entries made before stay those of their format.
const DefaultHeader = ScopeHeader

// HeaderChoice is a header format with a one-line summary, for help texts.
type HeaderChoice struct {
	Name    HeaderFormat
	Summary string
}

// HeaderFormats returns the header formats in order, each with its
// summary (a new slice on every call).
func HeaderFormats() []HeaderChoice {
	return []HeaderChoice{
		{ScopeHeader, "the path, then the scope chain: class App > method handle"},
		{PathHeader, "the path alone"},
		{NamesHeader, "the path, then the scope's names: App > handle"},
		{SignatureHeader, "the path, the scope chain, then the innermost definition's defining line when it is above the chunk"},
		{LinesHeader, "the path, then the defining line of each enclosing definition above the chunk, outermost first"},
	}
}

// ParseHeader returns the header format named name; "" is ScopeHeader.
func ParseHeader(name string) (HeaderFormat, error) {
	f := HeaderFormat(name)
	if !f.valid() {
		var names []string
		for _, c := range HeaderFormats() {
			names = append(names, string(c.Name))
		}
		return "", fmt.Errorf("unknown header format %q: want one of %s", name, strings.Join(names, ", "))
	}
	return f.named(), nil
}

// named returns f with the zero value spelled out as ScopeHeader.
func (f HeaderFormat) named() HeaderFormat {
	if f == "" {
		return ScopeHeader
	}
	return f
}

// valid reports whether f is one of HeaderFormats (or the zero value).
func (f HeaderFormat) valid() bool {
	for _, c := range HeaderFormats() {
		if c.Name == f.named() {
			return true
		}
	}
	return false
}

// needsScope reports whether f's headers name the scope: all but
// PathHeader.
func (f HeaderFormat) needsScope() bool { return f.named() != PathHeader }

// needsLines reports whether f's headers hold defining lines.
func (f HeaderFormat) needsLines() bool {
	f = f.named()
	return f == SignatureHeader || f == LinesHeader
}

// what names what f's header holds, for the error of a header too long.
func (f HeaderFormat) what() string {
	switch f.named() {
	case PathHeader:
		return "path"
	case NamesHeader:
		return "path and scope names"
	case SignatureHeader:
		return "path, scope and defining line"
	case LinesHeader:
		return "path and defining lines"
	}
	return "path and scope"
}

// Build returns the header, in format f, of a chunk of the file at path
// whose scope is scope (bounded, as outline.Index.Scope gives it) and
// whose first byte is on line first; lines are the file's (only
// SignatureHeader and LinesHeader read them; nil: no defining line).
//
// A definition's defining line is shown only when it lies above the
// chunk's first line: the scope's definitions start before the chunk's
// first non-whitespace byte, so a chunk that begins on a definition's line
// (mid-line, as minified code is cut) already holds that line's text from
// where it starts, and a whole file on one line would otherwise repeat its
// first bytes in every header.
func (f HeaderFormat) Build(path string, scope []outline.Def, lines *Lines, first int) string {
	return f.build(path, len(scope), func(i int) (string, string, int) { return scope[i].Kind, scope[i].Name, scope[i].Line }, lines, first)
}

// build is Build with the scope's n entries given by def: entry i's kind,
// name and line.
func (f HeaderFormat) build(path string, n int, def func(i int) (kind, name string, line int), lines *Lines, first int) string {
	var b strings.Builder
	b.WriteString(oneLine(path))
	b.WriteByte('\n')
	switch f.named() {
	case ScopeHeader:
		writeChain(&b, n, def, true)
	case NamesHeader:
		writeChain(&b, n, def, false)
	case SignatureHeader:
		writeChain(&b, n, def, true)
		if n > 0 {
			if _, _, line := def(n - 1); line < first {
				writeLine(&b, lines.Defining(line))
			}
		}
	case LinesHeader:
		prev := 0 // the line of the entry before, 0 after the elided one
		for i := range n {
			kind, name, line := def(i)
			switch {
			case kind == outline.Elided:
				writeLine(&b, kind+" "+name)
				prev = 0
				continue
			case line < first && line != prev:
				writeLine(&b, lines.Defining(line))
			}
			prev = line
		}
	}
	return b.String()
}

// writeChain writes a scope line: the n entries, outermost first, joined
// by " > ", each "kind name" (its name alone without kinds, but for the
// elided entry's "elided N"), then a line break; nothing when n is 0.
func writeChain(b *strings.Builder, n int, def func(i int) (kind, name string, line int), kinds bool) {
	for i := range n {
		if i > 0 {
			b.WriteString(" > ")
		}
		kind, name, _ := def(i)
		if kinds || kind == outline.Elided {
			b.WriteString(kind)
			b.WriteByte(' ')
		}
		b.WriteString(name)
	}
	if n > 0 {
		b.WriteByte('\n')
	}
}

// writeLine writes s as a line of its own, and nothing when it is empty.
func writeLine(b *strings.Builder, s string) {
	if s != "" {
		b.WriteString(s)
		b.WriteByte('\n')
	}
}

// MaxLine is the longest defining line a header holds, in bytes, the
// ellipsis of a line cut short included.
const MaxLine = 120

// ellipsis ends a defining line cut short.
const ellipsis = "…"

// longLine is the length from which a line's defining line is kept once
// computed: trimming a line costs the white space at its ends, and a line
// of a megabyte of it would be trimmed again for every chunk inside its
// definition.
const longLine = 4096

// Lines gives a file's defining lines by line number (Defining). It
// indexes the file's line starts on first use, an int a line, and is not
// safe for concurrent use; the zero value is a file with no lines.
type Lines struct {
	src     []byte
	starts  []int // where each line starts; built on first use
	indexed bool
	long    map[int]string // the defining lines of long lines, once computed
	last    int            // the line last asked for, 0: none
	lastDef string         // its defining line
}

// Reset makes l the lines of src, keeping its memory.
func (l *Lines) Reset(src []byte) {
	l.src, l.starts, l.indexed, l.last, l.lastDef = src, l.starts[:0], false, 0, ""
	clear(l.long)
}

// index builds the line starts: one pass over the file.
func (l *Lines) index() {
	if l.indexed {
		return
	}
	l.indexed = true
	l.starts = append(l.starts[:0], 0)
	for i := 0; ; {
		j := bytes.IndexByte(l.src[i:], '\n')
		if j < 0 {
			return
		}
		i += j + 1
		l.starts = append(l.starts, i)
	}
}

// LineOf returns the 1-based line of the byte at off (design: a line ends
// at "\n", which belongs to it).
func (l *Lines) LineOf(off int) int {
	l.index()
	return sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off })
}

// Defining returns the defining line of line n (1-based) of the file: the
// line as the file has it, without its line break, white space
// (unicode.IsSpace, as the size metric) trimmed at both ends, a BOM at the
// file's start left out, and a lone "\r" (not a line break to castchunk,
// but to many readers) written as a space. A line of more than MaxLine
// bytes is cut at a character boundary to at most MaxLine bytes with its
// ellipsis: its first bytes, white space trimmed at the cut, then "…". A
// line out of the file's range, or of white space alone, gives "".
func (l *Lines) Defining(n int) string {
	if l == nil {
		return ""
	}
	l.index()
	if n < 1 || n > len(l.starts) {
		return ""
	}
	if n == l.last {
		return l.lastDef
	}
	lo, hi := l.starts[n-1], len(l.src)
	if n < len(l.starts) {
		hi = l.starts[n] - 1
	}
	s, ok := l.long[n]
	if !ok {
		s = definingLine(l.src[lo:hi], lo == 0)
		if hi-lo >= longLine {
			if l.long == nil {
				l.long = map[int]string{}
			}
			l.long[n] = s
		}
	}
	l.last, l.lastDef = n, s
	return s
}

// definingLine is the defining line of the text of one line (Defining);
// first: the file's first line, which may start with a BOM.
func definingLine(line []byte, first bool) string {
	if first {
		line = bytes.TrimPrefix(line, []byte("\uFEFF"))
	}
	line = bytes.TrimSpace(line)
	if len(line) <= MaxLine {
		return oneLine(string(line))
	}
	i := MaxLine - len(ellipsis)
	for i > 0 && !utf8.RuneStart(line[i]) {
		i--
	}
	return oneLine(string(bytes.TrimRightFunc(line[:i], unicode.IsSpace))) + ellipsis
}
