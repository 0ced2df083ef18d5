package notebook

import (
	"slices"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/outline"
)

func TestParse(t *testing.T) {
	nb, err := Parse([]byte(`{"nbformat": 4, "nbformat_minor": 5,
 "metadata": {"language_info": {"name": "julia"}},
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# Title\n", "\n", "text"]},
  {"cell_type": "raw", "metadata": {}, "source": "left out"},
  {"cell_type": "code", "metadata": {}, "outputs": [{"text": "not read"}], "source": "x = 1\n"},
  {"cell_type": "code", "metadata": {}, "outputs": [], "source": []},
  {"cell_type": "code", "metadata": {}, "outputs": [], "source": "caf\u00e9"}
 ]}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Title\n\ntext\nx = 1\ncafé\n"; string(nb.Text) != want {
		t.Errorf("text %q, want %q", nb.Text, want)
	}
	if nb.Kernel != "julia" {
		t.Errorf("kernel %q, want julia (language_info, with no kernelspec)", nb.Kernel)
	}
	want := []Cell{{0, "markdown", 0, 14}, {2, "code", 14, 20}, {4, "code", 20, 26}}
	if len(nb.Cells) != len(want) {
		t.Fatalf("cells %+v, want %+v", nb.Cells, want)
	}
	for i, c := range want {
		if nb.Cells[i] != c {
			t.Errorf("cell %d: %+v, want %+v", i, nb.Cells[i], c)
		}
	}
	for at, cell := range map[int]int{0: 0, 13: 0, 14: 1, 25: 2, 26: -1} {
		if got := nb.CellAt(at); got != cell {
			t.Errorf("CellAt(%d) = %d, want %d", at, got, cell)
		}
	}
}

func TestKernel(t *testing.T) {
	for src, want := range map[string]string{
		`{"nbformat": 4, "metadata": {"kernelspec": {"language": "R"}, "language_info": {"name": "python"}}, "cells": []}`: "R",
		`{"nbformat": 4, "metadata": {}, "cells": []}`:                                                                     "python",
	} {
		nb, err := Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if nb.Kernel != want {
			t.Errorf("%s: kernel %q, want %q", src, nb.Kernel, want)
		}
	}
}

// TestMalformed: what is not a notebook gets an error that says why.
func TestMalformed(t *testing.T) {
	for src, want := range map[string]string{
		`{"cells": [`:                       "invalid JSON at byte",
		`[1, 2]`:                            "not a notebook",
		`{"metadata": {}}`:                  `no "nbformat" and "cells"`,
		`{"nbformat": 3, "worksheets": []}`: "nbformat 3: castchunk reads nbformat 4",
		`{"nbformat": 4, "cells": [{"cell_type": "code", "source": 42}]}`:       "cell 0: source is neither a string nor a list of strings",
		`{"nbformat": 4, "cells": [{"cell_type": "code", "source": ["a", 1]}]}`: "cell 0: source is neither",
		`{"nbformat": 4, "cells": 7}`:                                           "not a notebook",
		"":                                                                      "invalid JSON",
		strings.Repeat("[", 100000):                                             "not a notebook",
	} {
		_, err := Parse([]byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.40q: error %v, want one saying %q", src, err, want)
		}
	}
}

// TestExactKeys: nbformat's keys are matched as written, as Python's json
// reads them; encoding/json's case-insensitive struct fields would take
// "Source" for "source" and "CELLS" for "cells".
func TestExactKeys(t *testing.T) {
	nb, err := Parse([]byte(`{"nbformat": 4, "Metadata": {"kernelspec": {"language": "R"}},
 "metadata": {"Kernelspec": {"language": "R"}, "language_info": {"Name": "julia", "name": "ruby"}},
 "cells": [
  {"cell_type": "code", "source": "right\n", "Source": "wrong\n"},
  {"cell_type": "code", "Source": "wrong\n", "source": "right too\n"},
  {"Cell_type": "code", "cell_type": "raw", "source": "left out\n"}
 ]}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "right\nright too\n"; string(nb.Text) != want {
		t.Errorf("text %q, want %q", nb.Text, want)
	}
	if nb.Kernel != "ruby" {
		t.Errorf("kernel %q, want ruby (language_info's \"name\", not \"Name\"; no \"kernelspec\")", nb.Kernel)
	}
	for _, src := range []string{
		`{"NBFORMAT": 4, "CELLS": [{"cell_type": "code", "source": "x\n"}]}`,
		`{"nbformat": 4, "Cells": []}`,
		`{"Nbformat": 4, "cells": []}`,
	} {
		_, err := Parse([]byte(src))
		if want := `not a notebook: no "nbformat" and "cells"`; err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", src, err, want)
		}
	}
}

// TestNoExactText: a source whose text cannot be written exactly is refused,
// naming the cell and why, not decoded with U+FFFD in place of what it held
// (encoding/json replaces a lone surrogate escape and a byte that is not
// UTF-8 before any check could see them).
func TestNoExactText(t *testing.T) {
	for src, want := range map[string]string{
		`{"nbformat": 4, "cells": [{"cell_type": "code", "source": "ok\n"}, {"cell_type": "code", "source": "x = \"\ud800\""}]}`: `cell 1: source holds a lone surrogate escape (\ud800), which UTF-8 cannot encode`,
		`{"nbformat": 4, "cells": [{"cell_type": "markdown", "source": ["a\n", "\uDC00b"]}]}`:                                    `cell 0: source holds a lone surrogate escape (\uDC00), which UTF-8 cannot encode`,
		`{"nbformat": 4, "cells": [{"cell_type": "code", "source": "\ude00\ud83d"}]}`:                                            `cell 0: source holds a lone surrogate escape (\ude00), which UTF-8 cannot encode`,
		`{"nbformat": 4, "cells": [{"cell_type": "code", "source": "\\\ud83d"}]}`:                                                `cell 0: source holds a lone surrogate escape (\ud83d), which UTF-8 cannot encode`,
		"{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": \"a\xffb\"}]}":                                      "cell 0: source is not valid UTF-8",
	} {
		_, err := Parse([]byte(src))
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", src, err, want)
		}
	}
	// An escaped backslash before "u" is text, and a whole pair is one character.
	nb, err := Parse([]byte(`{"nbformat": 4, "cells": [{"cell_type": "code", "source": ["\\ud800 ", "\ud83d\ude00 \\\\ud800"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `\ud800 😀 \\ud800` + "\n"; string(nb.Text) != want {
		t.Errorf("text %q, want %q", nb.Text, want)
	}
}

func TestHeadingLevel(t *testing.T) {
	for text, want := range map[string]int{
		"# Title\n": 1, "### Cleaning": 3, "   ###### Six\n": 6, "####### seven\n": 0, "#hashtag\n": 0,
		"#\n": 1, "Setext\n===\n": 1, "Two lines\nof title\n---\n": 2, "Para\n\n===\n": 0, "text\n": 0,
	} {
		if got := HeadingLevel([]byte(text)); got != want {
			t.Errorf("HeadingLevel(%q) = %d, want %d", text, got, want)
		}
	}
}

// TestJoin: a Markdown cell's sections span the later cells up to the next
// heading of their level or a higher one; the other definitions move to
// the notebook's offsets and lines, and a fence's section is not a heading.
func TestJoin(t *testing.T) {
	nb, err := Parse([]byte(`{"nbformat": 4, "metadata": {}, "cells": [
  {"cell_type": "markdown", "source": "# A\n## B\n"},
  {"cell_type": "code", "source": "def f():\n    pass\n"},
  {"cell_type": "markdown", "source": "## C\n"},
  {"cell_type": "code", "source": "x = 1\n"},
  {"cell_type": "markdown", "source": "# D\n"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	// Each cell's definitions as its own tree gives them, in its offsets:
	// the Markdown tree's sections end with their cell.
	own := [][]outline.Def{
		{{Kind: "section", Name: "A", Start: 0, End: 9, Line: 1}, {Kind: "section", Name: "B", Start: 4, End: 9, Line: 2}},
		{{Kind: "function", Name: "f", Start: 0, End: 17, Line: 1}},
		{{Kind: "section", Name: "C", Start: 0, End: 5, Line: 1}},
		nil,
		{{Kind: "section", Name: "D", Start: 0, End: 4, Line: 1}},
	}
	fences := [][]outline.Def{nil, nil, {{Kind: "section", Name: "fenced", Start: 1, End: 2, Line: 1}}, nil, nil}
	got := nb.Join(own, fences)
	want := []outline.Def{
		{Kind: "section", Name: "A", Start: 0, End: 38, Line: 1},  // to # D
		{Kind: "section", Name: "B", Start: 4, End: 27, Line: 2},  // to ## C, over cell 1
		{Kind: "function", Name: "f", Start: 9, End: 26, Line: 3}, // moved
		{Kind: "section", Name: "C", Start: 27, End: 38, Line: 5}, // over cell 3
		{Kind: "section", Name: "fenced", Start: 28, End: 29, Line: 5},
		{Kind: "section", Name: "D", Start: 38, End: 42, Line: 7}, // to the end
	}
	if !slices.Equal(got, want) {
		t.Errorf("Join:\n got %+v\nwant %+v", got, want)
	}
}
