// Package outline finds the definitions of a parsed file (language
// knowledge from internal/lang's query files) and answers, language-blind,
// which enclose a chunk and which start inside it.
//
// A definition is a named node that a reader would name as "where am I":
// a class, a function, a Markdown section, a TOML table. Each language's
// query (lang.Language.DefinitionQuery, tree-sitter's tags.scm convention)
// captures the node as @definition.KIND, KIND one of Kinds, and its name as
// @name. Beyond tags.scm:
//
//   - Several @name captures in one match name the text from the first
//     one's start to the last one's end ("impl Display for Ini" captures the
//     trait and the type: the name is "Display for Ini"; a CSS at-rule
//     captures its keyword and its query: "@media (max-width: 600px)").
//   - A @qualifier capture is put before the name with a dot: a Go method
//     is named "Type.Method" from its receiver's type, since nothing else
//     in its scope says which type it belongs to.
//   - A @name.json capture is a JSON string, quotes included: the name is
//     its value, escapes decoded (`"p\"q"` is named p"q, `"caf\u00e9"`
//     café), then cleaned as any name. tree-sitter-json splits a string's
//     content around its escape_sequence nodes, so a query capturing the
//     content would name the key by the text up to its first escape.
//   - A @name.string capture is a string literal of code, its quotes
//     included (a test's description, `describe('parser', …)`): the name is
//     the text between the quotes, escapes as written.
//   - A @name.markdown capture is a Markdown heading's inline text: the
//     name is its plain words (`## [1.2.3](https://…) - 2024-05-01` is
//     "1.2.3 - 2024-05-01"), without link, emphasis or code markup.
//   - Several @definition.KIND captures in one match make one definition,
//     from the first node's start to the last one's end: Dart's grammar
//     makes a method's signature and its body siblings, so a query
//     captures both (`(method_signature …) @definition.method .
//     (function_body) @definition.method`) and a chunk in the body is in
//     the method.
//   - Captures whose names start with "_" only feed predicates.
//
// What is not a definition: anonymous things (lambdas, callbacks, anonymous
// classes), local variables (a value inside a function is not a place a
// reader names), declarations without a body except where a header is the
// definition (C prototypes, interface method signatures), and anything
// whose name is empty. Module-level variables and constants of any value
// are (kind variable: `export const schema = z.object({…})` is where a
// reader is), and so are test blocks (kind test, named by their
// description: `describe('parser', () => {…})`). A JavaScript module's
// anonymous default export is named default, as the language names it. A function or lambda expression bound
// to a name (JavaScript `const f = () => {}`, Lua `local f = function()`) is
// a function of that name. A function whose innermost enclosing definition
// is a class, interface, struct, enum, trait, impl or object is a method,
// whatever the query called it (Find does this, language-blind); elsewhere
// (top level, nested in a function or module) it is what the query says.
//
// Def.Start is the start of the defining node itself, not of its
// decorators or annotations when the grammar wraps them around it (Python's
// decorated_definition): a chunk that begins on a decorator line is not
// inside the function it decorates, as in Python's own ast (a def's lineno
// is its `def` line).
package outline

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/tsc/match"
)

// Kinds is the vocabulary of definition kinds, each with its meaning. It is
// small on purpose: a kind says what sort of place a chunk is in, across
// languages, so near-synonyms share one (a Java record is a class, a C union
// a struct, a C# record struct a struct).
var Kinds = []struct{ Kind, Meaning string }{
	{"module", "a named module: Ruby module, Rust mod, TypeScript `declare module`"},
	{"namespace", "a namespace: C++, C#, PHP, TypeScript namespace"},
	{"class", "a class, Java/C# records and Ruby Struct.new classes included"},
	{"interface", "an interface or protocol: Java, C#, Go, TypeScript, PHP, Kotlin"},
	{"struct", "a record type with fields: C/C++/Rust/Go/C# struct, C/Rust union"},
	{"enum", "an enumeration"},
	{"trait", "a trait or mixin: Rust, Scala, PHP trait"},
	{"impl", "a Rust impl block, named by its type (\"Trait for Type\"); a Swift or Dart extension, a Haskell instance, an Elixir defimpl"},
	{"object", "a singleton object: Scala/Kotlin object, Kotlin companion object"},
	{"function", "a function not directly in a type's body, including named lambdas"},
	{"method", "a function whose innermost enclosing definition is a type; Go methods (\"Type.Name\")"},
	{"constructor", "a constructor the grammar tells apart (Java, C#, Kotlin, JS/TS `constructor`)"},
	{"property", "a property with accessors (C#)"},
	{"type", "a type alias or typedef"},
	{"macro", "a macro: C/C++ #define, Rust macro_rules!"},
	{"section", "a Markdown section, named by its heading, nested by level"},
	{"table", "a TOML table or array-of-tables element, named by its key; an HCL block, named by its type and labels"},
	{"key", "a JSON/YAML key whose value is an object/mapping or array/sequence"},
	{"rule", "a CSS rule set (named by its selectors) or at-rule block (@media …); a make rule (by its targets); a Bazel target or rule"},
	{"element", "an HTML element with an id attribute, named by the id; an XML element holding elements, named by its tag"},
	{"variable", "a module-level variable or constant of any value: JS/TS const/let/var, Python assignment, Go var/const, Rust const/static"},
	{"test", "a test block, named by its description: JS/TS describe/it/test, Ruby RSpec describe/context/it"},
	{"component", "a Vue or Svelte single-file component: the whole file, named by its file name without its extension (FileDef)"},
}

