package cli

import (
	"os"
	"testing"
)

// TestManifestNameNotUTF8: a name that is not valid UTF-8 is written in
// Go's quoted form, as stderr names it, so that a\xfe.py and a\xff.py stay
// two names; encoding/json would write both as a\ufffd.py.
func TestManifestNameNotUTF8(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, name := range []string{"a\xfe.py", "a\xff.py", "b.py"} {
		if err := os.WriteFile(name, []byte("x = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, stderr, code := run(t, "", "chunk", "--manifest", "manifest.jsonl", "-o", "chunks.jsonl", ".")
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	data, err := os.ReadFile("manifest.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"path":"\"a\\xfe.py\"","status":"encoding","language":"python","method":"","chunks":0,"syntax_errors":false,"note":"file name is not valid UTF-8; skipped"}
{"path":"\"a\\xff.py\"","status":"encoding","language":"python","method":"","chunks":0,"syntax_errors":false,"note":"file name is not valid UTF-8; skipped"}
{"path":"b.py","status":"chunked","language":"python","method":"cast","chunks":1,"syntax_errors":false,"note":""}
`
	if string(data) != want {
		t.Errorf("manifest\n%s\nwant\n%s", data, want)
	}
}
