//go:build unix

package walk

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// feedFIFO makes a FIFO at p. A goroutine opens its write end (which waits
// for a reader), writes content and closes it. The function returned, to
// call once the walk is over, opens the read end itself so that the writer
// is never left waiting, and waits for it. A walker that wrongly opens and
// reads the FIFO therefore does not hang: it reads content and EOF, and
// the test sees the rules it then applied.
func feedFIFO(t *testing.T, p, content string) (release func()) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("cannot make a FIFO:", err)
	}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString(content) // EPIPE when the reader already left: fine
		f.Close()
	}()
	return func() {
		r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatalf("opening the FIFO's read end: %v", err)
		}
		<-finished
		r.Close()
	}
}

// TestExcludesFromDevice: an info/exclude that is a symlink to /dev/zero,
// or a core.excludesFile set to /dev/zero, is not read (it never ends):
// the walk returns, the file gives no rules, a Notice says why.
func TestExcludesFromDevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	t.Run("info exclude", func(t *testing.T) {
		isolateGit(t)
		dir := t.TempDir()
		git(t, dir, "init", "-q")
		writeTree(t, dir, "a.py")
		ex := filepath.Join(dir, ".git/info/exclude")
		os.Remove(ex)
		if err := os.Symlink("/dev/zero", ex); err != nil {
			t.Skip(err)
		}
		got, warns := listPaths(t, dir, nil, Options{})
		sameList(t, "listing", got, []string{"a.py"})
		noticeAbout(t, warns, ".", "not a regular file (a character device)", "exclude")
	})
	t.Run("core.excludesFile", func(t *testing.T) {
		home := isolateGit(t)
		dir := t.TempDir()
		git(t, dir, "init", "-q")
		writeTree(t, dir, "a.py")
		cfg := filepath.Join(home, "cfg")
		writeFile(t, cfg, "[core]\n\texcludesFile = /dev/zero\n")
		t.Setenv("GIT_CONFIG_GLOBAL", cfg)
		got, warns := listPaths(t, dir, nil, Options{})
		sameList(t, "listing", got, []string{"a.py"})
		noticeAbout(t, warns, ".", "not a regular file (a character device)", `"/dev/zero"`)
	})
}

