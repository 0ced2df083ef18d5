package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseShard: no --shard value panics; an accepted one names a shard
// of a partition, and every path lands in exactly one of its shards.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"", "1/1", "2/8", "0/3", "4/3", "1/0", "-1/2", "1/2/3", "9223372036854775807/9223372036854775807", "4294967295/4294967295", " 1/2", "1/ 2", "+1/2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := parseShard(s)
		if err != nil {
			return
		}
		if sh.k < 1 || sh.k > sh.n {
			t.Fatalf("%q accepted as %d/%d", s, sh.k, sh.n)
		}
		hits := 0
		for k := uint64(1); k <= min(sh.n, 64); k++ {
			if (shard{k: k, n: sh.n}).has("", "src/a.py") {
				hits++
			}
		}
		if sh.n <= 64 && hits != 1 {
			t.Fatalf("src/a.py is in %d shards of %d", hits, sh.n)
		}
	})
}

// FuzzChunkFlags runs `castchunk chunk` on a small tree with arbitrary
// values of the numeric and size flags: no value may panic; each run ends
// with status 0 and valid records, or 2 and a usage message.
func FuzzChunkFlags(f *testing.F) {
	f.Add("cast", "2000", "0", "0", "0", "10MiB", "2", "", "0s")
	f.Add("sliding", "9223372036854775807", "9223372036854775807", "0", "0", "0.5", "9223372036854775807", "1/0", "-1s")
	f.Add("sliding", "1", "0", "20", "10", "1e3", "100000", "3/2", "1ns")
	f.Add("sliding", "-1", "-5", "-20", "-10", "-1KiB", "-1", "0/0", "1h")
	f.Add("cast", "1", "1", "1", "1", "0.0001KiB", "0", "1/1", "x")
	f.Add("nope", "abc", "1.5", "2e9", "0x10", "9999999999999999999GiB", "1e2", "a/b", "")
	dir := f.TempDir()
	files := map[string]string{"a.py": "def f(x):\n    return x\n\n\nclass A:\n    pass\n", "B.java": "class B { int x; }\n", "e.py": ""}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, method, maxSize, overlap, window, stride, maxFileSize, jobs, shard, timeout string) {
		args := []string{"chunk", "--no-ignore", "--no-progress", "--method", method, "--max-size", maxSize,
			"--max-file-size", maxFileSize, "--jobs", jobs, "--shard", shard, "--parse-timeout", timeout}
		if method == "sliding" {
			args = append(args, "--overlap-lines", overlap, "--window-lines", window, "--stride", stride)
		}
		args = append(args, dir)
		var out, errOut bytes.Buffer
		code := Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
		switch code {
		case ExitOK:
			strictRecords(t, fmt.Sprintf("%v: bad output", args), &out)
		case ExitUsage:
			if !strings.Contains(errOut.String(), "Run 'castchunk chunk --help' for usage.") {
				t.Fatalf("%v: usage error without the hint: %q", args, errOut.String())
			}
		default:
			t.Fatalf("%v: status %d, stderr %q", args, code, errOut.String())
		}
	})
}
