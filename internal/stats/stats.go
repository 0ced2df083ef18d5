// Package stats summarises chunks: files, chunks and bytes per language, the
// size distribution against the budget (and the chunks over it), files
// skipped by reason and files of unsupported languages by extension. Both
// `castchunk chunk --stats` and `castchunk stats` report through it, so the
// two always agree on what they measure.
package stats

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
)

// Summary accumulates counts; the zero value with Budget set is ready.
type Summary struct {
	Budget      int // chunk budget the sizes are compared with; 0 when unknown
	languages   map[string]*group
	skipped     map[string]int
	unsupported map[string]int // by extension
	fallback    int
	syntax      int
	empty       int
	repos       map[string]*RepoLine // by name; nil when no record names a repository
}

// RepoLine is the tally of one repository of an index (records with repo).
type RepoLine struct {
	Files  int `json:"files"`
	Chunks int `json:"chunks"`
}

// AddRepo counts one chunked file of repository name, of chunks records.
func (s *Summary) AddRepo(name string, chunks int) {
	if s.repos == nil {
		s.repos = map[string]*RepoLine{}
	}
	l := s.repos[name]
	if l == nil {
		l = &RepoLine{}
		s.repos[name] = l
	}
	l.Files++
	l.Chunks += chunks
}

// group is the tally of one language (or of everything).
type group struct {
	files, chunks int
	bytes         int64
	sizes         []int32
}

// tinyShare is the size, as a share of the budget, under which a chunk
// counts as tiny (a crumb) in the report.
const tinyShare = 0.05

// AddFile counts one chunked file of the given language.
func (s *Summary) AddFile(language string, bytes int) {
	g := s.group(language)
	g.files++
	g.bytes += int64(bytes)
}

// AddChunk counts one chunk of the given language. Sizes are kept as
// int32: a size above math.MaxInt32 (no real chunk) counts as
// math.MaxInt32, a negative one as 0.
func (s *Summary) AddChunk(language string, size int) {
	g := s.group(language)
	g.chunks++
	g.sizes = append(g.sizes, int32(min(max(size, 0), math.MaxInt32)))
}

// Skip counts a file left out, by reason ("binary", "too large", …).
func (s *Summary) Skip(reason string) {
	if s.skipped == nil {
		s.skipped = map[string]int{}
	}
	s.skipped[reason]++
}

// Unsupported counts a file skipped because no grammar reads it, by its
// extension (".js"); a file without one counts under its base name
// ("Makefile"), which says more than a bare "no extension".
func (s *Summary) Unsupported(p string) {
	if s.unsupported == nil {
		s.unsupported = map[string]int{}
	}
	s.unsupported[UnsupportedKey(p)]++
}

// UnsupportedKey is the key Unsupported counts a path under: its extension,
// or its name when it has none ("Dockerfile").
func UnsupportedKey(p string) string {
	base := path.Base(p)
	if ext := path.Ext(base); ext != "" && ext != "." {
		return ext
	}
	return base
}

// Fallback counts a file chunked with the sliding method because it could
// not be parsed.
func (s *Summary) Fallback() { s.fallback++ }

// Empty counts a file that yielded no chunk. It is not among the files of
// a language, so the figures agree with those read back from the records.
func (s *Summary) Empty() { s.empty++ }

// SyntaxErrors counts a file whose tree has syntax errors.
func (s *Summary) SyntaxErrors() { s.syntax++ }

func (s *Summary) group(language string) *group {
	if s.languages == nil {
		s.languages = map[string]*group{}
	}
	g := s.languages[language]
	if g == nil {
		g = &group{}
		s.languages[language] = g
	}
	return g
}

// Dist is a size distribution. Median and P90 are nearest-rank
// percentiles (see percentile). MeanShare and TinyShare are 0 when the
// budget is unknown; WriteJSON then leaves them out, and prints them (0
// included) when it is known.
type Dist struct {
	Min       int     `json:"min"`
	Median    int     `json:"median"`
	P90       int     `json:"p90"`
	Max       int     `json:"max"`
	Mean      float64 `json:"mean"`
	MeanShare float64 `json:"mean_share,omitempty"` // mean / budget
	TinyShare float64 `json:"tiny_share,omitempty"` // share of chunks under 5% of the budget
}