// Def is one definition in a file.
type Def struct {
	Kind       string // from Kinds
	Name       string // the defined name, whitespace runs collapsed to one space, at most MaxName bytes
	Start, End int    // byte range of the definition's node
	Line       int    // 1-based line of Start
	// NameStart is where its name starts in the file (its first @name
	// capture): what comes between Start and it is its modifiers.
	NameStart int
	// Private: the language's rule hides it (Declare; lang.Privacy).
	Private bool
	// BodyStart and BodyEnd are the range of its body (Declare,
	// BodyRange): from the end of its header to its body's end; both 0
	// when it has none. BlockStart and BlockEnd are the range of the
	// body's own node.
	BodyStart, BodyEnd   int
	BlockStart, BlockEnd int
}

// MaxName is the longest name kept, in bytes: a CSS selector list or a
// generated key can be a paragraph long, and a record should stay small.
const MaxName = 200

// Finder computes definitions. It is owned by one goroutine (a worker): it
// caches each language's compiled query and reuses its query cursors.
type Finder struct {
	cursor  *sitter.QueryCursor // for queries run over the whole tree
	runner  *match.Runner       // for queries run at their roots' nodes
	queries map[*lang.Language]*compiled
	caps    []capture
	// OneOff, when set, runs each query's compilation: a worker process
	// exempts it from the deadline of the file that first needs it
	// (supervise.Conn.Exempt).
	OneOff func(func())
}

// NewFinder returns a Finder; Close frees its C memory.
func NewFinder() *Finder {
	return &Finder{cursor: sitter.NewQueryCursor(), runner: match.NewRunner(), queries: map[*lang.Language]*compiled{}}
}

// Close frees the compiled queries and the cursors.
func (f *Finder) Close() {
	for _, q := range f.queries {
		q.query.Close()
	}
	f.queries = nil
	f.cursor.Close()
	f.runner.Close()
}

// compiled is a language's query with the role of each capture resolved
// once, so a match is read without comparing strings.
type compiled struct {
	query *sitter.Query
	role  []role   // by capture index
	kind  []string // by capture index, for roleDef
	// roots marks, by node symbol, the nodes where a pattern can start
	// (RootSymbols); nil when some pattern's root is not known, and the
	// query runs over the whole tree.
	roots []byte
	// predicates marks the patterns with text predicates (#eq? and the
	// like), by pattern index.
	predicates []bool
}

type role uint8

const (
	roleIgnore role = iota
	roleDef
	roleName
	roleNameJSON     // a @name.json capture: a JSON string literal
	roleNameString   // a @name.string capture: a string literal of code
	roleNameMarkdown // a @name.markdown capture: a Markdown heading's inline text
	roleQualifier
)

// compile compiles a language's definition query and checks its captures:
// every @definition.KIND must use a kind from Kinds, and no other capture
// name may appear except @name, @name.json, @name.string, @name.markdown,
// @qualifier and "_"-prefixed ones.
func compile(l *lang.Language) (*compiled, error) {
	q, qerr := sitter.NewQuery(l.Grammar(), l.DefinitionQuery())
	if qerr != nil {
		return nil, fmt.Errorf("%s definition query: %w", l.Name, qerr)
	}
	c := &compiled{query: q}
	for _, name := range q.CaptureNames() {
		r, kind, err := captureRole(name)
		if err != nil {
			q.Close()
			return nil, fmt.Errorf("%s definition query: %w", l.Name, err)
		}
		c.role = append(c.role, r)
		c.kind = append(c.kind, kind)
	}
	c.roots = RootSymbols(l.Grammar(), q, l.DefinitionQuery())
	c.predicates = make([]bool, q.PatternCount())
	for i := range c.predicates {
		c.predicates[i] = len(q.TextPredicates[i]) > 0
	}
	return c, nil
}

