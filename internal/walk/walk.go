// Package walk lists the files castchunk chunks.
//
// It owns everything between the path arguments and the list of files:
// resolving the arguments, walking directories, honouring ignore rules,
// filtering by hidden-ness and globs, and giving every file its display
// path and its linguist attributes. Which of the files listed the caller
// can use (is there a grammar for it?) is the caller's test, applied to
// the list. It opens no file for reading except ignore files, attribute
// files, git config files, ".git" and "commondir" files and the git index
// (see "Rules and metadata files").
//
// # Ignore rules
//
// Inside a git work tree the list equals what
// `git ls-files --cached --others --exclude-standard` lists (then filtered
// as below): .gitignore files at every level, .git/info/exclude and the
// global excludes file (core.excludesFile, or $XDG_CONFIG_HOME/git/ignore)
// are applied with git's own matcher (a port of wildmatch.c, memoised so
// that no pattern makes it backtrack for exponential time, as git's
// does) and git's precedence; a directory that is ignored is not entered,
// so nothing inside it can be re-included; files git tracks (the index)
// are listed even when a pattern matches them; a nested repository (a subdirectory with its own
// .git) is not entered. Unlike git, a directory named as a root argument
// is walked even when it lies inside an ignored directory (naming it is
// asking for it, as with ripgrep); the rules still apply below it.
//
// Outside any work tree, .gitignore files are still honoured, from the root
// argument down; info/exclude, the global file and the index need a
// repository. A repository met while walking such a tree is walked with its
// own rules, as if git ran inside it.
//
// Options.NoIgnore turns all of this off: every file is listed, nested
// repositories are entered. Directories named .git are always skipped; a
// root argument inside one is skipped with a Notice.
//
// The index is read by walk's own reader (index.go): versions 2, 3 and 4
// (prefix-compressed names), SHA-1 and SHA-256 repositories
// (extensions.objectFormat), split indexes (core.splitIndex: the shared
// index is merged in) and sparse indexes (whose directory entries are
// skipped: what they hold is outside the sparse checkout, not on disk);
// the checksum is verified. An index that cannot be read (damaged, a
// required extension it does not know, an unknown object format) gets a
// Notice and the ignore rules alone decide.
//
// # Attributes
//
// Every file listed gets File.Attrs: the four attributes GitHub's Linguist
// reads from git attributes, as git gives them (gitattributes(5)) and as
// Linguist reads them. Language is the value of linguist-language ("" when
// it has none: unspecified, set or unset without a value); Generated,
// Vendored and Documentation (linguist-generated, -vendored,
// -documentation) are Yes for "attr", "attr=true" or any value but
// "false", No for "-attr" or "attr=false" (overriding Linguist's own
// heuristics), Unspecified when no rule names the attribute or "!attr"
// took it back. walk only reports them: what they mean for a file is the
// caller's decision.
//
// The files are git's, in rising precedence: the built-in "binary" macro
// (-diff -merge -text); in a repository, the system file
// /etc/gitattributes (unless GIT_ATTR_NOSYSTEM) and the global file
// (core.attributesFile, by default $XDG_CONFIG_HOME/git/attributes or
// ~/.config/git/attributes); the .gitattributes files from the top of the
// work tree down to the file's directory, a deeper one overriding a
// shallower one; in a repository, $GIT_DIR/info/attributes. Within a file
// a later line overrides an earlier one. Outside any repository, the
// .gitattributes files apply from the current directory down when the
// root argument (or a file named as an argument) lies below it, else from
// the root argument (or the named file's directory) down. With NoIgnore
// the attributes still apply. A .gitattributes that is a symlink is not
// read, as in git; unlike git, one that is missing from the work tree is
// not read from the index (a sparse checkout), and attr.tree and
// GIT_ATTR_SOURCE are not honoured.
//
// A line is a pattern and states: "attr" (set), "-attr" (unset), "!attr"
// (unspecified, and rules of lower precedence are not consulted for it),
// "attr=value". The pattern is a .gitignore pattern (matched by the same
// port of wildmatch: '/' anchors to the file's directory, a pattern
// without '/' matches the name at any depth, "**" spans directories),
// except that it matches files only: a pattern naming a directory
// ("vendor", "vendor/") does not reach the files inside it ("vendor/**"
// does), and a negative pattern ("!x") makes git ignore the line, as
// here. A pattern may be quoted C-style ("a b.js"). Lines of 2048
// bytes or more and lines with an invalid attribute name are ignored, as
// git ignores them (git warns). Macros ("[attr]name states") may be
// defined in the top-level .gitattributes, info/attributes, the global
// and the system file (git refuses them elsewhere); setting a macro sets
// the states it stands for, macros within macros included, as git does.
//
// Only the rules that can change one of the four attributes (directly or
// through macros) are kept when a file is read, so the usual
// "* text=auto" or "*.png binary" costs nothing per file, and a file no
// rule names gets the zero Attrs without allocating.
//
// # Rules and metadata files
//
// Every file the walker reads is read by one function, readMeta: only
// regular files are read (a FIFO would block the walk, a device such as
// /dev/zero never ends); the type is checked before opening and on the
// opened descriptor, the open is non-blocking, and no more than the size
// fstat gives is read, up to a cap: 16 MiB for ignore, attribute and git
// config files, 1 MiB for ".git" and "commondir" files, 1 GiB for the
// index. A missing file is no rules, silently, as in git. An ignore,
// attribute or config file that is there but cannot be used (not a
// regular file, over the cap, unreadable) gives no rules and a Notice
// naming it; the null device reads as empty, silently
// (core.excludesFile=/dev/null is the usual "none").
//
// # Other filters
//
// Only regular files (and, with Follow, symlinks to regular files) are
// listed: FIFOs, sockets and devices met while walking are skipped
// silently, as git skips them; one named as an argument is reported
// Unreadable ("not a regular file (a FIFO)"). None is ever opened. With
// Options.ListAll they are listed too, File.Kind Irregular, as are the
// symlinks not followed (Symlink; Dangling, found by one stat, when the
// link points at nothing), for a caller that accounts for every path: the
// rules apply to them as to files (git matches a symlink as a file), and
// what is met there gives no warning, no Options.Ignored count and no
// Include or Exclude match, as for hidden files.
//
// A path with a component (below the root argument) starting with '.' is
// hidden and skipped unless Options.Hidden. With Options.ListAll (and
// not Hidden) hidden files are listed too, with File.Hidden set, for a
// caller that accounts for every file (chunk's --manifest) but chunks only
// the others: the walk enters hidden directories then, with every rule
// but hidden-ness applied (an ignored hidden file is not listed), and
// what Include and Exclude match there does not count as a match (the
// "matches nothing" notice is the same with or without ListAll), nor
// what the ignore rules leave out there as ignored (Options.Ignored).
// Symlinks met while walking are
// skipped unless Options.Follow; a root argument that is a symlink is always
// followed. Arguments that name one file or folder through links are the
// caller's to make one (Distinct); List lists what each reaches.
//
// Every file listed carries its identity (File.ID: device and inode) and
// whether the walk reached it as a symlink it followed (File.Link), so that
// a reader can refuse a file that changed between the listing and the
// reading (regular.OpenListed): a file swapped for a symlink is never read
// through it.
//
// # Include and Exclude
//
// Include and Exclude are doublestar globs (`**` spans directories),
// matched against files and against the directories below the root
// argument (the root itself is never matched: naming it is asking for it).
// A pattern matches a file or directory when it matches its path relative
// to the root argument (`tests/**` with root "."), its display path
// (`src/tests/**` with root "src"), or, for a pattern without '/', its base
// name (`*_test.py`, `node_modules`). As in .gitignore, a pattern ending in
// '/' matches directories only (`tests/`, `src/tests/`); the trailing '/'
// does not count as a '/' for the base-name rule. A directory that Exclude
// matches is not entered: nothing below it is listed. A directory that
// Include matches takes everything below it (`tests`, `tests/` or
// `src/tests` include the files under that folder); a file is listed when
// Include is empty, matches it or matches a directory above it, and
// Exclude matches neither.
//
// A pattern that matches no file or directory during the whole walk (files
// and directories the walk does not see, ignored or hidden or below an
// excluded directory, do not count) is reported with a Notice whose Path is
// "--include" or "--exclude" and whose Reason is `pattern "P" matches
// nothing`, unless a root argument could not be read.
//
// # Explicit files
//
// Files named as arguments are "explicit": they are listed whatever the
// ignore rules and hidden-ness say, but Include/Exclude (so that
// `--files-from` lists can be filtered) still apply. (The size limit is the
// reader's: package pipeline skips a file over it without reading it.) For
// them the path as written is both the path relative to the root and the
// display path, and the directories it names ("src/tests" and "src" for
// "src/tests/a.py"; not "." or "..") are matched as directories.
package walk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/castchunk/castchunk/internal/regular"
)

