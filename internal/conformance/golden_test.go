package conformance

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/sliding"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden from the chunkers' output")

// goldenMethods are the configurations whose output is kept for review.
func goldenMethods() []method {
	return []method{
		castMethod(2000),
		castMethod(300),
		slidingMethod("sliding", sliding.Options{Budget: 300}),
	}
}

// render is the reviewable form of a file's chunks: per chunk a header line,
// then the content verbatim. A chunk that does not end with a line break is
// followed by one and a marker line, as diff marks a missing final newline,
// so that the next header starts on a line of its own.
func render(f *corpusFile, spans []chunk.Span) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s: %d bytes, %d chunks\n", f.rel, len(f.src), len(spans))
	for i, s := range spans {
		last := s.End - 1
		if last < s.Start {
			last = s.Start
		}
		fmt.Fprintf(&b, "--- chunk %d  bytes [%d,%d)  lines %d-%d  size %d\n",
			i, s.Start, s.End, f.line(s.Start), f.line(last), s.Size)
		b.Write(f.src[s.Start:s.End])
		if s.End > s.Start && f.src[s.End-1] != '\n' {
			b.WriteString("\n\\ no line break at the end of the chunk\n")
		}
	}
	return b.Bytes()
}

func goldenPath(m method, rel string) string {
	return filepath.Join(goldenDir, fmt.Sprintf("%s-%d", m.name, m.budget), filepath.FromSlash(rel)+".txt")
}

// TestGolden compares the rendered chunks of every corpus file with the
// golden files; with -update it rewrites them (and removes stale ones).
func TestGolden(t *testing.T) {
	files := loadCorpus(t)
	for _, m := range goldenMethods() {
		dir := filepath.Join(goldenDir, fmt.Sprintf("%s-%d", m.name, m.budget))
		if *update {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}
		want := map[string]bool{}
		for _, f := range files {
			path := goldenPath(m, f.rel)
			want[path] = true
			got := render(f, m.chunk(f))
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
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(stale)
		for _, s := range stale {
			t.Errorf("%s: golden file of no corpus file", s)
		}
	}
}
