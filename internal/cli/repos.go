package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/walk"
)

// source is what one listing of a run walks: the paths of one repository,
// or of the whole run when it names none (docs/design.md, "Repositories").
// A repository is listed and rooted alone, so its records are the same
// whether it is chunked alone or beside others, wherever it is checked
// out.
type source struct {
	repo   string       // the repository's name; "" when the run names none
	roots  []string     // paths to walk
	args   []string     // the path arguments among roots, to tell named files
	rebase *walk.Rebase // writes paths relative to the repository's top (or the root)
}

// name names a file of the source in messages: repo:path in a repository
// (git's notation for a path in a revision), else the path.
func (s *source) name(p string) string { return repoName(s.repo, p) }

// repoName names path of repository repo in messages ("" for none).
func repoName(repo, p string) string {
	if repo == "" {
		return p
	}
	return repo + ":" + p
}

// jobName names a job's file in messages.
func jobName(j pipeline.Job) string { return repoName(j.Repo, j.Path) }

// missingRepo is a repository of the list that cannot be read: its name,
// its path as listed, and why.
type missingRepo struct {
	name, path, reason string
	named              bool // the list named it: else name is a guess from the path
}

// entry is the manifest's entry of the repository: its top, "."; a
// repository that has no name is its path as listed.
func (m missingRepo) entry() manifestEntry {
	e := manifestEntry{Repo: m.name, Path: ".", Status: plan.Unreadable.String(), Note: m.reason}
	if m.name == "" {
		e.Path = m.path
	}
	return e
}

// repoEntry is one line of a --repos-from list: a path, and the name the
// list gives it ("" for the default, the top folder's name).
type repoEntry struct{ path, name string }

// readReposFrom reads --repos-from FILE (- for stdin): one repository a
// line, PATH or PATH<TAB>NAME; blank lines and lines starting with # are
// skipped, and a line's trailing \r is dropped (CRLF lists).
func readReposFrom(name string, stdin io.Reader) ([]repoEntry, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, usageError("--repos-from: %v", err)
		}
		defer f.Close()
		r = f
	}
	var out []repoEntry
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff")) // a BOM an editor added
		}
		if len(bytes.TrimSpace(line)) == 0 || line[0] == '#' {
			continue
		}
		p, nm, _ := strings.Cut(string(line), "\t")
		if p == "" {
			return nil, usageError("--repos-from %s: line %d: no path before the tab", quoteName(name), n)
		}
		if nm != "" {
			if err := record.CheckRepo(nm); err != nil {
				return nil, usageError("--repos-from %s: line %d: %v", quoteName(name), n, err)
			}
		}
		out = append(out, repoEntry{path: p, name: nm})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = errors.New("a line longer than 1 MiB: not a list of paths")
		}
		return nil, usageError("--repos-from %s: %v", quoteName(name), err)
	}
	return out, nil
}

// loadRepos reads the list --repos-from names (- for stdin) and gathers
// its repositories (groupRepos); a signal stops a read that waits (a FIFO).
func loadRepos(ctx context.Context, list string, stdin io.Reader) ([]source, []missingRepo, error) {
	var entries []repoEntry
	err := interruptible(ctx, func() (err error) {
		entries, err = readReposFrom(list, stdin)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return groupRepos(entries)
}

// repoTop is the top of the repository path p belongs to: the git work
// tree's that tracks it, else p itself, which must then be a folder.
func repoTop(p string) (string, error) {
	top, err := walk.GitTop(p)
	if err != nil || top != "" {
		return top, err
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return "", err
	case !fi.IsDir():
		return "", fmt.Errorf("%s is a file outside git: a repository is a folder", quoteName(p))
	}
	return filepath.Abs(p)
}

// severalRepos reports whether paths lie in two or more git repositories:
// then each is a repository of its own, named by its top folder, and
// paths are relative to each top (`castchunk chunk one two`).
func severalRepos(paths []string) bool {
	seen := ""
	for _, p := range paths {
		top, err := walk.GitTop(p)
		if err != nil || top == "" {
			continue
		}
		if seen != "" && top != seen {
			return true
		}
		seen = top
	}
	return false
}

// allInGit refuses a path outside git among paths that lie in several
// repositories: whether it is a repository of its own or a part of some
// tree, only a list can say.
func allInGit(paths []string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue // a wrong path: the run names it, status 3
		}
		if top, err := walk.GitTop(p); err == nil && top == "" {
			return usageError("%s lies outside git, beside paths in several git repositories: list the repositories with --repos-from (a folder outside git is a repository of its own there)", quoteName(p))
		}
	}
	return nil
}

// listedRepo is one repository of a list, as gathered by groupRepos.
type listedRepo struct {
	source
	named bool // the list names it (else its top folder's name)
	plain bool // a folder outside git
}

// repoSet gathers the entries of a list by repository (their top).
type repoSet struct {
	byTop   map[string]*listedRepo
	order   []string
	missing []missingRepo
}

