package walk

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/regular"
)

// plainTree makes a directory tree outside any repository.
func plainTree(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	if _, ok := gitDirOf(dir); ok || findRepo(dir) != nil {
		t.Skip("temporary directory is inside a git repository")
	}
	writeTree(t, dir, names...)
	return dir
}

func mustList(t *testing.T, roots []string, opts Options) ([]File, []Warning) {
	t.Helper()
	files, warns, err := List(roots, opts)
	if err != nil {
		t.Fatalf("List(%q): %v", roots, err)
	}
	return files, warns
}

func TestDisplayPaths(t *testing.T) {
	dir := plainTree(t, "src/a.py", "src/sub/b.py", "x/c.py")
	t.Chdir(dir)
	cases := []struct {
		roots []string
		want  []string
	}{
		{nil, []string{"src/a.py", "src/sub/b.py", "x/c.py"}},
		{[]string{""}, []string{"src/a.py", "src/sub/b.py", "x/c.py"}},
		{[]string{"."}, []string{"src/a.py", "src/sub/b.py", "x/c.py"}},
		{[]string{"./"}, []string{"src/a.py", "src/sub/b.py", "x/c.py"}},
		{[]string{"src"}, []string{"src/a.py", "src/sub/b.py"}},
		{[]string{"./src"}, []string{"src/a.py", "src/sub/b.py"}},
		{[]string{"src/"}, []string{"src/a.py", "src/sub/b.py"}},
		{[]string{"src/../x"}, []string{"x/c.py"}},
		{[]string{"./src/a.py"}, []string{"src/a.py"}},
		{[]string{dir}, []string{dir + "/src/a.py", dir + "/src/sub/b.py", dir + "/x/c.py"}},
		{[]string{dir + "/src/"}, []string{dir + "/src/a.py", dir + "/src/sub/b.py"}},
	}
	for _, c := range cases {
		files, warns := mustList(t, c.roots, Options{})
		if got := paths(files); !reflect.DeepEqual(got, c.want) || len(warns) > 0 {
			t.Errorf("List(%q) = %q, %v; want %q", c.roots, got, warns, c.want)
		}
		for _, f := range files {
			if _, err := os.Stat(f.OSPath); err != nil {
				t.Errorf("OSPath of %s: %v", f.Path, err)
			}
		}
	}

	t.Chdir(filepath.Join(dir, "src"))
	for roots, want := range map[string][]string{
		"../x": {"../x/c.py"},
		"..":   {"../src/a.py", "../src/sub/b.py", "../x/c.py"},
		"sub":  {"sub/b.py"},
	} {
		files, _ := mustList(t, []string{roots}, Options{})
		if got := paths(files); !reflect.DeepEqual(got, want) {
			t.Errorf("List(%q) = %q, want %q", roots, got, want)
		}
	}
}

func TestExplicitFiles(t *testing.T) {
	dir := plainTree(t, "a.py", ".hidden.py", "ign.log", "notes.txt")
	writeFile(t, filepath.Join(dir, ".gitignore"), "*.log\n")
	t.Chdir(dir)
	files, warns := mustList(t, []string{".hidden.py", "ign.log", "notes.txt", "."}, Options{})
	want := []File{
		{Path: ".hidden.py", OSPath: ".hidden.py", Size: 11, Explicit: true},
		{Path: "a.py", OSPath: "a.py", Size: 5},
		{Path: "ign.log", OSPath: "ign.log", Size: 8, Explicit: true},
		{Path: "notes.txt", OSPath: "notes.txt", Size: 10, Explicit: true},
	}
	for i := range files {
		checkID(t, files[i])
		files[i].ID = regular.ID{}
	}
	if !reflect.DeepEqual(files, want) || len(warns) > 0 {
		t.Errorf("got %+v %v\nwant %+v", files, warns, want)
	}
	// Named both ways: one entry, explicit.
	files, _ = mustList(t, []string{".", "a.py"}, Options{})
	if len(files) != 2 || files[0].Path != "a.py" || !files[0].Explicit || files[1].Explicit {
		t.Errorf("dedup: %+v", files)
	}
}

