package walk

import (
	"path/filepath"
	"strings"
)

// systemAttributesFile is git's system-wide attributes file
// ($(prefix)/etc/gitattributes; /etc/gitattributes in the usual builds),
// read unless GIT_ATTR_NOSYSTEM is true. A variable for the tests.
var systemAttributesFile = "/etc/gitattributes"

// attrScope holds the attribute rules of one work tree or, outside any
// repository, of the tree below a top directory, and looks attributes up
// the way git's collect_some_attrs does.
//
// Only the attributes that can change a linguist attribute are kept: the
// four, and the macros whose expansion (macro within macro) reaches one of
// them. A rule that gives none of them is dropped when its file is read,
// so a tree whose .gitattributes files say only "* text=auto" or
// "*.png binary" costs no matching at all.
type attrScope struct {
	top string // OS path of the top directory
	all bool   // keep every attribute (tests compare with `git check-attr -a`)

	ids    map[string]int // attribute name -> id; the linguist ones are 0 to 3
	names  []string       // by id
	macros [][]attrState  // by id: the macro's expansion, nil for no macro

	// The lists that are not .gitattributes files, by precedence.
	info, global, system *attrList

	// dirs maps a directory (relative to top, "" for top) to the
	// innermost .gitattributes list at or above it (nil: none), or to
	// absentDir: the walk saw that it has no .gitattributes of its own,
	// but what is above it is not resolved yet.
	dirs map[string]*attrNode

	lastDir  string // the directory of the last lookup, and its node
	lastNode *attrNode
	lastOK   bool

	vals []attrVal   // scratch: the state of each attribute during a lookup
	todo []attrState // scratch: states still to apply, macro expansions on top
}

// attrNode is one .gitattributes list and the nodes of the directories
// above it: the chain from a directory to the top.
type attrNode struct {
	list   *attrList
	parent *attrNode
}

// absentDir marks a directory known to hold no .gitattributes.
var absentDir = &attrNode{}

// attrScopeFor returns the attribute scope of a top directory, made the
// first time: git's built-in macros, then (in a repository, r non-nil)
// the system file, the global file (core.attributesFile, by default
// $XDG_CONFIG_HOME/git/attributes), then top/.gitattributes, then (in a
// repository) info/attributes, in rising precedence; macros may be
// defined in any of these, not in the .gitattributes of subdirectories.
// Files that are there but cannot be read get a Notice on display.
func (w *walker) attrScopeFor(top string, r *repo, display string) *attrScope {
	if s, ok := w.attrScopes[top]; ok {
		return s
	}
	note := func(reason string) { w.warn(display, reason, Notice) }
	read := func(p string, noFollow bool) []attrLine {
		data, err := readMeta(p, maxRulesSize, noFollow)
		if err != nil {
			if !missing(err) {
				note(fileNote("attributes file", p, err))
			}
			return nil
		}
		return parseAttrs(data, true)
	}
	var system, global, info []attrLine
	if r != nil {
		if !envTrue("GIT_ATTR_NOSYSTEM") {
			system = read(systemAttributesFile, false)
		}
		if p := attributesFile(r, note); p != "" {
			global = read(p, false)
		}
		info = read(filepath.Join(r.commonDir, "info", "attributes"), false)
	}
	// In the work tree a symlinked .gitattributes is not read, as in git.
	root := read(filepath.Join(top, ".gitattributes"), true)
	s := newAttrScope(top, w.allAttrs, system, global, root, info)
	if w.attrScopes == nil {
		w.attrScopes = map[string]*attrScope{}
	}
	w.attrScopes[top] = s
	return s
}

