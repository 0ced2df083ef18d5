package outline

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

// BenchmarkFind measures definitions against parsing over testdata/corpus:
// "parse" parses every file, "parse+find" parses and finds definitions,
// "find" finds them in trees parsed beforehand, "find-whole" too but with
// the query run over the whole tree (findWhole, the way Find worked before
// package match). MB/s are of source bytes; the cost of definitions is
// find's time relative to parse's.
//
//	go test ./internal/outline -run '^$' -bench Find -benchtime 20x
func BenchmarkFind(b *testing.B) {
	type file struct {
		l   *lang.Language
		src []byte
	}
	var files []file
	var total int64
	for l, paths := range corpusFiles(b) {
		for _, p := range paths {
			src, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, file{l, src})
			total += int64(len(src))
		}
	}
	p, f := parse.New(0), NewFinder()
	defer p.Close()
	defer f.Close()
	parseOne := func(fl file) *sitter.Tree {
		tree, err := p.Parse(fl.src, fl.l)
		if err != nil {
			b.Fatal(err)
		}
		return tree
	}
	findOne := func(fl file, tree *sitter.Tree) {
		if _, err := f.Find(fl.l, fl.src, tree); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			for _, fl := range files {
				parseOne(fl).Close()
			}
		}
	})
	b.Run("parse+find", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			for _, fl := range files {
				tree := parseOne(fl)
				findOne(fl, tree)
				tree.Close()
			}
		}
	})
	trees := make([]*sitter.Tree, len(files))
	for i, fl := range files {
		trees[i] = parseOne(fl)
		defer trees[i].Close()
	}
	b.Run("find", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			for i, fl := range files {
				findOne(fl, trees[i])
			}
		}
	})
	b.Run("find-whole", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			for i, fl := range files {
				c, err := f.query(fl.l)
				if err != nil {
					b.Fatal(err)
				}
				f.findWhole(c, fl.src, trees[i])
			}
		}
	})
}

// TestFindCostOnTree times parsing and Find, one file at a time, over every
// file of the folder OUTLINE_COSTDIR names (site-packages skipped), and
// logs both rates and Find's time as a share of parsing's: the figure to
// hold against the whole of castchunk's time on the same folder
// (`castchunk chunk --jobs 1 DIR`). Skipped unless set.
func TestFindCostOnTree(t *testing.T) {
	dir := os.Getenv("OUTLINE_COSTDIR")
	if dir == "" {
		t.Skip("set OUTLINE_COSTDIR=DIR to time Find against parsing on a tree")
	}
	p, f := parse.New(0), NewFinder()
	defer p.Close()
	defer f.Close()
	var tp, tf time.Duration
	var n, nd int
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.Name() == "site-packages" {
				return filepath.SkipDir
			}
			return nil
		}
		l := lang.ForPath(path)
		if l == nil {
			return nil
		}
		src, _ := os.ReadFile(path)
		if len(src) > 10<<20 {
			return nil
		}
		t0 := time.Now()
		tree, err := p.Parse(src, l)
		if err != nil {
			return nil
		}
		t1 := time.Now()
		defs, _ := f.Find(l, src, tree)
		tf += time.Since(t1)
		tp += t1.Sub(t0)
		n += len(src)
		nd += len(defs)
		tree.Close()
		return nil
	})
	t.Logf("%d bytes, %d defs: parse %v (%.1f MB/s) find %v (%.1f MB/s) = %.0f%% of parse", n, nd, tp, float64(n)/tp.Seconds()/1e6, tf, float64(n)/tf.Seconds()/1e6, 100*tf.Seconds()/tp.Seconds())
}