func TestOutsideRepo(t *testing.T) {
	isolateGit(t)
	dir := plainTree(t, "a.py", "b.log", "sub/c.py", "sub/d.tmp", "sub/.e.py",
		"repo/f.py", "repo/g.secret", "repo/h.log", "repo/tracked.gen", "repo/x.gen")
	writeFile(t, filepath.Join(dir, ".gitignore"), "*.log\n")
	writeFile(t, filepath.Join(dir, "sub/.gitignore"), "*.tmp\n")
	repo := filepath.Join(dir, "repo")
	git(t, repo, "init", "-q")
	writeFile(t, filepath.Join(repo, ".git/info/exclude"), "*.secret\n")
	writeFile(t, filepath.Join(repo, ".gitignore"), "*.gen\n")
	git(t, repo, "add", "-f", "tracked.gen")
	t.Chdir(dir)

	// .gitignore files apply without a repository; a repository met on the
	// way is walked with its own rules (the outer *.log does not reach it,
	// as git inside it would not see it).
	files, warns := mustList(t, nil, Options{})
	want := []string{"a.py", "repo/f.py", "repo/h.log", "repo/tracked.gen", "sub/c.py"}
	if got := paths(files); !reflect.DeepEqual(got, want) || len(warns) > 0 {
		t.Errorf("got %q %v, want %q", got, warns, want)
	}
	sameList(t, "inside repo", pathsUnder(files, "repo/"), gitListing(t, repo, false))

	// NoIgnore: everything but .git and hidden files.
	files, _ = mustList(t, nil, Options{NoIgnore: true})
	want = []string{"a.py", "b.log", "repo/f.py", "repo/g.secret", "repo/h.log", "repo/tracked.gen", "repo/x.gen", "sub/c.py", "sub/d.tmp"}
	if got := paths(files); !reflect.DeepEqual(got, want) {
		t.Errorf("NoIgnore: got %q, want %q", got, want)
	}
	files, _ = mustList(t, nil, Options{NoIgnore: true, Hidden: true})
	for _, f := range files {
		if strings.Contains(f.Path, ".git/") {
			t.Errorf("listed %s", f.Path)
		}
	}
	if len(files) != len(want)+4 { // .gitignore x3, sub/.e.py
		t.Errorf("NoIgnore+Hidden: %q", paths(files))
	}
}

func pathsUnder(files []File, prefix string) []string {
	var res []string
	for _, f := range files {
		if strings.HasPrefix(f.Path, prefix) {
			res = append(res, strings.TrimPrefix(f.Path, prefix))
		}
	}
	return res
}

func TestNestedRepoInsideRepoNoIgnore(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "a.py", "sub/b.py")
	git(t, filepath.Join(dir, "sub"), "init", "-q")
	t.Chdir(dir)
	files, _ := mustList(t, nil, Options{})
	if got := paths(files); !reflect.DeepEqual(got, []string{"a.py"}) {
		t.Errorf("nested repo entered: %q", got)
	}
	files, _ = mustList(t, nil, Options{NoIgnore: true})
	if got := paths(files); !reflect.DeepEqual(got, []string{"a.py", "sub/b.py"}) {
		t.Errorf("NoIgnore: %q", got)
	}
	// Naming the nested repository walks it as its own repository.
	files, _ = mustList(t, []string{"sub"}, Options{})
	if got := paths(files); !reflect.DeepEqual(got, []string{"sub/b.py"}) {
		t.Errorf("root in nested repo: %q", got)
	}
}

func TestHiddenRoot(t *testing.T) {
	dir := plainTree(t, ".cfg/a.py", ".cfg/.b.py", ".cfg/x/.y/c.py", ".cfg/x/d.py")
	t.Chdir(dir)
	files, _ := mustList(t, []string{".cfg"}, Options{})
	if got := paths(files); !reflect.DeepEqual(got, []string{".cfg/a.py", ".cfg/x/d.py"}) {
		t.Errorf("got %q", got)
	}
	t.Chdir(filepath.Join(dir, ".cfg", "x"))
	files, _ = mustList(t, []string{"../../.cfg/x"}, Options{})
	if got := paths(files); !reflect.DeepEqual(got, []string{"../../.cfg/x/d.py"}) {
		t.Errorf("got %q", got)
	}
	files, _ = mustList(t, nil, Options{Hidden: true})
	if got := paths(files); !reflect.DeepEqual(got, []string{".y/c.py", "d.py"}) {
		t.Errorf("hidden: got %q", got)
	}
}

