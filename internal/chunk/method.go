package chunk

import (
	"fmt"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Method describes one chunking method to the rest of castchunk: the
// command line builds its flags from Options, the pipeline makes chunkers
// with New, the cache keys entries with Setup.Key and verify applies its
// tiling rule. A method lives in a package of its own and is listed once,
// in the registry of package method (docs/design.md, "Chunking methods").
type Method struct {
	Name      string // in records and for --method
	Summary   string // one line for --help
	NeedsTree bool   // New's chunkers read the file's syntax tree; otherwise they get nil
	// NeedsDefs: New's chunkers read the file's definitions (Input.Defs),
	// found by the definition queries package outline runs.
	NeedsDefs bool
	// Partial: the chunks cover only part of the file (what the method
	// picks, possibly nothing), in order and never overlapping; gaps are
	// left out. Verify, the pipeline and the cache then check that instead
	// of tiling (CheckPartial).
	Partial bool
	// Pieces: a chunk may be made of several pieces of the file
	// (Span.Pieces); every record of the method carries them (ranges).
	Pieces bool
	// Picks names what a Partial method chunks, for people ("a function"):
	// a run whose files hold none says so.
	Picks   string
	Options []Option // the method's own flags, besides the shared --max-size

	// Check reports option values that cannot work with budget, for
	// people (it names the flags). Nil: every value works.
	Check func(budget int, v Values) error
	// Overlapping reports whether chunks made with v may share text; nil
	// means never, with any values (see MayOverlap). When false, the
	// pipeline checks that the chunks tile the file (unless Partial).
	Overlapping func(v Values) bool
	// New returns a chunker for checked values, one per worker.
	New func(budget int, v Values) Chunker
}

// Option is one integer option of a method, given as --NAME on the
// command line.
type Option struct {
	Name    string
	Default int
	Help    string
}

// Values holds a method's option values by name; a missing name has the
// option's default.
type Values map[string]int

// Chunker turns one file into spans. It may keep buffers between files, so
// each worker owns one; the returned slice is valid until the next call.
type Chunker interface {
	// Chunk splits one file into spans that fit in.Budget.
	Chunk(in Input) []Span
	// Close frees what the chunker holds (C memory included).
	Close()
}

// Input is one file as a chunker sees it.
type Input struct {
	Src  []byte
	Tree *sitter.Tree // the syntax tree when the method NeedsTree, else nil
	// Budget bounds every chunk. Its Size is the run's --max-size less any
	// room kept for a header (--embed-text).
	Budget Budget
	// TokenStarts are the offsets where Src's tokens start, when
	// Budget.Tokens > 0 (see Measure).
	TokenStarts []int32
	// Defs are the file's definitions when the method NeedsDefs, its
	// embedded regions' among them: sorted by Start, of two starting
	// together the longer first (an enclosing one before what it holds).
	Defs []Def
	// Member reports whether n, a member of the type Defs[owner] that is
	// no definition (a field, a constant, a block), is part of its
	// declaration: not private by the file's language (lang.Privacy), and
	// no block of code (an initializer); set with Defs.
	Member func(n *sitter.Node, owner int) bool
	// Embedded are the regions of Src that other trees describe, sorted
	// and apart: code in another language than the file's (a Markdown
	// fence's Rust), parsed by its own grammar over Src's bytes.
	Embedded []Embedded
}

// Def is one definition as a chunker sees it: what it is, in a few roles
// that hold across languages (package outline maps its kinds to them), and
// the byte range of its node, decorators the grammar wraps around it not
// included.
type Def struct {
	Role       Role
	Start, End int
	// Private: the file's language hides it from its public interface
	// (lang.Privacy): declaration chunking leaves it out.
	Private bool
	// Body is the range of its body (a function's block, a class's member
	// list), as package outline finds it (outline.BodyRange): from the end
	// of its header, so that a comment between the header and the body's
	// node (Python's comment above a function's first statement) is the
	// body's, to the body's end; zero when it has none (an interface's
	// method, a prototype) or none is known. What a declaration leaves
	// out, and what Bodies collects.
	Body Piece
	// Block is the range of the body's own node, where a type's members
	// are: Body ends where it does, and starts at it or before it.
	Block Piece
	// Node is the definition's node (the outermost of its range), Parents
	// that node's parent and grandparent, BodyNode its body's node (of
	// range Block), when the finder of the definitions knows them (package
	// outline's ForChunker finds them in one walk): a chunker uses them
	// rather than look the ranges up in the tree, which costs the depth
	// of the node each time (tree-sitter's Node.Parent and
	// DescendantForByteRange start from the root). nil when not known.
	Node     *sitter.Node
	Parents  [2]*sitter.Node
	BodyNode *sitter.Node
}

// Role is what a definition is to a chunker.
type Role uint8

const (
	// RoleOther is any other definition: a variable, a section, a key.
	RoleOther Role = iota
	// RoleFunction is a function, a method or a constructor.
	RoleFunction
	// RoleType is a class, an interface, a struct, an enum, a trait, an
	// impl or an object: what holds methods.
	RoleType
)

// Embedded is a region of a file that its own tree describes: a node of
// Input.Tree whose byte range is [Start, End) is split by the nodes of
// Tree (the children of its root) instead of its own children.
type Embedded struct {
	Start, End int
	Tree       *sitter.Tree
}

// Setup is a method with its budget and option values: everything besides
// a file's bytes (and, for tree methods, its grammar) that decides its
// chunks.
type Setup struct {
	Method *Method
	Budget int
	Values Values
}

// Value returns the value of the named option, or its default.
func (s Setup) Value(name string) int {
	if v, ok := s.Values[name]; ok {
		return v
	}
	for _, o := range s.Method.Options {
		if o.Name == name {
			return o.Default
		}
	}
	return 0
}

// resolved returns every declared option with its value, defaults filled in.
func (s Setup) resolved() Values {
	v := make(Values, len(s.Method.Options))
	for _, o := range s.Method.Options {
		v[o.Name] = s.Value(o.Name)
	}
	return v
}

// Check validates the setup: a budget of at least 1, only declared
// options, and whatever the method requires.
func (s Setup) Check() error {
	if s.Budget < 1 {
		return fmt.Errorf("--max-size must be at least 1, got %d", s.Budget)
	}
	for name := range s.Values {
		if !s.Method.Declares(name) {
			return fmt.Errorf("method %s has no option --%s", s.Method.Name, name)
		}
	}
	if s.Method.Check != nil {
		return s.Method.Check(s.Budget, s.resolved())
	}
	return nil
}

// MayOverlap reports whether some option values make the method's chunks
// share text: verify's tiling rule for a record that names the method.
func (m *Method) MayOverlap() bool { return m.Overlapping != nil }

// Declares reports whether the method has the named option.
func (m *Method) Declares(name string) bool {
	for _, o := range m.Options {
		if o.Name == name {
			return true
		}
	}
	return false
}

// New returns a chunker for the setup, which must have passed Check.
func (s Setup) New() Chunker { return s.Method.New(s.Budget, s.resolved()) }

// Overlapping reports whether the setup's chunks may share text.
func (s Setup) Overlapping() bool {
	return s.Method.Overlapping != nil && s.Method.Overlapping(s.resolved())
}

// CheckSpans checks what the method guarantees of spans over a file of n
// bytes when they do not overlap: that they tile it, or with Partial that
// they are in order and apart (CheckPartial). Sizes are not recounted.
func (m *Method) CheckSpans(spans []Span, n, budget int) error {
	if m.Partial {
		return CheckPartial(spans, n, budget)
	}
	return CheckTiling(spans, n, budget)
}

// Key sums up the setup for a cache key: the method's name, the budget and
// every declared option with its value. It is derived from the declaration,
// so no option can be left out of it.
func (s Setup) Key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "method=%s budget=%d", s.Method.Name, s.Budget)
	for _, o := range s.Method.Options {
		fmt.Fprintf(&b, " %s=%d", o.Name, s.Value(o.Name))
	}
	return b.String()
}
