package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/plan/plantest"
)

// TestChunkFates: castchunk chunk gives testdata/plan/mixed.txtar's files
// the fates its list says, the list internal/eval's TestSameFatesAsChunk
// holds eval to: the files chunked, each with its language, and the count
// of every reason the others are left out for.
func TestChunkFates(t *testing.T) {
	want := mixedTree(t)
	out, stderr, code := run(t, "", "chunk", "--stats", ".")
	if code != 0 {
		t.Fatalf("status %d, stderr:\n%s", code, stderr)
	}
	got := map[string]string{} // chunked files
	for _, r := range badRecords(t, out) {
		got[r.Path] = "chunked " + r.Language
	}
	wantCounts := map[string]int{}
	for p, w := range want {
		if strings.HasPrefix(w, "chunked") {
			if got[p] != w {
				t.Errorf("%s: chunk gives %q, want %q", p, got[p], w)
			}
			delete(got, p)
			continue
		}
		reason, _, _ := strings.Cut(w, " ") // the language is not in --stats
		wantCounts[reason]++
	}
	for p, g := range got {
		t.Errorf("%s: chunk gives %q, and the fates list none", p, g)
	}
	gotCounts := map[string]int{}
	if m := regexp.MustCompile(`(?m)^skipped files: (.*)$`).FindStringSubmatch(stderr); m != nil {
		for _, part := range strings.Split(m[1], ", ") {
			i := strings.LastIndexByte(part, ' ')
			n, _ := strconv.Atoi(part[i+1:])
			gotCounts[part[:i]] += n
		}
	}
	if m := regexp.MustCompile(`(?m)^unsupported files \(no grammar\): (.*)$`).FindStringSubmatch(stderr); m != nil {
		for _, part := range strings.Split(m[1], ", ") {
			n, _ := strconv.Atoi(part[strings.LastIndexByte(part, ' ')+1:])
			gotCounts["unsupported"] += n
		}
	}
	if fmt.Sprint(sorted(gotCounts)) != fmt.Sprint(sorted(wantCounts)) {
		t.Errorf("left out: %v, want %v; stderr:\n%s", sorted(gotCounts), sorted(wantCounts), stderr)
	}
}

func sorted(m map[string]int) []string {
	var s []string
	for k, v := range m {
		s = append(s, fmt.Sprintf("%s %d", k, v))
	}
	slices.Sort(s)
	return s
}

// mixedTree writes testdata/plan/mixed.txtar's files into a new current
// folder and returns its fates: path → "FATE [LANGUAGE]".
func mixedTree(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	want := plantest.WriteMixed(t, dir)
	t.Chdir(dir)
	return want
}

// TestManifestListsEveryFile: in a git repository with generated (a lock
// file among them), vendored, binary (a PNG), unsupported and hidden files
// (.github/workflows/ci.yml, one untracked, one ignored) and symlinks (one
// tracked, one dangling), --manifest lists every file git lists, each
// once, in path order, and its statuses are the fates of testdata/plan,
// the hidden files "hidden", the symlinks "symlink".
func TestManifestListsEveryFile(t *testing.T) {
	want := mixedTree(t)
	for p, data := range map[string]string{
		".github/workflows/ci.yml": "on: push\n",
		".gitignore":               ".env\n/*.jsonl\n",
		".env":                     "SECRET=1\n", // ignored: not listed, as git does not
		".tool/config.py":          "x = 1\n",    // untracked
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if p != ".env" {
			want[p] = "hidden"
		}
	}
	want[".gitattributes"] = "hidden"
	for link, target := range map[string]string{"link.py": "src/app.py", "dl.py": "/nonexistent"} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		want[link] = "symlink"
	}
	gitRun(t, "init", "-q", ".")
	gitRun(t, "add", "-A")
	gitRun(t, "rm", "-q", "--cached", "dl.py")
	gitRun(t, "rm", "-q", "--cached", ".tool/config.py")
	_, stderr, code := run(t, "", "chunk", "--manifest", "manifest.jsonl", "-o", "chunks.jsonl", ".")
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	listed := strings.Split(strings.TrimSpace(gitRun(t, "ls-files", "--cached", "--others", "--exclude-standard")), "\n")
	slices.Sort(listed)
	data, err := os.ReadFile("manifest.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e manifestEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		paths = append(paths, e.Path)
		got := strings.TrimSpace(e.Status + " " + e.Language)
		if w := want[e.Path]; e.Status != "chunked" {
			got, _, _ = strings.Cut(got, " ") // left out: the language is not in the fates
			w, _, _ = strings.Cut(w, " ")
			if got != w {
				t.Errorf("%s: status %q, want %q", e.Path, e.Status, w)
			}
		} else if got != w {
			t.Errorf("%s: %q, want %q", e.Path, got, w)
		}
	}
	if !slices.Equal(paths, listed) {
		t.Errorf("manifest lists\n%q\ngit ls-files lists\n%q", paths, listed)
	}
}

// TestRootCollision: with --root src, ./setup.py (outside the root, kept as
// reached) and src/setup.py would both be written as setup.py; one of them
// vanished. Now it is a usage error naming both; one file reached by two
// arguments is still written once.
func TestRootCollision(t *testing.T) {
	badSetup(t, map[string]string{"setup.py": "x = 1\n", "src/setup.py": "y = 2\n"})
	out, stderr, code := run(t, "", "chunk", "--root", "src", "src", "setup.py")
	if code != ExitUsage || out != "" || !strings.Contains(stderr, "setup.py and src/setup.py would both be written as setup.py") {
		t.Errorf("status %d, stdout %q, stderr %q", code, out, stderr)
	}
	out, stderr, code = run(t, "", "chunk", "--root", "src", "src", "src/setup.py")
	if recs := badRecords(t, out); code != 0 || len(recs) != 1 || recs[0].Path != "setup.py" {
		t.Errorf("one file by two arguments: status %d, %d records, stderr %q", code, len(recs), stderr)
	}
}

// gitRun runs git in the current folder and returns its output.
func gitRun(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
