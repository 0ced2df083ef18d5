package output

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/stream"
)

// The mass-delete guard of diff (docs/design.md, "The guard's evidence").
// A file of OLD that NEW lacks left the index for one of two kinds of
// reason, and the guard tells them apart from evidence, not from a share:
//
//   - it is gone from the tree that was chunked: git, asked in the
//     checkout where diff runs, does not list it (deleted from the
//     commit), or lists it as deleted from the working tree. A deletion,
//     whatever the share: a jump between two releases passes.
//   - it is still there, and NEW's run did not cover it: outside the
//     sparse checkout (git's skip-worktree), outside NEW's arguments,
//     --include or --exclude, a shard missing from a merge. Not a
//     deletion: the diff is refused, however few such files there are.
//
// A file still there that NEW's run met and left out on purpose is a
// deletion: NEW's manifest says so when diff is given it (a status other
// than chunked, unreadable or failed, or chunked into no record); without
// it, castchunk's own rules applied to the file as it is now say so (no
// grammar, binary, not UTF-8, generated, vendored, over the default
// --max-file-size, nothing but white space, or OLD's records made by a
// method that chunks part of a file, which a file may now give nothing).
//
// The evidence applies when the outputs are this repository's: most of
// NEW's files are listed by git at the top of the checkout. Otherwise
// (outside git, an output of another tree, NEW empty) the guard is the
// plain backstop it was: NEW empty and OLD not, or more than --max-delete
// of OLD's chunks deleted.

// Repo is what git says of the checkout diff runs in.
type Repo struct {
	Top    string
	listed map[string]byte // path (from the top) -> 'H' tracked, 'S' skip-worktree (outside a sparse checkout), '?' untracked, not ignored
	plain  bool            // a folder outside git: what is on disk is listed
}

// PlainFolder is the evidence of a repository of an index that is a
// folder outside git (diff --repos-from): a file is there or it is not.
func PlainFolder(top string) *Repo { return &Repo{Top: top, plain: true} }

// lists returns what the repository says of path: its tag, and whether it
// lists it at all.
func (r *Repo) lists(path string) (byte, bool) {
	if r.plain {
		_, err := os.Lstat(filepath.Join(r.Top, filepath.FromSlash(path)))
		return 'H', err == nil
	}
	tag, ok := r.listed[path]
	return tag, ok
}

// OpenRepo asks git about the checkout holding dir: nil (and no error)
// when dir is in no git repository or git cannot be run.
func OpenRepo(ctx context.Context, dir string) (*Repo, error) {
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, nil
	}
	r := &Repo{Top: strings.TrimSuffix(string(top), "\n"), listed: map[string]byte{}}
	tracked, err := git(ctx, r.Top, "ls-files", "-z", "-t", "--cached")
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", r.Top, err)
	}
	for _, e := range bytes.Split(tracked, []byte{0}) {
		if len(e) > 2 && e[1] == ' ' {
			tag := e[0]
			if tag != 'S' {
				tag = 'H'
			}
			r.listed[string(e[2:])] = tag
		}
	}
	others, err := git(ctx, r.Top, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", r.Top, err)
	}
	for _, e := range bytes.Split(others, []byte{0}) {
		if len(e) > 0 {
			r.listed[string(e)] = '?'
		}
	}
	return r, nil
}

// git runs git in dir and returns its stdout.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.quotepath=off"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, errors.New(msg)
		}
		return nil, err
	}
	return out, nil
}

// Guard weighs the files of one diff as they are met (File), then gives
// its verdict (Verdict).
type Guard struct {
	repo     *Repo
	manifest map[string]string // NEW's manifest: key (ManifestKey) -> status; nil when not given
	// repos are the checkouts of the repositories of an index, by name
	// (diff --repos-from; a nil Repo: its checkout cannot be read); nil
	// when not given: then the records' repositories are not looked up,
	// and git's evidence applies to an index of one repository at most.
	repos    map[string]*Repo
	newRepos map[string]bool // the repositories NEW's records name
	oldRepos map[string]bool // the repositories OLD's records name
	cwdName  string          // the name of the checkout diff runs in: its top folder's
	// leftChunks are OLD's chunks of the repositories the list no longer
	// names, oldChunks all of OLD's: a list cut short must not empty the
	// index unnoticed (LeftList).
	leftChunks, oldChunks int
	// unreadRepos are the repositories NEW's manifest says its run could
	// not read (path ".", unreadable), by name.
	unreadRepos map[string]bool
	// unknown, when not "", is an entry of the list whose repository
	// cannot be told (unreadable, and not named by the list): a
	// repository the list seems not to name may be that one.
	unknown string

	newFiles, newListed int
	deleted             int      // files of OLD gone from the tree: deletions
	onPurpose           int      // files still there that NEW's run left out on purpose
	uncovered           []string // files still there that NEW's run did not cover, each with why
	nUncovered          int
}

