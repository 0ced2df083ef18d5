package walk

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/castchunk/castchunk/internal/regular"
)

// scope is the ignore context of a part of the walk: a git work tree, or
// (outside any) the root argument's directory.
type scope struct {
	top     string        // OS path of the directory ignore paths are relative to
	inRepo  bool          // top is a git work tree
	repo    []*ignoreList // info/exclude and global excludes
	tracked *tracked      // index content; nil outside a repository or when unreadable
	attrs   *attrScope    // attribute rules
	attrTop string        // top, relative to the top of attrs ("" in a repository)
}

// attrPath is the path in sc.attrs of a path relative to sc's top.
func (sc *scope) attrPath(top string) string {
	switch {
	case sc.attrTop == "":
		return top
	case top == "":
		return sc.attrTop
	}
	return sc.attrTop + "/" + top
}

// dirFrame is one directory being walked.
type dirFrame struct {
	os       string // OS path
	rel      string // relative to the root argument, "" for the root itself
	top      string // relative to the scope's top, "" for the top itself
	sc       *scope
	stack    ignoreStack
	included bool // Include matched this directory or one above it (below the root)
	hidden   bool // it or a directory above it (below the root) is hidden, and walked for ListAll
}

// child is the frame of an entry of f (the stack is f's: the entry's own
// .gitignore, if a directory, is pushed when it is walked).
func (f dirFrame) child(name string) dirFrame {
	return dirFrame{
		os:       filepath.Join(f.os, name),
		rel:      joinRel(f.rel, name),
		top:      joinRel(f.top, name),
		sc:       f.sc,
		stack:    f.stack,
		included: f.included,
		hidden:   f.hidden,
	}
}

// rootWalk walks one root argument.
type rootWalk struct {
	*walker
	display string              // the root's display path
	active  []os.FileInfo       // directories being walked, for loop detection
	dirs    map[string]dirState // Include/Exclude verdicts by root-relative path, for trackedPass
}

// dirState is what Include and Exclude say of one directory itself.
type dirState struct{ excluded, included bool }

// disp turns a root-relative path into a display path.
func (rw *rootWalk) disp(rel string) string {
	if rel == "" {
		return rw.display
	}
	return path.Join(rw.display, rel)
}

// dirRoot walks a directory argument.
func (w *walker) dirRoot(display, osPath string, info os.FileInfo) {
	rw := &rootWalk{walker: w, display: display}
	abs := realPath(osPath)
	if hasComponent(filepath.ToSlash(abs), ".git") {
		w.warn(display, "inside a .git directory; skipped", Notice)
		return
	}
	sc, relRoot := w.scopeFor(abs, display)
	f := dirFrame{os: osPath, top: relRoot, sc: sc, stack: ignoreStack{repo: sc.repo}}
	if sc.inRepo && !w.opts.NoIgnore {
		// A directory named as an argument is walked even when git ignores
		// it (as ripgrep does): naming it is asking for it. The rules still
		// apply to everything below it.
		f.stack = w.leadingStack(sc, relRoot, display)
		rw.enterDir(f, info, true)
		rw.trackedPass(sc, relRoot, "", osPath, false)
		return
	}
	rw.enterDir(f, info, true)
}

// hasComponent reports whether the '/'-separated path has the component.
func hasComponent(p, name string) bool {
	for _, c := range strings.Split(p, "/") {
		if c == name {
			return true
		}
	}
	return false
}

// realPath is the absolute, symlink-free form of p, for repository
// discovery (a symlinked root is followed, like git's cwd would be).
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// scopeFor finds the scope of a directory root and the root's path
// relative to the scope's top. With NoIgnore the repository is still
// found, for its attributes.
func (w *walker) scopeFor(abs, display string) (*scope, string) {
	r := findRepo(abs)
	if r == nil {
		top, rel := w.plainAttrTop(abs)
		return &scope{top: abs, attrs: w.attrScopeFor(top, nil, display), attrTop: rel}, ""
	}
	rel, err := filepath.Rel(r.top, abs)
	if err != nil || rel == "." {
		rel = ""
	}
	return w.repoScope(r, display), filepath.ToSlash(rel)
}

