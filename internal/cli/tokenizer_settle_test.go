package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/tokens"
)

// scriptFile is the file name's content in a txtar script of testdata.
func scriptFile(t *testing.T, script, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/script", script))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n-- "+name+" --\n")
	if !ok {
		t.Fatalf("%s holds no %s", script, name)
	}
	body, _, _ := strings.Cut(rest, "\n-- ")
	return []byte(body + "\n")
}

// TestWarmCacheBuildsNoTokenizer: with --cache, a tokenizer.json is
// checked (built) in the parent once; a run after it on the same bytes
// trusts the cache and builds nothing, and the flags that depend on its
// special tokens are still checked.
func TestWarmCacheBuildsNoTokenizer(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "tokenizer.json")
	if err := os.WriteFile(tok, scriptFile(t, "tokenizer_json.txtar", "tok/tokenizer.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(maxTokens int) (*tokens.Encoding, error) {
		c, err := cache.Open(filepath.Join(dir, "cache"), "salt")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		e, err := tokens.LoadDeferred(tok)
		if err != nil {
			t.Fatal(err)
		}
		if e.Built() {
			t.Fatal("built before it was needed")
		}
		return e, settleTokenizer(enrich.Options{Encoding: e, MaxTokens: maxTokens}, c)
	}
	cold, err := run(8)
	if err != nil || !cold.Built() || cold.Specials() != 2 {
		t.Fatalf("cold: %v, built %v, specials %d", err, cold.Built(), cold.Specials())
	}
	warm, err := run(8)
	if err != nil || warm.Built() || warm.Specials() != 2 || warm.Key() != cold.Key() {
		t.Fatalf("warm: %v, built %v, specials %d, key %q (cold %q)", err, warm.Built(), warm.Specials(), warm.Key(), cold.Key())
	}
	if _, err := run(5); err == nil || !strings.Contains(err.Error(), "leaves too little room") {
		t.Fatalf("--max-tokens 5 with 2 specials, warm: %v", err)
	}
}
