package walk

import (
	"bytes"
	"strings"
)

// ignorePattern is one line of a .gitignore-style file, parsed the way git's
// parse_path_pattern does it.
type ignorePattern struct {
	pat     string // the glob, without '!' and without the trailing '/'
	negate  bool   // "!pat": re-include
	dirOnly bool   // "pat/": matches directories only
	noDir   bool   // no '/' in pat: matched against the basename only
	prefix  int    // length of pat's leading run without glob specials
	line    string // the line as written (trailing spaces trimmed), for messages
}

// ignoreList is the patterns of one file. base is the directory the file
// applies to, relative to the ignore root, with a trailing '/' ("" for the
// root and for info/exclude and the global file).
type ignoreList struct {
	base   string
	source string // the file's path, for messages
	pats   []ignorePattern
}

// parseIgnore parses the content of an ignore file as git does: a UTF-8 BOM
// is skipped, lines end in LF with an optional CR before it, '#' starts a
// comment only in the first column, trailing spaces go unless escaped.
func parseIgnore(data []byte, base string) *ignoreList {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	l := &ignoreList{base: base}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		line = trimTrailingSpaces(line)
		if p, ok := parsePattern(line); ok {
			l.pats = append(l.pats, p)
		}
	}
	return l
}

// trimTrailingSpaces is git's trim_trailing_spaces: unescaped trailing
// spaces (not tabs) are dropped; "\ " keeps its backslash, which the
// matcher then reads as an escaped space.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// parsePattern splits off the '!' and the trailing '/' and classifies the
// pattern. A leading "\!" or "\#" stays escaped: the matcher reads "\!" as a
// literal '!'. Empty patterns match nothing in git, so they are dropped.
func parsePattern(s string) (ignorePattern, bool) {
	p := ignorePattern{line: s}
	if strings.HasPrefix(s, "!") {
		p.negate = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		p.dirOnly = true
		s = s[:len(s)-1]
	}
	p.noDir = !strings.Contains(s, "/")
	// A leading '/' only anchors; with a slash present, the pattern is
	// matched against the whole path relative to the file's directory.
	p.pat = strings.TrimPrefix(s, "/")
	p.prefix = len(p.pat)
	if i := strings.IndexAny(p.pat, "*?[\\"); i >= 0 {
		p.prefix = i
	}
	if s == "" {
		return p, false
	}
	return p, true
}

// match returns the pattern that decides rel (relative to the ignore
// root, under l.base), nil when none matches, and whether it says
// "ignored".
func (l *ignoreList) match(rel string, isDir bool) (*ignorePattern, bool) {
	name := rel[len(l.base):]
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	for i := len(l.pats) - 1; i >= 0; i-- {
		p := &l.pats[i]
		if p.dirOnly && !isDir {
			continue
		}
		var ok bool
		if p.noDir {
			ok = wildmatch(p.pat, base, false)
		} else {
			ok = p.matchPath(name)
		}
		if ok {
			return p, !p.negate
		}
	}
	return nil, false
}

// matchPath is git's match_pathname: the literal prefix is compared first
// and only the rest goes to wildmatch. That is not just an optimisation:
// wildmatch treats a "**" at the start of what it is given as a whole path
// component, so "a**/*.x" matches "a.x" and "ab/b.x" in git, and here too.
func (p *ignorePattern) matchPath(name string) bool {
	if p.prefix > 0 {
		if p.prefix > len(name) || name[:p.prefix] != p.pat[:p.prefix] {
			return false
		}
		if p.prefix == len(p.pat) {
			return len(name) == p.prefix
		}
		return wildmatch(p.pat[p.prefix:], name[p.prefix:], true)
	}
	return wildmatch(p.pat, name, true)
}

// readIgnoreFile reads an ignore file. With noFollow (in-tree .gitignore
// files) a symlink is not followed, as in git (2.32 and later). A missing
// file is no patterns and no error, as in git; a file that is there but
// cannot be read (not a regular file, too large, unreadable) is no
// patterns and an error, for the caller to report.
func readIgnoreFile(osPath, base string, noFollow bool) (*ignoreList, error) {
	data, err := readMeta(osPath, maxRulesSize, noFollow)
	if err != nil {
		if missing(err) {
			return nil, nil
		}
		return nil, err
	}
	l := parseIgnore(data, base)
	l.source = osPath
	if len(l.pats) == 0 {
		return nil, nil
	}
	return l, nil
}

// ignoreStack is the set of lists that apply at one point of the walk:
// per-directory .gitignore lists from the root down, then the repository
// wide lists (info/exclude first, then the global file), checked in git's
// precedence order: deepest .gitignore first, last pattern first, and the
// first pattern that matches decides.
type ignoreStack struct {
	dirs []*ignoreList // outermost first
	repo []*ignoreList // in checking order
}

// push returns the stack with l added as the innermost list. The slice is
// copied so sibling directories never see each other's lists.
func (s ignoreStack) push(l *ignoreList) ignoreStack {
	if l == nil {
		return s
	}
	dirs := make([]*ignoreList, len(s.dirs), len(s.dirs)+1)
	copy(dirs, s.dirs)
	s.dirs = append(dirs, l)
	return s
}

// ignored reports whether rel (relative to the ignore root) is excluded.
func (s ignoreStack) ignored(rel string, isDir bool) bool {
	_, ign := s.decide(rel, isDir)
	return ign
}

// decide returns the rule that decides rel (nil when none does) and
// whether it ignores rel.
func (s ignoreStack) decide(rel string, isDir bool) (*IgnoreRule, bool) {
	for i := len(s.dirs) - 1; i >= 0; i-- {
		if p, ign := s.dirs[i].match(rel, isDir); p != nil {
			return &IgnoreRule{File: s.dirs[i].source, Pattern: p.line}, ign
		}
	}
	for _, l := range s.repo {
		if p, ign := l.match(rel, isDir); p != nil {
			return &IgnoreRule{File: l.source, Pattern: p.line}, ign
		}
	}
	return nil, false
}

// IgnoreRule is one line of one ignore file.
type IgnoreRule struct {
	File    string // the ignore file's path, as opened
	Pattern string // the line, as written
}

// IgnoreTally counts the entries (files, and folders left unwalked) the
// ignore rules left out of a listing, by the rule that decided each, so
// that a run that lists nothing can say which rule did it. The zero value
// is ready; it is not safe for concurrent listings.
type IgnoreTally struct {
	counts map[IgnoreRule]int
	total  int
}

func (t *IgnoreTally) add(r IgnoreRule) {
	if t.counts == nil {
		t.counts = map[IgnoreRule]int{}
	}
	t.counts[r]++
	t.total++
}

// Total is the number of entries ignored.
func (t *IgnoreTally) Total() int { return t.total }

// Top returns the rule that ignored the most entries and their number
// (ties: the first file and line in byte order); 0 when none was ignored.
func (t *IgnoreTally) Top() (IgnoreRule, int) {
	var best IgnoreRule
	n := 0
	for r, c := range t.counts {
		if c > n || c == n && (r.File < best.File || r.File == best.File && r.Pattern < best.Pattern) {
			best, n = r, c
		}
	}
	return best, n
}