// repoScope loads (once per List) the repository-wide rules and the index
// (with NoIgnore, only the attribute rules).
func (w *walker) repoScope(r *repo, display string) *scope {
	if sc, ok := w.scopes[r.top]; ok {
		return sc
	}
	note := func(reason string) { w.warn(display, reason, Notice) }
	sc := &scope{top: r.top, inRepo: true, attrs: w.attrScopeFor(r.top, r, display)}
	if !w.opts.NoIgnore {
		sc.repo = repoIgnoreLists(r, note)
		t, err := readIndex(r)
		if err != nil {
			note(indexError(r, err))
		} else {
			sc.tracked = t
		}
	}
	w.scopes[r.top] = sc
	return sc
}

// leadingStack reads the .gitignore files from the top of the work tree
// down to the root's parent (display is the root's display path, for
// notes).
func (w *walker) leadingStack(sc *scope, relRoot, display string) ignoreStack {
	st := ignoreStack{repo: sc.repo}
	if relRoot == "" {
		return st
	}
	dir, cur := sc.top, ""
	for _, comp := range strings.Split(relRoot, "/") {
		p := filepath.Join(dir, ".gitignore")
		l, err := readIgnoreFile(p, dirBase(cur), true)
		if err != nil {
			w.warn(display, fileNote("ignore file", p, err), Notice)
		}
		st = st.push(l)
		cur = joinRel(cur, comp)
		dir = filepath.Join(dir, comp)
	}
	return st
}

// dirBase is the ignoreList base of a directory: its path with a slash.
func dirBase(top string) string {
	if top == "" {
		return ""
	}
	return top + "/"
}

// enterDir walks a directory, guarding against symlink loops when
// following links: a directory that is one of its own ancestors is a loop.
// info is only needed (and only set) when following links.
func (rw *rootWalk) enterDir(f dirFrame, info os.FileInfo, isRoot bool) {
	if rw.opts.Follow && info != nil {
		for _, a := range rw.active {
			if os.SameFile(a, info) {
				rw.warn(rw.disp(f.rel), "symlink loop", Unreadable)
				return
			}
		}
		rw.active = append(rw.active, info)
		defer func() { rw.active = rw.active[:len(rw.active)-1] }()
	}
	rw.walkDir(f, isRoot)
}

// walkDir lists one directory, in name order. Whether it holds a .git or
// a .gitignore is read off its entries, which spares a stat per directory.
func (rw *rootWalk) walkDir(f dirFrame, isRoot bool) {
	if rw.stop() {
		return
	}
	entries, err := os.ReadDir(f.os)
	if err != nil {
		rw.warn(rw.disp(f.rel), reason(err), Unreadable)
		if isRoot {
			rw.rootFailed = true
		}
		return
	}
	var nested *scope
	if !rw.opts.NoIgnore {
		if !isRoot && hasEntry(entries, ".git") && !f.sc.hasTrackedDir(f.top) {
			gd, ok := gitDirOf(f.os)
			if ok && f.sc.inRepo {
				return // git does not enter a nested repository
			}
			if ok {
				// Outside any repository: walk it with its own rules.
				r := &repo{top: realPath(f.os), gitDir: gd, commonDir: commonDirOf(gd)}
				nested = rw.repoScope(r, rw.disp(f.rel))
				f.sc, f.top, f.stack = nested, "", ignoreStack{repo: nested.repo}
			}
		}
		if e := findEntry(entries, ".gitignore"); e != nil && e.Type()&fs.ModeSymlink == 0 {
			// A symlinked .gitignore is not read, as in git (2.32+).
			l, err := readIgnoreFile(filepath.Join(f.os, ".gitignore"), dirBase(f.top), true)
			if err != nil {
				rw.warn(rw.disp(joinRel(f.rel, ".gitignore")), "ignore file not read: "+reason(err), Notice)
			}
			f.stack = f.stack.push(l)
		}
	}
	if e := findEntry(entries, ".gitattributes"); e == nil || e.Type()&fs.ModeSymlink != 0 {
		f.sc.attrs.noteAbsent(f.sc.attrPath(f.top)) // a symlinked one is not read either
	}
	for _, de := range entries {
		if rw.stop() {
			return
		}
		rw.entry(f, de)
	}
	if nested != nil {
		rw.trackedPass(nested, "", f.rel, f.os, f.included)
	}
}

