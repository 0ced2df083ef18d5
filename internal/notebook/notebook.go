// Package notebook reads Jupyter notebooks (.ipynb, nbformat 4): a notebook's
// bytes are JSON, so its records cannot be byte ranges of the file as
// elsewhere. They are ranges of the notebook's text, which this package
// defines and builds, the one way chunk and verify both read it
// (docs/design.md, "Notebooks"): the sources of its code and Markdown
// cells, in order, each ending with a line break (one is added to a source
// that lacks it). Outputs, attachments and raw cells are not part of it.
package notebook

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/outline"
)

// Extension is the file name suffix of notebooks.
const Extension = ".ipynb"

// Language is the language records give a notebook file (host_language):
// GitHub's name for it, as castchunk writes text names.
const Language = "jupyter-notebook"

// Is reports whether the file at path is a notebook, by its name.
func Is(path string) bool { return strings.HasSuffix(path, Extension) }

// Notebook is a notebook's text and its cells.
type Notebook struct {
	Text   []byte // the cells' sources, each ending with "\n"
	Cells  []Cell // the code and Markdown cells, in order
	Kernel string // the kernel's language ("python" when the notebook does not say)
}

// Cell is one cell of the text.
type Cell struct {
	Index      int    // its index among all the notebook's cells, raw ones included
	Kind       string // "code" or "markdown"
	Start, End int    // its source in Text
}

// Parse reads a notebook's bytes. A file that is not an nbformat 4
// notebook, or whose sources are not text, gets an error that says why.
// Keys are matched exactly, as nbformat (Python's json) matches them:
// encoding/json's struct fields would take "Source" for "source".
func Parse(b []byte) (*Notebook, error) {
	top, err := members(b)
	if err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, fmt.Errorf("not a notebook: invalid JSON at byte %d: %v", syn.Offset, err)
		}
		return nil, fmt.Errorf("not a notebook: %v", err)
	}
	var (
		format               *int
		cells                *[]json.RawMessage
		meta, spec, langInfo map[string]json.RawMessage
		specLang, infoName   string
	)
	for _, err := range []error{ // in order: each reads what the one before it decoded
		field(top, "nbformat", &format), field(top, "cells", &cells), field(top, "metadata", &meta),
		field(meta, "kernelspec", &spec), field(meta, "language_info", &langInfo),
		field(spec, "language", &specLang), field(langInfo, "name", &infoName),
	} {
		if err != nil {
			return nil, fmt.Errorf("not a notebook: %v", err)
		}
	}
	switch {
	case format != nil && *format != 4:
		return nil, fmt.Errorf("nbformat %d: castchunk reads nbformat 4 notebooks (jupyter nbconvert --to notebook upgrades one)", *format)
	case format == nil || cells == nil:
		return nil, errors.New(`not a notebook: no "nbformat" and "cells"`)
	}
	nb := &Notebook{Kernel: cmp.Or(specLang, infoName, "python")}
	for i, raw := range *cells {
		var typ string
		c, err := members(raw)
		if err == nil {
			err = field(c, "cell_type", &typ)
		}
		if err != nil {
			return nil, fmt.Errorf("cell %d: %v", i, err)
		}
		if typ != "code" && typ != "markdown" {
			continue // raw cells, and types of later formats
		}
		src, err := source(c["source"])
		if err != nil {
			return nil, fmt.Errorf("cell %d: %v", i, err)
		}
		start := len(nb.Text)
		nb.Text = append(nb.Text, src...)
		if len(src) > 0 && src[len(src)-1] != '\n' {
			nb.Text = append(nb.Text, '\n')
		}
		if len(nb.Text) > start {
			nb.Cells = append(nb.Cells, Cell{Index: i, Kind: typ, Start: start, End: len(nb.Text)})
		}
	}
	return nb, nil
}

// members decodes a JSON object (null: none) into its members by their
// exact keys.
func members(raw []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// field decodes m's member key into v, and leaves v as it is when m has
// no such member.
func field(m map[string]json.RawMessage, key string, v any) error {
	raw, ok := m[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%q: %v", key, err)
	}
	return nil
}

// source decodes a cell's source: a string, or a list of strings to join
// (nbformat's multi-line form). Its text is checked before it is decoded:
// encoding/json writes U+FFFD for a byte that is not UTF-8 and for a lone
// surrogate escape, and a text with either cannot be written exactly.
func source(raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if !utf8.Valid(raw) {
		return nil, errors.New("source is not valid UTF-8")
	}
	if esc := loneSurrogate(raw); esc != "" {
		return nil, fmt.Errorf("source holds a lone surrogate escape (%s), which UTF-8 cannot encode", esc)
	}
	var s string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("source: %v", err)
		}
	} else {
		var lines []string
		if err := json.Unmarshal(raw, &lines); err != nil {
			return nil, errors.New("source is neither a string nor a list of strings")
		}
		s = strings.Join(lines, "")
	}
	return []byte(s), nil
}

