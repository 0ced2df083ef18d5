package outline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

// TestPythonStdlibAgreement checks Python scopes against Python's own
// parser on a large real tree: the standard library (or the folder
// CASTCHUNK_PYLIB names; "1" asks python3 where its stdlib is). It writes a
// record per 10-line window of every .py file, with the window's scope, and
// has scripts/scopecheck.py compare each with the def/class chain `ast`
// finds around the window's first non-blank line; at least 99.5% must
// agree. Skipped unless CASTCHUNK_PYLIB is set (it takes a while).
func TestPythonStdlibAgreement(t *testing.T) {
	root := os.Getenv("CASTCHUNK_PYLIB")
	if root == "" {
		t.Skip("set CASTCHUNK_PYLIB=DIR (or 1 for python3's stdlib) to compare Python scopes with ast")
	}
	if root == "1" {
		out, err := exec.Command("python3", "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output()
		if err != nil {
			t.Fatal(err)
		}
		root = strings.TrimSpace(string(out))
	}
	recs := filepath.Join(t.TempDir(), "records.jsonl")
	n := writeWindowRecords(t, root, recs, 10)
	t.Logf("%d records from %s", n, root)
	cmd := exec.Command("python3", "../../scripts/scopecheck.py", "--root", root, "--min-agreement", "0.995", "--show", "40", recs)
	out, err := cmd.CombinedOutput()
	t.Logf("scopecheck.py:\n%s", out)
	if err != nil {
		t.Fatal(err)
	}
}

// windowRecord is the part of a castchunk record scopecheck.py reads.
type windowRecord struct {
	Path      string       `json:"path"`
	Language  string       `json:"language"`
	StartLine int          `json:"start_line"`
	StartByte int          `json:"start_byte"`
	Content   string       `json:"content"`
	Scope     []scopeEntry `json:"scope"`
}

type scopeEntry struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Line int    `json:"line"`
}

// writeWindowRecords writes a record per n-line window of each Python file
// under root to out, and returns how many.
func writeWindowRecords(t *testing.T, root, out string, n int) int {
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	py := lang.ByName("python")
	p, finder := parse.New(0), NewFinder()
	defer p.Close()
	defer finder.Close()
	count := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || lang.ForPath(path) != py || strings.Contains(path, "site-packages") {
			return err
		}
		src, defs := findFile(t, p, finder, py, path)
		if bytes.IndexByte(src[:min(len(src), 8000)], 0) >= 0 {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		x := NewIndex(defs)
		var scope []Def
		for i, win := range lineWindows(src, n) {
			scope = x.Scope(scope[:0], src, win[0], win[1])
			rec := windowRecord{Path: filepath.ToSlash(rel), Language: "python", StartLine: i*n + 1,
				StartByte: win[0], Content: string(src[win[0]:win[1]])}
			for _, d := range scope {
				rec.Scope = append(rec.Scope, scopeEntry{d.Kind, d.Name, d.Line})
			}
			if err := enc.Encode(rec); err != nil {
				return err
			}
			count++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return count
}