// groupRepos makes the sources of entries: entries at or below one top
// are one repository, named by the list or by the top's folder name (as
// the path reaches it: a symbolic link's name, not its target's). Two
// repositories of one name, one given two names, and a repository inside
// a folder outside git that is listed too (its files would be in both)
// are refused: their records could not be told apart, or not be found
// again.
//
// A repository that cannot be read (a wrong path, a checkout that
// failed) is no reason to hold back the others: it comes back in missing,
// named by the list or its path's last folder, and the run says so
// (status 3).
func groupRepos(entries []repoEntry) (sources []source, missing []missingRepo, err error) {
	set := repoSet{byTop: map[string]*listedRepo{}}
	for _, e := range entries {
		if err := set.add(e); err != nil {
			return nil, nil, err
		}
	}
	var listed []*listedRepo
	for _, top := range set.order {
		listed = append(listed, set.byTop[top])
	}
	if err := checkNesting(listed); err != nil {
		return nil, nil, err
	}
	for _, l := range listed {
		sources = append(sources, l.source)
	}
	slices.SortStableFunc(sources, func(a, b source) int { return strings.Compare(a.repo, b.repo) })
	if err := checkNames(sources, set.missing); err != nil {
		return nil, nil, err
	}
	return sources, set.missing, nil
}

// add takes one entry of the list.
func (set *repoSet) add(e repoEntry) error {
	top, err := repoTop(e.path)
	var rebase *walk.Rebase
	if err == nil {
		rebase, err = walk.NewRebase(top)
	}
	if err != nil {
		name := cmp.Or(e.name, filepath.Base(filepath.Clean(e.path)))
		if record.CheckRepo(name) != nil {
			name = ""
		}
		set.missing = append(set.missing, missingRepo{name: name, named: e.name != "", path: e.path, reason: "cannot read the repository: " + errText(err)})
		return nil
	}
	name := cmp.Or(e.name, filepath.Base(shownTop(e.path, top)))
	if err := record.CheckRepo(name); err != nil {
		set.missing = append(set.missing, missingRepo{path: e.path, reason: fmt.Sprintf("its folder's name cannot name a repository (%v): give it a name in a --repos-from list (PATH, a tab, NAME)", err)})
		return nil
	}
	l := set.byTop[top]
	if l == nil {
		git, _ := walk.GitTop(e.path)
		l = &listedRepo{source: source{rebase: rebase}, plain: git == ""}
		set.byTop[top] = l
		set.order = append(set.order, top)
	}
	switch {
	case e.name != "" && l.named && l.repo != e.name:
		return usageError("%s is named both %q and %q: a repository has one name", quoteName(top), l.repo, e.name)
	case e.name != "" || l.repo == "":
		l.repo, l.named = name, e.name != ""
	}
	l.roots = append(l.roots, e.path)
	l.args = append(l.args, e.path)
	return nil
}

// shownTop is top (symbolic links resolved) as path p reaches it: p's
// absolute form with as many folders taken off as p lies below top, so
// that a checkout reached through a link (current -> releases/2024-05)
// is named by the link, as the user wrote it, not by where it points
// today.
func shownTop(p, top string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return top
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return top
	}
	rel, err := filepath.Rel(top, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return top
	}
	shown := abs
	for rel != "." {
		rel, shown = filepath.Dir(rel), filepath.Dir(shown)
	}
	return shown
}

// checkNesting refuses a repository that lies inside a listed folder
// outside git: that folder's walk, which knows no repositories, would
// take its files too. (Inside a git repository, a nested one is skipped,
// as git does.)
func checkNesting(listed []*listedRepo) error {
	plain := map[string]bool{}
	for _, l := range listed {
		if l.plain {
			plain[l.rebase.Root()] = true
		}
	}
	if len(plain) == 0 {
		return nil
	}
	for _, l := range listed {
		inner := l.rebase.Root()
		for dir := filepath.Dir(inner); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
			if plain[dir] {
				return usageError("%s lies inside %s, a folder outside git listed as a repository: its files would be in both; list the folders beside it instead", quoteName(inner), quoteName(dir))
			}
		}
	}
	return nil
}

// checkNames refuses two repositories of one name, sources (sorted by
// name) and missing ones alike.
func checkNames(sources []source, missing []missingRepo) error {
	where := map[string]string{}
	for _, s := range sources {
		if w, ok := where[s.repo]; ok {
			return sameName(w, s.rebase.Root(), s.repo)
		}
		where[s.repo] = s.rebase.Root()
	}
	for _, m := range missing {
		if w, ok := where[m.name]; ok && m.name != "" {
			return sameName(w, m.path, m.name)
		}
		where[m.name] = m.path
	}
	return nil
}

func sameName(a, b, name string) error {
	return usageError("%s and %s are both named %q: give each its own name in a --repos-from list (PATH, a tab, NAME)", quoteName(a), quoteName(b), name)
}

// errText is err without the path an *fs.PathError adds (the message
// names it already).
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}
