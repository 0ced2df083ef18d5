package eval

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	fate "github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/walk"
	"slices"
	"strings"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/regular"
)

// entry is one version of one file that some query's index holds: the file
// at path with the bytes of a blob (or of a file on disk), possibly cut
// short (the completion queries' own files end where the function starts).
type entry struct {
	Path   string     // relative to the repository's top (or to the folder)
	Rel    string     // relative to the folder evaluated: what the vendored and generated rules see
	Blob   string     // git object; "" for a file on disk
	OSPath string     // the file on disk, when Blob is ""
	ID     regular.ID // the file on disk as listed: one found changed is not read
	Link   bool       // OSPath was a symlink followed when listed (-L)
	Cut    int        // bytes kept; -1: all of them
	Size   int64
	Attrs  walk.Attrs     // its git attributes (a folder's files; none for git's blobs)
	Lang   *lang.Language // what its name tells (plan.Policy.ByName); nil: its shebang decides
}

// file is the entry as package plan sees it.
func (e *entry) file() fate.File { return fate.File{Path: e.Path, Rel: e.Rel, Attrs: e.Attrs} }

// content settles an entry's fate from its bytes, as castchunk chunk does.
func (pl *planner) content(e *entry, src []byte) fate.Content {
	return pl.policy().ByContent(e.file(), fate.Decision{Lang: e.Lang}, src)
}

// policy is how eval chooses files: as castchunk chunk does with the
// selection flags given.
func (pl *planner) policy() fate.Policy { return pl.opt.Select }

func (e *entry) key() string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%d", e.Path, e.Blob, e.OSPath, e.Cut)
}

// Source names.
const (
	SourceGit        = "git"
	SourceCompletion = "completion"
)

// query is one retrieval task.
type query struct {
	Source string
	ID     string // the commit, or path:line of the function
	Text   string
	// The entries switched off, then on, before this query is scored: the
	// index then holds this query's tree.
	Off, On []int32
	// git: the gold lines, by file.
	Gold []goldFile
	// completion: the body's non-trivial lines and identifiers.
	GoldLines, GoldIDs []string
}

// queryPlan is every query, in the order they are scored, and every entry
// some query's index holds, sorted by path.
type queryPlan struct {
	entries []*entry
	queries []*query
	counts  map[string]*Counts
	commit  string // the commit evaluated ("" for a folder)
}

// Counts says how many queries a source was asked for, found and kept, and
// why the others were left out.
type Counts struct {
	Asked      int      `json:"asked"`
	Candidates int      `json:"candidates"`
	Kept       int      `json:"kept"`
	Skipped    []Reason `json:"skipped"`
}

// Reason is a count of queries left out for one reason.
type Reason struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

func (c *Counts) skip(reason string) {
	for i := range c.Skipped {
		if c.Skipped[i].Reason == reason {
			c.Skipped[i].Count++
			return
		}
	}
	c.Skipped = append(c.Skipped, Reason{Reason: reason, Count: 1})
}

// planner builds a plan: the entries, and the tree state as queries are
// added, one entry per path.
type planner struct {
	opt   *Options
	repo  *gitRepo
	cat   *catFile
	p     *queryPlan
	ids   map[string]int32
	state map[string]int32 // the current tree: path -> entry
	last  map[string]int32 // the tree of the previous query
	dirty map[string]bool  // paths set since the previous query
	at    string           // the commit whose tree state is ("": none yet)
	qvecs *vectors         // the queries' embeddings, once the first dense configuration needs them
	// shallow holds a shallow clone's boundary commits (nil in a complete
	// clone); seen counts the commits history read, and cutShort says
	// the history ended before --from-git's commits were found.
	shallow  map[string]bool
	seen     int
	cutShort bool
	fallback int          // completion queries drawn because the history was cut short
	filter   *walk.Filter // --include and --exclude, for the paths of commits' trees
}

func newPlanner(opt *Options, repo *gitRepo, cat *catFile, commit string) *planner {
	return &planner{
		opt: opt, repo: repo, cat: cat,
		p:   &queryPlan{counts: map[string]*Counts{}, commit: commit},
		ids: map[string]int32{}, state: map[string]int32{}, last: map[string]int32{}, dirty: map[string]bool{},
	}
}

// intern returns the number of an entry, adding it when new.
func (pl *planner) intern(e *entry) int32 {
	k := e.key()
	if id, ok := pl.ids[k]; ok {
		return id
	}
	id := int32(len(pl.p.entries))
	pl.ids[k] = id
	pl.p.entries = append(pl.p.entries, e)
	return id
}

// set puts an entry at path in the current tree (-1: no file there).
func (pl *planner) set(path string, id int32) {
	if id < 0 {
		delete(pl.state, path)
	} else {
		pl.state[path] = id
	}
	pl.dirty[path] = true
}

