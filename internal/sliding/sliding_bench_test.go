package sliding_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/sliding"
)

// benchCorpus returns the sources of $CASTCHUNK_BENCH_DIR, else of
// testdata/corpus (files castchunk would chunk), else one generated file.
// The second result names the source.
func benchCorpus(b *testing.B) ([][]byte, string) {
	b.Helper()
	dir := os.Getenv("CASTCHUNK_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata", "corpus")
	}
	var files [][]byte
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() || lang.ForPath(filepath.ToSlash(p)) == nil {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(src) > 0 {
			files = append(files, src)
		}
		return nil
	})
	if err == nil && len(files) > 0 {
		return files, dir
	}
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "def helper_%d(path):\n    # Look path up.\n    return [x * %d for x in range(%d)]\n\n", i, i, i%13)
		if i%50 == 0 {
			sb.WriteString("BLOB = '" + strings.Repeat("QUJD", 1000) + "'\n") // a line over the budget
		}
	}
	return [][]byte{[]byte(sb.String())}, "a generated file"
}

// BenchmarkChunk measures the sliding chunker alone, in its three shapes.
func BenchmarkChunk(b *testing.B) {
	files, from := benchCorpus(b)
	b.Logf("corpus: %s (%d files)", from, len(files))
	var total int64
	for _, f := range files {
		total += int64(len(f))
	}
	for _, bc := range []struct {
		name string
		opt  sliding.Options
	}{
		{"budget", sliding.Options{Budget: 2000}},
		{"budget-overlap", sliding.Options{Budget: 2000, OverlapLines: 5}},
		{"window20-stride10", sliding.Options{Budget: 2000, WindowLines: 20, Stride: 10}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := sliding.New(bc.opt)
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				for _, f := range files {
					c.Chunk(chunk.Input{Src: f, Budget: chunk.Budget{Size: bc.opt.Budget}})
				}
			}
		})
	}
}
