package conformance

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"github.com/castchunk/castchunk/internal/record"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/method"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden from the chunkers' output")

// goldenSetups are the configurations whose output is kept for review:
// every method with its defaults at budget 300, and the default method at
// 2000 too. A method added to the registry has no golden files yet: the
// test asks for them (go test -update writes them, for review).
func goldenSetups(ms []*chunk.Method) []chunk.Setup {
	var out []chunk.Setup
	for _, m := range ms {
		if m == method.Default() {
			out = append(out, chunk.Setup{Method: m, Budget: 2000})
		}
		out = append(out, chunk.Setup{Method: m, Budget: 300})
	}
	return out
}

// render is the reviewable form of a file's chunks: per chunk a header line
// (ending with the chunk's language when it lies in an embedded region, a
// Markdown fence's rust, and with its pieces when it has several), then
// the content verbatim. A chunk that does not end with a line break is
// followed by one and a marker line, as diff marks a missing final newline,
// so that the next header starts on a line of its own.
func render(f *corpusFile, spans []chunk.Span) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s: %d bytes, %d chunks\n", f.rel, len(f.src), len(spans))
	file := record.File{Language: f.lang.Name, Src: f.src, Regions: f.regions}
	for i, s := range spans {
		last := s.End - 1
		if last < s.Start {
			last = s.Start
		}
		fmt.Fprintf(&b, "--- chunk %d  bytes [%d,%d)  lines %d-%d  size %d",
			i, s.Start, s.End, f.line(s.Start), f.line(last), s.Size)
		if l := file.LanguageAt(s.Start, s.End); l != f.lang.Name {
			fmt.Fprintf(&b, "  %s", l) // in an embedded region
		}
		if !s.Whole() {
			b.WriteString("  pieces")
			for _, p := range s.Pieces {
				fmt.Fprintf(&b, " [%d,%d)", p.Start, p.End)
			}
		}
		b.WriteByte('\n')
		b.Write(s.Text(f.src))
		if s.End > s.Start && f.src[s.End-1] != '\n' {
			b.WriteString("\n\\ no line break at the end of the chunk\n")
		}
	}
	return b.Bytes()
}

// goldenDirOf is the directory of a configuration's golden files.
func goldenDirOf(c config) string {
	return filepath.Join(goldenDir, fmt.Sprintf("%s-%d", c.name, c.Budget))
}

func goldenPath(c config, rel string) string {
	return filepath.Join(goldenDirOf(c), filepath.FromSlash(rel)+".txt")
}

// TestGolden compares the rendered chunks of every corpus file with the
// golden files; with -update it rewrites them (and removes stale ones).
func TestGolden(t *testing.T) {
	files := loadCorpus(t)
	dirs := map[string]bool{}
	for _, s := range goldenSetups(methods()) {
		c := newConfig(t, s)
		dir := goldenDirOf(c)
		dirs[filepath.Base(dir)] = true
		if *update {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}
		want := map[string]bool{}
		for _, f := range files {
			path := goldenPath(c, f.rel)
			want[path] = true
			got := render(f, c.chunk(f))
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			old, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%v (run go test -update to create it)", err)
				continue
			}
			if !bytes.Equal(old, got) {
				t.Errorf("%s: chunks differ from %s (-golden +got):\n%s", f.rel, path, cmp.Diff(string(old), string(got)))
			}
		}
		var stale []string
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !want[path] {
				stale = append(stale, path)
			}
			return err
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) { // missing: reported per file above
			t.Fatal(err)
		}
		sort.Strings(stale)
		for _, s := range stale {
			t.Errorf("%s: golden file of no corpus file", s)
		}
	}
	// A directory of a method that is gone, or of a budget no longer kept.
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if dirs[e.Name()] {
			continue
		}
		path := filepath.Join(goldenDir, e.Name())
		if !*update {
			t.Errorf("%s: golden directory of no configuration (go test -update removes it)", path)
		} else if err := os.RemoveAll(path); err != nil {
			t.Fatal(err)
		}
	}
}