func captureRole(name string) (role, string, error) {
	switch {
	case name == "name":
		return roleName, "", nil
	case name == "name.json":
		return roleNameJSON, "", nil
	case name == "name.string":
		return roleNameString, "", nil
	case name == "name.markdown":
		return roleNameMarkdown, "", nil
	case name == "qualifier":
		return roleQualifier, "", nil
	case strings.HasPrefix(name, "_"):
		return roleIgnore, "", nil
	case strings.HasPrefix(name, "definition."):
		kind := strings.TrimPrefix(name, "definition.")
		if !IsKind(kind) {
			return 0, "", fmt.Errorf("capture @%s: %q is not in outline.Kinds", name, kind)
		}
		return roleDef, kind, nil
	}
	return 0, "", fmt.Errorf("capture @%s: want @definition.KIND, @name, @name.json, @name.string, @name.markdown, @qualifier or @_x", name)
}

// IsKind reports whether kind is in Kinds.
func IsKind(kind string) bool {
	for _, k := range Kinds {
		if k.Kind == kind {
			return true
		}
	}
	return false
}

// oneOff runs f through run, or directly when run is nil.
func oneOff(run func(func()), f func()) {
	if run == nil {
		f()
		return
	}
	run(f)
}

func (f *Finder) query(l *lang.Language) (*compiled, error) {
	if c, ok := f.queries[l]; ok {
		return c, nil
	}
	var c *compiled
	var err error
	oneOff(f.OneOff, func() { c, err = compile(l) })
	if err != nil {
		return nil, err
	}
	f.queries[l] = c
	return c, nil
}

// found is a Def with the index of the pattern that found it, to let the
// first pattern win when several match one node.
type found struct {
	Def
	pattern uint
}

// Find returns the file's definitions sorted by Start ascending, End
// descending (outer before inner), deduplicated: one Def per byte range,
// from the first pattern (in query order) that matched it. That is how a
// query says "a def in a class body is a method": the method pattern comes
// before the general function pattern.
//
// The query runs only at the nodes where its patterns can start (package
// match), which finds the matches of the query run over the whole tree at
// a fraction of the cost; a query with a pattern whose root RootSymbols
// cannot tell runs over the whole tree.
func (f *Finder) Find(l *lang.Language, src []byte, tree *sitter.Tree) ([]Def, error) {
	c, err := f.query(l)
	if err != nil {
		return nil, err
	}
	if c.roots == nil {
		return f.findWhole(c, src, tree), nil
	}
	root := tree.RootNode()
	ms := f.runner.Run(c.query, root, c.roots)
	var all []found
	for i := range ms.Len() {
		pattern := ms.Pattern(i)
		captures := ms.Captures(i)
		if c.predicates[pattern] {
			m := sitter.QueryMatch{Captures: captures, PatternIndex: pattern}
			if !m.SatisfiesTextPredicate(c.query, nil, nil, src) {
				continue
			}
		}
		caps := f.caps[:0]
		for j, sp := range ms.Spans(i) {
			caps = append(caps, capture{index: captures[j].Index, start: int(sp.Start), end: int(sp.End), row: int(sp.Row)})
		}
		f.caps = caps
		if d, ok := c.read(pattern, caps, src); ok {
			all = append(all, d)
		}
	}
	defs := sortDedup(all)
	markMethods(defs)
	return defs, nil
}

// findWhole runs the query over the whole tree with a query cursor, as
// tree-sitter's tags do. Find does so for a query whose roots are not known;
// the tests compare it with Find on every file at hand.
func (f *Finder) findWhole(c *compiled, src []byte, tree *sitter.Tree) []Def {
	root := tree.RootNode()
	var all []found
	matches := f.cursor.Matches(c.query, root, src)
	for m := matches.Next(); m != nil; m = matches.Next() {
		caps := f.caps[:0]
		for i := range m.Captures {
			cp := &m.Captures[i]
			k := capture{index: cp.Index}
			switch c.role[cp.Index] {
			case roleIgnore:
				continue
			case roleDef:
				k.row = int(cp.Node.StartPosition().Row)
			}
			k.start, k.end = int(cp.Node.StartByte()), int(cp.Node.EndByte())
			caps = append(caps, k)
		}
		f.caps = caps
		if d, ok := c.read(m.PatternIndex, caps, src); ok {
			all = append(all, d)
		}
	}
	defs := sortDedup(all)
	markMethods(defs)
	return defs
}

// functionKinds are the kinds that are functions to a chunker.
var functionKinds = map[string]bool{"function": true, "method": true, "constructor": true}

// ChunkDefs returns defs as a chunker reads them (chunk.Input.Defs): each
// with its role instead of its kind, in the same order.
func ChunkDefs(defs []Def) []chunk.Def {
	out := make([]chunk.Def, len(defs))
	for i, d := range defs {
		role := chunk.RoleOther
		switch {
		case functionKinds[d.Kind]:
			role = chunk.RoleFunction
		case typeKinds[d.Kind]:
			role = chunk.RoleType
		}
		out[i] = chunk.Def{Role: role, Start: d.Start, End: d.End, Private: d.Private, Body: chunk.Piece{Start: d.BodyStart, End: d.BodyEnd}, Block: chunk.Piece{Start: d.BlockStart, End: d.BlockEnd}}
	}
	return out
}

