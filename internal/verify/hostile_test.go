package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/cast"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/sliding"
)

// hostileSrc is a Python file with nested definitions, so that chunks of a
// small budget get a scope line in their header.
const hostileSrc = `import os


class App:
    """An app."""

    def handle(self, request):
        value = request.get("x")
        if value:
            return value * 2
        return None

    def other(self):
        return [i for i in range(10)]


def top(a, b):
    total = a + b
    for i in range(total):
        print(i)
    return total


class Store:
    def __init__(self, path):
        self.path = path
        self.items = {}

    def load(self):
        with open(self.path) as f:
            for line in f:
                key, _, value = line.partition("=")
                self.items[key.strip()] = value.strip()
        return self.items

    def save(self):
        with open(self.path, "w") as f:
            for key, value in sorted(self.items.items()):
                f.write(f"{key} = {value}\n")
`

// hostileNames returns file names that chunk accepts (valid UTF-8, no NUL,
// no '/') and that are awkward in a header or a message: line breaks, a
// lone CR, tabs, every other control character, U+2028 and U+2029, a
// scope-like " > ", and very long names; then n random ones built from
// those pieces. Each ends in .py, so it is chunked as Python.
func hostileNames(n int) []string {
	names := []string{
		"line\nbreak.py",
		"\nleading.py",
		"trailing\n.py",
		"crlf\r\nname.py",
		"lone\rcr.py",
		"\r.py",
		"two\n\nbreaks.py",
		"tab\there.py",
		"ls\u2028ps\u2029.py",
		"nel\u0085.py",
		"del\x7f.py",
		"scope > like.py",
		"class App > method handle\n.py",
		" spaces .py",
		strings.Repeat("long", 62) + ".py", // 251 bytes: the longest name most file systems take
		strings.Repeat("\n", 200) + ".py",
	}
	for c := rune(1); c < 0x20; c++ {
		names = append(names, fmt.Sprintf("ctl%c%02x.py", c, c))
	}
	pieces := []string{"a", "Z", "\n", "\r", "\r\n", "\t", "\x01", "\x1b[31m", "\x7f", "\u2028", "\u2029", "\u0085", "é", "日本", " ", " > ", "\\", "\"", "%q", "..", "-"}
	rng := rand.New(rand.NewPCG(19, 2028))
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "r%d", i)
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if rng.IntN(8) == 0 {
			b.WriteString(strings.Repeat(pieces[rng.IntN(len(pieces))], 40))
		}
		name := b.String()
		if len(name) > 250 {
			name = name[:250]
			for !utf8.ValidString(name) {
				name = name[:len(name)-1]
			}
		}
		names = append(names, name+".py")
	}
	return names
}

// TestVerifyAcceptsHostileNames is the property that verify accepts
// exactly what chunk writes: files with hostile names, chunked in process
// by the pipeline with every optional field that depends on the path
// (--embed-text, with --context for the scope line), by cast and by
// sliding windows, encoded as chunk encodes them, give no problem.
func TestVerifyAcceptsHostileNames(t *testing.T) {
	root := t.TempDir()
	var names []string
	for _, name := range hostileNames(60) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(hostileSrc), 0o644); err != nil {
			t.Logf("skipping %q: the file system refuses it: %v", name, err)
			continue
		}
		names = append(names, name)
	}
	if len(names) < 40 {
		t.Fatalf("only %d hostile names could be created", len(names))
	}
	for _, setup := range []chunk.Setup{
		{Method: &cast.Method, Budget: hostileBudget},
		{Method: &sliding.Method, Budget: hostileBudget, Values: chunk.Values{"overlap-lines": 1}},
	} {
		for _, opt := range []enrich.Options{{Text: true}, {Text: true, Context: true}} {
			t.Run(fmt.Sprintf("%s/context=%v", setup.Method.Name, opt.Context), func(t *testing.T) {
				out := chunkInProcess(t, root, names, setup, opt)
				recs := decodeAll(t, out)
				if len(recs) <= len(names) {
					t.Fatalf("%d records for %d files: the budget should split every file", len(recs), len(names))
				}
				if opt.Context && !slices.ContainsFunc(recs, func(r record.Record) bool { return r.Scope != "[]" }) {
					t.Fatal("no chunk has a scope: the scope line of the header is not exercised")
				}
				v, lines := check(root, hostileBudget, recs)
				if v.Files != len(names) {
					t.Errorf("verify saw %d files, want %d", v.Files, len(names))
				}
				if v.Problems != 0 {
					t.Errorf("%d problems in castchunk's own output, the first: %q", v.Problems, lines[:min(len(lines), 10)])
				}
			})
		}
	}
}

// decodeAll decodes records with every optional field, as verify reads
// them.
func decodeAll(t *testing.T, out []byte) []record.Record {
	t.Helper()
	dec := record.NewDecoder(bytes.NewReader(out))
	dec.Schema = record.All()
	var recs []record.Record
	for {
		var r record.Record
		if err := dec.Decode(&r); err != nil {
			if errors.Is(err, io.EOF) {
				return recs
			}
			t.Fatalf("decode: %v", err)
		}
		recs = append(recs, r)
	}
}