func TestSymlinks(t *testing.T) {
	dir := plainTree(t, "real/a.py", "other/b.py")
	t.Chdir(dir)
	for link, target := range map[string]string{
		"file.py":   "real/a.py",
		"dir":       "real",
		"real/back": "..",
		"dangling":  "nowhere",
		"self":      "self",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Skip("symlinks unavailable:", err)
		}
	}

	files, warns := mustList(t, nil, Options{})
	if got := paths(files); !reflect.DeepEqual(got, []string{"other/b.py", "real/a.py"}) || len(warns) > 0 {
		t.Errorf("no follow: %q %v", got, warns)
	}

	files, warns = mustList(t, nil, Options{Follow: true})
	want := []string{"dir/a.py", "file.py", "other/b.py", "real/a.py"}
	if got := paths(files); !reflect.DeepEqual(got, want) {
		t.Errorf("follow: %q, want %q", got, want)
	}
	wantWarns := []Warning{
		{"dangling", "dangling symlink", Unreadable},
		{"dir/back", "symlink loop", Unreadable},
		{"real/back", "symlink loop", Unreadable},
		{"self", "symlink loop", Unreadable},
	}
	if !reflect.DeepEqual(warns, wantWarns) {
		t.Errorf("follow warnings:\n got %v\nwant %v", warns, wantWarns)
	}

	// A root argument that is a symlink is followed, even without Follow.
	files, _ = mustList(t, []string{"dir", "file.py"}, Options{})
	if got := paths(files); !reflect.DeepEqual(got, []string{"dir/a.py", "file.py"}) {
		t.Errorf("symlink roots: %q", got)
	}
	_, warns = mustList(t, []string{"dangling", "self", "missing"}, Options{})
	wantWarns = []Warning{
		{"dangling", "dangling symlink", Unreadable},
		{"missing", "no such file or directory", Unreadable},
		{"self", "symlink loop", Unreadable},
	}
	if !reflect.DeepEqual(warns, wantWarns) {
		t.Errorf("bad roots:\n got %v\nwant %v", warns, wantWarns)
	}
}

func TestSymlinkedTrackedFile(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "a.py")
	if err := os.Symlink("a.py", filepath.Join(dir, "l.py")); err != nil {
		t.Skip(err)
	}
	git(t, dir, "add", "a.py", "l.py")
	t.Chdir(dir)
	files, _ := mustList(t, nil, Options{})
	if got := paths(files); !reflect.DeepEqual(got, []string{"a.py"}) {
		t.Errorf("no follow: %q", got)
	}
	files, _ = mustList(t, nil, Options{Follow: true})
	if got := paths(files); !reflect.DeepEqual(got, []string{"a.py", "l.py"}) {
		t.Errorf("follow: %q", got)
	}
}

func TestGlobs(t *testing.T) {
	dir := plainTree(t, "a.py", "a_test.py", "tests/t.py", "src/tests/u.py", "src/b.py",
		"node_modules/m.py", "src/node_modules/n.py", "docs/d.md")
	t.Chdir(dir)
	cases := []struct {
		roots            []string
		include, exclude []string
		want             []string
	}{
		{nil, []string{"*.py"}, []string{"*_test.py", "tests/**", "node_modules"},
			[]string{"a.py", "src/b.py", "src/tests/u.py"}},
		{nil, nil, []string{"**/tests"}, []string{"a.py", "a_test.py", "docs/d.md", "node_modules/m.py", "src/b.py", "src/node_modules/n.py"}},
		{nil, []string{"src/**"}, []string{"src/node_modules/**"}, []string{"src/b.py", "src/tests/u.py"}},
		{[]string{"src"}, nil, []string{"tests/**", "node_modules"}, []string{"src/b.py"}},
		{[]string{"src"}, nil, []string{"src/tests/**"}, []string{"src/b.py", "src/node_modules/n.py"}},
		{[]string{"src"}, []string{"b.py", "*.md"}, nil, []string{"src/b.py"}},
		{[]string{"a_test.py", "docs/d.md"}, nil, []string{"*_test.py"}, []string{"docs/d.md"}},
		{[]string{"docs/d.md"}, []string{"docs/*.md"}, nil, []string{"docs/d.md"}},
		{nil, []string{"{a,src/b}.py"}, nil, []string{"a.py", "src/b.py"}},
	}
	for _, c := range cases {
		files, _ := mustList(t, c.roots, Options{Include: c.include, Exclude: c.exclude})
		if got := paths(files); !reflect.DeepEqual(got, c.want) {
			t.Errorf("roots %q include %q exclude %q: got %q, want %q", c.roots, c.include, c.exclude, got, c.want)
		}
	}
	for _, o := range []Options{{Include: []string{"ok", "src/[a-"}}, {Exclude: []string{"{a,b"}}} {
		_, _, err := List(nil, o)
		if err == nil || !(strings.Contains(err.Error(), `"src/[a-"`) || strings.Contains(err.Error(), `"{a,b"`)) {
			t.Errorf("bad glob %+v: err = %v", o, err)
		}
	}
}

