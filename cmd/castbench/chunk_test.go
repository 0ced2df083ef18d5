package main

import (
	"slices"
	"testing"
)

// TestCompareFiles: a record's path may be relative to the corpus folder
// (castchunk's root outside git or where git ignores it) or as listed.
func TestCompareFiles(t *testing.T) {
	want := []job{
		{path: "bench/c/a.py", osPath: "bench/c/a.py"},
		{path: "bench/c/sub/b.go", osPath: "bench/c/sub/b.go"},
		{path: "bench/c/d.js", osPath: "bench/c/d.js"},
	}
	for _, c := range []struct {
		name           string
		seen           []string
		missing, extra []string
	}{
		{"relative to the folder", []string{"a.py", "sub/b.go", "d.js"}, nil, nil},
		{"as listed", []string{"bench/c/a.py", "bench/c/sub/b.go", "bench/c/d.js"}, nil, nil},
		{"one missing, one extra", []string{"a.py", "sub/b.go", "e.rs"}, []string{"bench/c/d.js"}, []string{"e.rs"}},
	} {
		seen := map[string]bool{}
		for _, p := range c.seen {
			seen[p] = true
		}
		missing, extra := compareFiles(seen, "bench/c", want)
		if !slices.Equal(missing, c.missing) || !slices.Equal(extra, c.extra) {
			t.Errorf("%s: missing %q, extra %q; want %q, %q", c.name, missing, extra, c.missing, c.extra)
		}
	}
}
