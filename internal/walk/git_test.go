package walk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitCase is one repository layout compared with `git ls-files`.
type gitCase struct {
	name    string
	files   []string          // created with their path as content; "x/" is an empty dir
	ignores map[string]string // ignore files (path -> content), e.g. ".gitignore", "a/.gitignore", ".git/info/exclude"
	add     []string          // paths to `git add -f` (tracked)
	setup   func(t *testing.T, dir string)
	hidden  bool
	cwd     string     // directory to run both from, relative to the repo
	roots   [][]string // root argument sets (nil: just ".")
}

var gitCases = []gitCase{
	{
		name:    "plain",
		files:   []string{"a.py", "b.log", "src/c.py", "src/d.log", "src/deep/e.log"},
		ignores: map[string]string{".gitignore": "*.log\n"},
	},
	{
		name:  "nested gitignore and negation",
		files: []string{"x.tmp", "keep.tmp", "sub/x.tmp", "sub/keep.tmp", "sub/deeper/keep.tmp", "sub/deeper/y.tmp", "other/keep.tmp"},
		ignores: map[string]string{
			".gitignore":     "*.tmp\n",
			"sub/.gitignore": "!keep.tmp\n",
		},
	},
	{
		name:    "last match wins",
		files:   []string{"a.txt", "b.txt", "c.txt", "d.txt"},
		ignores: map[string]string{".gitignore": "*.txt\n!a.txt\n!b.txt\nb.txt\n!d.txt\n"},
	},
	{
		name:  "re-include blocked by excluded parent",
		files: []string{"logs/keep.log", "logs/x.log", "logs/sub/keep.log", "build/x.o", "build/keep/f.c", "build/keep/g.o", "out/keep.txt"},
		ignores: map[string]string{".gitignore": "logs/\n!logs/keep.log\n!logs/sub/\n" +
			"build/*\n!build/keep/\n*.o\n" +
			"out\n!out/keep.txt\n"},
	},
	{
		name:    "ignore all but src",
		files:   []string{"a.py", "docs/x.md", "src/a.py", "src/deep/b.py", "src/deep/.keep"},
		ignores: map[string]string{".gitignore": "/*\n!/src/\n!.gitignore\n"},
	},
	{
		name:    "anchored and unanchored",
		files:   []string{"root.txt", "sub/root.txt", "doc/a.md", "doc/sub/b.md", "x/doc/a.md", "foo", "bar/foo", "baz/foo/f.c", "sub/a/b.c", "a/b.c"},
		ignores: map[string]string{".gitignore": "/root.txt\ndoc/*.md\nfoo\na/b.c\n"},
	},
	{
		name:    "anchoring in a sub gitignore",
		files:   []string{"top.c", "sub/top.c", "sub/x/top.c", "sub/x/y.c", "x/y.c", "sub/z/x/y.c"},
		ignores: map[string]string{"sub/.gitignore": "/top.c\nx/y.c\n"},
	},
	{
		name: "double star forms",
		files: []string{"cache/a", "x/cache/b", "x/y/cache/c", "a/b", "a/x/b", "a/x/y/b", "ab", "out/1", "out/d/2", "out/",
			"k/tmp/z.o", "tmp/z.o", "k/l/tmp/z.o", "k/tmp/s/z.o", "m/n.x", "mm/n.x"},
		ignores: map[string]string{".gitignore": "**/cache\na/**/b\nout/**\n**/tmp/*.o\nm**/n.x\n"},
	},
	{
		name:    "double star trailing and middle",
		files:   []string{"lib/a.js", "lib/x/b.js", "libx", "src/lib/c.js", "foo/a/b/bar", "foo/bar/baz", "foo/c/bar/q", "foobar/x"},
		ignores: map[string]string{".gitignore": "/lib/**\nfoo/**/bar\n!foo/bar/baz\n"},
	},
	{
		// git compares the literal prefix before wildmatch, so the "**"
		// after it counts as a whole component: "a**/*.x" matches "a.x".
		name:    "literal prefix then double star",
		files:   []string{"a.x", "ab/b.x", "ab/c/d.x", "b.x", "ba/a.x", "sub/a.x"},
		ignores: map[string]string{".gitignore": "a**/*.x\n", "sub/.gitignore": "/a**.x\n"},
	},
	{
		name:    "directory only",
		files:   []string{"bin/a", "x/bin/b", "y/bin", "z", "z2/"},
		ignores: map[string]string{".gitignore": "bin/\nz/\n"},
	},
	{
		name:    "escapes and comments",
		files:   []string{"#hash.txt", "!bang.txt", "#other", "star*", "starx", "q?", "qx", "back\\slash"},
		ignores: map[string]string{".gitignore": "\\#hash.txt\n\\!bang.txt\n#other\nstar\\*\nq\\?\nback\\\\slash\n"},
	},
	{
		name:    "trailing spaces",
		files:   []string{"trail.txt", "space ", "space", "tab.txt", "two  ", "two"},
		ignores: map[string]string{".gitignore": "trail.txt   \nspace\\ \ntab.txt\t\ntwo\\ \\ \n"},
	},
	{
		name:    "character classes",
		files:   []string{"a.c", "b.c", "d.c", "xy.z", "ay.z", "file1.go", "fileA.go", "7x.dat", "x7.dat", "pq", "qq", "]x", "-y", "_z", "U.up", "l.up"},
		ignores: map[string]string{".gitignore": "[abc].c\n[!x]y.z\nfile[0-9].go\n[[:digit:]]*.dat\n[^q]q\n[]]x\n[a-]y\n[[:punct:]]z\n[[:upper:]].up\n"},
	},
	{
		name:    "crlf and bom",
		files:   []string{"a.log", "b.tmp", "c.py"},
		ignores: map[string]string{".gitignore": "\xef\xbb\xbf*.log\r\n*.tmp\r\n"},
	},
	{
		name:    "info exclude and precedence",
		files:   []string{"a.secret", "keep.secret", "b.x", "sub/keep.secret"},
		ignores: map[string]string{".git/info/exclude": "*.secret\nb.x\n", ".gitignore": "!keep.secret\n"},
	},
	{
		name:    "tracked but ignored",
		files:   []string{"keep.gen", "drop.gen", "vendor/lib.py", "vendor/other.py", "vendor/sub/x.py"},
		ignores: map[string]string{".gitignore": "*.gen\nvendor/\n"},
		add:     []string{"keep.gen", "vendor/lib.py", "vendor/sub/x.py"},
	},
	{
		name:  "tracked then deleted",
		files: []string{"a.py", "gone.py"},
		add:   []string{"a.py", "gone.py"},
		setup: func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "gone.py")) },
	},
	{
		name:  "nested repository",
		files: []string{"a.py", "sub/b.py", "sub/c.log", "sub/.gitignore", "sub2/d.py"},
		setup: func(t *testing.T, dir string) {
			git(t, filepath.Join(dir, "sub"), "init", "-q")
			git(t, filepath.Join(dir, "sub"), "add", "b.py")
			// A bogus .git (empty dir) does not make a repository.
			os.MkdirAll(filepath.Join(dir, "sub2", ".git"), 0o755)
		},
	},
	{
		name:    "hidden",
		files:   []string{".github/ci.yml", ".hidden.py", "src/.env", "src/a.py", ".dir/x/y.py", "z.py"},
		ignores: map[string]string{".gitignore": "*.yml\n"},
		add:     []string{".github/ci.yml", "z.py"},
	},
	{
		name:    "hidden shown",
		files:   []string{".github/ci.yml", ".github/other.yml", ".hidden.py", "src/.env", "src/a.py", ".dir/x/y.py"},
		ignores: map[string]string{".gitignore": "*.yml\n.env\n"},
		add:     []string{".github/ci.yml"},
		hidden:  true,
	},
	{
		name:    "only python kept",
		files:   []string{"a.py", "b.txt", "x/c.py", "x/d.md", "x/y/e.py"},
		ignores: map[string]string{"x/.gitignore": "*\n!*.py\n!*/\n", ".gitignore": "*.txt\n"},
	},
	{
		name:    "subdirectory roots",
		files:   []string{"src/a.py", "src/b.log", "src/gen/c.py", "build/x.py", "build/y.py", "docs/z.md"},
		ignores: map[string]string{".gitignore": "*.log\nbuild/\n/src/gen/\n"},
		add:     []string{"build/x.py"},
		roots:   [][]string{{"src"}, {"docs", "src"}}, // ignored roots: TestIgnoredRootIsWalked
	},
	{
		name:    "run from a subdirectory",
		files:   []string{"src/a.py", "src/b.log", "src/x/c.tmp", "src/x/d.py", "e.py"},
		ignores: map[string]string{".gitignore": "*.log\n", "src/.gitignore": "x/*.tmp\n"},
		cwd:     "src",
	},
	{
		name:    "empty and odd pattern lines",
		files:   []string{"a", "b", "c/d"},
		ignores: map[string]string{".gitignore": "\n   \n/\n!\n#\n\\\nc//\n"},
	},
	{
		name:    "symlinked gitignore is not read",
		files:   []string{"a.py", "b.py", "rules.txt"},
		setup:   func(t *testing.T, dir string) { os.Symlink("rules.txt", filepath.Join(dir, ".gitignore")) },
		ignores: map[string]string{"rules.txt": "*.py\n"},
	},
	{
		// Symlinks are listed by git, as files (a "dir/" pattern does not
		// match a link to a folder): only ListAll lists them here.
		name:  "symlinks",
		files: []string{"src/a.py", "b.py"},
		setup: func(t *testing.T, dir string) {
			for link, target := range map[string]string{"link.py": "src/a.py", "dl.py": "/nonexistent", "ldir": "src", "lx": "src"} {
				os.Symlink(target, filepath.Join(dir, link))
			}
		},
		ignores: map[string]string{".gitignore": "ldir/\nlx\n"},
	},
	{
		// Patterns that make the plain search backtrack past its budget
		// (issue 19), small enough for git to answer: the memoised
		// search must give git's answers.
		name: "many stars",
		files: []string{strings.Repeat("a", 40), strings.Repeat("a", 39) + "b", strings.Repeat("a", 39) + "c",
			"d/" + strings.Repeat("a", 30) + "c.x", "d/" + strings.Repeat("ab", 15) + "c", "e/" + strings.Repeat("a/", 8) + "c", "e/" + strings.Repeat("a/", 12) + "d"},
		ignores: map[string]string{".gitignore": "*a*a*a*ab\nd/*a*a*a*ac.x\ne/**/a/**/a/**/a/**/c\n*b*b*b*ba\n"},
	},
}