// TestExcludeTrackedInExcludedDir: the index pass prunes like the walk.
func TestExcludeTrackedInExcludedDir(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "a.py", "vendor/x/b.py", "vendor/c.py")
	writeFile(t, filepath.Join(dir, ".gitignore"), "vendor/\n")
	git(t, dir, "add", "-f", "vendor/x/b.py", "vendor/c.py")
	t.Chdir(dir)
	files, _ := mustList(t, nil, Options{Exclude: []string{"x"}})
	if got := paths(files); !reflect.DeepEqual(got, []string{"a.py", "vendor/c.py"}) {
		t.Errorf("got %q", got)
	}
}

func TestUnreadableDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	dir := plainTree(t, "a.py", "locked/b.py")
	t.Chdir(dir)
	os.Chmod("locked", 0)
	defer os.Chmod("locked", 0o755)
	files, warns := mustList(t, nil, Options{})
	if got := paths(files); !reflect.DeepEqual(got, []string{"a.py"}) {
		t.Errorf("got %q", got)
	}
	want := []Warning{{"locked", "permission denied", Unreadable}}
	if !reflect.DeepEqual(warns, want) {
		t.Errorf("warnings %v", warns)
	}
}

func TestDeterministic(t *testing.T) {
	var names []string
	for _, d := range []string{"b", "a", "B", "a/z", "a-b", "a.b"} {
		for _, f := range []string{"z.py", "A.py", "a.py", "_.py", "-.py"} {
			names = append(names, d+"/"+f)
		}
	}
	dir := plainTree(t, names...)
	t.Chdir(dir)
	first, w1 := mustList(t, []string{"missing2", "a", ".", "missing1"}, Options{})
	for i := 0; i < 3; i++ {
		again, w2 := mustList(t, []string{"missing1", ".", "a", "missing2"}, Options{})
		if !reflect.DeepEqual(first, again) || !reflect.DeepEqual(w1, w2) {
			t.Fatalf("not deterministic:\n%v\n%v", first, again)
		}
	}
	if len(first) != len(names) {
		t.Errorf("%d files, want %d", len(first), len(names))
	}
	if !sort.SliceIsSorted(first, func(i, j int) bool { return first[i].Path < first[j].Path }) {
		t.Errorf("not sorted: %q", paths(first))
	}
	if len(w1) != 2 || w1[0].Path != "missing1" || w1[1].Path != "missing2" {
		t.Errorf("warnings %v", w1)
	}
}

func TestReadList(t *testing.T) {
	cases := []struct {
		in   string
		nul  bool
		want []string
	}{
		{"a.py\nsrc/b.py\n", false, []string{"a.py", "src/b.py"}},
		{"a.py\nsrc/b.py", false, []string{"a.py", "src/b.py"}},
		{"a.py\r\n\r\nb c.py\r\n", false, []string{"a.py", "b c.py"}},
		{"\n\n a.py \n", false, []string{" a.py "}},
		{"", false, nil},
		{"a\x00b\nc\x00\x00d", true, []string{"a", "b\nc", "d"}},
		{"a\r\x00", true, []string{"a\r"}},
		{"x\x00", true, []string{"x"}},
	}
	for _, c := range cases {
		got, err := ReadList(strings.NewReader(c.in), c.nul)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ReadList(%q, %v) = %q, %v; want %q", c.in, c.nul, got, err, c.want)
		}
	}
}

