package outline

import (
	sitter "github.com/tree-sitter/go-tree-sitter"
)

// RootSymbols returns, by node symbol, the nodes where a pattern of q (the
// query compiled from text) can start: 1 for the symbol of each pattern's
// root node. It returns nil when it cannot tell for some pattern, whose
// root is then not a plain named node or an alternation of them: a
// wildcard, a string, a supertype, a field, a quantified node or a sequence
// of siblings. Find runs such a query over the whole tree.
//
// With the roots known, running the query only at those nodes, with
// patterns rooted at the node itself (package match; Find, and package
// inject's injection queries), finds the same
// matches as over the whole tree: a rooted pattern's match starts at its
// root node, and the query engine gives a node's matches whatever cursor
// it walks with.
func RootSymbols(grammar *sitter.Language, q *sitter.Query, text string) []byte {
	roots := make([]byte, grammar.NodeKindCount())
	for i := range q.PatternCount() {
		if !q.IsPatternRooted(i) {
			return nil
		}
		start, end := q.StartByteForPattern(i), q.EndByteForPattern(i)
		if start >= end || end > uint(len(text)) {
			return nil
		}
		kinds, ok := patternRoots(text[start:end])
		if !ok {
			return nil
		}
		for _, kind := range kinds {
			id := grammar.IdForNodeKind(kind, true)
			if id == 0 || uint32(id) >= grammar.NodeKindCount() || !grammar.NodeKindIsVisible(id) ||
				!grammar.NodeKindIsNamed(id) || grammar.NodeKindIsSupertype(id) {
				return nil
			}
			roots[id] = 1
		}
	}
	return roots
}

// patternRoots reads the text of one pattern of a query and returns the
// node kinds its root can be: the kind of its outermost node, or of each
// alternative of an outermost alternation. A group of one node and
// predicates, `((kind …) (#eq? …))`, is rooted at the node. ok is false for
// any other root (see RootSymbols) and for text it does not understand.
func patternRoots(text string) (kinds []string, ok bool) {
	r := &sexpr{s: text}
	kinds, ok = r.root()
	if !ok {
		return nil, false
	}
	// After the root, only captures: a quantifier would make it a sequence.
	for {
		r.space()
		if r.eof() {
			return kinds, true
		}
		if r.peek() != '@' {
			return nil, false
		}
		r.pos++
		r.ident()
	}
}

// sexpr reads the text of a query pattern.
type sexpr struct {
	s   string
	pos int
}

func (r *sexpr) eof() bool  { return r.pos >= len(r.s) }
func (r *sexpr) peek() byte { return r.s[r.pos] }

// space skips whitespace and comments.
func (r *sexpr) space() {
	for !r.eof() {
		switch c := r.peek(); {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			r.pos++
		case c == ';':
			for !r.eof() && r.peek() != '\n' {
				r.pos++
			}
		default:
			return
		}
	}
}

// identByte reports whether c may be in an identifier of the query
// language (tree-sitter's ts_query__parse_identifier, for ASCII).
func identByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == '?' || c == '!' || c >= 0x80
}

func (r *sexpr) ident() string {
	start := r.pos
	for !r.eof() && identByte(r.peek()) {
		r.pos++
	}
	return r.s[start:r.pos]
}

// root reads a pattern (a node, an alternation or a group) and returns the
// kinds it can be rooted at.
func (r *sexpr) root() ([]string, bool) {
	r.space()
	if r.eof() {
		return nil, false
	}
	switch r.peek() {
	case '[':
		r.pos++
		var kinds []string
		for {
			r.space()
			if r.eof() {
				return nil, false
			}
			if r.peek() == ']' {
				r.pos++
				return kinds, len(kinds) > 0
			}
			if r.peek() == '@' {
				r.pos++
				r.ident()
				continue
			}
			k, ok := r.root()
			if !ok {
				return nil, false
			}
			kinds = append(kinds, k...)
			r.space()
			if !r.eof() && (r.peek() == '*' || r.peek() == '+' || r.peek() == '?') {
				return nil, false
			}
		}
	case '(':
		r.pos++
		r.space()
		if r.eof() {
			return nil, false
		}
		if c := r.peek(); c == '(' || c == '[' {
			return r.group()
		}
		kind := r.ident()
		if kind == "" || kind == "_" || kind == "ERROR" || kind == "MISSING" || r.eof() || r.peek() == '/' {
			return nil, false
		}
		if !r.skipTo(')') {
			return nil, false
		}
		return []string{kind}, true
	}
	return nil, false
}

// group reads the rest of a group after its '(': exactly one pattern, with
// captures and predicates.
func (r *sexpr) group() ([]string, bool) {
	var kinds []string
	n := 0
	for {
		r.space()
		if r.eof() {
			return nil, false
		}
		switch c := r.peek(); {
		case c == ')':
			r.pos++
			return kinds, n == 1
		case c == '@':
			r.pos++
			r.ident()
		case c == '(' && r.pos+1 < len(r.s) && r.s[r.pos+1] == '#':
			r.pos++
			if !r.skipTo(')') {
				return nil, false
			}
		case c == '(' || c == '[':
			k, ok := r.root()
			if !ok {
				return nil, false
			}
			kinds = k
			n++
		default:
			return nil, false
		}
	}
}

// skipTo skips past the closing bracket of the one opened just before the
// reader's position, over nested brackets, strings and comments.
func (r *sexpr) skipTo(closing byte) bool {
	stack := []byte{closing}
	for !r.eof() {
		c := r.peek()
		r.pos++
		switch c {
		case ';':
			for !r.eof() && r.peek() != '\n' {
				r.pos++
			}
		case '"':
			for !r.eof() && r.peek() != '"' {
				if r.peek() == '\\' {
					r.pos++
				}
				r.pos++
			}
			if r.eof() {
				return false
			}
			r.pos++
		case '(':
			stack = append(stack, ')')
		case '[':
			stack = append(stack, ']')
		case ')', ']':
			if stack[len(stack)-1] != c {
				return false
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return true
			}
		}
	}
	return false
}