// Tree is one syntax tree of a file with its language: the file's own
// (Start 0, End the file's length) or an embedded region's, which
// describes the code [Start, End).
type Tree struct {
	Lang       *lang.Language
	Tree       *sitter.Tree
	Start, End int
}

// ForChunker returns the definitions of src for a chunker that reads them
// (chunk.Method.NeedsDefs, chunk.Input.Defs): those of each of trees (the
// file's own first, then its embedded regions'), each prepared by its own
// language (Declare), merged in Find's order, with their nodes
// (chunk.Def.Node); and the rule for the members of their types
// (chunk.Input.Member). Both read the trees: valid while they are.
func (f *Finder) ForChunker(src []byte, trees []Tree) ([]chunk.Def, func(n *sitter.Node, owner int) bool, error) {
	type def struct {
		Def
		nodes
	}
	var all []def
	lists := 0
	for _, t := range trees {
		if t.Tree == nil {
			continue
		}
		found, err := f.Find(t.Lang, src, t.Tree)
		if err != nil {
			return nil, nil, err
		}
		for i, n := range declare(t.Lang, src, t.Tree, found) {
			all = append(all, def{found[i], n})
		}
		lists++
	}
	if lists == 0 {
		return nil, nil, nil
	}
	if lists > 1 { // as Merge orders them
		slices.SortStableFunc(all, func(a, b def) int {
			if a.Start != b.Start {
				return cmp.Compare(a.Start, b.Start)
			}
			return cmp.Compare(b.End, a.End)
		})
	}
	defs := make([]Def, len(all))
	for i := range all {
		defs[i] = all[i].Def
	}
	out := ChunkDefs(defs)
	for i := range out {
		out[i].Node, out[i].Parents, out[i].BodyNode = all[i].node, all[i].up, all[i].body
	}
	member := func(n *sitter.Node, owner int) bool {
		o, in := defs[owner], trees[0]
		for _, t := range trees[1:] {
			if t.Tree != nil && t.Start <= o.Start && o.End <= t.End {
				in = t
			}
		}
		return Member(in.Lang, src, n, o)
	}
	return out, member, nil
}

// nodes are the nodes of one definition that Declare found: its node (the
// outermost of its range), its parent and grandparent, and its body's
// node; nil when not found.
type nodes struct {
	node, body *sitter.Node
	up         [2]*sitter.Node
}

// Declare prepares defs (a list Find returned for src in language l,
// over tree) for declaration chunking: each is Private when l's rule hides
// it (lang.Privacy), read with the type it is directly in, and has the
// range of its body (BodyRange). It finds the defs' nodes with one tree
// cursor moved from each to the next (locator), so its cost grows with
// the file, not with the file times its depth of nesting.
func Declare(l *lang.Language, src []byte, tree *sitter.Tree, defs []Def) {
	declare(l, src, tree, defs)
}

// declare is Declare, and returns the nodes it found, one per def.
func declare(l *lang.Language, src []byte, tree *sitter.Tree, defs []Def) []nodes {
	loc := newLocator(tree)
	defer loc.close()
	out := make([]nodes, len(defs))
	var open []int
	for i := range defs {
		for len(open) > 0 && defs[open[len(open)-1]].End <= defs[i].Start {
			open = open[:len(open)-1]
		}
		d := &defs[i]
		decl := lang.Decl{Name: nameAt(src, d.NameStart), Kind: d.Kind}
		if d.NameStart >= d.Start && d.NameStart <= len(src) {
			decl.Lead = src[d.Start:d.NameStart]
		}
		if len(open) > 0 {
			if o := defs[open[len(open)-1]]; typeKinds[o.Kind] {
				decl.OwnerKind, decl.OwnerName = o.Kind, o.Name
			}
		}
		d.Private = l.Private.Hides(decl)
		n := &out[i]
		n.node, n.up = loc.at(d.Start, d.End)
		if n.body, d.BodyStart, d.BodyEnd = BodyRange(n.node, src); n.body != nil {
			d.BlockStart, d.BlockEnd = int(n.body.StartByte()), int(n.body.EndByte())
		}
		open = append(open, i)
	}
	return out
}

// Member reports whether n, a member of the body of type owner that is
// no definition (a field, a constant, a block), belongs in owner's
// declaration: it is no block of code (it has no Body: Java's static { },
// Kotlin's init { }) and l's rule does not hide it.
func Member(l *lang.Language, src []byte, n *sitter.Node, owner Def) bool {
	if n == nil {
		return true
	}
	if Body(n, src) != nil {
		return false
	}
	return !l.Private.Hides(lang.Decl{Lead: src[n.StartByte():n.EndByte()], OwnerKind: owner.Kind, OwnerName: owner.Name})
}

// bodyField is the field tree-sitter grammars name a definition's body by.
const bodyField = "body"

