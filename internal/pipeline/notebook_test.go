package pipeline_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan"
)

// TestSlidingNotebookParsesNothing: sliding windows need no tree, and a
// notebook's chunks are named by their cells, so without --context a
// notebook is not parsed at all: before, each Markdown cell was parsed and
// its fences too, for languages that were then dropped, and a fence whose
// parse gave up (20,000 nested Scala parentheses) was named in a warning
// and kept the notebook out of the cache. With --context the cells are
// parsed for their definitions, as with cast.
func TestSlidingNotebookParsesNothing(t *testing.T) {
	fence := "```scala\nval x = " + strings.Repeat("(", 20000) + "1" + strings.Repeat(")", 20000) + "\n```\n"
	nb, err := json.Marshal(map[string]any{"nbformat": 4, "nbformat_minor": 5, "metadata": map[string]any{},
		"cells": []map[string]any{
			{"cell_type": "markdown", "metadata": map[string]any{}, "source": "# Fit\n\n" + fence},
			{"cell_type": "code", "metadata": map[string]any{}, "outputs": []any{}, "source": "def f():\n    return 1\n"},
		}})
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := setup(t, []file{{"a.ipynb", string(nb)}})
	jobs := []pipeline.Job{job(dir, "a.ipynb")}
	jobs[0].Decision = plan.Decision{Notebook: true}
	plain := run(t, jobs, slidingConfig(1, 300, nil))[0]
	if plain.Parsed || plain.Warning != "" || plain.Skip != plan.Chunked || len(plain.Spans) == 0 {
		t.Errorf("sliding: parsed %v, warning %q, fate %v, %d spans; want not parsed, no warning, chunked", plain.Parsed, plain.Warning, plain.Skip, len(plain.Spans))
	}
	cfg := slidingConfig(1, 300, nil)
	cfg.Enrich = enrich.Options{Context: true}
	context := run(t, jobs, cfg)[0]
	if !context.Parsed || !strings.HasPrefix(context.Warning, "cell 0: embedded scala at line 4: ") {
		t.Errorf("sliding --context: parsed %v, warning %q; want parsed, the fence named", context.Parsed, context.Warning)
	}
	if !reflect.DeepEqual(plain.Spans, context.Spans) {
		t.Errorf("sliding: the spans differ with --context")
	}
}