// hostileBudget is small enough that hostileSrc takes several chunks, some
// inside App (a scope line), and large enough for a 251-byte name's header.
const hostileBudget = 400

// chunkInProcess chunks the files names under root as castchunk chunk
// does: the pipeline, then the encoder with the schema the flags ask for.
func chunkInProcess(t *testing.T, root string, names []string, setup chunk.Setup, opt enrich.Options) []byte {
	t.Helper()
	cfg := pipeline.Config{Jobs: 2, Setup: setup, Enrich: opt}
	var jobs []pipeline.Job
	for _, name := range names {
		jobs = append(jobs, cfg.NewJob(plan.File{Path: name}, filepath.Join(root, name), int64(len(hostileSrc))))
	}
	flags := map[string]bool{"embed-text": opt.Text, "context": opt.Context}
	schema, err := record.Select(record.OptionalFor(func(flag string) bool { return flags[flag] })...)
	if err != nil {
		t.Fatal(err)
	}
	enc := &record.Encoder{Schema: schema}
	var out []byte
	err = pipeline.Run(context.Background(), jobs, cfg, func(r *pipeline.Result) error {
		if r.Outcome != plan.Chunked || r.Message != "" {
			return fmt.Errorf("%q: not chunked as planned: %v %s", r.Job.Path, r.Outcome, r.Message)
		}
		f := record.File{Path: r.Job.Path, Language: r.Language, Method: r.Method.Name, Src: r.Src, Extras: r.Extras}
		var err error
		out, err = enc.AppendFile(out, f, r.Spans)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVerifyTextHeader: the header verify expects is enrich's, so a text
// whose first line is the raw path of a name with a line break is refused
// (chunk never writes it), and so is a scope line that is not the record's
// scope.
func TestVerifyTextHeader(t *testing.T) {
	root := t.TempDir()
	name := "line\nbreak.py"
	if err := os.WriteFile(filepath.Join(root, name), []byte(hostileSrc), 0o644); err != nil {
		t.Skipf("the file system refuses %q: %v", name, err)
	}
	const budget = 120 // App is split: a chunk inside it has a scope
	clean := decodeAll(t, chunkInProcess(t, root, []string{name}, chunk.Setup{Method: &cast.Method, Budget: budget}, enrich.Options{Text: true, Context: true}))
	scoped := slices.IndexFunc(clean, func(r record.Record) bool { return r.Scope != "[]" })
	if scoped < 0 {
		t.Fatal("no chunk has a scope")
	}
	if _, lines := check(root, budget, clean); len(lines) != 0 {
		t.Fatalf("clean records: %q", lines)
	}
	for _, c := range []struct {
		what   string
		at     int
		change func(r *record.Record)
		want   string
	}{
		{"the raw path on the first line", 0, func(r *record.Record) {
			r.Text = name + "\n" + strings.TrimPrefix(r.Text, "line break.py\n")
		}, "text is not a header"},
		{"another scope line", scoped, func(r *record.Record) {
			r.Text = strings.Replace(r.Text, "class App", "class Other", 1)
		}, "text's header is"},
		{"no scope line for a scope", scoped, func(r *record.Record) {
			r.Text = "line break.py\n" + r.Content
		}, "text's header is"},
		{"a scope that is not definitions", scoped, func(r *record.Record) {
			r.Scope = `["class App"]`
		}, "scope is not a list of definitions"},
	} {
		recs := slices.Clone(clean)
		c.change(&recs[c.at])
		if recs[c.at].Text == clean[c.at].Text && recs[c.at].Scope == clean[c.at].Scope {
			t.Fatalf("%s: the change changed nothing", c.what)
		}
		fixTextIDs(recs)
		_, lines := check(root, budget, recs)
		if len(lines) != 1 || !strings.Contains(lines[0], fmt.Sprintf("chunk %d: %s", c.at, c.want)) {
			t.Errorf("%s: got %q, want one problem at chunk %d saying %q", c.what, lines, c.at, c.want)
		}
	}
	// Without the scope field (--embed-text without --context), the scope
	// line cannot be checked, and is accepted.
	recs := slices.Clone(clean)
	for i := range recs {
		recs[i].Scope, recs[i].Defines = "", ""
	}
	if _, lines := check(root, budget, recs); len(lines) != 0 {
		t.Errorf("records without scope: %q", lines)
	}
}

// fixTextIDs gives every record the id the recipe gives it over its text.
func fixTextIDs(recs []record.Record) {
	seen := map[string]int{}
	for i := range recs {
		key := recs[i].Path + "\x00" + recs[i].Text
		recs[i].ID = record.ID("", recs[i].Path, []byte(recs[i].Text), seen[key])
		seen[key]++
	}
}
