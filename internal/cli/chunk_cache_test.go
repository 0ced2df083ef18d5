package cli

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/tokens"
)

// cacheTree is a small tree in a few languages, with definitions to scope
// and a Python file long enough for --max-tokens to split.
func cacheTree(t *testing.T) {
	t.Helper()
	var long strings.Builder
	long.WriteString("class Service:\n")
	for i := range 30 {
		fmt.Fprintf(&long, "    def handle_%d(self, request):\n        values = [request * %d for request in range(100)]\n        return sum(values)\n\n", i, i)
	}
	badSetup(t, map[string]string{
		"app/service.py": long.String(),
		"app/Main.java":  "package app;\n\npublic class Main {\n    static int twice(int x) {\n        return 2 * x;\n    }\n}\n",
		"web/index.ts":   "export class View {\n  render(): string {\n    return \"<p>hi</p>\";\n  }\n}\n",
		"broken.py":      "def f(:\n    return\n",
		"empty.py":       "",
	})
}

// cacheLine matches the --stats line on the cache.
var cacheLine = regexp.MustCompile(`(?m)^cache: (\d+) hits, (\d+) misses, (\d+) stored; `)

// cacheStats runs chunk with --stats and returns stdout and the hits,
// misses and entries stored that the --stats line reports.
func cacheStats(t *testing.T, args ...string) (out string, hits, misses, stored int) {
	t.Helper()
	out, stderr, code := run(t, "", append([]string{"chunk", "--stats"}, args...)...)
	if code != 0 {
		t.Fatalf("chunk %v: status %d\n%s", args, code, stderr)
	}
	m := cacheLine.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("chunk %v: no cache line in\n%s", args, stderr)
	}
	fmt.Sscan(m[1], &hits)
	fmt.Sscan(m[2], &misses)
	fmt.Sscan(m[3], &stored)
	return out, hits, misses, stored
}

// TestCacheWarmRunWithEveryFlag: with the README's embedding flags, a warm
// run hits on every file and writes, byte for byte, what a run without the
// cache writes, in JSON Lines and in Parquet.
func TestCacheWarmRunWithEveryFlag(t *testing.T) {
	cacheTree(t)
	dir := t.TempDir()
	flags := []string{"--context", "--embed-text", "--tokenizer", "cl100k_base", "--max-tokens", "30", "--max-size", "400", "."}
	plain, stderr, code := run(t, "", append([]string{"chunk"}, flags...)...)
	if code != 0 || !strings.Contains(plain, `"text":"app/service.py\nclass Service > method handle_`) {
		t.Fatalf("uncached run: status %d, stderr %q, records:\n%.500s", code, stderr, plain)
	}
	cached := append([]string{"--cache", dir}, flags...)
	cold, hits, misses, stored := cacheStats(t, cached...)
	if cold != plain || hits != 0 || misses != 5 || stored != 5 {
		t.Errorf("cold run: same output %v; %d hits, %d misses, %d stored", cold == plain, hits, misses, stored)
	}
	warm, hits, misses, stored := cacheStats(t, cached...)
	if warm != plain || hits != 5 || misses != 0 || stored != 0 {
		t.Errorf("warm run: same output %v; %d hits, %d misses, %d stored", warm == plain, hits, misses, stored)
	}

	want, _, code := run(t, "", append([]string{"chunk", "--format", "parquet"}, flags...)...)
	got, _, code2 := run(t, "", append([]string{"chunk", "--format", "parquet"}, cached...)...)
	if code != 0 || code2 != 0 || got != want || len(want) == 0 {
		t.Errorf("parquet: status %d and %d, warm output equal to uncached %v", code, code2, got == want)
	}
}

// TestCacheKeyNamesEveryEmbeddingFlag: a cache entry holds what the flags
// add to each chunk, so an entry stored without --context (or without
// --tokenizer, which changes no boundary without --max-tokens) must not
// answer a run with it, and the reverse: each is a miss, and each run
// writes what it would without the cache.
func TestCacheKeyNamesEveryEmbeddingFlag(t *testing.T) {
	cacheTree(t)
	dir := t.TempDir()
	runs := [][]string{
		{"--tokenizer", "cl100k_base"},
		{"--tokenizer", "cl100k_base", "--context"},
		{"--context"},
		{"--context", "--embed-text"},
		{"--embed-text"},
		{},
	}
	for i, flags := range runs {
		want, _, _ := run(t, "", append(append([]string{"chunk"}, flags...), ".")...)
		got, hits, misses, _ := cacheStats(t, append(append([]string{"--cache", dir}, flags...), ".")...)
		if got != want || hits != 0 || misses != 5 {
			t.Errorf("run %d %v after the others: same output as uncached %v; %d hits, %d misses: want 0 hits", i, flags, got == want, hits, misses)
		}
	}
	for i, flags := range runs {
		if _, hits, misses, _ := cacheStats(t, append(append([]string{"--cache", dir}, flags...), ".")...); hits != 5 || misses != 0 {
			t.Errorf("run %d %v again: %d hits, %d misses: want all hits", i, flags, hits, misses)
		}
	}
}

// TestCacheSaltDiffersWithContext: the salt itself, which keys every
// entry, differs with --context on and off, with or without a tokenizer.
func TestCacheSaltDiffersWithContext(t *testing.T) {
	enc, err := tokens.Load("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	salt := func(o enrich.Options) string {
		return cacheSalt(pipeline.Config{Setup: chunk.Setup{Method: method.Default(), Budget: 2000}, Enrich: o})
	}
	if on, off := salt(enrich.Options{Context: true}), salt(enrich.Options{}); on == off {
		t.Errorf("--context on and off share the salt %q", on)
	}
	if on, off := salt(enrich.Options{Context: true, Encoding: enc}), salt(enrich.Options{Encoding: enc}); on == off {
		t.Errorf("--context on and off, with --tokenizer, share the salt %q", on)
	}
}
