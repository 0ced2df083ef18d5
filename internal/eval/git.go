package eval

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// git runs git in the repository and returns its standard output.
func (r *gitRepo) git(ctx context.Context, args ...string) ([]byte, error) {
	cmd := r.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out, nil
}

// command is git with args in the repository, its output free of the
// user's display settings (pager, colour, quoted paths, prefixes).
func (r *gitRepo) command(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{"-C", r.dir, "--no-pager", "-c", "core.quotePath=false", "-c", "diff.noprefix=false",
		"-c", "diff.mnemonicPrefix=false", "-c", "log.showSignature=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "LC_ALL=C")
	return cmd
}

// gitRepo is a git repository seen from a folder in its work tree: only
// the files under that folder (prefix, "" or ending in "/") count.
type gitRepo struct {
	dir    string
	prefix string
}

// openRepo returns the repository holding dir; nil when dir is in none.
func openRepo(ctx context.Context, dir string) (*gitRepo, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, nil
	}
	r := &gitRepo{dir: dir}
	out, err := r.git(ctx, "rev-parse", "--is-inside-work-tree", "--show-prefix")
	if err != nil {
		return nil, nil
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if lines[0] != "true" {
		return nil, nil
	}
	if len(lines) > 1 {
		r.prefix = lines[1]
	}
	return r, nil
}

// shallowCommits returns the commits whose parents a shallow clone (git
// clone --depth N) did not fetch: git log shows them without parents, as
// if they were root commits. Nil in a complete clone.
func (r *gitRepo) shallowCommits(ctx context.Context) (map[string]bool, error) {
	out, err := r.git(ctx, "rev-parse", "--is-shallow-repository", "--path-format=absolute", "--git-path", "shallow")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if lines[0] != "true" || len(lines) < 2 {
		return nil, nil
	}
	data, err := os.ReadFile(lines[1])
	if err != nil {
		return nil, fmt.Errorf("a shallow clone without its list of shallow commits: %w", err)
	}
	shallow := map[string]bool{}
	for _, l := range strings.Fields(string(data)) {
		shallow[l] = true
	}
	return shallow, nil
}

// resolve returns the commit rev names.
func (r *gitRepo) resolve(ctx context.Context, rev string) (string, error) {
	out, err := r.git(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%q is not a commit of the repository", rev)
	}
	return strings.TrimSpace(string(out)), nil
}

// treeFile is a file of a commit's tree.
type treeFile struct {
	Path, Blob string
}

// lsTree lists the regular files of a commit's tree (symbolic links and
// submodules left out), sorted by path.
func (r *gitRepo) lsTree(ctx context.Context, commit string) ([]treeFile, error) {
	out, err := r.git(ctx, "ls-tree", "-r", "-z", "--full-tree", commit)
	if err != nil {
		return nil, err
	}
	var files []treeFile
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git ls-tree: unexpected line %q", rec)
		}
		if f[1] == "blob" && (f[0] == "100644" || f[0] == "100755") {
			files = append(files, treeFile{Path: string(path), Blob: f[2]})
		}
	}
	return files, nil
}

// treeChange is a file whose blob differs between two trees; Blob is ""
// when the file is not a regular file in the second tree.
type treeChange struct {
	Path, Blob string
}

// diffTree lists the files that differ between two commits' trees.
func (r *gitRepo) diffTree(ctx context.Context, from, to string) ([]treeChange, error) {
	out, err := r.git(ctx, "diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", from, to)
	if err != nil {
		return nil, err
	}
	fields := bytes.Split(out, []byte{0})
	var changes []treeChange
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(string(fields[i]), ":"))
		if len(meta) != 5 {
			return nil, fmt.Errorf("git diff-tree: unexpected line %q", fields[i])
		}
		c := treeChange{Path: string(fields[i+1])}
		if meta[1] == "100644" || meta[1] == "100755" {
			c.Blob = meta[3]
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// sizes returns the size of each blob.
func (r *gitRepo) sizes(ctx context.Context, blobs []string) ([]int64, error) {
	if len(blobs) == 0 {
		return nil, nil
	}
	cmd := r.command(ctx, "cat-file", "--batch-check=%(objectsize)")
	cmd.Stdin = strings.NewReader(strings.Join(blobs, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch-check: %v", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(blobs) {
		return nil, fmt.Errorf("git cat-file --batch-check: %d sizes for %d objects", len(lines), len(blobs))
	}
	sizes := make([]int64, len(blobs))
	for i, l := range lines {
		if sizes[i], err = strconv.ParseInt(l, 10, 64); err != nil {
			return nil, fmt.Errorf("git cat-file --batch-check: object %s: %q", blobs[i], l)
		}
	}
	return sizes, nil
}

// catFile reads blobs through one `git cat-file --batch` process; it is
// safe for concurrent use.
type catFile struct {
	mu   sync.Mutex
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	dead error
}

func (r *gitRepo) catFile(ctx context.Context) (*catFile, error) {
	cmd := r.command(ctx, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %v", err)
	}
	return &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}, nil
}

// read returns a blob's bytes.
func (c *catFile) read(blob string) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead != nil {
		return nil, c.dead
	}
	data, err := c.readLocked(blob)
	if err != nil {
		c.dead = err
	}
	return data, err
}

