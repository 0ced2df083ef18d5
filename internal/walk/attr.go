package walk

import (
	"fmt"
	"strings"
)

// This file parses git attribute files the way git's attr.c does
// (parse_attr_line, parse_attr, unquote_c_style) and matches their
// patterns the way its path_matches does. attrscope.go finds the files.

// Tri is the state of a boolean linguist attribute, read as GitHub's
// Linguist reads it.
type Tri uint8

const (
	// Unspecified: no rule names the attribute (or "!attr" took it back):
	// GitHub's own heuristics decide.
	Unspecified Tri = iota
	// Yes: "attr", "attr=true" or any other value but "false".
	Yes
	// No: "-attr" or "attr=false": not so, whatever the heuristics say.
	No
)

// String names the state, for logs and tests.
func (t Tri) String() string {
	switch t {
	case Unspecified:
		return "unspecified"
	case Yes:
		return "yes"
	case No:
		return "no"
	}
	return fmt.Sprintf("Tri(%d)", uint8(t))
}

// Attrs are the linguist attributes git attributes give a file. The zero
// value means no rule names any of them.
type Attrs struct {
	Language      string // linguist-language=NAME: NAME as written; "" when not given a value
	Generated     Tri    // linguist-generated
	Vendored      Tri    // linguist-vendored
	Documentation Tri    // linguist-documentation
}

// The attributes walk reports, by id: every scope gives them ids 0 to 3.
var linguistAttrs = [...]string{"linguist-language", "linguist-generated", "linguist-vendored", "linguist-documentation"}

const (
	idLanguage = iota
	idGenerated
	idVendored
	idDocumentation
	numLinguist
)

// attrKind is what a line says of an attribute: git's setto.
type attrKind uint8

const (
	attrUnknown     attrKind = iota // nothing yet: look further (git's ATTR__UNKNOWN)
	attrSet                         // "attr" (ATTR__TRUE)
	attrUnset                       // "-attr" (ATTR__FALSE)
	attrUnspecified                 // "!attr" (ATTR__UNSET): decided, as nothing
	attrString                      // "attr=value"
)

// attrVal is an attribute's state; value is set for attrString.
type attrVal struct {
	kind  attrKind
	value string
}

// tri reads a state as Linguist reads a boolean attribute: set, or any
// value but "false", is true; unset or "false" is false.
func (v attrVal) tri() Tri {
	switch v.kind {
	case attrSet:
		return Yes
	case attrUnset:
		return No
	case attrString:
		if v.value == "false" {
			return No
		}
		return Yes
	}
	return Unspecified
}

// String is the state as `git check-attr` prints it.
func (v attrVal) String() string {
	switch v.kind {
	case attrSet:
		return "set"
	case attrUnset:
		return "unset"
	case attrString:
		return v.value
	}
	return "unspecified"
}

// rawState is one "attr", "-attr", "!attr" or "attr=value" of a line.
type rawState struct {
	name string
	val  attrVal
}

// attrLine is one line of an attributes file: a pattern and the states it
// gives, or ("[attr]name ...") a macro definition.
type attrLine struct {
	macro  bool
	name   string // the pattern, unquoted; or the macro's name
	states []rawState
}

const (
	attrBlank       = " \t\r\n"
	attrMacroPrefix = "[attr]"
	// attrMaxLine: git ignores lines this long or longer (attr.c's
	// ATTR_MAX_LINE_LENGTH).
	attrMaxLine = 2048
)

// builtinAttrs are git's built-in definitions, below every file.
var builtinAttrs = parseAttrs([]byte("[attr]binary -diff -merge -text\n"), true)