// TestMatchesGit builds each case as a real repository and compares List
// with `git ls-files --cached --others --exclude-standard`.
func TestMatchesGit(t *testing.T) {
	isolateGit(t)
	for _, c := range gitCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			git(t, dir, "init", "-q")
			writeTree(t, dir, c.files...)
			for p, content := range c.ignores {
				writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), content)
			}
			for _, a := range c.add {
				git(t, dir, "add", "-f", "--", a)
			}
			if c.setup != nil {
				c.setup(t, dir)
			}
			compareWithGit(t, filepath.Join(dir, filepath.FromSlash(c.cwd)), c.roots, Options{Hidden: c.hidden})
		})
	}
}

// compareWithGit runs git and List from dir for each root set.
func compareWithGit(t *testing.T, dir string, rootSets [][]string, opts Options) {
	t.Helper()
	if rootSets == nil {
		rootSets = [][]string{nil}
	}
	for _, roots := range rootSets {
		want := gitListing(t, dir, opts.Hidden, roots...)
		got, warns := listPaths(t, dir, roots, opts)
		sameList(t, "roots "+joinRoots(roots), got, want)
		for _, w := range warns {
			if w.Kind != Notice {
				t.Errorf("unexpected warning %+v", w)
			}
		}
	}
}

func joinRoots(r []string) string {
	if r == nil {
		return "(none)"
	}
	return "[" + filepath.Join(r...) + "]"
}