// findEntry finds a name in ReadDir's sorted entries.
func findEntry(entries []fs.DirEntry, name string) fs.DirEntry {
	i := sort.Search(len(entries), func(i int) bool { return entries[i].Name() >= name })
	if i < len(entries) && entries[i].Name() == name {
		return entries[i]
	}
	return nil
}

func hasEntry(entries []fs.DirEntry, name string) bool {
	return findEntry(entries, name) != nil
}

// entry handles one directory entry.
func (rw *rootWalk) entry(f dirFrame, de fs.DirEntry) {
	name := de.Name()
	dot := !rw.opts.Hidden && strings.HasPrefix(name, ".")
	if name == ".git" || (dot && !rw.opts.ListAll) {
		return
	}
	c := f.child(name)
	if dot && !c.hidden {
		c.hidden = true
		defer rw.hide(true)()
	}
	if de.Type()&fs.ModeSymlink != 0 {
		if !rw.opts.Follow {
			rw.other(c, Symlink, 0)
			return
		}
		info, err := os.Stat(c.os)
		if err != nil {
			rw.warn(rw.disp(c.rel), statReason(c.os, err), Unreadable)
			return
		}
		switch {
		case info.IsDir():
			rw.visitDir(c, info)
		case info.Mode().IsRegular():
			rw.visitFile(c, func() (fs.FileInfo, error) { return info, nil }, true)
		default:
			rw.other(c, Irregular, info.Mode())
		}
		return
	}
	switch {
	case de.IsDir():
		var info os.FileInfo
		if rw.opts.Follow {
			var err error
			if info, err = de.Info(); err != nil {
				return // vanished
			}
		}
		rw.visitDir(c, info)
	case de.Type().IsRegular():
		rw.visitFile(c, de.Info, false)
	default:
		rw.other(c, Irregular, de.Type())
	}
}

// other lists, for ListAll alone, an entry that is not a file to read:
// a symlink not followed (Dangling when it points at nothing) or, of the
// given mode, a FIFO, socket or device. The rules apply as to a file
// (a tracked one is trackedPass's); what they meet is muted.
func (rw *rootWalk) other(c dirFrame, kind Kind, mode fs.FileMode) {
	if !rw.opts.ListAll || c.sc.tracked != nil && c.sc.tracked.files[c.top] {
		return
	}
	defer rw.mute()()
	display := rw.disp(c.rel)
	if rw.ignored(c, false) || !rw.filtered(display, c.rel, c.included) {
		return
	}
	rw.files = append(rw.files, otherFile(display, c.os, kind, mode, rw.hiding))
}

// otherFile is the File of what other or trackedPass lists for ListAll.
func otherFile(display, osPath string, kind Kind, mode fs.FileMode, hidden bool) File {
	f := File{Path: display, OSPath: osPath, Kind: kind, Hidden: hidden}
	switch kind {
	case Symlink:
		if _, err := os.Stat(osPath); err != nil {
			f.Kind = Dangling
		}
	case Irregular:
		f.Reason = (&regular.NotRegularError{Mode: mode}).Error()
	}
	return f
}

// visitDir enters a subdirectory unless it is ignored or excluded, and
// notes whether Include takes everything below it.
func (rw *rootWalk) visitDir(c dirFrame, info os.FileInfo) {
	if rw.ignored(c, true) {
		return
	}
	excluded, included := rw.dirFilters(c.rel, rw.disp(c.rel), c.included)
	if excluded {
		return
	}
	c.included = c.included || included
	rw.enterDir(c, info, false)
}