// TestGlobFolders: Include and Exclude read git's folder syntax. "dir/"
// matches directories only, and a directory matched takes (Include) or
// drops (Exclude) everything below it.
func TestGlobFolders(t *testing.T) {
	dir := plainTree(t, "a.py", "tests/t.py", "tests/sub/u.py", "src/tests/v.py", "src/b.py",
		"src/tests.py", "lib/tests", "docs/d.md")
	t.Chdir(dir)
	cases := []struct {
		roots            []string
		include, exclude []string
		want             []string
	}{
		{nil, nil, []string{"tests/"}, []string{"a.py", "docs/d.md", "lib/tests", "src/b.py", "src/tests.py"}},
		{nil, nil, []string{"tests//"}, []string{"a.py", "docs/d.md", "lib/tests", "src/b.py", "src/tests.py"}},
		{nil, nil, []string{"tests"}, []string{"a.py", "docs/d.md", "src/b.py", "src/tests.py"}},
		{nil, nil, []string{"src/tests/"}, []string{"a.py", "docs/d.md", "lib/tests", "src/b.py", "src/tests.py", "tests/sub/u.py", "tests/t.py"}},
		{nil, nil, []string{"**/sub/"}, []string{"a.py", "docs/d.md", "lib/tests", "src/b.py", "src/tests.py", "src/tests/v.py", "tests/t.py"}},
		{nil, []string{"tests"}, nil, []string{"lib/tests", "src/tests/v.py", "tests/sub/u.py", "tests/t.py"}},
		{nil, []string{"tests/"}, nil, []string{"src/tests/v.py", "tests/sub/u.py", "tests/t.py"}},
		{nil, []string{"src/tests"}, nil, []string{"src/tests/v.py"}},
		{nil, []string{"src/tests/"}, nil, []string{"src/tests/v.py"}},
		{nil, []string{"**/sub"}, nil, []string{"tests/sub/u.py"}},
		{nil, []string{"tests/", "*.md"}, []string{"sub/"}, []string{"docs/d.md", "src/tests/v.py", "tests/t.py"}},
		{nil, []string{"src/"}, []string{"tests"}, []string{"src/b.py", "src/tests.py"}},
		// Relative to the root argument, or the display path.
		{[]string{"src"}, []string{"tests/"}, nil, []string{"src/tests/v.py"}},
		{[]string{"src"}, []string{"src/tests/"}, nil, []string{"src/tests/v.py"}},
		{[]string{"src"}, nil, []string{"tests/"}, []string{"src/b.py", "src/tests.py"}},
		// The root argument itself is not matched: naming it is asking for it.
		{[]string{"tests"}, nil, []string{"tests/"}, []string{"tests/sub/u.py", "tests/t.py"}},
		// Files named as arguments: the directories of their path count.
		{[]string{"tests/t.py", "src/b.py", "src/tests/v.py"}, nil, []string{"tests/"}, []string{"src/b.py"}},
		{[]string{"tests/t.py", "src/b.py", "src/tests/v.py"}, nil, []string{"src/"}, []string{"tests/t.py"}},
		{[]string{"tests/t.py", "src/b.py", "src/tests/v.py"}, []string{"tests"}, nil, []string{"src/tests/v.py", "tests/t.py"}},
		{[]string{"./tests/sub/u.py", "lib/tests"}, []string{"tests/"}, nil, []string{"tests/sub/u.py"}},
	}
	for _, c := range cases {
		files, _ := mustList(t, c.roots, Options{Include: c.include, Exclude: c.exclude})
		if got := paths(files); !reflect.DeepEqual(got, c.want) {
			t.Errorf("roots %q include %q exclude %q: got %q, want %q", c.roots, c.include, c.exclude, got, c.want)
		}
	}

	// ".." in an argument is not a folder name.
	t.Chdir(filepath.Join(dir, "src"))
	for _, o := range []Options{{Exclude: []string{".*"}}, {Include: []string{"tests/"}}} {
		files, _ := mustList(t, []string{"../tests/t.py"}, o)
		if got := paths(files); !reflect.DeepEqual(got, []string{"../tests/t.py"}) {
			t.Errorf("../tests/t.py with %+v: got %q", o, got)
		}
	}
	files, _ := mustList(t, []string{"../tests/t.py"}, Options{Include: []string{"../"}})
	if got := paths(files); len(got) != 0 {
		t.Errorf("../tests/t.py with --include ../: got %q", got)
	}
}