// TestGlobalExcludes sets core.excludesFile through GIT_CONFIG_GLOBAL, for
// git and the walker alike, with "~/" expansion.
func TestGlobalExcludes(t *testing.T) {
	home := isolateGit(t)
	writeFile(t, filepath.Join(home, "my ignore"), "*.glob\n!keep.glob\n")
	cfg := filepath.Join(home, "cfg")
	writeFile(t, cfg, "[core]\n\texcludesFile = \"~/my ignore\"\n")
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)

	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "a.glob", "keep.glob", "sub/b.glob", "c.py", "d.info")
	writeFile(t, filepath.Join(dir, ".git/info/exclude"), "!a.glob\n*.info\n")
	compareWithGit(t, dir, nil, Options{})
	got, _ := listPaths(t, dir, nil, Options{})
	sameList(t, "global", got, []string{"a.glob", "c.py", "keep.glob"})
}

// TestDefaultGlobalExcludes uses $XDG_CONFIG_HOME/git/ignore when
// core.excludesFile is unset, and no global file when it is set empty.
func TestDefaultGlobalExcludes(t *testing.T) {
	home := isolateGit(t)
	writeFile(t, filepath.Join(home, ".config/git/ignore"), "*.xdg\n")
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "a.xdg", "b.py")
	compareWithGit(t, dir, nil, Options{})
	got, _ := listPaths(t, dir, nil, Options{})
	sameList(t, "xdg", got, []string{"b.py"})

	// The repository's own config can override the global setting.
	git(t, dir, "config", "core.excludesFile", "")
	compareWithGit(t, dir, nil, Options{})
	got, _ = listPaths(t, dir, nil, Options{})
	sameList(t, "disabled", got, []string{"a.xdg", "b.py"})
}