// ignored reports whether the rules ignore the entry c, counting it in
// Options.Ignored when they do.
func (rw *rootWalk) ignored(c dirFrame, isDir bool) bool {
	if rw.opts.NoIgnore {
		return false
	}
	rule, ign := c.stack.decide(c.top, isDir)
	if ign && rw.opts.Ignored != nil && !rw.muted { // what ListAll alone walks is not counted
		rw.opts.Ignored.add(*rule)
	}
	return ign
}

// hasTrackedDir: git enters a directory with tracked files even when it
// holds a .git of its own.
func (sc *scope) hasTrackedDir(top string) bool {
	return sc.tracked != nil && sc.tracked.dirs[top]
}

// visitFile lists an untracked file that no rule ignores. Tracked files
// are left to trackedPass, which lists them whatever the rules say. stat
// and link are consider's.
func (rw *rootWalk) visitFile(c dirFrame, stat func() (fs.FileInfo, error), link bool) {
	if c.sc.tracked != nil && c.sc.tracked.files[c.top] {
		return
	}
	if rw.ignored(c, false) {
		return
	}
	rw.consider(rw.disp(c.rel), c.rel, c.os, stat, link, false, c.included, c.sc.attrs, c.sc.attrPath(c.top))
}

// trackedPass lists the index entries under prefix (relative to the top of
// sc) that exist on disk as files, like git ls-files --cached. baseRel and
// baseOS are the root-relative and OS paths of prefix; baseIncluded says
// whether Include took prefix or a directory above it.
func (rw *rootWalk) trackedPass(sc *scope, prefix, baseRel, baseOS string, baseIncluded bool) {
	if sc.tracked == nil {
		return
	}
	for _, t := range sc.tracked.names {
		if rw.stop() {
			return
		}
		r, ok := underPrefix(t, prefix)
		if !ok {
			continue
		}
		hidden := !rw.opts.Hidden && hasHidden(r)
		if hidden && !rw.opts.ListAll {
			continue
		}
		excluded, included := rw.parentFilters(baseRel, r, baseIncluded)
		if excluded {
			continue
		}
		rel := joinRel(baseRel, r)
		display := rw.disp(rel)
		show := rw.hide(hidden)
		ok = rw.filtered(display, rel, included)
		if !ok {
			show()
			continue
		}
		osPath := filepath.Join(baseOS, filepath.FromSlash(r))
		if f, ok := rw.trackedFile(display, osPath); ok {
			f.Attrs = rw.attrs(sc.attrs, sc.attrPath(t), display)
			rw.files = append(rw.files, f)
		}
		show()
	}
}

// hide, when on and not hiding already, makes what follows hidden until
// the function it returns is called: files are listed with File.Hidden,
// and what Include and Exclude match does not count (ListAll must not
// change which patterns "match nothing").
func (w *walker) hide(on bool) func() {
	if !on || w.hiding {
		return func() {}
	}
	w.hiding = true
	unmute := w.mute()
	return func() { w.hiding = false; unmute() }
}

// mute, when not muted already, makes what follows give no warning, no
// Options.Ignored count and no Include or Exclude match until the
// function it returns is called: what only ListAll lists must not change
// what is said of a run.
func (w *walker) mute() func() {
	if w.muted {
		return func() {}
	}
	w.muted, w.include.muted, w.exclude.muted = true, true, true
	return func() { w.muted, w.include.muted, w.exclude.muted = false, false, false }
}

// underPrefix returns t relative to the directory prefix, if inside it.
func underPrefix(t, prefix string) (string, bool) {
	if prefix == "" {
		return t, true
	}
	if len(t) > len(prefix) && t[len(prefix)] == '/' && strings.HasPrefix(t, prefix) {
		return t[len(prefix)+1:], true
	}
	return "", false
}