// TestGlobFoldersTracked: the index pass applies folder patterns as the
// walk does, also to tracked files in ignored directories and to a
// repository met outside any.
func TestGlobFoldersTracked(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "a.py", "tests/t.py", "vendor/tests/x.py", "vendor/y.py")
	writeFile(t, filepath.Join(dir, ".gitignore"), "vendor/\n")
	git(t, dir, "add", "-f", "vendor/tests/x.py", "vendor/y.py")
	t.Chdir(dir)
	for _, c := range []struct {
		include, exclude []string
		want             []string
	}{
		{[]string{"tests/"}, nil, []string{"tests/t.py", "vendor/tests/x.py"}},
		{[]string{"vendor"}, nil, []string{"vendor/tests/x.py", "vendor/y.py"}},
		{nil, []string{"tests/"}, []string{"a.py", "vendor/y.py"}},
		{[]string{"vendor/"}, []string{"tests"}, []string{"vendor/y.py"}},
	} {
		files, _ := mustList(t, nil, Options{Include: c.include, Exclude: c.exclude})
		if got := paths(files); !reflect.DeepEqual(got, c.want) {
			t.Errorf("include %q exclude %q: got %q, want %q", c.include, c.exclude, got, c.want)
		}
	}

	outer := plainTree(t, "x.py", "lib/r/a.py", "lib/r/b.py")
	git(t, filepath.Join(outer, "lib/r"), "init", "-q")
	git(t, filepath.Join(outer, "lib/r"), "add", "a.py")
	t.Chdir(outer)
	files, _ := mustList(t, nil, Options{Include: []string{"lib/"}})
	if got := paths(files); !reflect.DeepEqual(got, []string{"lib/r/a.py", "lib/r/b.py"}) {
		t.Errorf("include lib/ over a repository met while walking: got %q", got)
	}
}

// TestGlobMatchesNothing: a pattern that matches no file or folder of the
// walk is reported, unless a root could not be read.
func TestGlobMatchesNothing(t *testing.T) {
	dir := plainTree(t, "a.py", "a_test.py", "src/b.py", "build", ".hidden/h.java", "ign.log")
	writeFile(t, filepath.Join(dir, ".gitignore"), "*.log\n")
	t.Chdir(dir)
	nothing := func(flag, pat string) Warning {
		return Warning{Path: flag, Reason: `pattern "` + pat + `" matches nothing`, Kind: Notice}
	}
	cases := []struct {
		roots            []string
		include, exclude []string
		want             []Warning
	}{
		{nil, []string{"*.py", "*.java", "tests"}, nil,
			[]Warning{nothing("--include", "*.java"), nothing("--include", "tests")}},
		// "build/" is a folder pattern; build is a file. Hidden and ignored
		// files are not seen.
		{nil, nil, []string{"build/", "*.java", "*.log", "build"},
			[]Warning{nothing("--exclude", "*.java"), nothing("--exclude", "*.log"), nothing("--exclude", "build/")}},
		// Every pattern that matches counts, not only the first.
		{nil, []string{"*.py", "a.py", "src/"}, []string{"*_test.py", "a_test.py"}, nil},
		// An Exclude pattern matching only what Include left out matched something.
		{nil, []string{"src/"}, []string{"*_test.py"}, nil},
		// Nor is a pattern matching only inside an excluded folder.
		{nil, []string{"b.py"}, []string{"src"}, []Warning{nothing("--include", "b.py")}},
		// Duplicates are reported once.
		{nil, []string{"x", "x"}, nil, []Warning{nothing("--include", "x")}},
		{[]string{"a.py"}, []string{"*.java"}, nil, []Warning{nothing("--include", "*.java")}},
		// A root that cannot be read: no pattern report.
		{[]string{".", "missing"}, []string{"*.java"}, []string{"nope"},
			[]Warning{{Path: "missing", Reason: "no such file or directory", Kind: Unreadable}}},
		{nil, nil, nil, nil},
	}
	for _, c := range cases {
		_, warns := mustList(t, c.roots, Options{Include: c.include, Exclude: c.exclude})
		if len(warns) == 0 {
			warns = nil
		}
		if !reflect.DeepEqual(warns, c.want) {
			t.Errorf("roots %q include %q exclude %q: warnings\n%v\nwant\n%v", c.roots, c.include, c.exclude, warns, c.want)
		}
	}
}

