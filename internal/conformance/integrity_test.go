package conformance

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

// TestDefinitionsStayWhole measures, on a real Python tree named by
// CASTCHUNK_INTEGRITY_DIR (skipped otherwise), the share of functions and
// classes whose own size fits the budget that lie wholly in one chunk, for
// every registered method with its defaults. A method that reads the tree
// must keep every one of them whole (guarantee 4); the figures of the
// others are reported for comparison.
//
//	CASTCHUNK_INTEGRITY_DIR=/usr/lib/python3.11 go test ./internal/conformance -run DefinitionsStayWhole -v
func TestDefinitionsStayWhole(t *testing.T) {
	dir := os.Getenv("CASTCHUNK_INTEGRITY_DIR")
	if dir == "" {
		t.Skip("set CASTCHUNK_INTEGRITY_DIR to a Python source tree")
	}
	definitions := map[string]bool{"function_definition": true, "class_definition": true, "decorated_definition": true}
	p := parse.New(10 * time.Second)
	defer p.Close()
	py := lang.ByName("python")
	for _, budget := range []int{2000, 300} {
		var cs []config
		for _, m := range methods() {
			cs = append(cs, newConfig(t, chunk.Setup{Method: m, Budget: budget}))
		}
		fits := 0
		whole := make([]int, len(cs))
		files := 0
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || lang.ForPath(path) != py {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil || !validText(src) {
				return nil // unreadable or not UTF-8: castchunk skips it too
			}
			f, err := newCorpusFile(p, path, py, src)
			if err != nil {
				return nil
			}
			files++
			spans := make([][]chunk.Span, len(cs))
			for i, c := range cs {
				spans[i] = c.chunk(f)
			}
			for _, n := range f.nodes {
				if !definitions[n.kind] || f.size(n.start, n.end) > budget {
					continue
				}
				fits++
				for i := range cs {
					if inOneChunk(spans[i], n.start, n.end) {
						whole[i]++
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if files == 0 || fits == 0 {
			t.Fatalf("%s: no Python file with a definition that fits the budget %d", dir, budget)
		}
		for i, c := range cs {
			t.Logf("budget %d, %s: %d of %d functions and classes that fit lie wholly in one chunk (%.2f%%) over %d files",
				budget, c.name, whole[i], fits, 100*float64(whole[i])/float64(fits), files)
			// A method whose chunks cover part of the file keeps whole
			// what it picks (function: its functions, functionRules), not
			// classes.
			if c.Method.NeedsTree && !c.Method.Partial && whole[i] != fits {
				t.Errorf("budget %d: %s split %d definitions that fit", budget, c.name, fits-whole[i])
			}
		}
	}
}

// inOneChunk reports whether some chunk holds all of [start, end).
func inOneChunk(spans []chunk.Span, start, end int) bool {
	for _, s := range spans {
		if s.Start <= start && end <= s.End {
			return true
		}
	}
	return false
}

// validText mirrors the pipeline's policy: no NUL in the first 8000 bytes,
// valid UTF-8.
func validText(src []byte) bool {
	for _, c := range src[:min(len(src), 8000)] {
		if c == 0 {
			return false
		}
	}
	return utf8Valid(src)
}

func utf8Valid(b []byte) bool { return utf8.Valid(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))) }