// TestWorktree: a linked worktree has a .git file; its index is its own,
// info/exclude is the main repository's.
func TestWorktree(t *testing.T) {
	isolateGit(t)
	base := t.TempDir()
	main := filepath.Join(base, "main")
	writeTree(t, main, "a.py", "b.py", "t.skip")
	writeFile(t, filepath.Join(main, ".gitignore"), "*.skip\n")
	git(t, main, "init", "-q")
	git(t, main, "add", "-f", "a.py", ".gitignore", "t.skip")
	git(t, main, "commit", "-qm", "init")
	wt := filepath.Join(base, "wt")
	git(t, main, "worktree", "add", "-q", wt)
	writeFile(t, filepath.Join(main, ".git/info/exclude"), "*.ex\n")
	writeTree(t, wt, "new.py", "x.ex", "y.skip")
	compareWithGit(t, wt, nil, Options{})
	got, _ := listPaths(t, wt, nil, Options{})
	sameList(t, "worktree", got, []string{"a.py", "new.py", "t.skip"})
}

// TestIgnoredRootIsWalked: a directory named as an argument is walked even
// when git ignores it (naming it is asking for it), and the rules still
// apply below it.
func TestIgnoredRootIsWalked(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "build/x.py", "build/y.py", "build/z.log")
	writeFile(t, filepath.Join(dir, ".gitignore"), "build/\n*.log\n")
	git(t, dir, "add", "-f", "build/x.py")
	got, warns := listPaths(t, dir, []string{"build"}, Options{})
	sameList(t, "ignored root", got, []string{"build/x.py", "build/y.py"})
	if len(warns) != 0 {
		t.Errorf("want no warning, got %+v", warns)
	}
	got, _ = listPaths(t, dir, []string{"build"}, Options{NoIgnore: true})
	sameList(t, "no-ignore", got, []string{"build/x.py", "build/y.py", "build/z.log"})
}