// parseAttrs parses an attributes file. A UTF-8 BOM at the start is
// skipped; lines end at LF (a CR before it goes, and CR is a blank
// anyway). Lines git would refuse (see parseAttrLine) are left out, as git
// leaves them out after a warning. macroOK says whether "[attr]" lines
// are allowed: only in the top-level .gitattributes, info/attributes, the
// global and the system file.
func parseAttrs(data []byte, macroOK bool) []attrLine {
	text := strings.TrimPrefix(string(data), utf8BOM)
	var lines []attrLine
	for text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		line = strings.TrimSuffix(line, "\r")
		if l, ok := parseAttrLine(line, macroOK); ok {
			lines = append(lines, l)
		}
	}
	return lines
}

// parseAttrLine is git's parse_attr_line. A line is a pattern (or, with
// macroOK, "[attr]name") then blank-separated states; blanks are space,
// tab, CR and LF. Left out (ok false): blank lines, comments ('#' first),
// lines of 2048 bytes or more, negative patterns ("!pat": git warns),
// macros where they are not allowed, and lines with an invalid attribute
// name anywhere. The pattern may be quoted C-style ("a b\t"); a quote
// that does not parse is part of the pattern. A NUL ends the line (git
// reads it as a C string).
func parseAttrLine(line string, macroOK bool) (attrLine, bool) {
	if i := strings.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	cp := trimBlank(line)
	if cp == "" || cp[0] == '#' {
		return attrLine{}, false
	}
	if len(line) >= attrMaxLine {
		return attrLine{}, false
	}
	var name, states string
	quoted := false
	if cp[0] == '"' {
		name, states, quoted = unquoteC(cp)
	}
	if !quoted {
		n := blankSpan(cp)
		name, states = cp[:n], cp[n:]
	}
	var l attrLine
	if len(name) > len(attrMacroPrefix) && strings.HasPrefix(name, attrMacroPrefix) {
		if !macroOK {
			return attrLine{}, false
		}
		l.macro = true
		name = trimBlank(name[len(attrMacroPrefix):])
		name = cutNUL(name[:blankSpan(name)])
		if !attrNameValid(name) {
			return attrLine{}, false
		}
	}
	l.name = name
	for s := trimBlank(states); s != ""; {
		st, ok := parseAttrState(s)
		if !ok {
			return attrLine{}, false
		}
		l.states = append(l.states, st)
		s = trimBlank(s[blankSpan(s):])
	}
	if !l.macro {
		// parse_path_pattern reads the pattern as a C string.
		l.name = cutNUL(l.name)
		if strings.HasPrefix(l.name, "!") {
			return attrLine{}, false // git: "Negative patterns are ignored"
		}
	}
	return l, true
}

// parseAttrState is git's parse_attr for the state at the start of s:
// the name runs to the first blank or '=' (an '=' is searched for in the
// whole rest of the line, as with strchr, and counts only before the
// blank); a leading '-' unsets, a leading '!' unspecifies (and then a
// "=value" is dropped), "=value" runs to the blank.
func parseAttrState(s string) (rawState, bool) {
	ep := blankSpan(s)
	eq := strings.IndexByte(s, '=')
	if eq > ep {
		eq = -1
	}
	name := s[:ep]
	if eq >= 0 {
		name = s[:eq]
	}
	var st rawState
	switch {
	case name != "" && name[0] == '-':
		st.val.kind, name = attrUnset, name[1:]
	case name != "" && name[0] == '!':
		st.val.kind, name = attrUnspecified, name[1:]
	case eq >= 0:
		st.val = attrVal{kind: attrString, value: s[eq+1 : ep]}
	default:
		st.val.kind = attrSet
	}
	// Names starting "builtin_" are reserved by git 2.42 and later (git
	// 2.39 takes them); such a line is refused whole.
	if !attrNameValid(name) || strings.HasPrefix(name, "builtin_") {
		return rawState{}, false
	}
	st.name = name
	return st, true
}

// attrNameValid: an attribute name is [-A-Za-z0-9_.]+ not starting '-'.
func attrNameValid(name string) bool {
	if name == "" || name[0] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '-' || c == '.' || c == '_' || ('0' <= c && c <= '9') ||
			('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')) {
			return false
		}
	}
	return true
}

