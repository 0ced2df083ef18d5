package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/cast"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/sliding"
)

// checkHeader is check with the header format verify expects.
func checkHeader(root string, budget int, header enrich.HeaderFormat, recs []record.Record) (*Verifier, []string) {
	var lines []string
	v := &Verifier{Root: root, Budget: budget, Header: header, Report: func(p Problem) { lines = append(lines, p.String()) }}
	for i := range recs {
		r := recs[i]
		v.Add(&r)
	}
	v.Finish()
	return v, lines
}

// headerSrc has a definition whose line is longer than a header holds,
// and a CRLF line, besides hostileSrc's class and functions.
var headerSrc = hostileSrc + "\r\n\r\ndef long_one(" + strings.Repeat("argument, ", 20) + "last):\r\n    x = 1\r\n    return x\r\n"

// TestVerifyHeaderFormats: for every header format, what chunk writes (by
// cast and by overlapping sliding windows, with --context and without)
// passes verify told that format; with --context, verify told another
// format finds the headers wrong, since it rebuilds each one from the
// record's scope and the file's lines.
func TestVerifyHeaderFormats(t *testing.T) {
	root := t.TempDir()
	names := []string{"app.py", "with space/line\nbreak.py"}
	for _, name := range names {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(headerSrc), 0o644); err != nil {
			t.Skipf("the file system refuses %q: %v", name, err)
		}
	}
	const budget = 150
	for _, setup := range []chunk.Setup{
		{Method: &cast.Method, Budget: budget},
		{Method: &sliding.Method, Budget: budget, Values: chunk.Values{"overlap-lines": 1}},
	} {
		for _, f := range enrich.HeaderFormats() {
			for _, context := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/context=%v", setup.Method.Name, f.Name, context), func(t *testing.T) {
					recs := decodeAll(t, chunkInProcess(t, root, names, setup, enrich.Options{Text: true, Context: context, Header: f.Name}))
					if v, lines := checkHeader(root, budget, f.Name, recs); v.Problems != 0 {
						t.Fatalf("%d problems in castchunk's own output, the first: %q", v.Problems, lines[:min(len(lines), 5)])
					}
					if !context {
						return
					}
					for _, g := range enrich.HeaderFormats() {
						if g.Name == f.Name {
							continue
						}
						if v, _ := checkHeader(root, budget, g.Name, recs); v.Problems == 0 {
							t.Errorf("records with %s headers verified as %s: no problem", f.Name, g.Name)
						}
					}
				})
			}
		}
	}
}

// TestVerifyDefiningLines: verify reads a defining line again from the
// file: one changed in the text, or in the file, is a problem of the
// chunk; one cut short is expected cut as enrich cuts it.
func TestVerifyDefiningLines(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "app.py"), []byte(headerSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	const budget = 150
	for _, f := range []enrich.HeaderFormat{enrich.SignatureHeader, enrich.LinesHeader} {
		clean := decodeAll(t, chunkInProcess(t, root, []string{"app.py"}, chunk.Setup{Method: &cast.Method, Budget: budget}, enrich.Options{Text: true, Context: true, Header: f}))
		header := func(r record.Record) string { h, _ := strings.CutSuffix(r.Text, r.Content); return h }
		// The defining lines, trimmed and cut.
		cut := strings.TrimRight(("def long_one(" + strings.Repeat("argument, ", 20))[:enrich.MaxLine-len("…")], " ") + "…"
		handle := slices.IndexFunc(clean, func(r record.Record) bool { return strings.HasSuffix(header(r), "\ndef handle(self, request):\n") })
		long := slices.IndexFunc(clean, func(r record.Record) bool { return strings.HasSuffix(header(r), "\n"+cut+"\n") })
		if handle < 0 || long < 0 {
			t.Fatalf("%s: no header ends with handle's or long_one's defining line (%d records)", f, len(clean))
		}
		recs := slices.Clone(clean)
		recs[handle].Text = strings.Replace(recs[handle].Text, "def handle(self, request):", "def handle(self, req):", 1)
		fixTextIDs(recs)
		if _, lines := checkHeader(root, budget, f, recs); len(lines) != 1 || !strings.Contains(lines[0], fmt.Sprintf("chunk %d: text's header is", handle)) {
			t.Errorf("%s: a changed defining line: %q", f, lines)
		}
		// The file changed on the defining line, its length kept: the
		// chunks that hold the line differ from the file, and those that
		// show it in their headers have the wrong header.
		changed := strings.Replace(headerSrc, "def handle(self, request):", "def handle(self, requesx):", 1)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "app.py"), []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		_, lines := checkHeader(dir, budget, f, clean)
		var holds, shows int
		for _, r := range clean {
			if strings.Contains(r.Content, "requesx") || strings.Contains(r.Content, "request):") {
				holds++
			}
			if strings.Contains(header(r), "def handle(self, request):") {
				shows++
			}
		}
		headers := 0
		for _, l := range lines {
			if strings.Contains(l, "text's header is") && strings.Contains(l, "requesx") {
				headers++
			}
		}
		if holds == 0 || headers != shows || len(lines) != holds+shows {
			t.Errorf("%s: the file changed: %d chunks hold the line, %d show it; problems %q", f, holds, shows, lines)
		}
	}
}

// TestVerifyHeaderShape: without the scope field, verify checks the shape
// of the header its format allows: the path alone for path, one line for
// names, two for signature.
func TestVerifyHeaderShape(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "app.py"), []byte(headerSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	const budget = 150
	recs := decodeAll(t, chunkInProcess(t, root, []string{"app.py"}, chunk.Setup{Method: &cast.Method, Budget: budget}, enrich.Options{Text: true, Header: enrich.SignatureHeader}))
	two := slices.IndexFunc(recs, func(r record.Record) bool {
		h, _ := strings.CutSuffix(r.Text, r.Content)
		return strings.Count(h, "\n") == 3
	})
	if two < 0 {
		t.Fatal("no header with a scope line and a defining line")
	}
	for _, c := range []struct {
		f    enrich.HeaderFormat
		want int // problems
	}{{enrich.SignatureHeader, 0}, {enrich.LinesHeader, 0}, {enrich.ScopeHeader, 1}, {enrich.NamesHeader, 1}} {
		v, lines := checkHeader(root, budget, c.f, recs)
		if c.f == enrich.ScopeHeader || c.f == enrich.NamesHeader {
			// Every header with its defining line is one line too many.
			c.want = 0
			for _, r := range recs {
				if h, _ := strings.CutSuffix(r.Text, r.Content); strings.Count(h, "\n") == 3 {
					c.want++
				}
			}
		}
		if v.Problems != c.want {
			t.Errorf("signature headers verified as %s: %d problems, want %d: %q", c.f, v.Problems, c.want, lines)
		}
	}
	if v, _ := checkHeader(root, budget, enrich.PathHeader, recs); v.Problems == 0 {
		t.Error("signature headers verified as path: no problem")
	}
}
