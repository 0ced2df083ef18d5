package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestReindexLoopScript runs scripts/reindex-loop.sh, the re-index loop of
// an unattended CI job (chunk, shards merged, diff with the mass-delete
// guard, changes applied to a store), over a generated history of files
// added, edited, renamed and deleted: after every commit the store must be
// a fresh chunk's, and the guard must stop a wrong-path run (an empty
// folder chunked) with status 5. A castchunk whose diff loses its
// deletions must be caught: the script reports MISMATCH and exits 1.
func TestReindexLoopScript(t *testing.T) {
	for _, tool := range []string{"bash", "jq", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (.ci/run installs it)", tool)
		}
	}
	// testscript.Main put the test binary on PATH as castchunk.
	bin, err := exec.LookPath("castchunk")
	if err != nil {
		t.Fatalf("no castchunk on PATH (TestMain installs it): %v", err)
	}
	repo := loopHistory(t)
	script, err := filepath.Abs("../../scripts/reindex-loop.sh")
	if err != nil {
		t.Fatal(err)
	}
	commit := regexp.MustCompile(`(?m)^[0-9a-f]{12} +\d+ +\d+ +\d+  (.*)$`)
	for _, shards := range []string{"1", "3"} {
		t.Run("shards="+shards, func(t *testing.T) {
			out, code := runLoop(t, script, "-n", "7", "-s", shards, "--bin", bin, repo)
			t.Log(out)
			checks := commit.FindAllStringSubmatch(out, -1)
			if code != 0 || len(checks) != 7 {
				t.Fatalf("status %d, %d commit lines; want 0 and 7:\n%s", code, len(checks), out)
			}
			for _, c := range checks {
				if c[1] != "OK" {
					t.Errorf("a commit is %q, want OK:\n%s", c[1], out)
				}
			}
			if !strings.Contains(out, "diff against the last output: status 5, 0 changes printed") ||
				!strings.Contains(out, "refusing to delete them all") {
				t.Errorf("the guard did not stop the wrong-path run:\n%s", out)
			}
			// The release jumps pass without --allow-mass-delete, the
			// store a fresh chunk after each.
			jumps := regexp.MustCompile(`(?m)^(jump|back) [0-9a-f]{7} +\d+ +\d+ +\d+  OK$`).FindAllString(out, -1)
			if !strings.Contains(out, "release jumps: v2 -> v1 -> back") || len(jumps) != 2 {
				t.Errorf("the release jumps v2 -> v1 -> v2 did not pass:\n%s", out)
			}
			// A sparse checkout and a narrowed run are refused, at a
			// share the old counting guard let through.
			for _, name := range []string{"a sparse checkout of pkg/", "chunk pkg in the full checkout"} {
				re := regexp.MustCompile(`(?m)^wrong path: ` + regexp.QuoteMeta(name) + `: \d+ records, (\d+) of the last output's (\d+) chunks deleted; diff against the last output: status 5, 0 changes printed$`)
				m := re.FindStringSubmatch(out)
				if m == nil {
					t.Errorf("%s was not refused:\n%s", name, out)
					continue
				}
				if del, all := atoi(t, m[1]), atoi(t, m[2]); del*2 >= all {
					t.Errorf("%s deletes %d of %d chunks: the test wants a share under half", name, del, all)
				}
			}
		})
	}
	t.Run("lost deletions", func(t *testing.T) {
		broken := filepath.Join(t.TempDir(), "castchunk")
		wrapper := fmt.Sprintf("#!/bin/sh\n%q \"$@\"; rc=$?\n[ \"$1\" = diff ] && sed -i '/\"op\":\"delete\"/d' \"$3\"\nexit $rc\n", bin)
		if err := os.WriteFile(broken, []byte(wrapper), 0o755); err != nil {
			t.Fatal(err)
		}
		out, code := runLoop(t, script, "-n", "7", "--bin", broken, repo)
		t.Log(out)
		if code != 1 || !regexp.MustCompile(`MISMATCH \([1-9]\d* stale, 0 missing\)`).MatchString(out) {
			t.Errorf("a diff that loses its deletions: status %d; want 1 and a MISMATCH with stale chunks:\n%s", code, out)
		}
	})
}

// runLoop runs the loop script and returns its output (stdout and stderr)
// and status.
func runLoop(t *testing.T, script string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run %s: %v", script, err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// atoi reads a number the script printed.
func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// loopHistory makes a git repository of 8 commits: files added, edited,
// renamed and deleted, none replacing more than a fifth of the chunks,
// then a release (tag v2) that replaces most of them, since v1.
func loopHistory(t *testing.T) string {
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
			"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name string, funcs, seed int) {
		t.Helper()
		var b strings.Builder
		for i := range funcs {
			fmt.Fprintf(&b, "def f%d_%d(x):\n    y = x * %d\n    return [y + k for k in range(%d)]\n\n\n", seed, i, seed+i, i+1)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(msg string) {
		t.Helper()
		git("add", "-A")
		git("commit", "-qm", msg)
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("a history for the loop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	commit("no source yet")
	for i := range 8 {
		write(fmt.Sprintf("pkg/m%d.py", i), 6, i)
	}
	commit("add eight modules")
	git("tag", "v1")
	write("pkg/m2.py", 6, 20) // every function edited
	write("pkg/m5.py", 7, 5)  // one function added
	commit("edit two")
	write("lib/new.py", 6, 30)
	commit("add one")
	git("mv", "pkg/m3.py", "lib/m3.py")
	commit("rename one")
	git("rm", "-q", "pkg/m7.py")
	commit("delete one")
	write("pkg/m0.py", 5, 0) // the last function dropped
	write("lib/more.py", 3, 40)
	commit("edit and add")
	for _, m := range []int{0, 1, 2, 4, 5, 6} { // a release: most functions rewritten
		write(fmt.Sprintf("pkg/m%d.py", m), 6, 100+m)
	}
	git("rm", "-q", "lib/more.py")
	commit("rewrite for v2")
	git("tag", "v2")
	return dir
}