func (c *catFile) readLocked(blob string) ([]byte, error) {
	if _, err := io.WriteString(c.in, blob+"\n"); err != nil {
		return nil, fmt.Errorf("git cat-file: %v", err)
	}
	head, err := c.out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %v", err)
	}
	f := strings.Fields(head)
	if len(f) != 3 || f[1] != "blob" {
		return nil, fmt.Errorf("git cat-file: object %s: %q", blob, strings.TrimSpace(head))
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, fmt.Errorf("git cat-file: object %s: %q", blob, strings.TrimSpace(head))
	}
	data := make([]byte, n+1)
	if _, err := io.ReadFull(c.out, data); err != nil {
		return nil, fmt.Errorf("git cat-file: object %s: %v", blob, err)
	}
	return data[:n], nil
}

func (c *catFile) close() {
	c.in.Close()
	_ = c.cmd.Wait()
}

// commit is one commit read from the history, with its diff against its
// parent.
type commit struct {
	Sha, Parent string
	Parents     int
	Message     string
	Files       []fileDiff
}

// fileDiff is one file a commit changes.
type fileDiff struct {
	Path    string // the path in the parent, or in the commit for an added file
	OldBlob string // "" for an added file
	Added   bool
	Lines   []int // the parent's lines the commit removes or changes; for a pure addition, the line it follows (1 when at the top)
}

// gitLog streams the history from rev, newest first, merges left out,
// each commit with its zero-context diff against its parent; it calls fn
// for each until fn returns false.
func (r *gitRepo) gitLog(ctx context.Context, rev string, fn func(*commit) bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := r.command(ctx, "log", "--no-merges", "--format=%x00%x01%H %P%n%B%x00%x02", "-p", "--unified=0",
		"--no-renames", "--no-color", "--no-ext-diff", "--no-textconv", "--full-index",
		"--src-prefix=a/", "--dst-prefix=b/", "--end-of-options", rev)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git log: %v", err)
	}
	stopped := false
	perr := parseLog(bufio.NewReaderSize(out, 1<<16), func(c *commit) bool {
		if !fn(c) {
			stopped = true
			return false
		}
		return true
	})
	if stopped {
		cancel()
		_ = cmd.Wait()
		return perr
	}
	werr := cmd.Wait()
	if perr != nil {
		return perr
	}
	if werr != nil {
		return fmt.Errorf("git log: %s", strings.TrimSpace(stderr.String()))
	}
	return nil
}

// parseLog reads the output of gitLog's command.
func parseLog(in *bufio.Reader, fn func(*commit) bool) error {
	p := &logParser{fn: fn}
	for {
		line, err := in.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			if err == io.EOF {
				p.flush()
				return nil
			}
			return err
		}
		if stop, perr := p.line(line); stop || perr != nil {
			return perr
		}
		if err == io.EOF {
			p.flush()
			return nil
		}
	}
}

// logParser is parseLog's state: the commit being read, its file being
// read, and where in the commit the lines are.
type logParser struct {
	fn        func(*commit) bool
	c         *commit
	f         *fileDiff
	inMessage bool // between the commit line and the message's end mark
	inHeader  bool // in a file's diff header, before its first hunk
	msg       strings.Builder
}

// flush hands the commit read to fn; false when fn wants no more.
func (p *logParser) flush() bool {
	if p.c == nil {
		return true
	}
	done := p.c
	p.c = nil
	return p.fn(done)
}

