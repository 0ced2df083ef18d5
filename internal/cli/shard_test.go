package cli

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// run runs castchunk in-process and returns stdout, stderr and the status.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, Streams{In: strings.NewReader(stdin), Out: &out, Err: &errOut})
	return out.String(), errOut.String(), code
}

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"0/3", "4/3", "1/0", "1", "a/b", "-1/2", "1/2/3"} {
		if _, err := parseShard(bad); err == nil {
			t.Errorf("parseShard(%q) accepted", bad)
		}
	}
	if s, err := parseShard("2/8"); err != nil || s != (shard{k: 2, n: 8}) {
		t.Errorf("parseShard(2/8) = %v, %v", s, err)
	}
}

// TestShardsPartitionTheOutput proves the recipe of the README: the N shard
// outputs together are exactly the unsharded output, each file in exactly
// one shard.
func TestShardsPartitionTheOutput(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		src := fmt.Sprintf("def f%d(x):\n    return x + %d\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%02d.py", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	whole, _, code := run(t, "", "chunk", "--no-ignore", "--max-size", "10", dir)
	if code != 0 || whole == "" {
		t.Fatalf("unsharded run: status %d, %d bytes", code, len(whole))
	}
	const n = 4
	var union []string
	for k := 1; k <= n; k++ {
		out, stderr, code := run(t, "", "chunk", "--no-ignore", "--max-size", "10", "--shard", fmt.Sprintf("%d/%d", k, n), dir)
		if code != 0 || stderr != "" {
			t.Fatalf("shard %d/%d: status %d, stderr %q", k, n, code, stderr)
		}
		if out == "" {
			t.Errorf("shard %d/%d is empty: 40 files should spread over %d shards", k, n, n)
		}
		union = append(union, strings.SplitAfter(out, "\n")...)
	}
	want := strings.SplitAfter(whole, "\n")
	sort.Strings(union)
	sort.Strings(want)
	if strings.Join(union, "") != strings.Join(want, "") {
		t.Fatalf("the union of the shards differs from the unsharded output")
	}
}

// TestMergeRestoresTheUnshardedOutput: for random trees (nested folders,
// names that sort in tricky byte orders, several languages, hidden and
// unsupported files) and several N, merge of the N shard outputs, in any
// order, is the unsharded output byte for byte, and merge of their
// manifests the unsharded manifest.
func TestMergeRestoresTheUnshardedOutput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"a", "b", "B", "a-b", "a.b", "a_b", "z", "é", "10", "9", ".cfg"}
	exts := []string{".py", ".ts", ".java", ".go", ".txt"}
	bodies := map[string]string{
		".txt":  "note %d, %d\n",
		".py":   "def f%d(x):\n    return x + %d\n",
		".ts":   "export function f%d(x: number) {\n  return x + %d;\n}\n",
		".java": "class C%d {\n  int f() { return %d; }\n}\n",
		".go":   "package p\n\nfunc F%d() int { return %d }\n",
	}
	hidden := 0 // trees with hidden files
	for tree := range 6 {
		dir := t.TempDir()
		files := 1 + rng.IntN(40)
		for i := range files {
			depth := rng.IntN(3)
			parts := []string{dir}
			for range depth {
				parts = append(parts, names[rng.IntN(len(names))])
			}
			ext := exts[rng.IntN(len(exts))]
			parts = append(parts, fmt.Sprintf("%s%d%s", names[rng.IntN(len(names))], i, ext))
			p := filepath.Join(parts...)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(fmt.Sprintf(bodies[ext], i, i)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Chdir(dir)
		wholeManifest := filepath.Join(t.TempDir(), "m.jsonl")
		whole, stderr, code := run(t, "", "chunk", "--allow-empty", "--max-size", "20", "--manifest", wholeManifest, ".")
		if code != 0 || stderr != "" {
			t.Fatalf("tree %d: unsharded run: status %d, stderr %q", tree, code, stderr)
		}
		if m, _ := os.ReadFile(wholeManifest); strings.Contains(string(m), `"status":"hidden"`) {
			hidden++
		}
		for _, n := range []int{1, 2, 3, 7} {
			var shards, manifests []string
			for k := 1; k <= n; k++ {
				out := filepath.Join(t.TempDir(), fmt.Sprintf("s%d.jsonl", k))
				m := filepath.Join(t.TempDir(), fmt.Sprintf("m%d.jsonl", k))
				if _, stderr, code := run(t, "", "chunk", "--allow-empty", "--max-size", "20", "--shard", fmt.Sprintf("%d/%d", k, n), "-o", out, "--manifest", m, "."); code != 0 {
					t.Fatalf("tree %d, shard %d/%d: status %d, stderr %q", tree, k, n, code, stderr)
				}
				shards, manifests = append(shards, out), append(manifests, m)
			}
			rng.Shuffle(len(shards), func(i, j int) { shards[i], shards[j] = shards[j], shards[i] })
			merged, stderr, code := run(t, "", append([]string{"merge"}, shards...)...)
			if code != 0 || stderr != "" {
				t.Fatalf("tree %d, N=%d: merge: status %d, stderr %q", tree, n, code, stderr)
			}
			if merged != whole {
				t.Errorf("tree %d (%d files), N=%d: merged shards differ from the unsharded output", tree, files, n)
			}
			rng.Shuffle(len(manifests), func(i, j int) { manifests[i], manifests[j] = manifests[j], manifests[i] })
			merged, stderr, code = run(t, "", append([]string{"merge"}, manifests...)...)
			if want, _ := os.ReadFile(wholeManifest); code != 0 || stderr != "" || merged != string(want) {
				t.Errorf("tree %d, N=%d: merged manifests (status %d, stderr %q):\n%s\nwant the unsharded manifest:\n%s", tree, n, code, stderr, merged, want)
			}
		}
	}
	if hidden == 0 {
		t.Error("no tree had a hidden file")
	}
}

// TestShardKeepsRepositoriesWhole: with repositories, a file's shard is
// its repository's, whatever its path, so a repository's files and its
// cache land on one machine, and adding a repository moves no other.
func TestShardKeepsRepositoriesWhole(t *testing.T) {
	const n = 5
	for _, repo := range []string{"one", "two", "github.com/org/three", "four"} {
		var in []uint64
		for k := uint64(1); k <= n; k++ {
			if (shard{k: k, n: n, byRepo: true}).has(repo, "README.md") {
				in = append(in, k)
			}
		}
		if len(in) != 1 {
			t.Fatalf("%s/README.md is in shards %v", repo, in)
		}
		for _, p := range []string{"src/a.py", "docs/x.md", "z"} {
			if !(shard{k: in[0], n: n, byRepo: true}).has(repo, p) {
				t.Errorf("%s:%s is not in shard %d with %s:README.md", repo, p, in[0], repo)
			}
		}
	}
}