// loneSurrogate returns the first \u escape of the JSON text b that is half
// of a UTF-16 surrogate pair without its other half, "" when there is none.
// A backslash in JSON is always in a string, so b may be a list of them.
func loneSurrogate(b []byte) string {
	for i := 0; i+1 < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		r, ok := escape(b, i)
		if !ok {
			i++ // \" \\ \n …: the escaped byte starts nothing
			continue
		}
		if utf16.IsSurrogate(r) {
			if r2, ok := escape(b, i+6); ok && utf16.DecodeRune(r, r2) != utf8.RuneError {
				i += 6
			} else {
				return string(b[i : i+6])
			}
		}
		i += 5
	}
	return ""
}

// escape decodes the \uXXXX escape at b[i:], ok false when there is none.
func escape(b []byte, i int) (r rune, ok bool) {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
	return rune(n), err == nil
}

// CellAt returns the index in Cells of the cell holding byte offset at of
// the text, -1 when none does.
func (nb *Notebook) CellAt(at int) int {
	for lo, hi := 0, len(nb.Cells); lo < hi; {
		m := (lo + hi) / 2
		switch c := nb.Cells[m]; {
		case at < c.Start:
			hi = m
		case at >= c.End:
			lo = m + 1
		default:
			return m
		}
	}
	return -1
}

// Join returns the notebook's definitions, in its text's offsets and
// lines, sorted as outline.Find returns them: own[i] are those the tree of
// cell nb.Cells[i] has, fences[i] those of its embedded regions (a
// Markdown cell's fences), each in the cell's offsets and lines. A
// Markdown cell's own sections are headings: each scopes what follows it
// in the notebook, in its cell and the later ones, up to the next heading
// of its level or a higher one (or the end), so a heading cell is the
// scope of the cells under it, nested by level as in a Markdown file
// (docs/design.md, "Notebooks").
func (nb *Notebook) Join(own, fences [][]outline.Def) []outline.Def {
	var all []outline.Def
	type open struct{ at, level int } // a heading in all
	var stack []open
	line := 0 // lines above the cell
	for i, c := range nb.Cells {
		for k, defs := range [][]outline.Def{own[i], fences[i]} {
			for _, d := range defs {
				d.Start, d.End, d.Line = d.Start+c.Start, d.End+c.Start, d.Line+line
				level := 0
				if c.Kind == "markdown" && k == 0 && d.Kind == "section" {
					// A heading whose level cannot be read ends at the next.
					level = cmp.Or(HeadingLevel(nb.Text[d.Start:c.End]), 6)
				}
				if level > 0 {
					for len(stack) > 0 && stack[len(stack)-1].level >= level {
						all[stack[len(stack)-1].at].End = d.Start
						stack = stack[:len(stack)-1]
					}
					d.End = len(nb.Text)
					stack = append(stack, open{len(all), level})
				}
				all = append(all, d)
			}
		}
		line += bytes.Count(nb.Text[c.Start:c.End], []byte{'\n'})
	}
	return outline.Merge(all)
}

// HeadingLevel returns the level of the Markdown heading text starts with:
// 1 to 6 for an ATX heading (`## Cleaning`), 1 or 2 for a setext one (a
// paragraph underlined with `=` or `-`), 0 when it starts with neither.
func HeadingLevel(text []byte) int {
	first, rest, _ := bytes.Cut(text, []byte{'\n'})
	if t := bytes.TrimLeft(first, " "); len(first)-len(t) <= 3 && len(t) > 0 && t[0] == '#' {
		n := len(t) - len(bytes.TrimLeft(t, "#"))
		if n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t' || t[n] == '\r') {
			return n
		}
		return 0
	}
	for len(rest) > 0 {
		var l []byte
		l, rest, _ = bytes.Cut(rest, []byte{'\n'})
		l = bytes.TrimSpace(l)
		switch {
		case len(l) == 0:
			return 0 // a blank line ends the paragraph: no underline
		case len(bytes.Trim(l, "=")) == 0:
			return 1
		case len(bytes.Trim(l, "-")) == 0:
			return 2
		}
	}
	return 0
}
