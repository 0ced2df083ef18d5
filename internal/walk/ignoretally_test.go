package walk

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIgnoreTallyNamesTheRule: a tree whose top .gitignore says /* (as
// Debian's kernel source package does) lists nothing, and the tally names
// that file and line as what ignored the most entries.
func TestIgnoreTallyNamesTheRule(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	writeTree(t, dir, "a.py", "src/b.py", "src/c.py", "docs/", "build/x.py")
	writeFile(t, filepath.Join(dir, ".gitignore"), "build/\n/*\n")
	writeFile(t, filepath.Join(dir, "src", ".gitignore"), "c.py\n")
	var tally IgnoreTally
	files, _, err := List([]string{dir}, Options{Ignored: &tally})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 0 {
		t.Fatalf("listed %v, want nothing", paths(files))
	}
	rule, n := tally.Top()
	want := IgnoreRule{File: filepath.Join(dir, ".gitignore"), Pattern: "/*"}
	// a.py, src/ and docs/ by /*; build/ by build/ (the last match decides:
	// /* comes after build/ in the file, so /* decides build/ too).
	if rule != want || n != 4 || tally.Total() != 4 {
		t.Errorf("Top() = %+v, %d (total %d); want %+v, 4 (total 4)", rule, n, tally.Total(), want)
	}

	tally = IgnoreTally{}
	files, _, err = List([]string{filepath.Join(dir, "src")}, Options{Ignored: &tally})
	if err != nil {
		t.Fatal(err)
	}
	rule, n = tally.Top()
	if got := paths(files); len(got) != 1 || n != 1 || rule.Pattern != "c.py" || rule.File != filepath.Join(dir, "src", ".gitignore") {
		t.Errorf("src: listed %v, Top() = %+v, %d; want src/b.py and src/.gitignore's c.py once", got, rule, n)
	}
}

// TestIgnoreTallyListAll: what ListAll alone walks (a hidden .gitignore
// that /* ignores, a symlink) is not counted: the tally, and the message
// chunk makes of it, do not depend on --manifest.
func TestIgnoreTallyListAll(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	writeTree(t, dir, "a.py", ".cfg/b.py")
	writeFile(t, filepath.Join(dir, ".gitignore"), "/*\n")
	if err := os.Symlink("a.py", filepath.Join(dir, "link.py")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	var plain, all IgnoreTally
	if _, _, err := List([]string{dir}, Options{Ignored: &plain}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := List([]string{dir}, Options{Ignored: &all, ListAll: true}); err != nil {
		t.Fatal(err)
	}
	if plain.Total() != 1 || all.Total() != plain.Total() {
		t.Errorf("ignored %d with ListAll, %d without; want 1 (a.py)", all.Total(), plain.Total())
	}
}
