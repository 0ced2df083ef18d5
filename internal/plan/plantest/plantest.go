// Package plantest writes the mixed tree of testdata/plan/mixed.txtar, for
// the tests that hold castchunk chunk and castchunk eval to the same fates
// (package plan).
package plantest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// binary are the files whose bytes a txtar cannot hold as text.
var binary = map[string]string{
	"bin.py": "x = 1\x00\n", // a NUL: binary
	// A PNG's signature and IHDR chunk: no grammar, binary all the same.
	"logo.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89",
	"u16.py":   "\xff\xfex\x00\n\x00", // a UTF-16 BOM
}

// WriteMixed writes the tree's files into dir and returns the fates its
// list gives them: path → "FATE [LANGUAGE]".
func WriteMixed(t testing.TB, dir string) map[string]string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	ar, err := txtar.ParseFile(filepath.Join(filepath.Dir(self), "..", "..", "..", "testdata", "plan", "mixed.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, f := range ar.Files {
		if f.Name == "fates" {
			for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
				p, rest, _ := strings.Cut(line, " ")
				want[p] = rest
			}
			continue
		}
		data := f.Data
		if b, ok := binary[f.Name]; ok {
			data = []byte(b)
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return want
}