// newAttrScope sets a scope up from its top-level files.
func newAttrScope(top string, all bool, system, global, root, info []attrLine) *attrScope {
	s := &attrScope{top: top, all: all, ids: map[string]int{}, dirs: map[string]*attrNode{}}
	for _, n := range linguistAttrs {
		s.id(n)
	}
	files := [][]attrLine{builtinAttrs, system, global, root, info}
	// The definition of a macro is the last one in the file of highest
	// precedence (git's determine_macros).
	defs := map[string][]rawState{}
	for _, f := range files {
		for _, l := range f {
			if l.macro {
				defs[l.name] = l.states
			}
		}
	}
	if all {
		for _, f := range files {
			for _, l := range f {
				if l.macro {
					s.id(l.name)
				}
				for _, st := range l.states {
					s.id(st.name)
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for name, states := range defs {
			if _, ok := s.ids[name]; ok {
				continue
			}
			for _, st := range states {
				if _, ok := s.ids[st.name]; ok {
					s.id(name)
					changed = true
					break
				}
			}
		}
	}
	s.macros = make([][]attrState, len(s.names))
	for name, states := range defs {
		if id, ok := s.ids[name]; ok {
			s.macros[id] = s.relevant(states)
		}
	}
	s.system = s.compile(system, "")
	s.global = s.compile(global, "")
	s.info = s.compile(info, "")
	s.dirs[""] = nil
	if l := s.compile(root, ""); l != nil {
		s.dirs[""] = &attrNode{list: l}
	}
	return s
}

// id returns the id of an attribute, giving it one if it has none.
func (s *attrScope) id(name string) int {
	if id, ok := s.ids[name]; ok {
		return id
	}
	id := len(s.names)
	s.ids[name] = id
	s.names = append(s.names, name)
	return id
}

// relevant keeps the states of the attributes the scope cares about.
func (s *attrScope) relevant(raw []rawState) []attrState {
	var out []attrState
	for _, r := range raw {
		id, ok := s.ids[r.name]
		if !ok {
			if !s.all {
				continue
			}
			id = s.id(r.name)
		}
		out = append(out, attrState{id: id, val: r.val})
	}
	return out
}

// compile keeps the pattern lines of a file that give a relevant state
// and can match a file; nil when none is left.
func (s *attrScope) compile(lines []attrLine, base string) *attrList {
	var l *attrList
	for _, ln := range lines {
		if ln.macro {
			continue
		}
		p, suffix, ok := attrPattern(ln.name)
		if !ok {
			continue
		}
		states := s.relevant(ln.states)
		if len(states) == 0 {
			continue
		}
		if l == nil {
			l = &attrList{base: base}
		}
		l.rules = append(l.rules, attrRule{pat: p, suffix: suffix, states: states})
	}
	return l
}

// macro is the expansion of an attribute, nil when it is no macro.
func (s *attrScope) macro(id int) []attrState {
	if id < len(s.macros) {
		return s.macros[id]
	}
	return nil
}

// noteAbsent records that the walk found no .gitattributes (or only a
// symlink, which is not read) in a directory, which spares a stat later.
func (s *attrScope) noteAbsent(dir string) {
	if _, ok := s.dirs[dir]; !ok {
		s.dirs[dir] = absentDir
	}
}

// lookup returns the states of the attributes for path (relative to the
// top; a file), nil when no rule can apply. w and display (the file's
// display path) are for notices about .gitattributes files read on the
// way. The slice is scratch: valid until the next lookup.
func (s *attrScope) lookup(path string, w *walker, display string) []attrVal {
	dir, name := "", path
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		dir, name = path[:i], path[i+1:]
	}
	n := s.node(dir, w, display, path)
	if n == nil && s.info == nil && s.global == nil && s.system == nil {
		return nil
	}
	if cap(s.vals) < len(s.names) {
		s.vals = make([]attrVal, len(s.names))
	}
	vals := s.vals[:len(s.names)]
	clear(vals)
	// git's fill: info/attributes, then the .gitattributes files from the
	// file's directory up to the top, then the global and system files;
	// in each, the last line first; the first state given wins.
	left := numLinguist
	if s.all {
		left = len(vals)
	}
	left = s.fillList(s.info, path, name, vals, left, w)
	for ; n != nil && left > 0; n = n.parent {
		left = s.fillList(n.list, path, name, vals, left, w)
	}
	left = s.fillList(s.global, path, name, vals, left, w)
	s.fillList(s.system, path, name, vals, left, w)
	return vals
}

// fillList applies the rules of l that match, last first. left counts
// the attributes still unknown that matter; at 0 nothing else can change.
// When w (nil in some tests) is told to stop, fillList returns 0: the
// values are meaningless then, and the walk discards them.
func (s *attrScope) fillList(l *attrList, path, name string, vals []attrVal, left int, w *walker) int {
	if l == nil {
		return left
	}
	for i := len(l.rules) - 1; i >= 0 && left > 0; i-- {
		if w != nil && w.stop() {
			return 0
		}
		r := &l.rules[i]
		if r.matches(l.base, path, name) {
			left = s.fillStates(r.states, vals, left)
		}
	}
	return left
}

// fillStates is git's fill_one: the states of a line, last first, each
// given to an attribute still unknown; an attribute thus set that is a
// macro has its expansion applied right away, before the line's earlier
// states (a stack rather than recursion, as in git 2.46 and later, so a
// long chain of macros cannot exhaust the stack).
func (s *attrScope) fillStates(states []attrState, vals []attrVal, left int) int {
	todo := append(s.todo[:0], states...)
	for len(todo) > 0 && left > 0 {
		st := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if vals[st.id].kind != attrUnknown {
			continue
		}
		vals[st.id] = st.val
		if s.all || st.id < numLinguist {
			left--
		}
		if st.val.kind == attrSet {
			todo = append(todo, s.macro(st.id)...)
		}
	}
	s.todo = todo[:0]
	return left
}

// node returns the chain of .gitattributes lists for a directory.
func (s *attrScope) node(dir string, w *walker, display, path string) *attrNode {
	if s.lastOK && dir == s.lastDir {
		return s.lastNode
	}
	n := s.resolve(dir, w, display, path)
	s.lastDir, s.lastNode, s.lastOK = dir, n, true
	return n
}

// resolve finds (and remembers) the chain for a directory, reading the
// .gitattributes files on the way down that were not read yet.
func (s *attrScope) resolve(dir string, w *walker, display, path string) *attrNode {
	n, known := s.dirs[dir]
	if known && n != absentDir {
		return n
	}
	parent := ""
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		parent = dir[:i]
	}
	node := s.resolve(parent, w, display, path) // s.dirs[""] is always set
	if !known {
		if l := s.readDir(dir, w, display, path); l != nil {
			node = &attrNode{list: l, parent: node}
		}
	}
	s.dirs[dir] = node
	return node
}

// readDir reads the .gitattributes of a directory below the top. It is not
// followed if it is a symlink, as in git (2.32 and later). One that is
// there but cannot be read gets a Notice: on its own display path when
// the display path of the file being looked up shows its directory, else
// on the file's, naming it.
func (s *attrScope) readDir(dir string, w *walker, display, path string) *attrList {
	p := filepath.Join(s.top, filepath.FromSlash(dir), ".gitattributes")
	data, err := readMeta(p, maxRulesSize, true)
	if err != nil {
		if !missing(err) {
			if d, ok := attrFileDisplay(display, path, dir); ok {
				w.warn(d, "attributes file not read: "+reason(err), Notice)
			} else {
				w.warn(display, fileNote("attributes file", p, err), Notice)
			}
		}
		return nil
	}
	return s.compile(parseAttrs(data, false), dir+"/")
}

// attrFileDisplay is the display path of dir/.gitattributes, found from a
// file below dir: path is the file's path relative to the top and display
// its display path. When display ends with the part of path below dir,
// what precedes it is dir as displayed.
func attrFileDisplay(display, path, dir string) (string, bool) {
	below := path
	if dir != "" {
		below = path[len(dir)+1:]
	}
	switch {
	case display == below:
		return ".gitattributes", true
	case strings.HasSuffix(display, "/"+below):
		return display[:len(display)-len(below)] + ".gitattributes", true
	}
	return "", false
}

// attrs looks up the linguist attributes of a file: path is relative to
// the top of s, display is the file's display path. With allAttrs (tests)
// every attribute git would print is recorded by display path.
func (w *walker) attrs(s *attrScope, path, display string) Attrs {
	vals := s.lookup(path, w, display)
	if w.allAttrs {
		m := map[string]string{}
		for id, v := range vals {
			if v.kind != attrUnknown && v.kind != attrUnspecified {
				m[s.names[id]] = v.String()
			}
		}
		if w.rawAttrs == nil {
			w.rawAttrs = map[string]map[string]string{}
		}
		w.rawAttrs[display] = m
	}
	if vals == nil {
		return Attrs{}
	}
	a := Attrs{
		Generated:     vals[idGenerated].tri(),
		Vendored:      vals[idVendored].tri(),
		Documentation: vals[idDocumentation].tri(),
	}
	if v := vals[idLanguage]; v.kind == attrString {
		a.Language = v.value
	}
	return a
}

// explicitAttrs looks up the attributes of a file named as an argument: in
// the repository holding its directory, as git would from there; outside
// any, with the current directory as the top when the file lies below
// it, else its own directory. Nothing for a file inside a .git directory.
func (w *walker) explicitAttrs(display, osPath string) Attrs {
	dir := filepath.Dir(osPath)
	e, ok := w.explicitAttrDirs[dir]
	if !ok {
		e = w.explicitAttrDir(realPath(dir), display)
		if w.explicitAttrDirs == nil {
			w.explicitAttrDirs = map[string]attrDir{}
		}
		w.explicitAttrDirs[dir] = e
	}
	if e.scope == nil {
		return Attrs{}
	}
	return w.attrs(e.scope, joinRel(e.rel, filepath.Base(osPath)), display)
}

// attrDir is where the files of one directory look their attributes up:
// a scope, and the directory's path relative to its top.
type attrDir struct {
	scope *attrScope
	rel   string
}

// explicitAttrDir finds the scope of a directory (absolute, symlinks
// resolved) holding files named as arguments.
func (w *walker) explicitAttrDir(abs, display string) attrDir {
	if hasComponent(filepath.ToSlash(abs), ".git") {
		return attrDir{}
	}
	r := findRepo(abs)
	if r == nil {
		top, rel := w.plainAttrTop(abs)
		return attrDir{scope: w.attrScopeFor(top, nil, display), rel: rel}
	}
	rel, err := filepath.Rel(r.top, abs)
	if err != nil || rel == "." {
		rel = ""
	}
	return attrDir{scope: w.attrScopeFor(r.top, r, display), rel: filepath.ToSlash(rel)}
}

// plainAttrTop is the top of the attributes of a directory outside any
// repository (absolute, symlinks resolved): the current directory when
// the directory is at or below it, else the directory itself; and the
// directory's path relative to that top.
func (w *walker) plainAttrTop(abs string) (top, rel string) {
	if !w.cwdRead {
		w.cwdRead = true
		if cwd, err := filepath.Abs("."); err == nil {
			w.cwd = realPath(cwd)
		}
	}
	if w.cwd == "" {
		return abs, ""
	}
	r, err := filepath.Rel(w.cwd, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return abs, ""
	}
	if r == "." {
		r = ""
	}
	return w.cwd, filepath.ToSlash(r)
}