// parentFilters applies Exclude and Include to the directories of r
// (below baseRel) as the walk does: is one excluded (pruned), or is one
// included (or baseIncluded)? Verdicts are remembered by directory, as the
// index lists the files of a directory one after the other.
func (rw *rootWalk) parentFilters(baseRel, r string, baseIncluded bool) (excluded, included bool) {
	included = baseIncluded
	if !rw.include.any() && !rw.exclude.any() {
		return false, included
	}
	hidden, start := false, 0 // hidden: r[:i] has a hidden component
	for i := 0; i < len(r); i++ {
		if r[i] != '/' {
			continue
		}
		hidden, start = hidden || (r[start] == '.' && !rw.opts.Hidden), i+1
		d := joinRel(baseRel, r[:i])
		st, ok := rw.dirs[d]
		if !ok {
			show := rw.hide(hidden) // the verdict is kept: only a hidden d's is muted
			st.excluded, st.included = rw.dirFilters(d, rw.disp(d), false)
			show()
			if rw.dirs == nil {
				rw.dirs = map[string]dirState{}
			}
			rw.dirs[d] = st
		}
		if st.excluded {
			return true, false
		}
		included = included || st.included
	}
	return false, included
}

// trackedFile stats a tracked path and returns its File (without its
// attributes). Deleted files are silently absent, as are symlinks unless
// following them and what is not a regular file, unless ListAll (which
// lists them, muted).
func (rw *rootWalk) trackedFile(display, osPath string) (File, bool) {
	info, err := os.Lstat(osPath)
	if err != nil {
		return File{}, false
	}
	link := info.Mode()&fs.ModeSymlink != 0
	if link {
		if !rw.opts.Follow {
			return otherFile(display, osPath, Symlink, 0, rw.hiding), rw.opts.ListAll
		}
		if info, err = os.Stat(osPath); err != nil {
			rw.warn(display, statReason(osPath, err), Unreadable)
			return File{}, false
		}
	}
	if !info.Mode().IsRegular() {
		return otherFile(display, osPath, Irregular, info.Mode(), rw.hiding), rw.opts.ListAll && !info.IsDir()
	}
	return File{Path: display, OSPath: osPath, Size: info.Size(), Hidden: rw.hiding, ID: regular.IDOf(info), Link: link}, true
}

// consider lists a file if the filters let it through. stat (the
// file's information: its size and identity, followed when link says
// that osPath is a symlink followed) is called only then, so rejected
// files cost no stat. inIncluded says whether Include took a directory
// above it. as and at are the file's attribute scope and its path
// relative to the scope's top (for explicit files, found from the file's
// own directory).
func (rw *rootWalk) consider(display, rel, osPath string, stat func() (fs.FileInfo, error), link, explicit, inIncluded bool, as *attrScope, at string) {
	if !rw.filtered(display, rel, inIncluded) {
		return
	}
	var attrs Attrs
	if explicit {
		attrs = rw.explicitAttrs(display, osPath)
	} else {
		attrs = rw.attrs(as, at, display)
	}
	info, err := stat()
	if err != nil {
		rw.warn(display, reason(err), Unreadable)
		return
	}
	rw.files = append(rw.files, File{Path: display, OSPath: osPath, Size: info.Size(), Explicit: explicit, Attrs: attrs, Hidden: rw.hiding, ID: regular.IDOf(info), Link: link})
}

// filtered applies Include and Exclude to a file. inIncluded says whether
// Include took a directory above it. Patterns are matched even when the
// answer is known, to mark those that match something.
func (rw *rootWalk) filtered(display, rel string, inIncluded bool) bool {
	ok := true
	if rw.include.any() {
		if inIncluded {
			rw.include.mark(rel, display, false)
		} else {
			ok = rw.include.match(rel, display, false)
		}
	}
	if rw.exclude.any() {
		if ok {
			ok = !rw.exclude.match(rel, display, false)
		} else {
			rw.exclude.mark(rel, display, false)
		}
	}
	return ok
}