// Options control which files are listed.
type Options struct {
	Hidden bool // include hidden files/dirs; ".git" is always skipped
	// ListAll lists, for a caller that accounts for every path (chunk's
	// --manifest), what the walk meets but would leave out unasked: the
	// hidden files Hidden would add (marked File.Hidden), the symlinks
	// it does not follow and the FIFOs, sockets and devices (File.Kind).
	// The caller leaves them out.
	ListAll  bool
	NoIgnore bool         // ignore no file: no .gitignore, info/exclude, global excludes
	Follow   bool         // follow symlinks met while walking; loops are detected
	Include  []string     // doublestar globs: when non-empty, a file or a directory above it must match one; "dir/" matches directories only
	Exclude  []string     // doublestar globs: a file or directory matching any is skipped; "dir/" matches directories only
	Ignored  *IgnoreTally // when not nil, counts what the ignore rules leave out, by rule
}

// File is one file to chunk.
type File struct {
	Path     string // display path: '/'-separated, as reached from the argument ("src/a.py", "../x/a.py", "/abs/a.py")
	OSPath   string // path to open
	Size     int64  // size in bytes when listed
	Explicit bool   // named directly as an argument
	Attrs    Attrs  // linguist attributes from git attributes; the zero value when no rule names one
	Hidden   bool   // listed only for Options.ListAll: a hidden path, not to be chunked
	Kind     Kind   // Regular, or (listed only for Options.ListAll) why it is not a file to read
	Reason   string // for Irregular: "not a regular file (a FIFO)"
	// ID is the identity (device and inode) of the file listed, for a
	// reader to check that the file it opens is that one; zero when the
	// system gives none.
	ID regular.ID
	// Link says that OSPath is a symlink the walk followed to the file (a
	// link named as an argument, or met with Options.Follow): the reader
	// follows it too. Otherwise the file was no link when listed, and a
	// reader opens it without following one (regular.OpenListed).
	Link bool
}

