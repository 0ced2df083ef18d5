package cli

import (
	"bytes"
	"context"
	"fmt"
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
	if s, err := parseShard("2/8"); err != nil || s != (shard{2, 8}) {
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
