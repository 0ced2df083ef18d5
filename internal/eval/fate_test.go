package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/pipeline"
)

// TestSameFatesAsChunk: eval indexes a folder's files as castchunk chunk
// chunks them, by the one policy of package plan: the fates of
// testdata/plan/mixed.txtar, which internal/cli's TestChunkFates checks
// for chunk (attributes, shebangs, generated, vendored, binary, encoding).
func TestSameFatesAsChunk(t *testing.T) {
	dir, want := mixedTree(t)
	pl := newPlanner(&Options{Path: dir, Jobs: 1}, nil, nil, "")
	if err := pl.folder(); err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.Config{Jobs: 1, Setup: chunk.Setup{Method: method.Default(), Budget: 2000}, Plan: pl.policy()}
	var jobs []pipeline.Job
	for _, e := range pl.p.entries {
		jobs = append(jobs, cfg.NewJob(e.file(), e.OSPath, e.Size))
	}
	got := map[string]string{}
	err := pipeline.Run(t.Context(), jobs, cfg, func(r *pipeline.Result) error {
		got[r.Job.Path] = strings.TrimSpace(r.Outcome.String() + " " + r.Language)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, w := range want {
		if w == "vendored" {
			w = "" // left out by name: never an entry
		}
		if got[p] != w {
			t.Errorf("%s: eval gives %q, want %q (as chunk)", p, got[p], w)
		}
		delete(got, p)
	}
	for p, g := range got {
		t.Errorf("%s: eval gives %q, and the fates list none", p, g)
	}
}

// mixedTree writes testdata/plan/mixed.txtar's files into a new folder and
// returns it with the fates file: path → "FATE [LANGUAGE]".
func mixedTree(t *testing.T) (string, map[string]string) {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "plan", "mixed.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
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
		switch f.Name {
		case "bin.py":
			data = []byte("x = 1\x00\n")
		case "u16.py":
			data = []byte("\xff\xfex\x00\n\x00")
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, want
}