// Kind is what a listed path is. Only Regular files are read; the others
// are listed for Options.ListAll alone (git lists the symlinks too).
type Kind int

const (
	Regular  Kind = iota // a regular file, or a symlink followed to one
	Symlink              // a symlink not followed: Follow would follow it
	Dangling             // a symlink not followed, pointing at nothing
	// Irregular: a FIFO, socket or device (met while walking, or reached
	// through a symlink followed), never opened; File.Reason says which.
	Irregular
)

// WarnKind says whether a warning means an input could not be read.
type WarnKind int

const (
	// Unreadable: an input is missing or could not be read (exit 3 upstream).
	Unreadable WarnKind = iota
	// Notice: information that is not a problem with any input, e.g. an
	// unreadable git index or a root inside an ignored directory.
	Notice
)

// String names the kind, for logs and tests.
func (k WarnKind) String() string {
	switch k {
	case Unreadable:
		return "unreadable"
	case Notice:
		return "notice"
	}
	return fmt.Sprintf("WarnKind(%d)", int(k))
}

// Warning is a per-path problem; the walk goes on.
type Warning struct {
	Path   string // display path
	Reason string // human text, without the path
	Kind   WarnKind
}

// List walks the roots (files or directories; none or "" means ".") and
// returns the files sorted by Path (byte order, one per Path) and the
// warnings sorted by Path then Reason. The error is only for bad options (an
// invalid glob); problems with paths are warnings.
//
// List cannot be interrupted: it returns when the walk is done. A caller
// that must stop on a signal calls ListContext.
func List(roots []string, opts Options) ([]File, []Warning, error) {
	files, warns, _, err := list(roots, opts, false, nil)
	return files, warns, err
}