// TestSubmodule: a checked-out submodule is a gitlink in the index and a
// directory with a .git file on disk; git lists neither its files nor (as
// a file) the submodule itself.
func TestSubmodule(t *testing.T) {
	isolateGit(t)
	base := t.TempDir()
	sub := filepath.Join(base, "subrepo")
	writeTree(t, sub, "s.py")
	git(t, sub, "init", "-q")
	git(t, sub, "add", "s.py")
	git(t, sub, "commit", "-qm", "s")
	top := filepath.Join(base, "top")
	writeTree(t, top, "a.py")
	git(t, top, "init", "-q")
	git(t, top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../subrepo", "lib/sub")
	writeTree(t, top, "lib/sub/untracked.py", "lib/b.py")
	compareWithGit(t, top, [][]string{nil, {"lib"}}, Options{Hidden: true})
	got, _ := listPaths(t, top, nil, Options{})
	sameList(t, "submodule", got, []string{"a.py", "lib/b.py"})
	// Walking the submodule itself uses its own index (via the .git file).
	got, _ = listPaths(t, top, []string{"lib/sub"}, Options{})
	sameList(t, "inside submodule", got, []string{"lib/sub/s.py", "lib/sub/untracked.py"})
	compareWithGit(t, filepath.Join(top, "lib/sub"), nil, Options{})
}

// TestGitDirRoot: .git is never walked, even when named.
func TestGitDirRoot(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	for _, root := range []string{".git", ".git/refs", "./.git/"} {
		got, warns := listPaths(t, dir, []string{root}, Options{Hidden: true, NoIgnore: root == ".git/refs"})
		if len(got) != 0 || len(warns) != 1 || warns[0].Kind != Notice {
			t.Errorf("root %s: %q %v", root, got, warns)
		}
	}
}

// TestIndexVersions: index v2, v3 (extended flags, from intent-to-add) and
// v4 (prefix-compressed names) all give the tracked files.
func TestIndexVersions(t *testing.T) {
	isolateGit(t)
	for _, v := range []string{"2", "3", "4"} {
		dir := t.TempDir()
		git(t, dir, "init", "-q")
		writeTree(t, dir, "gen/a.py", "gen/ab.py", "gen/b/c.py", "x.py", "ita.py")
		writeFile(t, filepath.Join(dir, ".gitignore"), "gen/\nita.py\n")
		git(t, dir, "add", "-f", "gen/a.py", "gen/ab.py", "gen/b/c.py")
		git(t, dir, "add", "-f", "-N", "ita.py")
		git(t, dir, "update-index", "--index-version", v)
		compareWithGit(t, dir, nil, Options{})
		got, _ := listPaths(t, dir, nil, Options{})
		sameList(t, "index v"+v, got, []string{"gen/a.py", "gen/ab.py", "gen/b/c.py", "ita.py", "x.py"})
	}
}

// TestBadIndex: an unreadable index is a Notice; ignore rules still apply.
func TestBadIndex(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "a.py", "b.log")
	writeFile(t, filepath.Join(dir, ".gitignore"), "*.log\n")
	writeFile(t, filepath.Join(dir, ".git/index"), "DIRC garbage")
	got, warns := listPaths(t, dir, nil, Options{})
	sameList(t, "bad index", got, []string{"a.py"})
	if len(warns) != 1 || warns[0].Kind != Notice || warns[0].Path != "." {
		t.Errorf("warnings %v", warns)
	}
}

// TestListAll: with ListAll, every case lists what git lists, hidden
// files and symlinks included, and File.Hidden and File.Kind mark exactly
// the files a walk without it leaves out.
func TestListAll(t *testing.T) {
	isolateGit(t)
	for _, c := range gitCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			git(t, dir, "init", "-q")
			writeTree(t, dir, c.files...)
			for p, content := range c.ignores {
				writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), content)
			}
			for _, a := range c.add {
				git(t, dir, "add", "-f", "--", a)
			}
			if c.setup != nil {
				c.setup(t, dir)
			}
			cwd := filepath.Join(dir, filepath.FromSlash(c.cwd))
			rootSets := c.roots
			if rootSets == nil {
				rootSets = [][]string{nil}
			}
			for _, roots := range rootSets {
				t.Chdir(cwd)
				plain, _ := mustList(t, roots, Options{})
				shown := map[string]bool{}
				for _, f := range plain {
					shown[f.Path] = true
				}
				all, _ := mustList(t, roots, Options{ListAll: true})
				sameList(t, "roots "+joinRoots(roots), paths(all), gitListingAll(t, cwd, roots...))
				for _, f := range all {
					if (f.Hidden || f.Kind != Regular) == shown[f.Path] {
						t.Errorf("roots %s: %s: Hidden %v, Kind %v", joinRoots(roots), f.Path, f.Hidden, f.Kind)
					}
				}
			}
		})
	}
}
