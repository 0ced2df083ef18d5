package enrich

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/record"
)

// Check double-checks what a cache entry says the options add to the spans
// of the file src at path, before it is used instead of being computed: a
// hit neither parses nor tokenizes, so this is what is left between a
// wrong entry whose checksum holds and the output. It checks, without a
// tree or a tokenizer:
//
//   - one extra per span (none without options), holding only the fields
//     the options ask for;
//   - definitions of the kinds package outline names, on lines the records
//     allow: a scope's in order and not after the chunk's last line, a
//     chunk's defines in order and within its lines; a scope bounded as
//     outline bounds it: at most MaxScope definitions, or their ScopeOuter
//     outermost and ScopeInner innermost with an Elided entry between that
//     counts at least one left out;
//   - headers in the options' format (Options.Header): with Context,
//     exactly the header of the chunk's scope and first line, defining
//     lines read again from src; without, the shape the format allows
//     (HeaderFormat.CheckShape); and header and content within the size
//     budget together;
//   - token counts of at least 1, at most one per byte of the text, and
//     within MaxTokens.
//
// What it cannot check without the parse or the tokenizer, that these are
// the file's definitions and the exact counts, is left to the entry's
// checksum: the spans are checked against the file by the caller.
func (o Options) Check(path string, src []byte, spans []chunk.Span, extras []record.Extra, budget int) error {
	if !o.Any() {
		if extras != nil {
			return fmt.Errorf("extras without options")
		}
		return nil
	}
	if extras == nil || len(extras) != len(spans) {
		return fmt.Errorf("%d extras for %d spans", len(extras), len(spans))
	}
	var first, last lineCursor
	var lines Lines // read only by the formats that show defining lines
	lines.Reset(src)
	for i, s := range spans {
		x := &extras[i]
		if !o.Context && (len(x.Scope) > 0 || len(x.Defines) > 0) {
			return fmt.Errorf("chunk %d: scope or defines without --context", i)
		}
		lo := 0
		if o.Context {
			var hi int
			lo, hi = first.line(src, s.Start), last.line(src, s.End-1)
			if err := checkScope(x.Scope, hi); err != nil {
				return fmt.Errorf("chunk %d (lines %d-%d): scope: %v", i, lo, hi, err)
			}
			if err := checkDefs(x.Defines, lo, hi, -1); err != nil {
				return fmt.Errorf("chunk %d (lines %d-%d): defines: %v", i, lo, hi, err)
			}
		}
		if err := o.checkHeader(x, path, &lines, lo); err != nil {
			return fmt.Errorf("chunk %d: %v", i, err)
		}
		if chunk.Size([]byte(x.Header))+s.Size > budget {
			return fmt.Errorf("chunk %d: header and content over the budget of %d", i, budget)
		}
		if err := o.checkTokens(x, s); err != nil {
			return fmt.Errorf("chunk %d: %v", i, err)
		}
	}
	return nil
}

// checkHeader checks a chunk's header against the options and the path:
// with Context, it must be the header of the chunk's scope, the chunk
// starting on line first of the file whose lines are lines.
func (o Options) checkHeader(x *record.Extra, path string, lines *Lines, first int) error {
	switch {
	case !o.Text && x.Header != "":
		return fmt.Errorf("a header without --embed-text")
	case !o.Text:
		return nil
	case !o.Header.valid():
		return fmt.Errorf("unknown header format %q", o.Header)
	case !o.Context:
		return o.Header.CheckShape(x.Header, path)
	}
	want := o.Header.build(path, len(x.Scope), func(i int) (string, string, int) { return x.Scope[i].Kind, x.Scope[i].Name, x.Scope[i].Line }, lines, first)
	if x.Header != want {
		return fmt.Errorf("header %q is not that of its scope, %q", x.Header, want)
	}
	return nil
}