// ListContext is List, given up when ctx is done: it then returns at once
// with ctx's error and no files or warnings, wherever the walk is (a
// directory with a million entries, a large index being read, a pattern
// the matcher needs long for). The walk itself goes on in the background
// only until its next check (before each root argument, directory,
// directory entry, index entry and attribute rule: reading an index, or
// one file's ignore rules, goes on to its end), then ends; it writes
// nothing, so nothing is left half done. When the walk finishes first,
// the result is List's.
//
// A command whose context a signal cancels (signal.NotifyContext) calls
// it in place of List, and on an error first tests ctx.Err(): one SIGINT
// or SIGTERM then stops the run while it lists files.
func ListContext(ctx context.Context, roots []string, opts Options) ([]File, []Warning, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	type result struct {
		files []File
		warns []Warning
		err   error
	}
	done := make(chan result, 1) // buffered: an abandoned walk can still end
	go func() {
		files, warns, _, err := list(roots, opts, false, ctx.Done())
		done <- result{files, warns, err}
	}()
	select {
	case r := <-done:
		if errors.Is(r.err, errStopped) {
			return nil, nil, ctx.Err()
		}
		return r.files, r.warns, r.err
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// errStopped is list's error when its caller gave up (done was closed).
var errStopped = errors.New("walk stopped")

// list is List. With allAttrs (for the tests) it also returns every
// attribute of every file listed, by display path, as
// `git check-attr -a` prints them. When done is closed the walk winds
// down and list returns errStopped.
func list(roots []string, opts Options, allAttrs bool, done <-chan struct{}) ([]File, []Warning, map[string]map[string]string, error) {
	include, err := newGlobSet("--include", opts.Include)
	if err != nil {
		return nil, nil, nil, err
	}
	exclude, err := newGlobSet("--exclude", opts.Exclude)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	w := &walker{opts: opts, scopes: map[string]*scope{}, include: include, exclude: exclude, allAttrs: allAttrs, done: done}
	for _, r := range roots {
		if w.stop() {
			break
		}
		if r == "" {
			r = "."
		}
		w.root(r)
	}
	if w.stop() {
		return nil, nil, nil, errStopped
	}
	if !w.rootFailed {
		// With a root missing, "matches nothing" would say nothing useful.
		w.include.report(w)
		w.exclude.report(w)
	}
	files, warns := w.result()
	return files, warns, w.rawAttrs, nil
}

// walker accumulates the result of one List call.
type walker struct {
	opts       Options
	files      []File
	warns      []Warning
	scopes     map[string]*scope // by repository top, so the index is read once
	include    *globSet
	exclude    *globSet
	rootFailed bool // a root argument could not be read

	attrScopes       map[string]*attrScope // by top directory
	explicitAttrDirs map[string]attrDir    // by the directory of a file named as an argument, as written
	cwd              string                // the current directory, symlinks resolved ("" if unknown)
	cwdRead          bool
	allAttrs         bool // record every attribute of every file (tests)
	rawAttrs         map[string]map[string]string

	done    <-chan struct{} // closed when the caller gives up (ListContext); nil: never
	stopped bool            // done was found closed
	hiding  bool            // walking a hidden path for ListAll (hide)
	muted   bool            // walking what only ListAll lists: no warning, no tally, no glob match (mute)
}

// stop reports whether the caller gave up on the walk, which then winds
// down: the walk's loops check it before each step and return.
func (w *walker) stop() bool {
	if !w.stopped && w.done != nil {
		select {
		case <-w.done:
			w.stopped = true
		default:
		}
	}
	return w.stopped
}

// warn records a warning, but not while walking what only ListAll
// lists: what is said of a file must not depend on ListAll (a dangling
// link, an unreadable folder in a hidden one is Hidden's to report).
func (w *walker) warn(p, reason string, kind WarnKind) {
	if w.muted {
		return
	}
	w.warns = append(w.warns, Warning{Path: p, Reason: reason, Kind: kind})
}

// root handles one argument: a file is explicit, a directory is walked.
func (w *walker) root(arg string) {
	display := path.Clean(filepath.ToSlash(arg))
	osPath := filepath.Clean(arg)
	info, err := os.Lstat(osPath)
	link := err == nil && info.Mode()&fs.ModeSymlink != 0 // a link named is followed
	if link {
		info, err = os.Stat(osPath)
	}
	if err != nil {
		w.warn(display, statReason(osPath, err), Unreadable)
		w.rootFailed = true
		return
	}
	switch {
	case info.Mode().IsRegular():
		rw := &rootWalk{walker: w, display: display}
		excluded, included := w.explicitDirs(display)
		if excluded {
			return
		}
		rw.consider(display, display, osPath, func() (fs.FileInfo, error) { return info, nil }, link, true, included, nil, "")
	case info.IsDir():
		w.dirRoot(display, osPath, info)
	default:
		// A FIFO, socket or device: reading it could block or never end.
		w.warn(display, (&regular.NotRegularError{Mode: info.Mode()}).Error(), Unreadable)
		w.rootFailed = true
	}
}

// result sorts and deduplicates. A path reached twice (roots "." and
// "src") is one file, explicit if either occurrence was, hidden if both
// were (roots "." and ".github": the second asks for it), a file to read
// if either was (roots "." and "link.py": a link named is followed).
func (w *walker) result() ([]File, []Warning) {
	sort.SliceStable(w.files, func(i, j int) bool { return w.files[i].Path < w.files[j].Path })
	files := w.files[:0]
	for _, f := range w.files {
		if n := len(files); n > 0 && files[n-1].Path == f.Path {
			p := &files[n-1]
			explicit, hidden := p.Explicit || f.Explicit, p.Hidden && f.Hidden
			if p.Kind != Regular && f.Kind == Regular {
				*p = f
			}
			p.Explicit, p.Hidden = explicit, hidden
			continue
		}
		files = append(files, f)
	}
	sort.SliceStable(w.warns, func(i, j int) bool {
		a, b := w.warns[i], w.warns[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Reason < b.Reason
	})
	warns := w.warns[:0]
	for _, x := range w.warns {
		if n := len(warns); n > 0 && warns[n-1] == x {
			continue
		}
		warns = append(warns, x)
	}
	return files, warns
}

// statReason names why a path cannot be stat'ed, telling dangling and
// looping symlinks apart from missing paths.
func statReason(osPath string, err error) string {
	if errors.Is(err, syscall.ELOOP) {
		return "symlink loop"
	}
	if errors.Is(err, fs.ErrNotExist) {
		if fi, lerr := os.Lstat(osPath); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "dangling symlink"
		}
	}
	return reason(err)
}

// reason is the error text without the path (the warning carries it).
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, syscall.ELOOP) {
		return "symlink loop"
	}
	return err.Error()
}

