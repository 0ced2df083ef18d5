package walk

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestRandomAgainstGit generates repositories with random trees, random
// ignore patterns at random levels and random tracked files, and compares
// List with git. The seed is fixed so a failure reproduces.
func TestRandomAgainstGit(t *testing.T) {
	isolateGit(t)
	n := 60
	if v := os.Getenv("WALK_RANDOM_N"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	if testing.Short() {
		n = 10
	}
	total, listed := 0, 0
	defer func() { t.Logf("%d files, %d listed by git", total, listed) }()
	for seed := int64(1); seed <= int64(n); seed++ {
		rng, dir, files, dirs := randomRepo(t, seed)
		ignores := map[string]string{}
		for _, d := range sortedKeys(dirs) {
			if rng.Intn(3) == 0 {
				ignores[joinRel(d, ".gitignore")] = randomIgnore(rng)
			}
		}
		if rng.Intn(3) == 0 {
			ignores[".git/info/exclude"] = randomIgnore(rng)
		}
		for _, p := range sortedKeys(ignores) {
			c := ignores[p]
			writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), c)
		}
		for _, f := range files {
			if rng.Intn(6) == 0 {
				git(t, dir, "add", "-f", "--", f)
			}
		}
		want := gitListing(t, dir, false)
		got, _ := listPaths(t, dir, nil, Options{})
		total += len(files)
		listed += len(want)
		before := t.Failed()
		sameList(t, fmt.Sprintf("seed %d", seed), got, want)
		// And from a random subdirectory as the root argument.
		keys := sortedKeys(dirs)
		if sub := keys[rng.Intn(len(keys))]; sub != "" && !gitIgnoresDir(t, dir, sub) {
			want = gitListing(t, dir, false, sub)
			got, _ = listPaths(t, dir, []string{sub}, Options{})
			sameList(t, fmt.Sprintf("seed %d root %s", seed, sub), got, want)
		}
		if t.Failed() && !before {
			for p, c := range ignores {
				t.Logf("seed %d %s:\n%s", seed, p, c)
			}
		}
	}
}

// Names are few so that random patterns hit often; directories never
// carry a '.', files always do except "c", so the two never collide.
var (
	randDirs  = []string{"a", "b", "ab", "ba", "x"}
	randFiles = []string{"a.x", "b.y", "ab.x", "ba.y", "c", "x.x"}
)

func randomTree(rng *rand.Rand) []string {
	var files []string
	var walk func(prefix string, depth int)
	walk = func(prefix string, depth int) {
		for _, f := range randFiles {
			if rng.Intn(2) == 0 {
				files = append(files, joinRel(prefix, f))
			}
		}
		if depth == 3 {
			return
		}
		for _, d := range randDirs {
			if rng.Intn(3) == 0 {
				walk(joinRel(prefix, d), depth+1)
			}
		}
	}
	walk("", 0)
	return files
}

var randTokens = []string{"a", "b", "x", "ab", "*", "?", "**", "[ab]", "[!a]", "a*", "*.x", "*.y", "c", "b?", "*a", "[a-b]*", `[[:alpha:]]*`, `\a`, "*[!x]", "**a", "a**"}

func randomIgnore(rng *rand.Rand) string {
	var lines []string
	for i := rng.Intn(5) + 1; i > 0; i-- {
		var comps []string
		for j := rng.Intn(3) + 1; j > 0; j-- {
			comps = append(comps, randTokens[rng.Intn(len(randTokens))])
		}
		p := strings.Join(comps, "/")
		if rng.Intn(4) == 0 {
			p = "/" + p
		}
		if rng.Intn(4) == 0 {
			p += "/"
		}
		if rng.Intn(3) == 0 {
			p = "!" + p
		}
		lines = append(lines, p)
	}
	return strings.Join(lines, "\n") + "\n"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// gitIgnoresDir reports whether git ignores dir or one of its parents: a
// root named as an argument is walked anyway (TestIgnoredRootIsWalked), so
// git's listing is no reference for it.
func gitIgnoresDir(t *testing.T, repo, dir string) bool {
	t.Helper()
	parts := strings.Split(dir, "/")
	for i := range parts {
		cmd := exec.Command("git", "check-ignore", "-q", "--no-index", strings.Join(parts[:i+1], "/")+"/")
		cmd.Dir = repo
		if cmd.Run() == nil {
			return true
		}
	}
	return false
}

// randomRepo makes a git repository of a random tree for seed and returns
// the generator (to go on drawing from), its folder, its files and the set
// of their folders ("" for the top).
func randomRepo(t *testing.T, seed int64) (*rand.Rand, string, []string, map[string]bool) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	files := randomTree(rng)
	writeTree(t, dir, files...)
	dirs := map[string]bool{"": true}
	for _, f := range files {
		for d := filepath.ToSlash(filepath.Dir(f)); d != "."; d = filepath.ToSlash(filepath.Dir(d)) {
			dirs[d] = true
		}
	}
	return rng, dir, files, dirs
}