// maxBodyDepth bounds how far down its last named children a node's body
// is looked for (a declaration that binds an arrow function: its
// declarator, then the function).
const maxBodyDepth = 4

// Body returns the body of a definition's node n: its child in the field
// "body", on n or down its last named children while each is in a field
// or its parent's only named child (a declaration that binds an arrow
// function: its declarator, then the function's value); else n's last
// named child when it has children, spans lines and is in no field
// (Kotlin's class_body, Elixir's do block, Zig's struct after `const T =`:
// grammars that name no body); nil when there is none (an interface's
// method, a prototype, a Go struct, whose type is a field). The descent
// stops at a node with several named children in no field (a Zig
// struct's members): its last child is a member, whose body is not n's.
func Body(n *sitter.Node, src []byte) *sitter.Node {
	b, _ := body(n, src)
	return b
}

// body returns Body(n) and the node it is a child of.
func body(n *sitter.Node, src []byte) (b, parent *sitter.Node) {
	top := n
	for depth := 0; n != nil && depth < maxBodyDepth; depth++ {
		if b := n.ChildByFieldName(bodyField); b != nil && b.EndByte() > b.StartByte() {
			return b, n
		}
		n = bindsTo(n)
	}
	if top == nil {
		return nil, nil
	}
	for i := int(top.ChildCount()) - 1; i > 0; i-- {
		k := top.Child(uint(i))
		if !k.IsNamed() || k.IsExtra() {
			continue
		}
		if k.ChildCount() > 0 && top.FieldNameForChild(uint32(i)) == "" && bytes.IndexByte(src[k.StartByte():k.EndByte()], '\n') >= 0 {
			return k, top
		}
		return nil, nil
	}
	return nil, nil
}

// bindsTo returns the child of n that Body looks for a body in: n's last
// named child that is no extra, when it is in a field or n's only such
// child; nil otherwise.
func bindsTo(n *sitter.Node) *sitter.Node {
	last, named := -1, 0
	for i := int(n.ChildCount()) - 1; i >= 0; i-- {
		if k := n.Child(uint(i)); k.IsNamed() && !k.IsExtra() {
			if last < 0 {
				last = i
			}
			named++
		}
	}
	if last < 0 || named > 1 && n.FieldNameForChild(uint32(last)) == "" {
		return nil
	}
	return n.Child(uint(last))
}

// BodyRange returns the body of a definition's node n (Body) as what a
// declaration leaves out of n: from the end of its header (the last child
// of the body's parent before the body that is no extra: a comment
// between them, Python's comment above a function's first statement, is
// the body's) to the body's end; and the body's own node, whose range
// (chunk.Def.Block) holds a type's members. nil, 0, 0 when n has no body.
// This is the one definition of a body: the declaration chunker leaves it
// out, and the pipeline's check and verify refuse a piece that holds a
// character of it (chunk.Bodies).
func BodyRange(n *sitter.Node, src []byte) (b *sitter.Node, start, end int) {
	b, p := body(n, src)
	if b == nil {
		return nil, 0, 0
	}
	start, end = bodyRange(b, p)
	return b, start, end
}

// bodyRange returns the range of body b, a child of p (BodyRange).
func bodyRange(b, p *sitter.Node) (start, end int) {
	blockStart := int(b.StartByte())
	start = blockStart
	for i := range p.ChildCount() {
		k := p.Child(i)
		if k.StartByte() >= b.StartByte() {
			break
		}
		if !k.IsExtra() {
			start = int(k.EndByte())
		}
	}
	if start > blockStart { // a child before the body that ends inside it: no header to speak of
		start = blockStart
	}
	return start, int(b.EndByte())
}

// lastNamed returns n's last named child that is no extra, nil when none.
func lastNamed(n *sitter.Node) *sitter.Node {
	for i := int(n.ChildCount()) - 1; i >= 0; i-- {
		if k := n.Child(uint(i)); k.IsNamed() && !k.IsExtra() {
			return k
		}
	}
	return nil
}

// nameAt returns the identifier that starts at src[i] (letters, digits,
// '_', '$', '#'), empty when none does.
func nameAt(src []byte, i int) []byte {
	if i < 0 || i > len(src) {
		return []byte{}
	}
	j := i
	for j < len(src) {
		r, w := utf8.DecodeRune(src[j:])
		if r != '_' && r != '$' && r != '#' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		j += w
	}
	return src[i:j]
}

// typeKinds are the kinds whose directly nested functions are methods.
var typeKinds = map[string]bool{
	"class": true, "interface": true, "struct": true, "enum": true,
	"trait": true, "impl": true, "object": true,
}