// joinRel joins '/'-separated relative paths, "" being the empty path.
func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// hasHidden reports whether a relative path has a component starting with '.'.
func hasHidden(rel string) bool {
	for _, c := range strings.Split(rel, "/") {
		if strings.HasPrefix(c, ".") {
			return true
		}
	}
	return false
}

// explicitDirs applies Include and Exclude to the directories of the path
// of a file named as an argument, as written ("src/tests" and "src" for
// "src/tests/a.py"; "." and ".." are not directory names): is one of them
// excluded, or included?
func (w *walker) explicitDirs(display string) (excluded, included bool) {
	if !w.include.any() && !w.exclude.any() {
		return false, false
	}
	for i := 1; i < len(display); i++ {
		if display[i] != '/' {
			continue
		}
		d := display[:i]
		if b := d[strings.LastIndexByte(d, '/')+1:]; b == "." || b == ".." {
			continue
		}
		e, n := w.dirFilters(d, d, included)
		if e {
			return true, false
		}
		included = included || n
	}
	return false, included
}

// dirFilters applies Exclude and Include to a directory. inIncluded says
// whether a directory above it was included (then Include is only matched
// to mark the patterns that match it).
func (w *walker) dirFilters(rel, display string, inIncluded bool) (excluded, included bool) {
	if w.exclude.any() {
		excluded = w.exclude.match(rel, display, true)
	}
	if w.include.any() {
		if inIncluded || excluded {
			w.include.mark(rel, display, true)
		} else {
			included = w.include.match(rel, display, true)
		}
	}
	return excluded, included
}