// add appends a query scored against the current tree.
func (pl *planner) add(q *query) {
	for p := range pl.dirty {
		old, had := pl.last[p]
		cur, has := pl.state[p]
		if had && has && old == cur {
			continue
		}
		if had {
			q.Off = append(q.Off, old)
			delete(pl.last, p)
		}
		if has {
			q.On = append(q.On, cur)
			pl.last[p] = cur
		}
	}
	clear(pl.dirty)
	slices.Sort(q.Off)
	slices.Sort(q.On)
	pl.p.queries = append(pl.p.queries, q)
}

// finish sorts the entries by path (then version), renumbers the queries'
// switches, and reads the blobs' sizes.
func (pl *planner) finish(ctx context.Context) error {
	es := pl.p.entries
	order := make([]int32, len(es))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		x, y := es[a], es[b]
		return cmp.Or(strings.Compare(x.Path, y.Path), strings.Compare(x.Blob, y.Blob),
			strings.Compare(x.OSPath, y.OSPath), cmp.Compare(x.Cut, y.Cut))
	})
	renum := make([]int32, len(es))
	sorted := make([]*entry, len(es))
	for newID, old := range order {
		renum[old] = int32(newID)
		sorted[newID] = es[old]
	}
	pl.p.entries = sorted
	for _, q := range pl.p.queries {
		for i := range q.Off {
			q.Off[i] = renum[q.Off[i]]
		}
		for i := range q.On {
			q.On[i] = renum[q.On[i]]
		}
		slices.Sort(q.Off)
		slices.Sort(q.On)
	}
	if pl.repo == nil {
		return nil
	}
	var blobs []string
	var which []*entry
	for _, e := range sorted {
		if e.Size == 0 && e.Blob != "" {
			blobs = append(blobs, e.Blob)
			which = append(which, e)
		}
	}
	sizes, err := pl.repo.sizes(ctx, blobs)
	if err != nil {
		return err
	}
	for i, e := range which {
		e.Size = sizes[i]
		if e.Cut >= 0 {
			e.Size = int64(e.Cut)
		}
	}
	return nil
}

// wanted reports whether a file of the repository is indexed, by its path:
// under the folder evaluated, not hidden (as the walk leaves hidden files
// out, unless --hidden), taken by --include and --exclude, and not left
// out by its name (package plan, as castchunk chunk
// decides: vendored, a name that is not UTF-8). Its bytes decide the rest
// later (pl.content).
func (pl *planner) wanted(p string) (rel string, l *lang.Language, ok bool) {
	prefix := ""
	if pl.repo != nil {
		prefix = pl.repo.prefix
	}
	rel, ok = strings.CutPrefix(p, prefix)
	if !ok || !pl.opt.Walk.Hidden && hidden(rel) || pl.filter != nil && !pl.filter.Keep(rel) {
		return "", nil, false
	}
	d := pl.policy().ByName(fate.File{Path: p, Rel: rel})
	return rel, d.Lang, d.Fate == fate.Chunked
}

// touches reports whether a commit's change to a file changes an indexed
// file: one wanted by its name with a grammar, or, for a name with none,
// one whose earlier version's shebang gives one (an added file without a
// grammar by name gives no gold lines, so it is not read).
func (pl *planner) touches(f fileDiff) (bool, error) {
	_, l, ok := pl.wanted(f.Path)
	if !ok || l != nil {
		return ok, nil
	}
	if f.OldBlob == "" {
		return false, nil
	}
	src, err := pl.cat.read(f.OldBlob)
	return err == nil && fate.Shebang(src) != nil, err
}

// hidden reports whether a path has a component starting with a dot.
func hidden(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if strings.HasPrefix(c, ".") {
			return true
		}
	}
	return false
}

// gitEntry returns the entry of a file of a commit's tree; -1 when the file
// is not indexed.
func (pl *planner) gitEntry(p, blob string) int32 {
	if blob == "" {
		return -1
	}
	rel, l, ok := pl.wanted(p)
	if !ok {
		return -1
	}
	return pl.intern(&entry{Path: p, Rel: rel, Blob: blob, Cut: -1, Lang: l})
}

// moveTo makes the current tree the tree of a commit: from the empty tree
// by listing it, or from the tree of the commit it was by diffing the two.
func (pl *planner) moveTo(ctx context.Context, from, to string) error {
	if from == to {
		return nil
	}
	if from == "" {
		files, err := pl.repo.lsTree(ctx, to)
		if err != nil {
			return err
		}
		for p := range pl.state {
			pl.set(p, -1)
		}
		for _, f := range files {
			pl.set(f.Path, pl.gitEntry(f.Path, f.Blob))
		}
		return nil
	}
	changes, err := pl.repo.diffTree(ctx, from, to)
	if err != nil {
		return err
	}
	for _, c := range changes {
		pl.set(c.Path, pl.gitEntry(c.Path, c.Blob))
	}
	return nil
}

