package cast_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/cast"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

// benchFile is one source file with its language.
type benchFile struct {
	path string
	lang *lang.Language
	src  []byte
}

// benchCorpus returns the files of $CASTCHUNK_BENCH_DIR, else of
// testdata/corpus, else one generated Python file. The second result names
// the source.
func benchCorpus(b *testing.B) ([]benchFile, string) {
	b.Helper()
	dir := os.Getenv("CASTCHUNK_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata", "corpus")
	}
	var files []benchFile
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		l := lang.ForPath(filepath.ToSlash(p))
		if d.IsDir() || !d.Type().IsRegular() || l == nil {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(src) > 0 {
			files = append(files, benchFile{path: p, lang: l, src: src})
		}
		return nil
	})
	if err == nil && len(files) > 0 {
		return files, dir
	}
	return []benchFile{{path: "generated.py", lang: lang.ByName("python"), src: generatedPython(1 << 20)}}, "a generated Python file"
}

// generatedPython returns about size bytes of valid Python: functions and
// classes, some larger than the default budget.
func generatedPython(size int) []byte {
	var sb strings.Builder
	sb.WriteString("\"\"\"Generated for BenchmarkChunk.\"\"\"\n\nimport os\n")
	for i := 0; sb.Len() < size; i++ {
		fmt.Fprintf(&sb, "\n\n# Helper number %d.\ndef helper_%d(path, *, limit=%d):\n    \"\"\"Return a summary of path.\"\"\"\n    result = {}\n", i, i, i%97)
		for j := range 3 + i%40 {
			fmt.Fprintf(&sb, "    if len(result) < limit and os.path.exists(path):\n        result[%q] = [x * %d for x in range(%d)]\n", fmt.Sprint("key", j), j, i%13)
		}
		sb.WriteString("    return result\n")
		if i%5 == 0 {
			fmt.Fprintf(&sb, "\n\nclass Record%d:\n    size: int = %d\n\n    def total(self):\n        return self.size * %d\n", i, i, i%7)
		}
	}
	return []byte(sb.String())
}

// BenchmarkChunk measures the cast chunker alone: parsing is done once,
// outside the timed loop. One sub-benchmark per language, and "all".
func BenchmarkChunk(b *testing.B) {
	files, from := benchCorpus(b)
	b.Logf("corpus: %s (%d files)", from, len(files))
	p := parse.New(0)
	defer p.Close()
	trees := make([]*sitter.Tree, len(files))
	for i, f := range files {
		tree, err := p.Parse(f.src, f.lang)
		if err != nil {
			b.Fatalf("%s: %v", f.path, err)
		}
		trees[i] = tree
	}
	defer func() {
		for _, t := range trees {
			t.Close()
		}
	}()

	byLang := map[string][]int{}
	for i, f := range files {
		byLang[f.lang.Name] = append(byLang[f.lang.Name], i)
		byLang["all"] = append(byLang["all"], i)
	}
	names := make([]string, 0, len(byLang))
	for name := range byLang {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		idx := byLang[name]
		b.Run(name, func(b *testing.B) {
			var total int64
			for _, i := range idx {
				total += int64(len(files[i].src))
			}
			b.SetBytes(total)
			c := cast.New()
			b.ReportAllocs()
			for b.Loop() {
				for _, i := range idx {
					c.Chunk(chunk.Input{Src: files[i].src, Tree: trees[i], Budget: chunk.Budget{Size: 2000}})
				}
			}
		})
	}
}