// unquoteC is git's unquote_c_style on a string starting with '"': it
// returns the unquoted text and what follows the closing quote, or ok
// false when the quoting is bad (no closing quote, an unknown escape, a
// bad octal escape). Escapes: \a \b \f \n \r \t \v \\ \" and three octal
// digits whose first is 0 to 3.
func unquoteC(s string) (text, rest string, ok bool) {
	var b []byte
	i := 1
	for {
		j := strings.IndexAny(s[i:], "\"\\")
		if j < 0 {
			return "", "", false
		}
		b = append(b, s[i:i+j]...)
		i += j
		if s[i] == '"' {
			return string(b), s[i+1:], true
		}
		i++ // the backslash
		if i >= len(s) {
			return "", "", false
		}
		ch := s[i]
		i++
		switch ch {
		case 'a':
			ch = '\a'
		case 'b':
			ch = '\b'
		case 'f':
			ch = '\f'
		case 'n':
			ch = '\n'
		case 'r':
			ch = '\r'
		case 't':
			ch = '\t'
		case 'v':
			ch = '\v'
		case '\\', '"':
		case '0', '1', '2', '3':
			if i+2 > len(s) || !isOctal(s[i]) || !isOctal(s[i+1]) {
				return "", "", false
			}
			ch = (ch-'0')<<6 | (s[i]-'0')<<3 | (s[i+1] - '0')
			i += 2
		default:
			return "", "", false
		}
		b = append(b, ch)
	}
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

// trimBlank drops leading blanks (strspn(s, blank)).
func trimBlank(s string) string {
	i := 0
	for i < len(s) && isAttrBlank(s[i]) {
		i++
	}
	return s[i:]
}

// blankSpan is the length of s's leading run of non-blanks (strcspn).
func blankSpan(s string) int {
	for i := 0; i < len(s); i++ {
		if isAttrBlank(s[i]) {
			return i
		}
	}
	return len(s)
}

func isAttrBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// cutNUL cuts s at its first NUL, as C reads it.
func cutNUL(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// attrState is a rawState whose attribute has an id in its scope.
type attrState struct {
	id  int
	val attrVal
}

// attrRule is a pattern line kept for matching: only its states for the
// attributes the scope cares about.
type attrRule struct {
	pat    ignorePattern
	suffix bool // "*literal" without '/': a suffix test (git's PATTERN_FLAG_ENDSWITH)
	states []attrState
}

// attrList is the rules of one file. base is the directory the file
// applies to, relative to the top of the work tree, with a trailing '/'
// ("" for the top, info/attributes, the global and the system file).
type attrList struct {
	base  string
	rules []attrRule
}

// attrPattern turns a line's pattern into a matcher, as parse_path_pattern
// does. A pattern ending in '/' (git's MUSTBEDIR) matches directories
// only, and attributes are looked up for files only: such a rule never
// applies, so it is dropped (ok false), as is the empty pattern.
func attrPattern(s string) (ignorePattern, bool, bool) {
	p, ok := parsePattern(s)
	if !ok || p.dirOnly {
		return p, false, false
	}
	suffix := p.noDir && strings.HasPrefix(p.pat, "*") && !strings.ContainsAny(p.pat[1:], "*?[\\")
	return p, suffix, true
}

// matches is git's path_matches for a file: path is relative to the top
// of the work tree and lies below l.base; name is its last component. A
// pattern without '/' is matched against the name (a pattern naming a
// directory does not apply to the files inside it, unlike in .gitignore);
// one with a '/' against the path below the file's directory, with '*'
// and '?' not crossing '/'.
func (r *attrRule) matches(base, path, name string) bool {
	p := &r.pat
	if !p.noDir {
		return p.matchPath(path[len(base):])
	}
	switch {
	case p.prefix == len(p.pat):
		return name == p.pat
	case r.suffix:
		return strings.HasSuffix(name, p.pat[1:])
	}
	return wildmatch(p.pat, name, false)
}