// TestListAllGlobs: ListAll applies Include and Exclude to hidden
// files (one listed is one Hidden would chunk) but does not count what
// they match there, walked or tracked: the notices are those of a walk
// without it.
func TestListAllGlobs(t *testing.T) {
	isolateGit(t)
	for _, tracked := range []bool{false, true} {
		dir := t.TempDir()
		writeTree(t, dir, ".github/ci.yml", ".github/x.py", "a/.b/c.yml", "a/x.yml", "src/a.py")
		if tracked {
			git(t, dir, "init", "-q")
			git(t, dir, "add", "-A")
		}
		t.Chdir(dir)
		opts := Options{Include: []string{".github/**", "*.yml", "a/"}, Exclude: []string{"*.py", ".b/"}}
		_, want := mustList(t, nil, opts)
		opts.ListAll = true
		files, warns := mustList(t, nil, opts)
		if !reflect.DeepEqual(warns, want) {
			t.Errorf("tracked %v: notices %+v, want %+v", tracked, warns, want)
		}
		var got []string
		for _, f := range files {
			got = append(got, fmt.Sprintf("%s %v", f.Path, f.Hidden))
		}
		if w := []string{".github/ci.yml true", "a/x.yml false"}; !reflect.DeepEqual(got, w) {
			t.Errorf("tracked %v: got %q, want %q", tracked, got, w)
		}
	}
}

// TestListAllWarnsNothing: what ListAll walks in addition gives no
// warning (a dangling link, an unreadable folder): the warnings are those
// of a walk without it.
func TestListAllWarnsNothing(t *testing.T) {
	dir := plainTree(t, ".cfg/a.py", ".locked/b.py", "src/c.py")
	t.Chdir(dir)
	if err := os.Symlink("nowhere", filepath.Join(".cfg", "dangling")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	if err := os.Chmod(".locked", 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, ".locked"), 0o755) })
	opts := Options{Follow: true}
	_, want := mustList(t, nil, opts)
	opts.ListAll = true
	files, warns := mustList(t, nil, opts)
	if len(warns) != len(want) {
		t.Errorf("warnings %+v, want %+v", warns, want)
	}
	if got := paths(files); len(got) < 2 || got[0] != ".cfg/a.py" || got[len(got)-1] != "src/c.py" {
		t.Errorf("got %q", got) // .locked/b.py too when root reads it
	}
	opts = Options{Follow: true, Hidden: true}
	if _, warns := mustList(t, nil, opts); len(warns) == 0 && os.Geteuid() != 0 {
		t.Error("Hidden: no warning of the dangling link")
	}
}

// checkID checks that f carries the identity of the file it names.
func checkID(t *testing.T, f File) {
	t.Helper()
	info, err := os.Stat(f.OSPath)
	if err != nil {
		t.Fatal(err)
	}
	if !f.ID.Known() || f.ID != regular.IDOf(info) {
		t.Errorf("%s: ID %v, want %v", f.Path, f.ID, regular.IDOf(info))
	}
}

// Every file listed carries its identity, and Link says whether it was
// reached as a symlink followed (named, or with Follow), for the reader
// to check that the file it opens is the one listed.
func TestListedIdentity(t *testing.T) {
	dir := plainTree(t, "a.py", "sub/b.py")
	if err := os.Symlink("a.py", filepath.Join(dir, "link.py")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, c := range []struct {
		roots []string
		opts  Options
		want  []string
	}{
		{[]string{"."}, Options{}, []string{"a.py false", "sub/b.py false"}},
		{[]string{"."}, Options{Follow: true}, []string{"a.py false", "link.py true", "sub/b.py false"}},
		{[]string{"link.py", "sub/b.py"}, Options{}, []string{"link.py true", "sub/b.py false"}},
	} {
		files, warns := mustList(t, c.roots, c.opts)
		var got []string
		for _, f := range files {
			checkID(t, f)
			got = append(got, fmt.Sprintf("%s %v", f.Path, f.Link))
		}
		if !reflect.DeepEqual(got, c.want) || len(warns) != 0 {
			t.Errorf("List(%q, %+v) = %q %v, want %q", c.roots, c.opts, got, warns, c.want)
		}
	}
}
