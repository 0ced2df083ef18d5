package cli

import (
	"bufio"
	"bytes"
	"cmp"
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
type missingRepo struct{ name, path, reason string }

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

// groupRepos makes the sources of entries: entries at or below one top
// are one repository, named by the list or by the top's folder name. Two
// repositories of one name, or one given two names, are refused: their
// records could not be told apart, or not be found again.
//
// A repository that cannot be read (a wrong path, a checkout that
// failed) is no reason to hold back the others: it comes back in missing,
// named by the list or its folder's name, and the run says so (status 3).
func groupRepos(entries []repoEntry) (sources []source, missing []missingRepo, err error) {
	byTop := map[string]*source{}
	var order []string
	for _, e := range entries {
		top, err := repoTop(e.path)
		var rebase *walk.Rebase
		if err == nil {
			rebase, err = walk.NewRebase(top)
		}
		if err != nil {
			name := cmp.Or(e.name, filepath.Base(filepath.Clean(e.path)))
			missing = append(missing, missingRepo{name: name, path: e.path, reason: "cannot read the repository: " + errText(err)})
			continue
		}
		name := cmp.Or(e.name, filepath.Base(top))
		if err := record.CheckRepo(name); err != nil {
			missing = append(missing, missingRepo{name: "", path: e.path, reason: fmt.Sprintf("its folder's name cannot name a repository (%v): give it a name in a --repos-from list (PATH, a tab, NAME)", err)})
			continue
		}
		s := byTop[top]
		if s == nil {
			s = &source{rebase: rebase}
			byTop[top] = s
			order = append(order, top)
		}
		if s.repo != "" && s.repo != name && e.name != "" {
			return nil, nil, usageError("%s is named both %q and %q: a repository has one name", quoteName(top), s.repo, name)
		}
		if s.repo == "" || e.name != "" {
			s.repo = name
		}
		s.roots = append(s.roots, e.path)
		s.args = append(s.args, e.path)
	}
	for _, top := range order {
		sources = append(sources, *byTop[top])
	}
	slices.SortStableFunc(sources, func(a, b source) int { return strings.Compare(a.repo, b.repo) })
	for i := 1; i < len(sources); i++ {
		if sources[i].repo == sources[i-1].repo {
			return nil, nil, usageError("%s and %s are both named %q: name them in a --repos-from list (PATH, a tab, NAME)",
				quoteName(sources[i-1].rebase.Root()), quoteName(sources[i].rebase.Root()), sources[i].repo)
		}
	}
	return sources, missing, nil
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