// markMethods makes each function whose innermost enclosing definition is
// a type (typeKinds) a method. Saying so in the queries would need a
// pattern per body shape and language (class > block > def, class > block
// > decorated_definition > def, …), and such patterns cost more to match
// than everything else: each keeps a match in progress across the whole
// class. A function nested in a method stays a function.
func markMethods(defs []Def) {
	var open []int
	for i := range defs {
		for len(open) > 0 && defs[open[len(open)-1]].End <= defs[i].Start {
			open = open[:len(open)-1]
		}
		if defs[i].Kind == "function" && len(open) > 0 && typeKinds[defs[open[len(open)-1]].Kind] {
			defs[i].Kind = "method"
		}
		open = append(open, i)
	}
}

// capture is what read needs of one capture: its index in the query, its
// node's byte range and, for a definition node, first row.
type capture struct {
	index      uint32
	start, end int
	row        int
}

// read turns one match of the pattern into a Def; false when it has no
// definition node or its name is empty.
func (c *compiled) read(pattern uint, caps []capture, src []byte) (found, bool) {
	var d found
	var def *capture // the first definition node; defEnd is the last one's end
	defEnd := -1
	nameStart, nameEnd := -1, -1
	var qualifier string
	json, str, md := false, false, false
	for i := range caps {
		cp := &caps[i]
		switch r := c.role[cp.index]; r {
		case roleDef:
			if def == nil || cp.start < def.start {
				def = cp
			}
			defEnd = max(defEnd, cp.end)
			d.Kind = c.kind[cp.index]
		case roleName, roleNameJSON, roleNameString, roleNameMarkdown:
			json = json || r == roleNameJSON
			str = str || r == roleNameString
			md = md || r == roleNameMarkdown
			if nameStart < 0 || cp.start < nameStart {
				nameStart = cp.start
			}
			if cp.end > nameEnd {
				nameEnd = cp.end
			}
		case roleQualifier:
			qualifier = cleanName(src[cp.start:cp.end])
		}
	}
	if def == nil || nameStart < 0 {
		return d, false
	}
	name := src[nameStart:nameEnd]
	switch {
	case json:
		name = jsonString(name)
	case str:
		name = unquote(name)
	case md:
		name = plainHeading(name)
	}
	d.Name = cleanName(name)
	if d.Name == "" {
		return d, false
	}
	if qualifier != "" {
		d.Name = cut(qualifier + "." + d.Name)
	}
	d.Start, d.End = def.start, defEnd
	d.NameStart = nameStart
	d.Line = def.row + 1
	d.pattern = pattern
	return d, true
}

// FileDef returns the definition that a file of language l is as a whole,
// for a language whose files are one thing a reader names (l.FileKind: a
// Vue or Svelte single-file component is a component). No query can say
// so: the name is the file's, its base name less its extension (the
// component src/Counter.vue is Counter, as Vue and Svelte name it). It
// spans the file, so that a chunk starting inside a <script> has the
// component above the script's own definitions. false when l has no such
// kind or the name has no extension to drop ("<stdin>").
func FileDef(l *lang.Language, file string, src []byte) (Def, bool) {
	if l == nil || l.FileKind == "" {
		return Def{}, false
	}
	base := path.Base(file)
	dot := strings.LastIndexByte(base, '.')
	if dot < 0 {
		return Def{}, false
	}
	name := cleanName([]byte(base[:dot]))
	if name == "" {
		return Def{}, false
	}
	return Def{Kind: l.FileKind, Name: name, Start: 0, End: len(src), Line: 1}, true
}

// Merge returns the definitions of several trees of one file (the file's
// and its embedded regions', each sorted as Find returns them) in one
// list, in Find's order: by Start, and of two starting together the
// longer first, so that an enclosing definition comes before what it
// holds.
func Merge(lists ...[]Def) []Def {
	var all []Def
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.SortStableFunc(all, func(a, b Def) int {
		if a.Start != b.Start {
			return cmp.Compare(a.Start, b.Start)
		}
		return cmp.Compare(b.End, a.End)
	})
	return all
}

// sortDedup orders the matches by Start, End descending, then pattern, and
// keeps the first of each byte range. The sort is stable: of two matches of
// one pattern on one node (a C declaration of two functions, `int f(void),
// g(void);`), the one the query engine reports first wins, whichever order
// the nodes were visited in.
func sortDedup(all []found) []Def {
	slices.SortStableFunc(all, func(a, b found) int {
		if a.Start != b.Start {
			return cmp.Compare(a.Start, b.Start)
		}
		if a.End != b.End {
			return cmp.Compare(b.End, a.End)
		}
		return cmp.Compare(a.pattern, b.pattern)
	})
	defs := make([]Def, 0, len(all))
	for i := range all {
		if i > 0 && all[i].Start == all[i-1].Start && all[i].End == all[i-1].End {
			continue
		}
		defs = append(defs, all[i].Def)
	}
	return defs
}