// trailers are the lines at the end of a commit message that are not
// about the change.
var trailers = []string{"signed-off-by:", "co-authored-by:", "reviewed-by:", "acked-by:", "tested-by:",
	"reported-by:", "change-id:", "cc:"}

// cleanMessage drops trailer lines (Signed-off-by: and the like) from a
// commit message and trims it.
func cleanMessage(msg string) string {
	var keep []string
	for _, l := range strings.Split(msg, "\n") {
		low := strings.ToLower(strings.TrimSpace(l))
		drop := false
		for _, t := range trailers {
			if strings.HasPrefix(low, t) {
				drop = true
			}
		}
		if !drop {
			keep = append(keep, l)
		}
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

// history adds the git queries: the last opt.FromGit non-merge commits
// from the commit evaluated that change an indexed file, those that pass
// the filters kept, each scored against its parent's tree, oldest first.
func (pl *planner) history(ctx context.Context) error {
	c := &Counts{Asked: pl.opt.FromGit}
	pl.p.counts[SourceGit] = c
	var kept []*query
	var parents []string
	var failed error
	err := pl.repo.gitLog(ctx, pl.p.commit, func(cm *commit) bool {
		pl.seen++
		var touched []fileDiff
		for _, f := range cm.Files {
			ok, err := pl.touches(f)
			if err != nil {
				failed = err
				return false
			}
			if ok {
				touched = append(touched, f)
			}
		}
		if len(touched) == 0 {
			return true
		}
		c.Candidates++
		q, reason, err := pl.commitQuery(cm, touched)
		if err != nil {
			failed = err
			return false
		}
		if reason != "" {
			c.skip(reason)
		} else {
			kept = append(kept, q)
			parents = append(parents, cm.Parent)
		}
		if pl.opt.Progress != nil {
			pl.opt.Progress("reading history", c.Candidates, pl.opt.FromGit)
		}
		return c.Candidates < pl.opt.FromGit
	})
	if err == nil {
		err = failed
	}
	if err != nil {
		return err
	}
	pl.cutShort = c.Candidates < pl.opt.FromGit
	c.Kept = len(kept)
	at := ""
	for i := len(kept) - 1; i >= 0; i-- {
		if err := pl.moveTo(ctx, at, parents[i]); err != nil {
			return err
		}
		at = parents[i]
		pl.add(kept[i])
	}
	pl.at = at
	return nil
}

// Skip reasons of git queries.
const (
	skipRoot     = "root commit (no parent to index)"
	skipShallow  = "shallow clone's oldest commit (its parent was not fetched)"
	skipWords    = "message under %d words"
	skipFiles    = "changes more than %d indexed files"
	skipNoGold   = "no line of the parent in a chunked file (adds new files only, or changes only files castchunk skips)"
	skipNoBody   = "no body over several lines (a declaration or a one-liner)"
	skipShort    = "body under %d non-blank lines or with no non-trivial line"
	maxQueryLine = 20
)

// commitQuery turns a commit into a query, or says why it is skipped.
func (pl *planner) commitQuery(cm *commit, touched []fileDiff) (*query, string, error) {
	if cm.Parents == 0 && pl.shallow[cm.Sha] {
		return nil, skipShallow, nil
	}
	if cm.Parents == 0 {
		return nil, skipRoot, nil
	}
	msg := cleanMessage(cm.Message)
	if len(strings.Fields(msg)) < pl.opt.MinWords {
		return nil, fmt.Sprintf(skipWords, pl.opt.MinWords), nil
	}
	if len(touched) > pl.opt.MaxFiles {
		return nil, fmt.Sprintf(skipFiles, pl.opt.MaxFiles), nil
	}
	q := &query{Source: SourceGit, ID: cm.Sha, Text: msg}
	for _, f := range touched {
		if f.Added || f.OldBlob == "" || len(f.Lines) == 0 {
			continue
		}
		src, err := pl.cat.read(f.OldBlob)
		if err != nil {
			return nil, "", err
		}
		rel, l, _ := pl.wanted(f.Path)
		if pl.content(&entry{Path: f.Path, Rel: rel, Lang: l}, src).Fate != fate.Chunked {
			continue
		}
		n := bytes.Count(src, []byte{'\n'})
		if len(src) > 0 && src[len(src)-1] != '\n' {
			n++
		}
		var lines []int
		for _, l := range f.Lines {
			if l >= 1 && l <= n {
				lines = append(lines, l)
			}
		}
		slices.Sort(lines)
		lines = slices.Compact(lines)
		if len(lines) > 0 {
			q.Gold = append(q.Gold, goldFile{Path: f.Path, Lines: lines})
		}
	}
	if len(q.Gold) == 0 {
		return nil, skipNoGold, nil
	}
	slices.SortFunc(q.Gold, func(a, b goldFile) int { return strings.Compare(a.Path, b.Path) })
	return q, "", nil
}