// TestNullDeviceIsEmpty: /dev/null as the global config, as the excludes
// file or behind info/exclude is the usual way to say "none": no notice.
func TestNullDeviceIsEmpty(t *testing.T) {
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Skip("no null device")
	}
	isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "a.py")
	git(t, dir, "config", "core.excludesFile", os.DevNull)
	ex := filepath.Join(dir, ".git/info/exclude")
	os.Remove(ex)
	if err := os.Symlink(os.DevNull, ex); err != nil {
		t.Skip(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	got, warns := listPaths(t, dir, nil, Options{})
	sameList(t, "listing", got, []string{"a.py"})
	if len(warns) != 0 {
		t.Errorf("want no warning, got %+v", warns)
	}
}

// TestRulesFromFIFO: a FIFO where the walker reads rules or metadata is
// never opened for reading (it would block until a writer comes): its
// rules are not applied and a Notice says why. The FIFO is fed, so a
// walker that did read it would apply "*.py" instead of hanging.
func TestRulesFromFIFO(t *testing.T) {
	cases := []struct {
		name   string
		fifo   string // path of the FIFO, relative to the repository
		roots  []string
		path   string // the notice's path
		parts  []string
		global bool // the FIFO is the global config file
	}{
		{name: "info exclude", fifo: ".git/info/exclude", path: ".", parts: []string{"exclude", "(a FIFO)"}},
		{name: "gitignore", fifo: "sub/.gitignore", path: "sub/.gitignore", parts: []string{"(a FIFO)"}},
		{name: "gitignore above the root", fifo: ".gitignore", roots: []string{"sub"}, path: "sub", parts: []string{".gitignore", "(a FIFO)"}},
		{name: "global config", global: true, path: ".", parts: []string{"config", "(a FIFO)"}},
		{name: "excludes file", fifo: "excludes", path: ".", parts: []string{"excludes", "(a FIFO)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := isolateGit(t)
			dir := t.TempDir()
			git(t, dir, "init", "-q")
			writeTree(t, dir, "a.py", "sub/b.py")
			rules := "*.py\n"
			fifo := filepath.Join(dir, filepath.FromSlash(c.fifo))
			switch {
			case c.global:
				// The config, if read, points at rules that ignore *.py.
				writeFile(t, filepath.Join(home, "rules"), "*.py\n")
				rules = "[core]\n\texcludesFile = " + filepath.Join(home, "rules") + "\n"
				fifo = filepath.Join(home, "fifo.gitconfig")
			case c.fifo == "excludes":
				git(t, dir, "config", "core.excludesFile", fifo)
			}
			os.Remove(fifo)
			release := feedFIFO(t, fifo, rules)
			if c.global {
				t.Setenv("GIT_CONFIG_GLOBAL", fifo) // after the last git command
			}
			got, warns := listPaths(t, dir, c.roots, Options{})
			release()
			want := []string{"a.py", "sub/b.py"}
			if c.roots != nil {
				want = want[1:]
			}
			sameList(t, "listing", got, want)
			noticeAbout(t, warns, c.path, c.parts...)
		})
	}
}

// TestIndexIsFIFO: a FIFO in place of the index is not read either.
func TestIndexIsFIFO(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "a.py", "b.log")
	writeFile(t, filepath.Join(dir, ".gitignore"), "*.log\n")
	release := feedFIFO(t, filepath.Join(dir, ".git/index"), "DIRC\x00\x00\x00\x02garbage")
	got, warns := listPaths(t, dir, nil, Options{})
	release()
	sameList(t, "listing", got, []string{"a.py"})
	noticeAbout(t, warns, ".", "git index", "(a FIFO)")
}

// TestOversizedIgnoreFile: an ignore file over the cap is not read (it
// would be held in memory whole); a Notice says so. The file is sparse.
func TestOversizedIgnoreFile(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, "a.py", "sub/b.py")
	p := filepath.Join(dir, "sub/.gitignore")
	writeFile(t, p, "*.py\n")
	if err := os.Truncate(p, 16<<20+1); err != nil {
		t.Fatal(err)
	}
	got, warns := listPaths(t, dir, nil, Options{})
	sameList(t, "listing", got, []string{"a.py", "sub/b.py"})
	noticeAbout(t, warns, "sub/.gitignore", "larger than 16 MiB")
}

// TestWarningReasonsQuotePaths: a path inside a reason is quoted, so a
// name holding a newline cannot forge a line of output.
func TestWarningReasonsQuotePaths(t *testing.T) {
	home := isolateGit(t)
	dir := filepath.Join(t.TempDir(), "repo\ncastchunk: x.py: forged")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skip(err)
	}
	git(t, dir, "init", "-q")
	writeTree(t, dir, "a.py")
	odd := filepath.Join(home, "evil\ncastchunk: y.py: forged")
	git(t, dir, "config", "core.excludesFile", odd)
	release := feedFIFO(t, odd, "*.py\n")
	// An index that is a directory: the reason names it.
	idx := filepath.Join(dir, ".git/index")
	os.Remove(idx)
	if err := os.Mkdir(idx, 0o755); err != nil {
		t.Fatal(err)
	}
	got, warns := listPaths(t, dir, nil, Options{})
	release()
	sameList(t, "listing", got, []string{"a.py"})
	if len(warns) != 2 {
		t.Fatalf("want two notices, got %+v", warns)
	}
	for _, w := range warns {
		if strings.Contains(w.Reason, "\n") {
			t.Errorf("reason with a raw newline: %q", w.Reason)
		}
		if !strings.Contains(w.Reason, `\ncastchunk: `) {
			t.Errorf("reason does not quote the path: %q", w.Reason)
		}
	}
}