// Line is the report for one language or for all.
type Line struct {
	Language string `json:"language"`
	Files    int    `json:"files"`
	Chunks   int    `json:"chunks"`
	Bytes    int64  `json:"bytes"`
	Sizes    Dist   `json:"sizes"`
}

// Report is the whole summary, as `--json` prints it (see MarshalJSON for
// the fields printed only when the budget is known).
type Report struct {
	Budget    int    `json:"budget,omitempty"`
	Languages []Line `json:"languages"`
	Total     Line   `json:"total"`
	// OverBudget counts the chunks larger than the budget (0 when the
	// budget is unknown). castchunk makes none, so a count here means the
	// records were made with another budget than the one given.
	OverBudget   int            `json:"over_budget"`
	Skipped      map[string]int `json:"skipped,omitempty"`
	Unsupported  map[string]int `json:"unsupported,omitempty"` // files skipped for want of a grammar, by extension (see Summary.Unsupported)
	Fallback     int            `json:"sliding_fallback,omitempty"`
	SyntaxErrors int            `json:"files_with_syntax_errors,omitempty"`
	Empty        int            `json:"empty_files,omitempty"`
	Histogram    []Bin          `json:"histogram,omitempty"`
	// Repositories are the files and chunks of each repository, when the
	// records name repositories.
	Repositories map[string]RepoLine `json:"repositories,omitempty"`
}

// Bin is one bar of the size histogram: chunks with Lo <= size < Hi.
type Bin struct {
	Lo    int `json:"lo"`
	Hi    int `json:"hi"`
	Count int `json:"count"`
}

// Report computes the figures.
func (s *Summary) Report() Report {
	r := Report{
		Budget: s.Budget, Skipped: maps.Clone(s.skipped), Unsupported: maps.Clone(s.unsupported),
		Fallback: s.fallback, SyntaxErrors: s.syntax, Empty: s.empty,
	}
	for name, l := range s.repos {
		if r.Repositories == nil {
			r.Repositories = map[string]RepoLine{}
		}
		r.Repositories[name] = *l
	}
	var names []string
	for name := range s.languages {
		names = append(names, name)
	}
	sort.Strings(names)
	all := &group{}
	for _, name := range names {
		g := s.languages[name]
		r.Languages = append(r.Languages, s.line(name, g))
		all.files += g.files
		all.chunks += g.chunks
		all.bytes += g.bytes
		all.sizes = append(all.sizes, g.sizes...)
	}
	r.Total = s.line("all", all)
	r.Histogram = s.histogram(all.sizes)
	if s.Budget > 0 {
		for _, v := range all.sizes {
			if int(v) > s.Budget {
				r.OverBudget++
			}
		}
	}
	return r
}

func (s *Summary) line(name string, g *group) Line {
	return Line{Language: name, Files: g.files, Chunks: g.chunks, Bytes: g.bytes, Sizes: s.dist(g.sizes)}
}

