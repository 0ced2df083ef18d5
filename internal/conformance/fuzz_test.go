package conformance

import (
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

// The fuzz targets feed arbitrary UTF-8 text to the chunkers and check the
// guarantees of docs/design.md (1 verbatim and tiling, 2 nothing dropped, 3
// budget, 4 syntactic integrity for cast, 6 determinism) with the same
// independent checkers as TestProperties. The boundary, comment and crumb
// rules are quality rules, checked on the corpus only. Text that is not
// valid UTF-8 never reaches a chunker (the pipeline skips such files), so
// the targets skip it too. Seeds: every corpus file.

// fuzzLanguages are tried in turn, chosen by a fuzzed byte.
var fuzzLanguages = lang.All()

func addSeeds(f *testing.F) {
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
				f.Add(src, uint16(300), uint8(i))
				f.Add(src, uint16(50), uint8(i))
			}
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte("\ufeffx = ''\r\n\ty = 1"), uint16(3), uint8(0))
	f.Add([]byte(""), uint16(1), uint8(1))
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
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// fuzzParser is shared by the iterations of a fuzz worker process.
var fuzzParser = parse.New(10 * time.Second)

func FuzzCast(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte, budget uint16, which uint8) {
		cf := fuzzFile(t, fuzzParser, src, which)
		m := castMethod(int(budget%4000) + 1)
		spans := m.chunk(cf)
		errs := checkSizes(cf, m.budget, spans)
		errs = append(errs, checkTiling(cf, spans)...)
		if len(errs) == 0 {
			errs = append(errs, checkIntegrity(cf, m.budget, spans)...)
		}
		if again := m.chunk(cf); !sameSpans(again, spans) {
			errs = append(errs, "chunking twice gave different spans")
		}
		for _, e := range errs {
			t.Errorf("%s at budget %d: %s", cf.lang.Name, m.budget, e)
		}
	})
}

func FuzzSliding(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte, budget uint16, mode uint8) {
		cf := fuzzFile(t, fuzzParser, src, 0)
		b := int(budget%4000) + 1
		opts := []sliding.Options{
			{Budget: b},
			{Budget: b, OverlapLines: 3},
			{Budget: b, WindowLines: 20, Stride: 10},
			{Budget: b, WindowLines: 5, Stride: 5},
		}
		m := slidingMethod("fuzz", opts[int(mode)%len(opts)])
		spans := m.chunk(cf)
		for _, e := range checkSpans(cf, m, spans) {
			t.Errorf("%+v: %s", m.opt, e)
		}
		if again := m.chunk(cf); !sameSpans(again, spans) {
			t.Errorf("%+v: chunking twice gave different spans", m.opt)
		}
	})
}

func sameSpans(a, b []chunk.Span) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
