package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/walk"
)

// swapTree writes tree/a.py and, outside the tree, secret/s.py, lists the
// tree as chunk does (without -L) and returns the root and the jobs.
func swapTree(t *testing.T, opts walk.Options) (string, []pipeline.Job) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"tree/a.py": "a = 1\n", "tree/sub/b.py": "b = 1\n", "secret/s.py": "SECRET = 'outside the tree'\n"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, warns, err := walk.List([]string{filepath.Join(dir, "tree")}, opts)
	if err != nil || len(warns) != 0 || len(files) != 2 {
		t.Fatalf("List: %v, %v, %v", files, warns, err)
	}
	cfg := config(1, 100)
	var jobs []pipeline.Job
	for _, f := range files {
		jobs = append(jobs, cfg.ListedJob(plan.File{Path: f.Path}, f))
	}
	return dir, jobs
}

// checkRefused runs the jobs and checks the one at i is refused as
// unreadable, naming why, and that nothing of the secret is read.
func checkRefused(t *testing.T, jobs []pipeline.Job, i int, want string) {
	t.Helper()
	rs := run(t, jobs, config(1, 100))
	for _, r := range rs {
		if strings.Contains(string(r.Src), "SECRET") || strings.Contains(string(r.Records), "SECRET") {
			t.Errorf("%s: read the file outside the tree through a symlink: %q", r.Job.Path, r.Src)
		}
	}
	if r := rs[i]; r.Skip != plan.Unreadable || r.Warning != want {
		t.Errorf("%s: fate %v, message %q; want unreadable, %q", r.Job.Path, r.Skip, r.Warning, want)
	}
}

// A file swapped for a symlink between listing and reading is not
// followed (issue 36): it is unreadable, never the link target's bytes.
func TestFileSwappedForSymlink(t *testing.T) {
	dir, jobs := swapTree(t, walk.Options{})
	a := filepath.Join(dir, "tree", "a.py")
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "secret", "s.py"), a); err != nil {
		t.Fatal(err)
	}
	checkRefused(t, jobs, 0, "changed since it was listed: now a symbolic link")
}

// A folder swapped for a symlink between listing and reading: the file
// opened through it is not the one listed, and is not read.
func TestFolderSwappedForSymlink(t *testing.T) {
	dir, jobs := swapTree(t, walk.Options{})
	sub := filepath.Join(dir, "tree", "sub")
	if err := os.Rename(sub, filepath.Join(dir, "sub-moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "secret", "s.py"), filepath.Join(dir, "secret", "b.py")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "secret"), sub); err != nil {
		t.Fatal(err)
	}
	checkRefused(t, jobs, 1, "changed since it was listed: now another file")
}

// A file replaced by another (renamed over it) is not the file listed.
func TestFileReplaced(t *testing.T) {
	dir, jobs := swapTree(t, walk.Options{})
	if err := os.Rename(filepath.Join(dir, "secret", "s.py"), filepath.Join(dir, "tree", "a.py")); err != nil {
		t.Fatal(err)
	}
	checkRefused(t, jobs, 0, "changed since it was listed: now another file")
}

// With -L, a symlink listed is followed when read, but only to the file
// it led to when listed: one pointed elsewhere meanwhile is not read.
func TestFollowedSymlinkRetargeted(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	for name, text := range map[string]string{"a.py": "a = 1\n", "secret.py": "SECRET = 1\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tree, "link.py")
	if err := os.Symlink(filepath.Join(dir, "a.py"), link); err != nil {
		t.Fatal(err)
	}
	files, warns, err := walk.List([]string{tree}, walk.Options{Follow: true})
	if err != nil || len(warns) != 0 || len(files) != 1 || !files[0].Link {
		t.Fatalf("List: %+v, %v, %v", files, warns, err)
	}
	cfg := config(1, 100)
	jobs := []pipeline.Job{cfg.ListedJob(plan.File{Path: files[0].Path}, files[0])}
	if r := run(t, jobs, cfg)[0]; r.Skip != plan.Chunked || string(r.Src) != "a = 1\n" {
		t.Fatalf("the link listed: fate %v, %q, source %q", r.Skip, r.Warning, r.Src)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "secret.py"), link); err != nil {
		t.Fatal(err)
	}
	checkRefused(t, jobs, 0, "changed since it was listed: now another file")
}