// cleanName collapses each run of whitespace to one space, trims the ends
// and cuts the result to MaxName bytes.
func cleanName(b []byte) string {
	var sb strings.Builder
	sb.Grow(min(len(b), MaxName+4))
	space := false
	for i := 0; i < len(b) && sb.Len() <= MaxName; {
		r, n := rune(b[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(b[i:])
		}
		if unicode.IsSpace(r) {
			space = sb.Len() > 0
		} else {
			if space {
				sb.WriteByte(' ')
				space = false
			}
			sb.Write(b[i : i+n])
		}
		i += n
	}
	return cut(sb.String())
}

// jsonString returns the value of the JSON string literal b (quotes
// included) as encoding/json decodes it: escapes decoded, a surrogate pair
// to its character, a lone surrogate or a byte that is not UTF-8 to
// U+FFFD. A literal JSON refuses (an escape it does not have, `\x`) is
// named by its text between the quotes, bad bytes replaced likewise.
func jsonString(b []byte) []byte {
	var v string
	if err := json.Unmarshal(b, &v); err == nil {
		return []byte(v)
	}
	b = bytes.TrimPrefix(b, []byte{'"'})
	b = bytes.TrimSuffix(b, []byte{'"'})
	return []byte(strings.ToValidUTF8(string(b), "\uFFFD"))
}

// unquote returns the text between the delimiters of the string literal b:
// an optional prefix of letters (Python's r, b, f), then one quote, or
// three of the same (', ", `), at both ends. Escapes are left as written.
// Text that is not quoted so is returned as it is.
func unquote(b []byte) []byte {
	body := bytes.TrimLeftFunc(b, func(r rune) bool { return r < utf8.RuneSelf && unicode.IsLetter(r) })
	if len(body) < 2 || !strings.ContainsRune("'\"`", rune(body[0])) {
		return b
	}
	q := body[:1]
	if len(body) >= 6 && bytes.HasPrefix(body, bytes.Repeat(q, 3)) && bytes.HasSuffix(body, bytes.Repeat(q, 3)) {
		q = body[:3]
	}
	if !bytes.HasSuffix(body[len(q):], q) {
		return b
	}
	return body[len(q) : len(body)-len(q)]
}

// cut shortens s to at most MaxName bytes at a UTF-8 boundary.
func cut(s string) string {
	if len(s) <= MaxName {
		return s
	}
	i := MaxName
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return strings.TrimRight(s[:i], " ")
}

// Anchor returns the byte a chunk src[start:end) is placed by: its first
// non-whitespace byte, or start when the chunk is all whitespace.
// Whitespace is unicode.IsSpace, as in the size metric.
func Anchor(src []byte, start, end int) int {
	for i := start; i < end; {
		r, n := rune(src[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(src[i:end])
		}
		if !unicode.IsSpace(r) {
			return i
		}
		i += n
	}
	return start
}

// Scope appends to dst all the definitions enclosing the chunk
// src[start:end), outermost first: those with Start < anchor < End, anchor
// being the chunk's first non-whitespace byte (Anchor). A definition that
// starts at the anchor is not the chunk's scope but one it defines. defs
// must be sorted as Find returns them.
//
// It is the whole chain, unbounded, and costs a binary search plus a scan
// of the definitions before the anchor: the reference the tests hold Index
// to. A record's scope is Index.Scope, the chain bounded to MaxScope.
func Scope(dst, defs []Def, src []byte, start, end int) []Def {
	anchor := Anchor(src, start, end)
	j := sort.Search(len(defs), func(i int) bool { return defs[i].Start >= anchor })
	mark := len(dst)
	// Walking back from the last def before the anchor, the enclosing ones
	// come innermost first; reverse them at the end.
	for i := j - 1; i >= 0; i-- {
		if defs[i].End > anchor {
			dst = append(dst, defs[i])
		}
	}
	reverse(dst[mark:])
	return dst
}

func reverse(s []Def) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// Defines appends to dst the definitions with start <= Start < end, in
// order. defs must be sorted as Find returns them. It costs a binary
// search plus one step per definition it appends: a chunk's defines start
// at nodes inside it, so they are bounded by its content (a deep nest of
// JSON keys, `{"a":{"a":…`, defines one key per 5 bytes).
func Defines(dst, defs []Def, start, end int) []Def {
	i := sort.Search(len(defs), func(i int) bool { return defs[i].Start >= start })
	for ; i < len(defs) && defs[i].Start < end; i++ {
		dst = append(dst, defs[i])
	}
	return dst
}

// The bound on a scope. A chain of definitions can be as deep as the file
// nests (100,000 nested JSON objects in 600 KB), and every record carries
// its chain, in scope and in the embedding text's header: unbounded, a
// file's records grow as chunks × depth. A chain of more than MaxScope
// definitions keeps its ScopeOuter outermost and ScopeInner innermost, and
// one entry of kind Elided stands between them for those left out.
const (
	ScopeOuter = 4  // outermost definitions a bounded chain keeps
	ScopeInner = 12 // innermost definitions a bounded chain keeps
	MaxScope   = ScopeOuter + ScopeInner
)

// Elided is the kind of the entry that stands for the definitions a chain
// of more than MaxScope leaves out, between its ScopeOuter outermost and
// ScopeInner innermost: its Name is their number in decimal ("99984"), its
// Start, End and Line those of the first one left out. It is not a kind of
// definition (not in Kinds: no query captures it), and appears only there.
const Elided = "elided"

// ElidedEntry returns the entry that stands for n definitions left out, the
// first of them first.
func ElidedEntry(first Def, n int) Def {
	return Def{Kind: Elided, Name: strconv.Itoa(n), Start: first.Start, End: first.End, Line: first.Line}
}

// Index answers, for any chunk of a file, its scope bounded to MaxScope
// (Scope, then the bound), in O(log n) for n definitions, whatever the
// order the chunks come in. It is built in one pass over the definitions
// and holds about 40 bytes per definition besides them. Definitions nest
// (they are syntax nodes), so those enclosing a byte form one chain: the
// ancestors of the last definition starting before it.
type Index struct {
	defs   []Def
	parent []int32 // innermost enclosing definition, -1 at the top
	depth  []int32 // definitions enclosing it
	outer  []int32 // the ancestor (or itself) at depth min(depth, ScopeOuter)
	maxEnd []int   // a segment tree over the definitions' Ends, by index; leaves from len/2
}

// NewIndex indexes defs, sorted as Find returns them.
func NewIndex(defs []Def) *Index {
	n := len(defs)
	x := &Index{defs: defs, parent: make([]int32, n), depth: make([]int32, n), outer: make([]int32, n)}
	var open []int32
	for i, d := range defs {
		for len(open) > 0 && defs[open[len(open)-1]].End <= d.Start {
			open = open[:len(open)-1]
		}
		x.parent[i], x.depth[i], x.outer[i] = -1, int32(len(open)), int32(i)
		if len(open) > 0 {
			x.parent[i] = open[len(open)-1]
		}
		if len(open) > ScopeOuter {
			x.outer[i] = open[ScopeOuter]
		}
		open = append(open, int32(i))
	}
	leaves := 1
	for leaves < n {
		leaves *= 2
	}
	x.maxEnd = make([]int, 2*leaves)
	for i, d := range defs {
		x.maxEnd[leaves+i] = d.End
	}
	for k := leaves - 1; k >= 1; k-- {
		x.maxEnd[k] = max(x.maxEnd[2*k], x.maxEnd[2*k+1])
	}
	return x
}

// Scope appends to dst the scope of the chunk src[start:end): the
// definitions enclosing its anchor (see Scope), outermost first, bounded
// to MaxScope (see Elided).
func (x *Index) Scope(dst []Def, src []byte, start, end int) []Def {
	anchor := Anchor(src, start, end)
	j := sort.Search(len(x.defs), func(i int) bool { return x.defs[i].Start >= anchor })
	e := x.lastEnding(1, 0, len(x.maxEnd)/2, j, anchor)
	if e < 0 {
		return dst
	}
	return x.Chain(dst, e)
}

// lastEnding returns the last index i < j, in the subtree of node k over
// the leaves [lo, hi), of a definition that ends after pos; -1 when none
// does. Of the definitions starting before pos, the last one that ends
// after it is the innermost that encloses it. Descending right first, it
// visits O(log n) nodes: only those that straddle j, and then one path to
// a leaf under a node whose maximum shows the answer is there.
func (x *Index) lastEnding(k, lo, hi, j, pos int) int {
	if lo >= j || x.maxEnd[k] <= pos {
		return -1
	}
	if hi-lo == 1 {
		return lo
	}
	mid := (lo + hi) / 2
	if i := x.lastEnding(2*k+1, mid, hi, j, pos); i >= 0 {
		return i
	}
	return x.lastEnding(2*k, lo, mid, j, pos)
}

// Chain appends to dst the chain of definitions that ends at definition i
// (its enclosing ones, then itself), outermost first, bounded to MaxScope.
// It costs at most MaxScope steps.
func (x *Index) Chain(dst []Def, i int) []Def {
	n := int(x.depth[i]) + 1
	mark := len(dst)
	if n <= MaxScope {
		for k := int32(i); k >= 0; k = x.parent[k] {
			dst = append(dst, x.defs[k])
		}
		reverse(dst[mark:])
		return dst
	}
	first := x.outer[i] // at depth ScopeOuter: the first left out
	for k := x.parent[first]; k >= 0; k = x.parent[k] {
		dst = append(dst, x.defs[k])
	}
	reverse(dst[mark:])
	dst = append(dst, ElidedEntry(x.defs[first], n-MaxScope))
	mark = len(dst)
	k := int32(i)
	for range ScopeInner {
		dst = append(dst, x.defs[k])
		k = x.parent[k]
	}
	reverse(dst[mark:])
	return dst
}
