package walk

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// benchTree makes 100,000 files: 100 top directories of 10 directories of
// 100 files each, a tenth of them *.pb.go, a few under vendor/ and docs/.
func benchTree(b *testing.B, dir string) {
	b.Helper()
	for i := range 100 {
		top := fmt.Sprintf("d%03d", i)
		switch i {
		case 1:
			top = "vendor"
		case 2:
			top = "docs"
		}
		for j := range 10 {
			d := filepath.Join(dir, top, fmt.Sprintf("s%d", j))
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
			for k := range 100 {
				name := fmt.Sprintf("f%03d.go", k)
				if k%10 == 0 {
					name = fmt.Sprintf("f%03d.pb.go", k)
				}
				if err := os.WriteFile(filepath.Join(d, name), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

// Attribute files for the benchmark: rules that matter to no linguist
// attribute, and rules that do (plus one file in each top directory).
const (
	benchIrrelevant = "* text=auto\n*.png binary\n*.go diff=golang\n*.sh eol=lf\n"
	benchRelevant   = benchIrrelevant + "[attr]gen linguist-generated -diff\n*.pb.go gen\nvendor/** linguist-vendored\n" +
		"docs/** linguist-documentation\n*.h linguist-language=C++\n/d050/** -linguist-generated\n*_gen.go linguist-generated\n"
)

func benchAttrFiles(b *testing.B, dir string, relevant bool) {
	b.Helper()
	if !relevant {
		writeFileB(b, filepath.Join(dir, ".gitattributes"), benchIrrelevant)
		return
	}
	writeFileB(b, filepath.Join(dir, ".gitattributes"), benchRelevant)
	for i := 3; i < 100; i++ {
		writeFileB(b, filepath.Join(dir, fmt.Sprintf("d%03d", i), ".gitattributes"), "s1/*.go linguist-vendored\nf00*.go -linguist-vendored\n")
	}
}

func writeFileB(b *testing.B, p, content string) {
	b.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkList100k lists 100,000 files, outside a repository and in one
// (all tracked), without attribute files, with rules that matter to no
// linguist attribute, and with rules that do. The tree is made once.
func BenchmarkList100k(b *testing.B) {
	dir := b.TempDir()
	benchTree(b, dir)
	b.Chdir(dir)
	for _, repo := range []bool{false, true} {
		if repo {
			if _, err := exec.LookPath("git"); err != nil {
				b.Skip("git not installed")
			}
			for _, args := range [][]string{{"init", "-q"}, {"add", "."}} {
				cmd := exec.Command("git", args...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
		}
		for _, attrs := range []string{"none", "irrelevant", "relevant"} {
			if attrs != "none" {
				benchAttrFiles(b, dir, attrs == "relevant")
			}
			b.Run(fmt.Sprintf("repo=%v/attrs=%s", repo, attrs), func(b *testing.B) {
				for b.Loop() {
					files, _, err := List(nil, Options{})
					if err != nil || len(files) != 100_000 {
						b.Fatalf("%d files, %v", len(files), err)
					}
				}
			})
		}
		// No attribute files for the next round.
		paths, _ := filepath.Glob(filepath.Join(dir, "*", ".gitattributes"))
		for _, p := range append(paths, filepath.Join(dir, ".gitattributes")) {
			os.Remove(p)
		}
	}
}

// BenchmarkAttrLookup looks up the attributes of 100,000 paths in the
// order the index lists them, with the rules of BenchmarkList100k already
// read: the cost attributes add per file.
func BenchmarkAttrLookup(b *testing.B) {
	var paths []string
	for i := range 100 {
		top := fmt.Sprintf("d%03d", i)
		switch i {
		case 1:
			top = "vendor"
		case 2:
			top = "docs"
		}
		for j := range 10 {
			for k := range 100 {
				paths = append(paths, fmt.Sprintf("%s/s%d/f%03d.go", top, j, k))
			}
		}
	}
	for _, relevant := range []bool{false, true} {
		b.Run(fmt.Sprintf("relevant=%v", relevant), func(b *testing.B) {
			dir := b.TempDir()
			benchAttrDirs(b, dir)
			benchAttrFiles(b, dir, relevant)
			w := &walker{}
			s := w.attrScopeFor(dir, nil, ".")
			for b.Loop() {
				for _, p := range paths {
					w.attrs(s, p, p)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(paths)), "ns/file")
		})
	}
}

// benchAttrDirs makes the top directories of benchTree, without files.
func benchAttrDirs(b *testing.B, dir string) {
	b.Helper()
	for i := 3; i < 100; i++ {
		if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("d%03d", i)), 0o755); err != nil {
			b.Fatal(err)
		}
	}
}