// NewGuard makes the guard of a diff run in repo (nil: outside git),
// with NEW's manifest when given (nil) and the checkouts of an index's
// repositories by name when given (nil).
func NewGuard(repo *Repo, manifest map[string]string, repos map[string]*Repo) *Guard {
	g := &Guard{repo: repo, manifest: manifest, repos: repos, newRepos: map[string]bool{}, oldRepos: map[string]bool{}, unreadRepos: map[string]bool{}}
	if repo != nil {
		g.cwdName = filepath.Base(repo.Top)
	}
	for key, status := range manifest {
		if name, ok := strings.CutSuffix(key, "\x00."); ok && status == plan.Unreadable.String() {
			g.unreadRepos[name] = true
		}
	}
	return g
}

// Unknown tells the guard that the list holds an entry whose repository
// cannot be told (path: as listed): then no repository counts as gone
// from the list.
func (g *Guard) Unknown(path string) { g.unknown = path }

// ManifestKey is the key of a manifest entry of path in repository repo
// ("" for none), as ReadManifest keys them.
func ManifestKey(repo, path string) string {
	if repo == "" {
		return path
	}
	return repo + "\x00" + path
}

// checkout is the git evidence for file fc: the checkout of its
// repository (nil when it cannot be read) and whether the evidence knows
// the repository at all (with repos, one the list names).
//
// Without the list, the checkout diff runs in speaks for the records of
// no repository or of the one named as its top folder is (a CI job's
// checkout of repository one, chunked with --repo one): the records of
// another repository with the same paths must not read its git.
func (g *Guard) checkout(fc stream.FileChange) (*Repo, bool) {
	if g.repos == nil {
		if fc.Repo != "" && fc.Repo != g.cwdName {
			return nil, false
		}
		return g.repo, g.repo != nil
	}
	r, ok := g.repos[fc.Repo]
	return r, ok
}

// ReadManifest reads a manifest of chunk (or merge) into path -> status.
func ReadManifest(r io.Reader, name string) (map[string]string, error) {
	m := map[string]string{}
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var e ManifestEntry
			if err := json.Unmarshal(line, &e); err != nil || e.Path == "" || !slices.Contains(plan.Fates(), e.Status) {
				return nil, fmt.Errorf("%s: line %d is not a manifest entry of castchunk chunk", name, n)
			}
			m[ManifestKey(e.Repo, e.Path)] = e.Status
		}
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
	}
}

// File weighs one file of the diff.
func (g *Guard) File(fc stream.FileChange) {
	g.oldChunks += fc.Old
	if fc.Old > 0 {
		g.oldRepos[fc.Repo] = true
	}
	if fc.New > 0 {
		g.newFiles++
		g.newRepos[fc.Repo] = true
		if r, _ := g.checkout(fc); r != nil {
			if _, ok := r.lists(fc.Path); ok {
				g.newListed++
			}
		}
		return
	}
	if fc.New == 0 && fc.Old > 0 && g.unreadRepos[fc.Repo] {
		return // its repository could not be read: Refusal names it
	}
	r, known := g.checkout(fc)
	if fc.Old == 0 || g.repos == nil && r == nil {
		return
	}
	why := ""
	switch {
	case !known && g.unknown != "":
		why = "its repository may be the list's " + Quote(g.unknown) + ", which cannot be read"
	case !known:
		g.deleted++ // a repository the list no longer names: its files left the index
		g.leftChunks += fc.Old
	case r == nil:
		why = "its repository's checkout cannot be read"
	default:
		why = g.gone(r, fc)
	}
	if why != "" {
		g.nUncovered++
		if len(g.uncovered) < 3 {
			name := fc.Path
			if fc.Repo != "" {
				name = fc.Repo + ":" + fc.Path
			}
			g.uncovered = append(g.uncovered, fmt.Sprintf("%s (%s)", name, why))
		}
	}
}

// gone says why a file of OLD that NEW lacks is no deletion ("" when it
// is one).
func (g *Guard) gone(repo *Repo, fc stream.FileChange) string {
	tag, listed := repo.lists(fc.Path)
	osPath := filepath.Join(repo.Top, filepath.FromSlash(fc.Path))
	switch {
	case !listed:
		g.deleted++ // not in the commit chunked, nor in the tree
		return ""
	case tag == 'S':
		return "in the repository, outside the sparse checkout"
	}
	info, err := os.Lstat(osPath)
	if err != nil {
		g.deleted++ // deleted from the working tree that was chunked
		return ""
	}
	if g.manifest != nil {
		switch status, ok := g.manifest[ManifestKey(fc.Repo, fc.Path)]; {
		case !ok:
			return "in the repository, not in NEW's run: its manifest does not list it"
		case status == plan.Unreadable.String(), status == plan.Failed.String():
			return "NEW's run could not chunk it: " + status
		}
		g.onPurpose++
		return ""
	}
	if leftOut(fc, osPath, info) {
		g.onPurpose++
		return ""
	}
	return "in the repository, not in NEW's run"
}

