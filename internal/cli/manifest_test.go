package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

// TestManifestHiddenNotes: a hidden file's note names the flags that would
// chunk it, and they do: --hidden for a grammar (by name or shebang),
// --all-text too without one (.env), --include-generated for a lock file,
// --include-vendored for vendored code (node_modules is generated too, by
// GitHub's rules, hidden or not); for a binary file, no flag does.
func TestManifestHiddenNotes(t *testing.T) {
	t.Chdir(t.TempDir())
	files := map[string]string{
		"a.py":                   "x = 1\n",
		".ci.yml":                "on: push\n",
		".env":                   "SECRET=1\n",
		".hooks/pre-commit":      "#!/usr/bin/env python3\nx = 1\n",
		".cfg/yarn.lock":         "# yarn lockfile v1\n",
		".cfg/node_modules/x.py": "x = 1\n",
		".cfg/vendor/v.py":       "x = 1\n",
		"node_modules/y.py":      "y = 1\n",
		".DS_Store":              "\x00\x00\x00\x01Bud1",
	}
	for p, data := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries := func(args ...string) map[string]manifestEntry {
		t.Helper()
		args = append([]string{"chunk", "--manifest", "m.jsonl", "-o", "/dev/null"}, args...)
		if _, stderr, code := run(t, "", append(args, ".")...); code != 0 {
			t.Fatalf("%q: status %d: %s", args, code, stderr)
		}
		data, err := os.ReadFile("m.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		es := map[string]manifestEntry{}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var e manifestEntry
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			es[e.Path] = e
		}
		return es
	}
	notes := map[string]string{}
	for p, e := range entries() {
		if p != "a.py" && p != "m.jsonl" {
			notes[p] = e.Note
		}
	}
	want := map[string]string{
		".ci.yml":                "--hidden chunks it",
		".env":                   "--hidden --all-text chunks it",
		".hooks/pre-commit":      "--hidden chunks it",
		".cfg/yarn.lock":         "--hidden --include-generated --all-text chunks it",
		".cfg/node_modules/x.py": "--hidden --include-vendored --include-generated chunks it",
		".cfg/vendor/v.py":       "--hidden --include-vendored chunks it",
		"node_modules/y.py":      "--include-vendored --include-generated chunks it",
		".DS_Store":              "binary file (NUL byte): no flag chunks it",
	}
	if !reflect.DeepEqual(notes, want) {
		t.Fatalf("notes\n%q\nwant\n%q", notes, want)
	}
	all := []string{"--hidden", "--all-text", "--include-generated", "--include-vendored"}
	for p, note := range notes {
		ok := strings.HasPrefix(note, "--")
		args := all
		if ok {
			args = strings.Fields(strings.TrimSuffix(note, " chunks it"))
		}
		if e := entries(args...)[p]; (e.Status == "chunked") != ok {
			t.Errorf("%s: note %q, but with %q it is %s", p, note, args, e.Status)
		}
	}
}