// CheckShape checks what can be told of a header in format f without the
// chunk's scope (verify's records without --context; a cache entry made
// without it): the path's line, then at most the lines f adds, none of
// them empty: for ScopeHeader and NamesHeader one scope line (of "kind
// name" entries for ScopeHeader); for SignatureHeader that line and a
// defining line of at most MaxLine bytes; for LinesHeader up to one line
// per scope entry, each a defining line of at most MaxLine bytes or an
// elided count; for PathHeader none.
func (f HeaderFormat) CheckShape(header, path string) error {
	rest, ok := strings.CutPrefix(header, Header(path, nil))
	if !ok {
		return fmt.Errorf("header %q does not start with the path's line", header)
	}
	if rest == "" {
		return nil
	}
	body, ok := strings.CutSuffix(rest, "\n")
	lines := strings.Split(body, "\n")
	if !ok || slices.Contains(lines, "") {
		return fmt.Errorf("header %q: an empty line, or no line break at its end", header)
	}
	f = f.named()
	if most := f.mostLines(); len(lines) > most {
		return fmt.Errorf("header %q: after the path's line, %d lines; the %s format has at most %d", header, len(lines), f, most)
	}
	if (f == ScopeHeader || f == SignatureHeader) && !strings.Contains(lines[0], " ") {
		return fmt.Errorf("header %q: the scope line is not of kinds and names", header)
	}
	defining := lines[min(1, len(lines)):] // SignatureHeader's
	if f == LinesHeader {
		defining = lines
	}
	for _, l := range defining {
		if len(l) > MaxLine {
			return fmt.Errorf("header %q: a defining line longer than %d bytes", header, MaxLine)
		}
	}
	return nil
}

// mostLines is the most lines f adds after the path's.
func (f HeaderFormat) mostLines() int {
	switch f.named() {
	case PathHeader:
		return 0
	case SignatureHeader:
		return 2
	case LinesHeader:
		return outline.MaxScope + 1
	}
	return 1
}

// checkTokens checks a chunk's token count against the options and the
// length of its text.
func (o Options) checkTokens(x *record.Extra, s chunk.Span) error {
	switch {
	case o.Encoding == nil && x.Tokens != 0:
		return fmt.Errorf("a token count without --tokenizer")
	case o.Encoding == nil:
		return nil
	case x.Tokens < 1 || x.Tokens > len(x.Header)+s.End-s.Start:
		return fmt.Errorf("%d tokens for %d bytes", x.Tokens, len(x.Header)+s.End-s.Start)
	case o.MaxTokens > 0 && x.Tokens > o.MaxTokens:
		return fmt.Errorf("%d tokens, over --max-tokens %d", x.Tokens, o.MaxTokens)
	}
	return nil
}

// checkScope checks a chunk's scope: definitions of known kinds, in order
// of line, not after the chunk's last line hi, bounded as outline bounds
// them (outline.MaxScope, outline.Elided).
func checkScope(scope []record.Def, hi int) error {
	switch n := len(scope); {
	case n > outline.MaxScope+1:
		return fmt.Errorf("%d entries, over the bound of %d", n, outline.MaxScope+1)
	case n == outline.MaxScope+1:
		d := scope[outline.ScopeOuter]
		if k, err := strconv.Atoi(d.Name); d.Kind != outline.Elided || err != nil || k < 1 || strconv.Itoa(k) != d.Name {
			return fmt.Errorf("%d entries, and entry %d is not an %s count: %s %q", n, outline.ScopeOuter, outline.Elided, d.Kind, d.Name)
		}
		return checkDefs(scope, 1, hi, outline.ScopeOuter)
	}
	return checkDefs(scope, 1, hi, -1)
}

// checkDefs checks that definitions are of known kinds, in order of line,
// on lines lo to hi; the one at elided (-1: none) is an outline.Elided
// entry.
func checkDefs(defs []record.Def, lo, hi, elided int) error {
	prev := lo
	for i, d := range defs {
		if i != elided && !outline.IsKind(d.Kind) {
			return fmt.Errorf("unknown kind %q", d.Kind)
		}
		if d.Line < prev || d.Line > hi {
			return fmt.Errorf("%s %s on line %d, out of order or out of lines %d-%d", d.Kind, d.Name, d.Line, lo, hi)
		}
		prev = d.Line
	}
	return nil
}

// lineCursor tells the line of byte offsets, counting line breaks from
// the offset it was last asked, so that offsets asked in order cost one
// pass over the file.
type lineCursor struct {
	pos, breaks int // breaks: line breaks before pos
}

// line returns the 1-based line of src[off].
func (c *lineCursor) line(src []byte, off int) int {
	if off >= c.pos {
		c.breaks += bytes.Count(src[c.pos:off], []byte{'\n'})
	} else {
		c.breaks -= bytes.Count(src[off:c.pos], []byte{'\n'})
	}
	c.pos = off
	return c.breaks + 1
}
