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
	"github.com/castchunk/castchunk/internal/sliding"
)

// TestDefinitionsStayWhole measures, on a real Python tree named by
// CASTCHUNK_INTEGRITY_DIR (skipped otherwise), the share of functions and
// classes whose own size fits the budget that lie wholly in one chunk, for
// cast and for the sliding window. cast must keep every one of them whole
// (guarantee 4); the sliding figure is reported for comparison.
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
		methods := []method{castMethod(budget), slidingMethod("sliding", sliding.Options{Budget: budget})}
		fits := 0
		whole := make([]int, len(methods))
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
			spans := make([][]chunk.Span, len(methods))
			for i, m := range methods {
				spans[i] = m.chunk(f)
			}
			for _, n := range f.nodes {
				if !definitions[n.kind] || f.size(n.start, n.end) > budget {
					continue
				}
				fits++
				for i := range methods {
					if c := chunkAt(spans[i], n.start); c >= 0 && spans[i][c].End >= n.end {
						whole[i]++
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range methods {
			t.Logf("budget %d, %s: %d of %d functions and classes that fit lie wholly in one chunk (%.2f%%) over %d files",
				budget, m.name, whole[i], fits, 100*float64(whole[i])/float64(max(fits, 1)), files)
		}
		if whole[0] != fits {
			t.Errorf("budget %d: cast split %d definitions that fit", budget, fits-whole[0])
		}
	}
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
