package eval

import (
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan/plantest"
)

// TestSameFatesAsChunk: eval indexes a folder's files as castchunk chunk
// chunks them, by the one policy of package plan: the fates of
// testdata/plan/mixed.txtar, which internal/cli's TestChunkFates checks
// for chunk (attributes, shebangs, generated, vendored, binary, encoding).
func TestSameFatesAsChunk(t *testing.T) {
	dir := t.TempDir()
	want := plantest.WriteMixed(t, dir)
	pl := newPlanner(&Options{Path: dir, Jobs: 1}, nil, nil, "")
	if err := pl.folder(t.Context()); err != nil {
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
