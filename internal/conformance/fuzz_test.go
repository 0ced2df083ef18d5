package conformance

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

// FuzzMethods feeds arbitrary UTF-8 text to every configuration of every
// registered method (chosen by a fuzzed byte, as is the language) and
// checks the guarantees of docs/design.md (1 verbatim and tiling, 2 nothing
// dropped, 3 budget, 4 syntactic integrity for a method that reads the
// tree, 6 determinism) with the same independent checkers as
// TestProperties, and the rules of a method whose rules hold for any text
// (sliding's). The boundary, comment and crumb rules of cast are quality
// rules, checked on the corpus only. Text that is not valid UTF-8 never
// reaches a chunker (the pipeline skips such files), so the target skips
// it too. Seeds: every corpus file, the configurations taken in turn.

// deepSeeds nest deep in the ways grammars (and their external scanners)
// keep a level of state for: brackets, block quotes, sequences, tags,
// indentation, strings in strings.
var deepSeeds = []string{
	strings.Repeat("(", 400) + strings.Repeat(")", 400) + "\n",
	strings.Repeat("[", 400) + strings.Repeat("]", 400) + "\n",
	strings.Repeat("{", 400) + strings.Repeat("}", 400) + "\n",
	strings.Repeat(">", 300) + " x\n",
	strings.Repeat("- ", 300) + "x\n",
	strings.Repeat("<div>", 300) + strings.Repeat("</div>", 300) + "\n",
	indented(300),
	strings.Repeat(`"${`, 200) + strings.Repeat("}\"", 200) + "\n",
}

// indented is n lines, each indented one step more than the last.
func indented(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	return b.String()
}

// fuzzLanguages are tried in turn, chosen by a fuzzed byte.
var fuzzLanguages = lang.All()

func addSeeds(f *testing.F) {
	n := 0
	err := filepath.WalkDir(corpusDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		l := lang.ForPath(path)
		if l == nil {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, fl := range fuzzLanguages {
			if fl == l {
				f.Add(src, uint16(300), uint8(i), uint8(n))
				f.Add(src, uint16(50), uint8(i), uint8(n+1))
				n += 2
			}
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	// Deep nesting, in every language: the shapes that overflowed external
	// scanners (Markdown's block quotes, YAML's sequences) or nest deep in
	// any grammar.
	for i := range fuzzLanguages {
		for _, deep := range deepSeeds {
			f.Add([]byte(deep), uint16(300), uint8(i), uint8(n))
			n++
		}
	}
	f.Add([]byte("\ufeffx = ''\r\n\ty = 1"), uint16(3), uint8(0), uint8(0))
	f.Add([]byte(""), uint16(1), uint8(1), uint8(1))
}

func fuzzFile(t *testing.T, p *parse.Parser, src []byte, which uint8) *corpusFile {
	src = append([]byte(nil), src...) // the engine may reuse its buffer
	if !utf8.Valid(src) {
		t.Skip("not UTF-8")
	}
	l := fuzzLanguages[int(which)%len(fuzzLanguages)]
	name := "fuzz." + l.Name // a label only: the language is l
	if len(l.Extensions) > 0 {
		name = "fuzz" + l.Extensions[0]
	}
	f, err := newCorpusFile(p, name, l, src)
	if errors.Is(err, parse.ErrScannerState) {
		t.Skip("the grammar's scanner state outgrew tree-sitter's buffer: the pipeline chunks such a file with the fallback")
	}
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// fuzzParser is shared by the iterations of a fuzz worker process.
var fuzzParser = parse.New(10 * time.Second)

func FuzzMethods(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte, budget uint16, which, mode uint8) {
		cf := fuzzFile(t, fuzzParser, src, which)
		ss := setups(t, methods(), int(budget%4000)+1)
		c := newConfig(t, ss[int(mode)%len(ss)])
		spans := c.chunk(cf)
		errs := checkGuarantees(cf, c, spans)
		if r := rules[c.Method]; len(errs) == 0 && r.anyText {
			errs = r.check(cf, c, spans)
		}
		if again := c.chunk(cf); !sameSpans(again, spans) {
			errs = append(errs, "chunking twice gave different spans")
		}
		for _, e := range errs {
			t.Errorf("%s, %s at budget %d: %s", cf.lang.Name, c.name, c.Budget, e)
		}
	})
}

func sameSpans(a, b []chunk.Span) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}
