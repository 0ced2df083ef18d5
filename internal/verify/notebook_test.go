package verify

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/notebook"
	"github.com/castchunk/castchunk/internal/record"
)

// TestVerifyNotebookHostLanguage: records of a notebook that lost
// host_language (their cell says what they are) are checked against the
// notebook's text, and the one problem is the missing field, not "no
// notebook" and contents that differ from the file's JSON bytes.
func TestVerifyNotebookHostLanguage(t *testing.T) {
	root := t.TempDir()
	const src = `{"nbformat": 4, "metadata": {}, "cells": [{"cell_type": "code", "source": "x = 1\n"}, {"cell_type": "markdown", "source": "# T\n"}]}`
	if err := os.WriteFile(filepath.Join(root, "nb.ipynb"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	text := []byte("x = 1\n# T\n")
	out, err := record.AppendFile(nil, record.File{Path: "nb.ipynb", Language: notebook.Language, Method: "cast", Src: text,
		Regions: []record.Region{{Start: 0, End: 6, From: 0, To: 6, Language: "python"}, {Start: 6, End: 10, From: 6, To: 10, Language: "markdown"}},
		Cells:   []record.NotebookCell{{Start: 0, End: 6, Index: 0}, {Start: 6, End: 10, Index: 1}}},
		[]chunk.Span{{Start: 0, End: 6, Size: 3}, {Start: 6, End: 10, Size: 2}})
	if err != nil {
		t.Fatal(err)
	}
	recs := decode(t, out)
	if _, lines := check(root, 0, recs); len(lines) != 0 {
		t.Fatalf("clean records: %q", lines)
	}
	for i := range recs {
		recs[i].HostLanguage = ""
	}
	want := []string{`nb.ipynb: chunk 0: no host_language: a notebook's records have host_language "jupyter-notebook"`}
	if _, lines := check(root, 0, recs); !slices.Equal(lines, want) {
		t.Errorf("got %q, want %q", lines, want)
	}
}

// TestVerifyNotebookEndCell: a chunk of merged cells is clean when its
// end_cell names the cell of its last byte; one without end_cell must lie
// in its cell (records written before chunks spanned cells).
func TestVerifyNotebookEndCell(t *testing.T) {
	root := t.TempDir()
	const src = `{"nbformat": 4, "metadata": {}, "cells": [{"cell_type": "markdown", "source": "# T\n"}, {"cell_type": "raw", "source": "r"}, {"cell_type": "code", "source": "x = 1\n"}]}`
	if err := os.WriteFile(filepath.Join(root, "nb.ipynb"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	text := []byte("# T\nx = 1\n")
	out, err := record.AppendFile(nil, record.File{Path: "nb.ipynb", Language: notebook.Language, Method: "cast", Src: text,
		Regions: []record.Region{{Start: 0, End: 4, From: 0, To: 4, Language: "markdown"}, {Start: 4, End: 10, From: 4, To: 10, Language: "python"}},
		Cells:   []record.NotebookCell{{Start: 0, End: 4, Index: 0, Language: "markdown"}, {Start: 4, End: 10, Index: 2, Language: "python", Code: true}}},
		[]chunk.Span{{Start: 0, End: 10, Size: 5}})
	if err != nil {
		t.Fatal(err)
	}
	recs := decode(t, out)
	if recs[0].EndCell != 2 || recs[0].Language != "python" {
		t.Fatalf("end_cell %d, language %q; want 2, python", recs[0].EndCell, recs[0].Language)
	}
	if _, lines := check(root, 0, recs); len(lines) != 0 {
		t.Fatalf("clean records: %q", lines)
	}
	for _, c := range []struct {
		edit func(*record.Record)
		want string
	}{
		{func(r *record.Record) { r.EndCell = 0 }, "nb.ipynb: chunk 0: end_cell is 0, the chunk's last byte (9) is in cell 2"},
		{func(r *record.Record) { r.HasEndCell = false }, "nb.ipynb: chunk 0: the chunk runs from cell 0 into cell 2, and has no end_cell"},
	} {
		edit, want := c.edit, c.want
		bad := slices.Clone(recs)
		edit(&bad[0])
		if _, lines := check(root, 0, bad); !slices.Equal(lines, []string{want}) {
			t.Errorf("got %q, want %q", lines, want)
		}
	}
}