// defaultMaxFileSize is chunk's default --max-file-size.
const defaultMaxFileSize = 10 << 20

// leftOut reports whether castchunk's own rules, at its defaults, leave
// the file out of a run (or chunk it into no record) as it is now.
func leftOut(fc stream.FileChange, osPath string, info os.FileInfo) bool {
	if m := method.ByName(fc.OldMethod); m != nil && m.Partial {
		return true // a file may hold no function (no declaration) now
	}
	if !info.Mode().IsRegular() {
		return info.Mode()&os.ModeSymlink != 0 // a link is not followed; a folder is no file
	}
	if info.Size() > defaultMaxFileSize {
		return true
	}
	f := plan.File{Path: fc.Path}
	var p plan.Policy
	d := p.ByName(f)
	if d.Fate != plan.Chunked {
		return true
	}
	src, err := os.ReadFile(osPath)
	if err != nil {
		return false
	}
	if chunk.Size(src) == 0 {
		return true // nothing but white space: no record
	}
	return p.ByContent(f, d, src).Fate != plan.Chunked
}

// Applies reports whether the evidence of git applies to these outputs:
// diff runs in a git checkout, and most of NEW's files are listed there.
//
// NEW's records of several repositories are one repository's only with
// their checkouts (diff --repos-from): without them, the checkout diff
// runs in is one repository, and cannot speak for the others.
func (g *Guard) Applies() bool {
	if g.repos == nil && (g.repo == nil || len(g.newRepos) > 1) {
		return false
	}
	return g.newFiles > 0 && g.newListed*2 > g.newFiles
}

// Refusal is why the guard refuses a diff: nil when it lets it through.
func (g *Guard) Refusal(oldName, newName string) error {
	if unread := g.unread(); len(unread) > 0 {
		return fmt.Errorf("diff: NEW's run could not read %s (its manifest says so), of which OLD (%s) has records: refusing to delete them (chunk it again once it can be read; --allow-mass-delete to delete its chunks anyway)",
			strings.Join(unread, ", "), oldName)
	}
	if emptied := g.emptied(); len(emptied) > 0 {
		return fmt.Errorf("diff: NEW (%s) has no record of %s, which OLD (%s) has and the list still names: an empty or failed checkout? refusing (chunk it again; drop it from the list if it left the index; --allow-mass-delete to delete its chunks anyway)",
			newName, strings.Join(emptied, ", "), oldName)
	}
	if !g.Applies() || g.nUncovered == 0 {
		return nil
	}
	return fmt.Errorf("diff: %d %s of OLD (%s) %s still in the repository but not in NEW (%s): %s; NEW's run did not cover %s (a sparse checkout, narrowed arguments, --include/--exclude, a shard missing): refusing (chunk the whole checkout; give NEW's manifest with --manifest if chunk left %s out on purpose; --allow-mass-delete to delete %s anyway); git at %s: %d deleted from the repository, %d left out on purpose",
		g.nUncovered, plural(g.nUncovered, "file", "files"), oldName, plural(g.nUncovered, "is", "are"), newName,
		strings.Join(g.uncovered, ", ")+more(g.nUncovered-len(g.uncovered)),
		plural(g.nUncovered, "it", "them"), plural(g.nUncovered, "it", "them"), plural(g.nUncovered, "it", "them"),
		g.where(), g.deleted, g.onPurpose)
}

// emptied names the repositories of which OLD has records and NEW none,
// unless the list (diff --repos-from) no longer names them: a repository
// whose every file is gone is far likelier a failed checkout or a run
// that missed it than a deleted project, whatever git's evidence says.
// Leaving the list is how a repository leaves the index.
func (g *Guard) emptied() []string {
	var names []string
	for name := range g.oldRepos {
		if name == "" || g.newRepos[name] {
			continue
		}
		if _, listed := g.repos[name]; g.repos != nil && !listed && g.unknown == "" {
			continue // it left the list
		}
		names = append(names, Quote(name))
	}
	slices.Sort(names)
	return names
}

// unread names the repositories NEW's manifest says its run could not
// read, of which OLD has records.
func (g *Guard) unread() []string {
	var names []string
	for name := range g.unreadRepos {
		if g.oldRepos[name] {
			names = append(names, Quote(name))
		}
	}
	slices.Sort(names)
	return names
}

// LeftList is OLD's chunks of the repositories the list no longer names,
// and all of OLD's chunks: diff holds the first to --max-delete, so a list
// cut short cannot empty the index unnoticed.
func (g *Guard) LeftList() (left, old int) { return g.leftChunks, g.oldChunks }

// where names the checkouts git was asked in, for messages.
func (g *Guard) where() string {
	if g.repos == nil {
		return Quote(g.repo.Top)
	}
	return fmt.Sprintf("the %d %s of --repos-from", len(g.repos), plural(len(g.repos), "checkout", "checkouts"))
}

func more(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" and %d more", n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
