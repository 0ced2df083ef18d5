package verify

import (
	"slices"
	"strconv"
	"strings"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/inject"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
	"github.com/castchunk/castchunk/internal/record"
)

// checkLanguages checks a record's languages as chunk computes them
// (record.File.LanguagesAt): its language first, then the file's own and
// its embedded regions' that the chunk holds text of. The regions are
// found again, as chunk finds them, once per file, and only for a file
// whose records say it has some (host_language); a notebook's are its
// cells. A file without regions gives [language]. A chunk of several
// pieces holds the text of its ranges only (record.File.LanguagesOf); nil
// ranges (not a chunk's pieces) leave nothing to compare with.
func (v *Verifier) checkLanguages(f *file, r *record.Record, ranges []chunk.Piece) {
	if r.Languages == nil || r.Language == "" || ranges == nil {
		return // the decoder requires the field; a record built by hand may lack it
	}
	if !f.regionsDone {
		f.regionsDone = true
		f.regions, f.regionsOK = fileRegions(f, r)
	}
	if !f.regionsOK {
		return // the host could not be parsed again: nothing to compare with
	}
	src := record.File{Language: r.HostLanguage, Src: f.data, Regions: f.regions}
	if r.HostLanguage == "" {
		src.Regions = nil
	}
	want := src.LanguagesOf(nil, ranges, r.Language)
	if !slices.Equal(r.Languages, want) {
		v.problem(r, "languages is "+quoteList(r.Languages)+", the file gives "+quoteList(want)+" (language first, then the host's and the regions' the chunk holds text of, in order)")
	}
}

// fileRegions returns the embedded regions of the current file as chunk
// found them, and false when they cannot be found again (the host's parse
// gave up, or its language is unknown).
func fileRegions(f *file, r *record.Record) ([]record.Region, bool) {
	if f.notebook != nil {
		kernel, md := lang.ForInfoString(f.notebook.Kernel), lang.ByName("markdown")
		if kernel == nil {
			return nil, false
		}
		var regions []record.Region
		for _, c := range f.notebook.Cells {
			l := kernel
			if c.Kind == "markdown" {
				l = md
			}
			regions = append(regions, record.Region{Start: c.Start, End: c.End, From: c.Start, To: c.End, Language: l.Name})
		}
		return regions, true
	}
	host := lang.ByName(r.HostLanguage)
	if r.HostLanguage == "" || !inject.Has(host) {
		return nil, true
	}
	p := parse.New(0)
	defer p.Close()
	tree, err := p.Parse(f.data, host)
	if err != nil {
		return nil, false
	}
	defer tree.Close()
	finder := inject.NewFinder()
	defer finder.Close()
	regions, err := finder.Regions(p, host, f.data, tree)
	if err != nil {
		return nil, false
	}
	defer inject.Close(regions)
	return inject.Records(regions), true
}

// quoteList spells a list of strings as JSON does, for a message.
func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ",") + "]"
}