// line reads one line of the log; stop is true when fn wants no more.
func (p *logParser) line(line []byte) (stop bool, err error) {
	switch {
	case bytes.HasPrefix(line, []byte("\x00\x01")):
		if !p.flush() {
			return true, nil
		}
		return false, p.commitLine(line[2:])
	case p.c == nil:
	case p.inMessage:
		if i := bytes.Index(line, []byte("\x00\x02")); i >= 0 {
			p.msg.Write(line[:i])
			p.c.Message = p.msg.String()
			p.inMessage = false
		} else {
			p.msg.Write(line)
		}
	case bytes.HasPrefix(line, []byte("diff --git ")):
		p.c.Files = append(p.c.Files, fileDiff{Path: diffGitPath(string(bytes.TrimRight(line[len("diff --git "):], "\n")))})
		p.f, p.inHeader = &p.c.Files[len(p.c.Files)-1], true
	case p.f == nil:
	case p.inHeader && !bytes.HasPrefix(line, []byte("@@ ")):
		p.headerLine(line)
	case bytes.HasPrefix(line, []byte("@@ ")):
		return false, p.hunk(line)
	}
	return false, nil
}

// commitLine starts a commit: "HASH [PARENT...]".
func (p *logParser) commitLine(line []byte) error {
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return errors.New("git log: a commit without a hash")
	}
	p.c = &commit{Sha: fields[0], Parents: len(fields) - 1}
	if len(fields) > 1 {
		p.c.Parent = fields[1]
	}
	p.f, p.inMessage, p.inHeader = nil, true, false
	p.msg.Reset()
	return nil
}

// headerLine reads a line of a file's diff header: the parent's blob, a
// new file, the paths.
func (p *logParser) headerLine(line []byte) {
	f := p.f
	switch {
	case bytes.HasPrefix(line, []byte("index ")):
		ids := strings.Fields(string(line[len("index "):]))
		if len(ids) > 0 {
			if old, _, ok := strings.Cut(ids[0], ".."); ok && strings.Trim(old, "0") != "" {
				f.OldBlob = old
			}
		}
	case bytes.HasPrefix(line, []byte("new file mode")):
		f.Added = true
	case bytes.HasPrefix(line, []byte("--- ")):
		if path, ok := diffPath(string(bytes.TrimRight(line[4:], "\n")), "a/"); ok {
			f.Path = path
		}
	case bytes.HasPrefix(line, []byte("+++ ")):
		if path, ok := diffPath(string(bytes.TrimRight(line[4:], "\n")), "b/"); ok && f.Added {
			f.Path = path
		}
	}
}

// hunk reads a hunk header: the parent's lines it removes or changes (for
// a pure addition, the line it follows).
func (p *logParser) hunk(line []byte) error {
	p.inHeader = false
	first, count, ok := hunkOld(string(line))
	if !ok {
		return fmt.Errorf("git log: commit %s: unexpected hunk header %q", p.c.Sha, bytes.TrimSpace(line))
	}
	if count == 0 {
		p.f.Lines = append(p.f.Lines, max(first, 1))
	}
	for l := first; l < first+count; l++ {
		p.f.Lines = append(p.f.Lines, l)
	}
	return nil
}

// hunkOld reads the parent's side of a hunk header "@@ -l[,s] +l[,s] @@".
func hunkOld(h string) (first, count int, ok bool) {
	f := strings.Fields(h)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") {
		return 0, 0, false
	}
	a, b, has := strings.Cut(f[1][1:], ",")
	first, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, false
	}
	count = 1
	if has {
		if count, err = strconv.Atoi(b); err != nil {
			return 0, 0, false
		}
	}
	return first, count, true
}

// diffPath reads a path of a "--- " or "+++ " line: prefix then the path,
// C-quoted when it holds unusual characters; false for /dev/null.
func diffPath(s, prefix string) (string, bool) {
	s = strings.TrimSuffix(s, "\t")
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		if err != nil {
			return "", false
		}
		s = u
	}
	return strings.CutPrefix(s, prefix)
}

// diffGitPath reads the path of a "diff --git a/P b/P" line (the same P
// on both sides: renames are off).
func diffGitPath(s string) string {
	if strings.HasPrefix(s, `"`) {
		if q, err := strconv.QuotedPrefix(s); err == nil {
			if p, ok := diffPath(q, "a/"); ok {
				return p
			}
		}
	}
	if n := (len(s) - 5) / 2; n > 0 && strings.HasPrefix(s, "a/") && len(s) == 2*n+5 {
		return s[2 : 2+n]
	}
	return strings.TrimPrefix(strings.Fields(s)[0], "a/")
}
