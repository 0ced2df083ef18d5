package enrich

import (
	"bytes"
	"fmt"
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
//   - headers that start with the path's line, then at most the scope's
//     line; with Context, exactly the header of the chunk's scope; and
//     header and content within the size budget together;
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
	pathLine := Header(path, nil)
	var first, last lineCursor
	for i, s := range spans {
		x := &extras[i]
		if !o.Context && (len(x.Scope) > 0 || len(x.Defines) > 0) {
			return fmt.Errorf("chunk %d: scope or defines without --context", i)
		}
		if o.Context {
			lo, hi := first.line(src, s.Start), last.line(src, s.End-1)
			if err := checkScope(x.Scope, hi); err != nil {
				return fmt.Errorf("chunk %d (lines %d-%d): scope: %v", i, lo, hi, err)
			}
			if err := checkDefs(x.Defines, lo, hi, -1); err != nil {
				return fmt.Errorf("chunk %d (lines %d-%d): defines: %v", i, lo, hi, err)
			}
		}
		if err := o.checkHeader(x, pathLine, path); err != nil {
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

// checkHeader checks a chunk's header against the options and the path.
func (o Options) checkHeader(x *record.Extra, pathLine, path string) error {
	if !o.Text {
		if x.Header != "" {
			return fmt.Errorf("a header without --embed-text")
		}
		return nil
	}
	if o.Context {
		want := header(path, len(x.Scope), func(i int) (string, string) { return x.Scope[i].Kind, x.Scope[i].Name })
		if x.Header != want {
			return fmt.Errorf("header %q is not that of its scope, %q", x.Header, want)
		}
		return nil
	}
	rest, ok := strings.CutPrefix(x.Header, pathLine)
	if !ok {
		return fmt.Errorf("header %q does not start with the path's line", x.Header)
	}
	if rest != "" && (strings.IndexByte(rest, '\n') != len(rest)-1 || !strings.Contains(rest, " ")) {
		return fmt.Errorf("header %q: after the path's line, more than one scope line", x.Header)
	}
	return nil
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
