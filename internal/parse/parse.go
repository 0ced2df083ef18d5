// Package parse owns the tree-sitter parser: one Parser per worker, reused
// for every file, with a per-file timeout and cancellation.
//
// The parse itself goes through tree-sitter's C API, by way of the bridge
// package tsc/source, instead of the binding's Parse: the source is pinned once and
// tree-sitter reads it in place, and the deadline and cancel checks run in
// C (see tsc/source for why). The C allocator is set back to libc's once
// (docs/design.md, "Facts about the parts").
package parse

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/tsc/source"
)

// ErrTimeout is returned when a parse runs past its timeout.
var ErrTimeout = errors.New("parse timed out")

// ErrScannerState is returned when the grammar's external scanner needed
// more room for its state than tree-sitter gives it (deep nesting: a line
// of hundreds of nested Markdown block quotes or YAML sequences). The
// scanner never overruns tree-sitter's memory (package tsc/source guards it), and
// the file is chunked without its tree.
var ErrScannerState = errors.New("nesting too deep for the grammar (its scanner's state outgrew tree-sitter's 1,024 bytes)")

// ErrTooMuchWork is returned, wrapped with the bound passed, when a parse
// lexed the file more than 1,024 times over, or its grammar's scanner
// worked on its state more than 256 times the file's length: an input on
// which the grammar goes quadratic (a Markdown line of tens of thousands
// of stars, deeply nested Scala parentheses or HTML elements). The bounds
// depend on the file alone, so the outcome is the same on every machine;
// the file is chunked without its tree.
var ErrTooMuchWork = errors.New("the parse gave up")

// Why a parse gave up, after ErrTooMuchWork.
var (
	errStateMemory = fmt.Errorf("%w: no memory for the grammar scanner's state buffer (8 bytes per byte of the file)", ErrTooMuchWork)
	errOverLexed   = fmt.Errorf("%w: it lexed the file over 1,024 times (an input this grammar handles in quadratic time)", ErrTooMuchWork)
	errOverScanned = fmt.Errorf("%w: its scanner rebuilt its state over 256 times the file's length (nesting this grammar handles in quadratic time)", ErrTooMuchWork)
)

// ErrCancelled is returned when Cancel stopped a parse.
var ErrCancelled = errors.New("parse cancelled")

var allocatorOnce sync.Once

// Parser parses files one at a time. It is owned by one goroutine; only
// Cancel may be called from another.
type Parser struct {
	parser  *sitter.Parser
	current *lang.Language
	src     *source.Source // C memory: tree-sitter keeps a pointer to it while parsing
	timeout time.Duration
	stopped atomic.Bool
	mu      sync.Mutex // orders Cancel against Close, which frees src
}

// New returns a parser whose parses give up after timeout (0: never).
func New(timeout time.Duration) *Parser {
	allocatorOnce.Do(source.UseLibcAllocator)
	return &Parser{parser: sitter.NewParser(), src: source.NewSource(), timeout: timeout}
}

// Close frees the parser's C memory.
func (p *Parser) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.parser.Close()
	p.src.Free()
	p.src = nil
}

// Cancel stops the parse under way, and every later one, with ErrCancelled.
// It may be called from any goroutine, even after Close.
func (p *Parser) Cancel() {
	p.stopped.Store(true)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.src != nil {
		p.src.Cancel()
	}
}

// Parse parses src as language l. The caller must Close the tree.
func (p *Parser) Parse(src []byte, l *lang.Language) (*sitter.Tree, error) {
	if p.stopped.Load() {
		return nil, ErrCancelled
	}
	if len(src) > math.MaxUint32 {
		return nil, fmt.Errorf("file of %d bytes is too large to parse", len(src))
	}
	if p.current != l {
		stackCountAt := -1
		switch {
		case l.HTMLScanner:
			stackCountAt = source.HTMLTagCount
		case l.XMLScanner:
			stackCountAt = source.XMLTagCount
		}
		if err := p.src.SetLanguage(p.parser, l.Grammar(), stackCountAt); err != nil {
			return nil, fmt.Errorf("load %s grammar: %w", l.Name, err)
		}
		p.current = l
	}
	tree := p.src.Parse(p.parser, src, p.timeout)
	if tree == nil && (p.src.Overflowed() || p.src.Overworked()) {
		// Given up on in the middle of a scan: resetting the parser is not
		// enough (the next file's parse failed tree-sitter's assertion on
		// its finished tree, found by make fuzz-grammars), so the next
		// file gets a parser of its own.
		p.renew()
		if p.src.OutOfMemory() {
			return nil, errStateMemory
		}
		if p.src.Overflowed() {
			return nil, ErrScannerState
		}
		if p.src.OverScanned() {
			return nil, errOverScanned
		}
		return nil, errOverLexed
	}
	if tree == nil {
		// tree-sitter keeps the state of an abandoned parse to resume it;
		// we never resume, so drop it before the next file.
		source.ResetParser(p.parser)
		if p.stopped.Load() {
			return nil, ErrCancelled
		}
		return nil, ErrTimeout
	}
	return tree, nil
}

// renew replaces the parser by a new one, the grammar to be set again.
func (p *Parser) renew() {
	p.parser.Close()
	p.parser = sitter.NewParser()
	p.current = nil
}

// ParseRanges parses only the ranges of src, as language l (tree-sitter's
// included ranges): the tree's offsets are src's, and what lies between the
// ranges is not seen. An embedded region (a Markdown fence's code, an HTML
// <script>) is parsed so. The ranges must be sorted and not overlap. The
// caller must Close the tree.
func (p *Parser) ParseRanges(src []byte, l *lang.Language, ranges []sitter.Range) (*sitter.Tree, error) {
	if err := p.parser.SetIncludedRanges(ranges); err != nil {
		return nil, fmt.Errorf("embedded %s: %w", l.Name, err)
	}
	defer func() { p.parser.SetIncludedRanges(nil) }() // the next parse reads the whole text (on the parser a give-up renewed)
	seen := 0
	for _, r := range ranges {
		seen += int(r.EndByte - r.StartByte)
	}
	p.src.SetSeen(seen) // the work bounds are the region's own
	defer p.src.SetSeen(0)
	return p.Parse(src, l)
}

// ReleaseMemory hands memory that freed trees left in the C heap back to
// the operating system. A big file's tree takes tens of bytes per byte of
// source; without this, glibc keeps that memory after the tree is freed and
// the next big file, parsed on another thread's arena, takes as much again.
func ReleaseMemory() { source.ReleaseMemory() }
