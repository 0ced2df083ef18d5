package walk

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// isolateGit points git (and the walker) at an empty configuration, so the
// machine's ~/.gitconfig, global ignore or attributes files or
// /etc/gitattributes cannot change a result. It
// returns the fake home directory.
func isolateGit(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_ATTR_NOSYSTEM", "1")
	empty := filepath.Join(home, "empty.gitconfig")
	writeFile(t, empty, "")
	t.Setenv("GIT_CONFIG_GLOBAL", empty)
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_ATTR_SOURCE"} {
		unsetenv(t, v)
	}
	return home
}

// unsetenv removes a variable for the test and restores it afterwards.
func unsetenv(t *testing.T, name string) {
	t.Helper()
	if old, ok := os.LookupEnv(name); ok {
		t.Setenv(name, old) // registers the restore
		os.Unsetenv(name)
	}
}

// git runs git in dir and returns its stdout.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "init.defaultBranch=main",
		"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, msg)
	}
	return string(out)
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeTree creates files (content = path) under dir; a name ending in
// "/" makes an empty directory.
func writeTree(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if strings.HasSuffix(n, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		writeFile(t, p, n+"\n")
	}
}

// gitListing is what git lists in dir (with optional pathspecs), reduced
// the way castchunk's contract reduces it: regular files only (no
// directories for nested repositories, nothing deleted, no symlinks),
// hidden paths dropped unless hidden.
func gitListing(t *testing.T, dir string, hidden bool, pathspecs ...string) []string {
	t.Helper()
	return gitListed(t, dir, hidden, fs.FileMode.IsRegular, pathspecs...)
}

// gitListingAll is what git lists in dir that is there and not a
// directory, hidden paths included: what ListAll lists (symlinks, and a
// tracked file now a FIFO, too).
func gitListingAll(t *testing.T, dir string, pathspecs ...string) []string {
	t.Helper()
	return gitListed(t, dir, true, func(m fs.FileMode) bool { return !m.IsDir() }, pathspecs...)
}

// gitListed is what git lists in dir whose type keep takes.
func gitListed(t *testing.T, dir string, hidden bool, keep func(fs.FileMode) bool, pathspecs ...string) []string {
	t.Helper()
	args := append([]string{"ls-files", "-z", "--cached", "--others", "--exclude-standard", "--"}, pathspecs...)
	out := git(t, dir, args...)
	seen := map[string]bool{}
	var res []string
	for _, p := range strings.Split(out, "\x00") {
		if p == "" || strings.HasSuffix(p, "/") || seen[p] {
			continue
		}
		seen[p] = true
		if !hidden && hasHidden(p) {
			continue
		}
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || !keep(fi.Mode()) {
			continue
		}
		res = append(res, p)
	}
	sort.Strings(res)
	return res
}

// listPaths runs List from dir and returns the paths.
func listPaths(t *testing.T, dir string, roots []string, opts Options) ([]string, []Warning) {
	t.Helper()
	t.Chdir(dir)
	files, warns, err := List(roots, opts)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return paths(files), warns
}

func paths(files []File) []string {
	res := []string{}
	for _, f := range files {
		res = append(res, f.Path)
	}
	return res
}

// sameList compares two sorted path lists and reports the difference.
func sameList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if reflect.DeepEqual(got, want) {
		return
	}
	in := func(xs []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	g, w := in(got), in(want)
	var extra, missing []string
	for _, x := range got {
		if !w[x] {
			extra = append(extra, x)
		}
	}
	for _, x := range want {
		if !g[x] {
			missing = append(missing, x)
		}
	}
	t.Errorf("%s: listing differs\n got: %q\nwant: %q\nextra: %q\nmissing: %q", what, got, want, extra, missing)
}

// noticeAbout checks that the warnings are exactly one Notice, on path,
// whose reason holds every one of the parts.
func noticeAbout(t *testing.T, warns []Warning, path string, parts ...string) {
	t.Helper()
	if len(warns) != 1 || warns[0].Kind != Notice || warns[0].Path != path {
		t.Errorf("want one notice on %q, got %+v", path, warns)
		return
	}
	t.Logf("castchunk: %s: %s", warns[0].Path, warns[0].Reason)
	for _, p := range parts {
		if !strings.Contains(warns[0].Reason, p) {
			t.Errorf("notice %q does not say %q", warns[0].Reason, p)
		}
	}
}