// dist sorts sizes in place and describes them.
func (s *Summary) dist(sizes []int32) Dist {
	if len(sizes) == 0 {
		return Dist{}
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	var sum int64
	tiny := 0
	for _, v := range sizes {
		sum += int64(v)
		if s.Budget > 0 && float64(v) < tinyShare*float64(s.Budget) {
			tiny++
		}
	}
	d := Dist{
		Min:    int(sizes[0]),
		Median: percentile(sizes, 50),
		P90:    percentile(sizes, 90),
		Max:    int(sizes[len(sizes)-1]),
		Mean:   float64(sum) / float64(len(sizes)),
	}
	if s.Budget > 0 {
		d.MeanShare = d.Mean / float64(s.Budget)
		d.TinyShare = float64(tiny) / float64(len(sizes))
	}
	return d
}

// percentile is the nearest-rank p-th percentile of the sorted sizes: the
// value at 1-based rank ceil(p/100 * n). It is always one of the sizes;
// the median (p = 50) is at rank ceil(n/2), the lower middle value for an
// even n; p90 of two sizes is the larger, of ten the ninth.
func percentile(sorted []int32, p int) int {
	rank := (p*len(sorted) + 99) / 100
	return int(sorted[max(rank, 1)-1])
}

// histogram makes up to ten bars over [0, budget] (or [0, max] without a
// budget); the last bar ends just past the top, so it holds the top itself.
// The top is kept below math.MaxInt, so that the end of the last bar is an
// int too (sizes, at most math.MaxInt32, all fall in a bar).
func (s *Summary) histogram(sizes []int32) []Bin {
	if len(sizes) == 0 {
		return nil
	}
	top := max(s.Budget, 0)
	for _, v := range sizes {
		top = max(top, int(v))
	}
	top = min(top, math.MaxInt-1)
	bars := min(10, top+1)
	width := (top + 1) / bars
	bins := make([]Bin, bars)
	for i := range bins {
		bins[i] = Bin{Lo: i * width, Hi: (i + 1) * width}
	}
	bins[bars-1].Hi = top + 1
	for _, v := range sizes {
		bins[min(int(v)/width, bars-1)].Count++
	}
	return bins
}

// WriteText prints the report for people: one column per figure, each
// header one word, and when the budget is known a legend for the shares.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %7s %8s %10s %6s %6s %6s %6s %7s", "language", "files", "chunks", "MB", "min", "median", "p90", "max", "mean")
	if r.Budget > 0 {
		fmt.Fprintf(&b, " %6s %6s", "mean%", "tiny%")
	}
	b.WriteString("\n")
	for _, l := range append(r.Languages, r.Total) {
		d := l.Sizes
		fmt.Fprintf(&b, "%-12s %7d %8d %10.2f %6d %6d %6d %6d %7.1f", l.Language, l.Files, l.Chunks, float64(l.Bytes)/1e6, d.Min, d.Median, d.P90, d.Max, d.Mean)
		if r.Budget > 0 {
			fmt.Fprintf(&b, " %5.1f%% %5.1f%%", 100*d.MeanShare, 100*d.TinyShare)
		}
		b.WriteString("\n")
	}
	if r.Budget > 0 {
		fmt.Fprintf(&b, "mean%%: mean size as a share of the budget (%d); tiny%%: chunks under %g%% of it\n", r.Budget, 100*tinyShare)
	}
	if r.OverBudget > 0 {
		chunks := "chunks are"
		if r.OverBudget == 1 {
			chunks = "chunk is"
		}
		fmt.Fprintf(&b, "warning: %d %s larger than the budget of %d (were the records made with another --max-size?)\n", r.OverBudget, chunks, r.Budget)
	}
	if len(r.Skipped) > 0 {
		var reasons []string
		for reason, n := range r.Skipped {
			reasons = append(reasons, fmt.Sprintf("%s %d", reason, n))
		}
		sort.Strings(reasons)
		fmt.Fprintf(&b, "skipped files: %s\n", strings.Join(reasons, ", "))
	}
	if len(r.Unsupported) > 0 {
		writeUnsupported(&b, r.Unsupported)
	}
	if r.Fallback > 0 {
		fmt.Fprintf(&b, "chunked with sliding windows after a failed parse: %d\n", r.Fallback)
	}
	if r.Empty > 0 {
		fmt.Fprintf(&b, "empty files (no chunks): %d\n", r.Empty)
	}
	if r.SyntaxErrors > 0 {
		fmt.Fprintf(&b, "files with syntax errors (chunked by cast anyway): %d\n", r.SyntaxErrors)
	}
	writeRepos(&b, r.Repositories)
	writeHistogram(&b, r.Histogram)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRepos writes the repositories' files and chunks, by name.
func writeRepos(b *strings.Builder, repos map[string]RepoLine) {
	if len(repos) == 0 {
		return
	}
	names := slices.Sorted(maps.Keys(repos))
	fmt.Fprintf(b, "%d repositories:\n", len(names))
	for _, n := range names {
		fmt.Fprintf(b, "  %-24s %7d files %8d chunks\n", n, repos[n].Files, repos[n].Chunks)
	}
}

// unsupportedShown is how many extensions the text report names.
const unsupportedShown = 10

// writeUnsupported names the extensions of unsupported files, most files
// first (then by name), the first unsupportedShown of them.
func writeUnsupported(b *strings.Builder, counts map[string]int) {
	fmt.Fprintf(b, "unsupported files (no grammar): %s\n", UnsupportedText(counts))
}

// UnsupportedText lists counts of unsupported files by key, most first:
// ".txt 4, .rst 3, and 2 more (5 files)".
func UnsupportedText(counts map[string]int) string {
	type entry struct {
		key string
		n   int
	}
	var es []entry
	for k, n := range counts {
		es = append(es, entry{k, n})
	}
	slices.SortFunc(es, func(x, y entry) int {
		return cmp.Or(cmp.Compare(y.n, x.n), strings.Compare(x.key, y.key))
	})
	var parts []string
	for _, e := range es[:min(len(es), unsupportedShown)] {
		parts = append(parts, fmt.Sprintf("%s %d", e.key, e.n))
	}
	if rest := es[min(len(es), unsupportedShown):]; len(rest) > 0 {
		files := 0
		for _, e := range rest {
			files += e.n
		}
		parts = append(parts, fmt.Sprintf("and %d more (%d files)", len(rest), files))
	}
	return strings.Join(parts, ", ")
}

// writeHistogram draws the bars with '#', 40 for the fullest.
func writeHistogram(b *strings.Builder, bins []Bin) {
	most := 0
	for _, bin := range bins {
		most = max(most, bin.Count)
	}
	if most == 0 {
		return
	}
	b.WriteString("chunk sizes:\n")
	for _, bin := range bins {
		fmt.Fprintf(b, "  %6d-%-6d %8d %s\n", bin.Lo, bin.Hi-1, bin.Count, strings.Repeat("#", (bin.Count*40+most-1)/most))
	}
}

// MarshalJSON writes the report with the struct's field names, the
// budget-dependent fields (over_budget, and mean_share and tiny_share of
// every size distribution) present whenever the budget is known, 0
// included, and absent when it is not.
func (r Report) MarshalJSON() ([]byte, error) {
	type jsonDist struct {
		Min       int      `json:"min"`
		Median    int      `json:"median"`
		P90       int      `json:"p90"`
		Max       int      `json:"max"`
		Mean      float64  `json:"mean"`
		MeanShare *float64 `json:"mean_share,omitempty"`
		TinyShare *float64 `json:"tiny_share,omitempty"`
	}
	type jsonLine struct {
		Language string   `json:"language"`
		Files    int      `json:"files"`
		Chunks   int      `json:"chunks"`
		Bytes    int64    `json:"bytes"`
		Sizes    jsonDist `json:"sizes"`
	}
	type jsonReport struct {
		Budget       int            `json:"budget,omitempty"`
		Languages    []jsonLine     `json:"languages"`
		Total        jsonLine       `json:"total"`
		OverBudget   *int           `json:"over_budget,omitempty"`
		Skipped      map[string]int `json:"skipped,omitempty"`
		Unsupported  map[string]int `json:"unsupported,omitempty"`
		Fallback     int            `json:"sliding_fallback,omitempty"`
		SyntaxErrors int            `json:"files_with_syntax_errors,omitempty"`
		Empty        int            `json:"empty_files,omitempty"`
		Histogram    []Bin          `json:"histogram,omitempty"`
	}
	budgeted := r.Budget > 0
	line := func(l Line) jsonLine {
		d := l.Sizes
		jd := jsonDist{Min: d.Min, Median: d.Median, P90: d.P90, Max: d.Max, Mean: d.Mean}
		if budgeted {
			jd.MeanShare, jd.TinyShare = &d.MeanShare, &d.TinyShare
		}
		return jsonLine{Language: l.Language, Files: l.Files, Chunks: l.Chunks, Bytes: l.Bytes, Sizes: jd}
	}
	j := jsonReport{
		Budget: r.Budget, Total: line(r.Total), Skipped: r.Skipped, Unsupported: r.Unsupported,
		Fallback: r.Fallback, SyntaxErrors: r.SyntaxErrors, Empty: r.Empty, Histogram: r.Histogram,
	}
	if r.Languages != nil {
		j.Languages = []jsonLine{}
		for _, l := range r.Languages {
			j.Languages = append(j.Languages, line(l))
		}
	}
	if budgeted {
		j.OverBudget = &r.OverBudget
	}
	return json.Marshal(j)
}

// WriteJSON prints the report as one JSON document.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
