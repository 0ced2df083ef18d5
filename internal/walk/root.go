package walk

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// DefaultRoot is the folder records' paths are relative to when --root is
// not given: the top of the git work tree that holds every one of paths
// (files or folders, as given on the command line) when the repository
// tracks them or would (none is ignored by its rules). So a file gets the
// same path, and the same id, whether castchunk runs from the
// repository's top, from a sub-folder, or with absolute arguments.
// Otherwise (outside git, or a folder the repository ignores: a build
// folder, an unrelated folder under a home directory kept in git) a single
// folder argument is the root itself, so `chunk sr`, `cd sr && chunk .` and
// `chunk /abs/sr` agree; with several arguments, or a file, the current
// directory (--root says otherwise). With no paths, the current
// directory's work tree, else the current directory.
func DefaultRoot(paths []string) (string, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	top := ""
	for i, p := range paths {
		t, isDir, err := gitTop(p)
		if err != nil {
			return "", err
		}
		if t == "" || i > 0 && t != top {
			if len(paths) == 1 && isDir {
				return filepath.Abs(p)
			}
			return os.Getwd()
		}
		top = t
	}
	return top, nil
}

// GitTop returns the top of the git work tree that holds p (a file or
// folder) and tracks it or would (p is not ignored by its rules); "" when
// there is none: outside git, or in a folder the repository ignores.
func GitTop(p string) (string, error) {
	top, _, err := gitTop(p)
	return top, err
}

// gitTop is GitTop, and whether p is a folder.
func gitTop(p string) (top string, isDir bool, err error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false, err
	}
	dir := realPath(abs)
	fi, err := os.Stat(dir)
	isDir = err == nil && fi.IsDir()
	if err == nil && !isDir {
		dir = filepath.Dir(dir)
	}
	r := findRepo(dir)
	if r == nil || ignoredByRepo(r, realPath(abs)) {
		return "", isDir, nil
	}
	return r.top, isDir, nil
}

// Rebase rewrites display paths (as reached from the arguments) to paths
// relative to a root folder. It is not safe for concurrent use.
type Rebase struct {
	root, realRoot string            // absolute; realRoot with symlinks resolved
	cwd            string            // the current directory, once: not a Getwd per file
	realDirs       map[string]string // real paths of the folders met, by absolute path
}

// NewRebase returns a Rebase to root.
func NewRebase(root string) (*Rebase, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", root)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return &Rebase{root: abs, realRoot: realPath(abs), cwd: cwd, realDirs: map[string]string{}}, nil
}

// Root returns the root, absolute.
func (b *Rebase) Root() string { return b.root }

// Path returns p, a display path ('/'-separated, relative to the current
// directory or absolute), relative to the root and '/'-separated; ok is
// false, and p comes back unchanged, when p lies outside the root both as
// written and with symbolic links resolved.
func (b *Rebase) Path(p string) (string, bool) {
	abs := filepath.FromSlash(p)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(b.cwd, abs)
	}
	abs = filepath.Clean(abs)
	if rel, ok := within(b.root, abs); ok {
		return rel, true
	}
	// A symlinked current directory or root: compare real folders.
	dir := filepath.Dir(abs)
	real, seen := b.realDirs[dir]
	if !seen {
		real = realPath(dir)
		b.realDirs[dir] = real
	}
	if rel, ok := within(b.realRoot, filepath.Join(real, filepath.Base(abs))); ok {
		return rel, true
	}
	return p, false
}

// within returns p relative to root, '/'-separated, when p lies below root
// (both absolute and clean).
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return path.Clean(filepath.ToSlash(rel)), true
}

// ignoredByRepo reports whether the repository r would leave p (absolute,
// real) out: p, or a folder above it, is ignored by its rules (.gitignore
// files from the top down, info/exclude, the global excludes file), and
// the index tracks nothing at or below p. An unreadable rule or index
// counts as no rule: the repository's top stays the root.
func ignoredByRepo(r *repo, p string) bool {
	rel, err := filepath.Rel(r.top, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return false
	}
	rel = filepath.ToSlash(rel)
	if t, err := readIndex(r); err == nil && (t.files[rel] || t.dirs[rel]) {
		return false
	}
	st := ignoreStack{repo: repoIgnoreLists(r, func(string) {})}
	dir, cur := r.top, ""
	comps := strings.Split(rel, "/")
	for i, comp := range comps {
		l, _ := readIgnoreFile(filepath.Join(dir, ".gitignore"), dirBase(cur), true)
		st = st.push(l)
		cur, dir = joinRel(cur, comp), filepath.Join(dir, comp)
		isDir := i < len(comps)-1
		if !isDir {
			fi, err := os.Stat(p)
			isDir = err == nil && fi.IsDir()
		}
		if st.ignored(cur, isDir) {
			return true
		}
	}
	return false
}
