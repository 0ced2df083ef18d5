package conformance

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/castchunk/castchunk/internal/cast"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/declaration"
	"github.com/castchunk/castchunk/internal/function"
	"github.com/castchunk/castchunk/internal/sliding"
)

// maxReported caps the violations reported per file and configuration.
const maxReported = 10

// TestProperties checks every guarantee of docs/design.md on every corpus
// file, for every configuration of every registered method at every budget,
// and logs a summary of the chunks' sizes per language.
func TestProperties(t *testing.T) { checkProperties(t, methods()) }

// checkProperties is TestProperties for the methods ms.
func checkProperties(t *testing.T, ms []*chunk.Method) {
	files := loadCorpus(t)
	var stats []*summary
	for _, b := range budgets {
		first, fresh := configs(t, ms, b), configs(t, ms, b)
		for k, c := range first {
			sum := &summary{config: c.name, budget: b, defaults: c.name == c.Method.Name, tree: c.Method.NeedsTree, perLang: map[string]*langStats{}}
			stats = append(stats, sum)
			t.Run(fmt.Sprintf("%s-%d", c.name, b), func(t *testing.T) {
				runs := make([][]chunk.Span, len(files))
				for i, f := range files {
					spans := c.chunk(f)
					runs[i] = spans
					report(t, f, checkSpans(f, c, spans))
					sum.add(f, c, spans)
				}
				// Determinism: again with the chunker that has since seen
				// every file, and with a second one that has seen only the
				// files before this one.
				for i, f := range files {
					for _, again := range []config{c, fresh[k]} {
						if d := cmp.Diff(runs[i], again.chunk(f)); d != "" {
							t.Errorf("%s: chunking again gives other spans (-first +again):\n%s", f.rel, d)
						}
					}
				}
			})
		}
	}
	for _, s := range stats {
		if s.defaults {
			s.log(t)
		}
	}
	for _, s := range stats {
		if !s.tree { // with the tree, integrity makes it 0
			t.Logf("%-32s budget %4d: %5d of %6d named nodes that fit the budget are split", s.config, s.budget, s.split, s.fitting)
		}
	}
}

// report fails the test with the first violations of one file.
func report(t *testing.T, f *corpusFile, errs []string) {
	t.Helper()
	for i, e := range errs {
		if i == maxReported {
			t.Errorf("%s: ... and %d more", f.rel, len(errs)-maxReported)
			break
		}
		t.Errorf("%s: %s", f.rel, e)
	}
}

// checkSpans returns every violation by the spans c made of f: of the
// guarantees, then, when they hold, of the rules of c's method.
func checkSpans(f *corpusFile, c config, spans []chunk.Span) []string {
	errs := checkGuarantees(f, c, spans)
	if len(errs) > 0 { // the rules assume sound spans
		return errs
	}
	if r, ok := rules[c.Method]; ok {
		errs = r.check(f, c, spans)
	}
	return errs
}

// checkGuarantees returns the violations of the guarantees every method
// keeps (docs/design.md, "Guarantees"): verbatim content that tiles the
// file, or with overlap covers it in order (1, 2), or for a method whose
// chunks cover part of it (Partial) chunks in order and apart; sizes
// within the budget (3), and for a method that reads the tree and tiles,
// syntactic integrity (4; function's own rule says which nodes it keeps
// whole).
func checkGuarantees(f *corpusFile, c config, spans []chunk.Span) []string {
	errs := checkSizes(f, c.Budget, spans, c.Method.Partial)
	switch {
	case c.Method.Partial:
		errs = append(errs, checkPartial(spans)...)
	case c.overlap:
		errs = append(errs, checkCover(f, spans)...)
	default:
		errs = append(errs, checkTiling(f, spans)...)
	}
	if len(errs) == 0 && c.Method.NeedsTree && !c.Method.Partial {
		errs = append(errs, checkIntegrity(f, c.Budget, spans)...)
	}
	return errs
}

// ruleSet is what a method promises beyond the guarantees: how its own
// chunks are made, from its definition.
type ruleSet struct {
	check func(f *corpusFile, c config, spans []chunk.Span) []string
	// anyText: the rules hold for any text, not only the corpus's, so
	// the fuzz target checks them too.
	anyText bool
	// mutations break spans of the method's configurations against its
	// rules (TestCheckersCatchMutations).
	mutations []mutation
}

// rules are the methods' own rules. A method with none is held to the
// guarantees alone, as a new method is until its rules are written here.
var rules = map[*chunk.Method]ruleSet{
	&cast.Method:        {check: castRules, mutations: castMutations},
	&sliding.Method:     {check: slidingRules, anyText: true, mutations: slidingMutations},
	&function.Method:    {check: functionRules, mutations: functionMutations},
	&declaration.Method: {check: declarationRules, mutations: declarationMutations},
}

// castRules: where cast's boundaries fall (docs/design.md, "Where
// boundaries fall"), comments with their node, no crumbs.
func castRules(f *corpusFile, c config, spans []chunk.Span) []string {
	errs := checkCastBoundaries(f, c.Budget, spans)
	errs = append(errs, checkComments(f, c.Budget, spans)...)
	return append(errs, checkCrumbs(c.Budget, spans)...)
}

// slidingRules: cuts between whole lines, and windows as the options
// define them (sliding.Options): budget windows that take every line that
// fits and share at most the overlap, or fixed windows of N lines.
func slidingRules(f *corpusFile, c config, spans []chunk.Span) []string {
	opt := slidingOptions(c)
	errs := checkLineBoundaries(f, c.Budget, spans)
	if opt.WindowLines > 0 {
		return append(errs, checkFixedWindows(f, opt, spans)...)
	}
	errs = append(errs, checkGreedyLines(f, c.Budget, spans)...)
	return append(errs, checkOverlapping(f, opt.OverlapLines, spans)...)
}

// slidingOptions reads a sliding configuration's values as the method
// defines them: a stride of 0 is the window.
func slidingOptions(c config) sliding.Options {
	opt := sliding.Options{Budget: c.Budget, OverlapLines: c.Value("overlap-lines"), WindowLines: c.Value("window-lines"), Stride: c.Value("stride")}
	if opt.WindowLines > 0 && opt.Stride == 0 {
		opt.Stride = opt.WindowLines
	}
	return opt
}

// checkSizes: every span is a non-empty range of the file, its recorded size
// is the size of its bytes (guarantee 3) and within the budget; an empty
// file has no chunk, and another one has some unless partial (the method
// covers part of a file, maybe none of it).
func checkSizes(f *corpusFile, budget int, spans []chunk.Span, partial bool) []string {
	var errs []string
	if len(f.src) == 0 && len(spans) != 0 {
		errs = append(errs, fmt.Sprintf("empty file gives %d chunks, want none", len(spans)))
	}
	if len(f.src) > 0 && len(spans) == 0 && !partial {
		errs = append(errs, "no chunk for a file that is not empty")
	}
	for i, s := range spans {
		if s.Start < 0 || s.End > len(f.src) || s.Start >= s.End {
			errs = append(errs, fmt.Sprintf("chunk %d: range [%d,%d) is empty or outside the file of %d bytes", i, s.Start, s.End, len(f.src)))
			continue
		}
		if err := chunk.CheckPieces(s); err != nil {
			errs = append(errs, fmt.Sprintf("chunk %d [%d,%d): %v", i, s.Start, s.End, err))
			continue
		}
		content := s.Text(f.src)
		if n := nonSpace(content); s.Size != n {
			errs = append(errs, fmt.Sprintf("chunk %d [%d,%d): recorded size %d, its bytes have %d non-whitespace characters", i, s.Start, s.End, s.Size, n))
		}
		if n := chunk.Size(content); n != nonSpace(content) {
			errs = append(errs, fmt.Sprintf("chunk %d: chunk.Size says %d, the metric %d", i, n, nonSpace(content)))
		}
		if s.Size > budget {
			errs = append(errs, fmt.Sprintf("chunk %d [%d,%d): size %d over the budget %d", i, s.Start, s.End, s.Size, budget))
		}
	}
	return errs
}

// checkTiling: without overlap, the spans tile the file in order and give
// it back byte for byte when concatenated (guarantees 1 and 2).
func checkTiling(f *corpusFile, spans []chunk.Span) []string {
	var errs []string
	pos := 0
	var cat bytes.Buffer
	for i, s := range spans {
		if s.Start != pos {
			errs = append(errs, fmt.Sprintf("chunk %d starts at byte %d, the previous ended at %d", i, s.Start, pos))
		}
		if s.Start >= 0 && s.Start <= s.End && s.End <= len(f.src) {
			cat.Write(f.src[s.Start:s.End])
		}
		pos = s.End
	}
	if pos != len(f.src) {
		errs = append(errs, fmt.Sprintf("chunks end at byte %d, the file has %d", pos, len(f.src)))
	}
	if !bytes.Equal(cat.Bytes(), f.src) {
		errs = append(errs, "the chunks concatenated are not the file")
	}
	return errs
}

// checkPartial: chunks that cover part of the file come in order, each
// after the end of the one before (verbatim content: they are ranges of
// the file, which checkSizes checks).
func checkPartial(spans []chunk.Span) []string {
	var errs []string
	for i := 1; i < len(spans); i++ {
		if p, s := spans[i-1], spans[i]; s.Start < p.End {
			errs = append(errs, fmt.Sprintf("chunk %d starts at byte %d, before the previous ended at %d", i, s.Start, p.End))
		}
	}
	return errs
}

// checkCoverage: the union of the spans is the whole file, with no gap.
func checkCoverage(f *corpusFile, spans []chunk.Span) []string {
	sorted := append([]chunk.Span(nil), spans...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	covered := 0
	for _, s := range sorted {
		if s.Start > covered {
			return []string{fmt.Sprintf("bytes [%d,%d) are in no chunk", covered, s.Start)}
		}
		covered = max(covered, s.End)
	}
	if covered != len(f.src) {
		return []string{fmt.Sprintf("bytes [%d,%d) are in no chunk", covered, len(f.src))}
	}
	return nil
}

// checkCover: with overlap, each chunk starts after the previous one and
// together they cover the file with no gap (guarantees 1 and 2).
func checkCover(f *corpusFile, spans []chunk.Span) []string {
	var errs []string
	for i := 1; i < len(spans); i++ {
		if p, s := spans[i-1], spans[i]; s.Start <= p.Start {
			errs = append(errs, fmt.Sprintf("window %d starts at %d, not after window %d (%d)", i, s.Start, i-1, p.Start))
		}
	}
	return append(errs, checkCoverage(f, spans)...)
}

// checkOverlapping: budget windows end no earlier than the previous one
// and two consecutive windows share at most overlap line breaks (none:
// they tile).
func checkOverlapping(f *corpusFile, overlap int, spans []chunk.Span) []string {
	var errs []string
	for i := 1; i < len(spans); i++ {
		p, s := spans[i-1], spans[i]
		if s.End < p.End {
			errs = append(errs, fmt.Sprintf("window %d ends at %d, before window %d (%d)", i, s.End, i-1, p.End))
		}
		if s.Start < p.End {
			if n := bytes.Count(f.src[s.Start:p.End], []byte("\n")); n > overlap {
				errs = append(errs, fmt.Sprintf("windows %d and %d share %d lines, overlap is %d", i-1, i, n, overlap))
			}
		}
	}
	return errs
}

// lineStarts are the byte offsets where the file's lines start; a final
// line break starts no line.
func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// checkFixedWindows checks the fixed windows against their definition
// (sliding.Options, README): a window of WindowLines lines starts every
// Stride lines; a window over the budget is cut short at the last whole line
// that fits and the next window starts no later than where it ended; a line
// alone over the budget becomes consecutive pieces within the budget; a
// window inside the previous one is left out; the first window reaching the
// end of the file is the last.
func checkFixedWindows(f *corpusFile, opt sliding.Options, spans []chunk.Span) []string {
	var errs []string
	if len(f.src) == 0 {
		return errs
	}
	starts := lineStarts(f.src)
	end := func(l int) int {
		if l < len(starts) {
			return starts[l]
		}
		return len(f.src)
	}
	k, covered := 0, 0
	for first := 0; first < len(starts); {
		last := min(first+opt.WindowLines, len(starts))
		for last > first+1 && f.size(starts[first], end(last)) > opt.Budget {
			last--
		}
		ws, we := starts[first], end(last)
		switch {
		case f.size(ws, we) > opt.Budget: // one line over the budget: pieces tile it
			for pos := ws; pos < we; k++ {
				if k == len(spans) || spans[k].Start != pos || spans[k].End > we {
					return append(errs, fmt.Sprintf("long line %d [%d,%d): no span %d tiling it from byte %d", first+1, ws, we, k, pos))
				}
				pos = spans[k].End
			}
		case we > covered:
			if k == len(spans) || spans[k].Start != ws || spans[k].End != we {
				return append(errs, fmt.Sprintf("window of lines %d-%d [%d,%d): no span %d for it", first+1, last, ws, we, k))
			}
			k++
		}
		covered = max(covered, we)
		if last == len(starts) {
			break
		}
		first = min(first+opt.Stride, last)
	}
	if k != len(spans) {
		errs = append(errs, fmt.Sprintf("%d spans after the last window", len(spans)-k))
	}
	return errs
}

// lineOf returns the bounds of the line holding pos: its first byte and the
// byte after its '\n' (or the end of the file).
func lineOf(src []byte, pos int) (int, int) {
	a := bytes.LastIndexByte(src[:pos], '\n') + 1
	b := len(src)
	if i := bytes.IndexByte(src[pos:], '\n'); i >= 0 {
		b = pos + i + 1
	}
	return a, b
}

// checkLineBoundaries: the sliding chunker cuts between whole lines, and
// inside a line only when that line alone is over the budget, then at a
// code-point boundary.
func checkLineBoundaries(f *corpusFile, budget int, spans []chunk.Span) []string {
	var errs []string
	for i, s := range spans {
		for _, pos := range []int{s.Start, s.End} {
			if pos == 0 || pos == len(f.src) || f.src[pos-1] == '\n' {
				continue
			}
			a, b := lineOf(f.src, pos)
			if f.size(a, b) <= budget {
				errs = append(errs, fmt.Sprintf("chunk %d [%d,%d): cut at byte %d inside line %d, which fits the budget", i, s.Start, s.End, pos, f.line(pos)))
			} else if !utf8.RuneStart(f.src[pos]) {
				errs = append(errs, fmt.Sprintf("chunk %d [%d,%d): cut at byte %d inside a character", i, s.Start, s.End, pos))
			}
		}
	}
	return errs
}

// checkGreedyLines: a budget window that does not reach the end of the file
// ends where the next whole line would not fit.
func checkGreedyLines(f *corpusFile, budget int, spans []chunk.Span) []string {
	var errs []string
	for i, s := range spans {
		if s.End == len(f.src) || f.src[s.End-1] != '\n' {
			continue
		}
		a, b := lineOf(f.src, s.End)
		next := f.size(a, b)
		if next <= budget && s.Size+next <= budget {
			errs = append(errs, fmt.Sprintf("chunk %d [%d,%d) of size %d stops before line %d of size %d, which fits", i, s.Start, s.End, s.Size, f.line(s.End), next))
		}
	}
	return errs
}

// chunkAt returns the index of the chunk holding byte pos of a tiling.
func chunkAt(spans []chunk.Span, pos int) int {
	return sort.Search(len(spans), func(i int) bool { return spans[i].End > pos })
}

// checkIntegrity (guarantee 4): every node of the tree, named or not, whose
// own size fits the budget lies wholly inside one chunk, but whitespace a
// line starts inside (XML's "\n  " between elements), which is a gap. The
// spans tile the file or, overlapping, start in order.
func checkIntegrity(f *corpusFile, budget int, spans []chunk.Span) []string {
	var errs []string
	reach := make([]int, len(spans)) // reach[i]: the index of the furthest end of spans[:i+1]
	for i := range spans {
		if i > 0 && spans[reach[i-1]].End >= spans[i].End {
			reach[i] = reach[i-1]
		} else {
			reach[i] = i
		}
	}
	for _, n := range f.nodes {
		if n.end <= n.start || f.size(n.start, n.end) > budget || f.gap(n) {
			continue
		}
		// The last chunk that starts at or before the node, and of
		// those, the one that reaches furthest.
		k := sort.Search(len(spans), func(i int) bool { return spans[i].Start > n.start }) - 1
		if k < 0 {
			errs = append(errs, fmt.Sprintf("%s node %q [%d,%d) is in no chunk", namedWord(n), n.kind, n.start, n.end))
		} else if i := reach[k]; n.end > spans[i].End {
			errs = append(errs, fmt.Sprintf("%s node %q of size %d, lines %d-%d [%d,%d), is split at byte %d (end of chunk %d)",
				namedWord(n), n.kind, f.size(n.start, n.end), f.line(n.start), f.line(n.end-1), n.start, n.end, spans[i].End, i))
		}
	}
	return errs
}

// gap reports whether node n is whitespace that a line starts inside
// (XML's "\n  " between elements): cast treats it as the whitespace
// between nodes, so a chunk may start inside it, at that line's beginning.
func (f *corpusFile) gap(n node) bool {
	return n.end > n.start && f.size(n.start, n.end) == 0 && bytes.IndexByte(f.src[n.start:n.end-1], '\n') >= 0
}

func namedWord(n node) string {
	if n.named {
		return "named"
	}
	return "anonymous"
}

// splitUnit finds what a cast boundary at pos cuts inside, if anything: a
// leaf node, or a run of text that no child of the deepest node around pos
// covers. It returns the unit's range, or ok == false when pos lies between
// siblings (in whitespace between them, or where one ends and the next
// begins).
func splitUnit(f *corpusFile, pos int) (a, b int, ok bool) {
	deepest := -1
	for i, n := range f.nodes {
		if n.start < pos && pos < n.end && (deepest < 0 || n.depth > f.nodes[deepest].depth) {
			deepest = i
		}
	}
	if deepest < 0 {
		return 0, 0, false
	}
	d := f.nodes[deepest]
	if f.gap(d) {
		return 0, 0, false // whitespace: a gap
	}
	if d.leaf {
		return d.start, d.end, true
	}
	// pos lies between two children (or a child and the parent's edge):
	// cut inside the text between them when that text is not whitespace
	// on both sides of pos.
	lo, hi := d.start, d.end
	for k := deepest + 1; k < len(f.nodes) && f.nodes[k].depth > d.depth; k++ {
		c := f.nodes[k]
		if c.parent != deepest || c.end <= c.start {
			continue
		}
		if c.end <= pos {
			lo = max(lo, c.end)
		}
		if c.start >= pos {
			hi = min(hi, c.start)
		}
	}
	if f.size(lo, pos) == 0 || f.size(pos, hi) == 0 {
		return 0, 0, false
	}
	return lo, hi, true
}

// checkCastBoundaries checks docs/design.md "Where boundaries fall" for cast.
// Between nodes, a chunk after the first starts at the beginning of the
// line holding its first non-whitespace character when the whitespace gap
// before that character holds a line break, and exactly at that character
// otherwise. Inside a token (or text no node covers) larger than the
// budget, the cut is at a line start, or inside a line only when that
// line's part of the token alone is over the budget, and at a code-point
// boundary. No chunk is whitespace only, unless it is the whole file.
func checkCastBoundaries(f *corpusFile, budget int, spans []chunk.Span) []string {
	var errs []string
	for i, s := range spans {
		if s.Size == 0 && len(spans) > 1 {
			errs = append(errs, fmt.Sprintf("chunk %d [%d,%d) is whitespace only", i, s.Start, s.End))
		}
		if i == 0 {
			continue
		}
		pos := s.Start
		if a, b, ok := splitUnit(f, pos); ok {
			if f.size(a, b) <= budget {
				errs = append(errs, fmt.Sprintf("chunk %d starts at byte %d (line %d) inside text [%d,%d) of size %d, which fits the budget", i, pos, f.line(pos), a, b, f.size(a, b)))
				continue
			}
			if !utf8.RuneStart(f.src[pos]) {
				errs = append(errs, fmt.Sprintf("chunk %d starts at byte %d inside a character", i, pos))
			}
			if f.src[pos-1] != '\n' {
				la, lb := lineOf(f.src, pos)
				if f.size(max(a, la), min(b, lb)) <= budget {
					errs = append(errs, fmt.Sprintf("chunk %d starts at byte %d inside line %d of a token that is over the budget, but that line's part fits", i, pos, f.line(pos)))
				}
			}
			continue
		}
		p := pos // just after the last non-whitespace character before pos
		for p > 0 {
			r, w := utf8.DecodeLastRune(f.src[:p])
			if !unicode.IsSpace(r) {
				break
			}
			p -= w
		}
		q := pos // the first non-whitespace character at or after pos
		for q < len(f.src) {
			r, w := utf8.DecodeRune(f.src[q:])
			if !unicode.IsSpace(r) {
				break
			}
			q += w
		}
		want := q
		if nl := bytes.LastIndexByte(f.src[p:q], '\n'); nl >= 0 {
			want = p + nl + 1
		}
		// Guarantee 4 comes first: when the line start lies inside a
		// node that fits (one whose text begins or ends with whitespace,
		// like TSX's jsx_text or C#'s #region line), the cut moves to
		// that node's nearest edge within the gap.
		want = clampOutOfFittingNodes(f, budget, want, p, q)
		if pos != want {
			errs = append(errs, fmt.Sprintf("chunk %d starts at byte %d (line %d), want %d: the gap [%d,%d) before its first character %s",
				i, pos, f.line(pos), want, p, q, gapWords(f.src[p:q])))
		}
	}
	return errs
}

func gapWords(gap []byte) string {
	if bytes.IndexByte(gap, '\n') >= 0 {
		return fmt.Sprintf("holds a line break, so the chunk starts at its line's beginning (gap %q)", gap)
	}
	return fmt.Sprintf("holds no line break, so the chunk starts at that character (gap %q)", gap)
}

// commentRun is a run of extra nodes (comments) directly above a named
// sibling that is not extra: each one line break (and only whitespace)
// above the next, the first not trailing the end of the sibling before it.
type commentRun struct {
	first, last int // the run's first and last extra node
	node        int // the node below
}

// visibleSibling steps from node i through its siblings (dir: prev or next)
// to the first that holds text.
func visibleSibling(f *corpusFile, i int, next bool) int {
	for {
		if next {
			i = f.nodes[i].next
		} else {
			i = f.nodes[i].prev
		}
		if i < 0 || f.nodes[i].end > f.nodes[i].start {
			return i
		}
	}
}

// directlyAbove reports whether node a ends on the line above the line
// where node b starts, with only whitespace between them.
func directlyAbove(f *corpusFile, a, b int) bool {
	x, y := f.nodes[a].end, f.nodes[b].start
	return breaksAfter(f, a, y) == 1 && f.size(x, y) == 0
}

// breaksAfter counts the line breaks from the last non-whitespace
// character of node a to byte y: a node can end with its line break, or
// more (C#'s #pragma and #region lines take theirs, and a blank line after
// them).
func breaksAfter(f *corpusFile, a, y int) int {
	x := f.nodes[a].start
	if t := bytes.TrimRightFunc(f.src[x:f.nodes[a].end], unicode.IsSpace); len(t) > 0 {
		x += len(t)
	}
	return bytes.Count(f.src[x:y], []byte("\n"))
}

func commentRuns(f *corpusFile) []commentRun {
	var out []commentRun
	for i, n := range f.nodes {
		if !n.named || n.extra || n.end <= n.start {
			continue
		}
		last := visibleSibling(f, i, false)
		if last < 0 || !f.nodes[last].extra || !directlyAbove(f, last, i) {
			continue
		}
		first := last
		for {
			p := visibleSibling(f, first, false)
			if p < 0 || !f.nodes[p].extra || !directlyAbove(f, p, first) {
				break
			}
			first = p
		}
		// A comment on the line where the node before it ends stays with
		// that node.
		for first != i {
			p := visibleSibling(f, first, false)
			if p < 0 || breaksAfter(f, p, f.nodes[first].start) > 0 {
				break
			}
			first = visibleSibling(f, first, true)
		}
		if first == i {
			continue
		}
		out = append(out, commentRun{first, last, i})
	}
	return out
}

// checkComments: comments directly above a node travel with it. When the
// run of comments and the node fit the budget together, they lie in one
// chunk. The node runs on through the siblings that follow it on its line:
// a grammar that leaves a declaration in pieces (Dart's `const`, then its
// name and value) has them attached as one, and a cut inside a line falls
// at its start (docs/design.md, "Where boundaries fall"). A run that does
// not fit with the node is not checked further: a lone comment still lies
// with the node when the two fit, but which lines of a longer run (a ///
// doc block, say) should go with the node has no good answer. Where a
// split node's first chunk starts depends on how the chunker splits it, so
// that case is not checked either.
func checkComments(f *corpusFile, budget int, spans []chunk.Span) []string {
	var errs []string
	for _, r := range commentRuns(f) {
		c1, ck, n := f.nodes[r.first], f.nodes[r.last], f.nodes[r.node]
		end := lineGroupEnd(f, r.node)
		var from, to int
		var what string
		switch {
		case f.size(c1.start, end) <= budget:
			from, to, what = c1.start, end-1, "the run of "+c1.kind+"s"
		case r.first == r.last && f.size(ck.start, end) <= budget:
			from, to, what = ck.start, end-1, "the "+ck.kind+" directly above"
		default:
			continue
		}
		if i, j := chunkAt(spans, from), chunkAt(spans, to); i != j {
			errs = append(errs, fmt.Sprintf("%s (from line %d) is in chunk %d, the %s below (lines %d-%d) reaches chunk %d at line %d; they fit the budget together",
				what, f.line(from), i, n.kind, f.line(n.start), f.line(n.end-1), j, f.line(to)))
		}
	}
	return errs
}

// lineGroupEnd is the end of node i and of the siblings after it that
// start on the line where the one before them ends.
func lineGroupEnd(f *corpusFile, i int) int {
	for {
		j := visibleSibling(f, i, true)
		if j < 0 || breaksAfter(f, i, f.nodes[j].start) > 0 {
			return f.nodes[i].end
		}
		i = j
	}
}

// fewChars is the size up to which a chunk is certainly a crumb at a
// budget: docs/design.md's "a few characters", at most 5% of the budget.
func fewChars(budget int) int { return max(1, min(budget/20, 10)) }

// checkCrumbs: a crumb survives only when merging it into either neighbour
// would break the budget.
func checkCrumbs(budget int, spans []chunk.Span) []string {
	var errs []string
	for i, s := range spans {
		if s.Size > fewChars(budget) || len(spans) == 1 {
			continue
		}
		if i > 0 && spans[i-1].Size+s.Size <= budget {
			errs = append(errs, fmt.Sprintf("crumb chunk %d [%d,%d) of size %d could merge into chunk %d (size %d)", i, s.Start, s.End, s.Size, i-1, spans[i-1].Size))
		} else if i+1 < len(spans) && spans[i+1].Size+s.Size <= budget {
			errs = append(errs, fmt.Sprintf("crumb chunk %d [%d,%d) of size %d could merge into chunk %d (size %d)", i, s.Start, s.End, s.Size, i+1, spans[i+1].Size))
		}
	}
	return errs
}

// splitNodes counts the named nodes that fit the budget and how many of
// them no single chunk holds whole.
func splitNodes(f *corpusFile, budget int, spans []chunk.Span) (fitting, split int) {
	sorted := append([]chunk.Span(nil), spans...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	reach := make([]int, len(sorted)) // reach[i]: the furthest end of sorted[:i+1]
	for i, s := range sorted {
		reach[i] = s.End
		if i > 0 {
			reach[i] = max(reach[i], reach[i-1])
		}
	}
	for _, n := range f.nodes {
		if !n.named || n.end <= n.start || f.size(n.start, n.end) > budget {
			continue
		}
		fitting++
		i := sort.Search(len(sorted), func(i int) bool { return sorted[i].Start > n.start }) - 1
		if i < 0 || reach[i] < n.end {
			split++
		}
	}
	return fitting, split
}

// summary gathers the sizes of the chunks of one configuration.
type summary struct {
	config         string
	budget         int
	defaults       bool // the method's default values
	tree           bool // the method reads the tree
	perLang        map[string]*langStats
	fitting, split int
}

type langStats struct {
	files, chunks, size, crumbs int
}

func (s *summary) add(f *corpusFile, c config, spans []chunk.Span) {
	ls := s.perLang[langDir(f)]
	if ls == nil {
		ls = &langStats{}
		s.perLang[langDir(f)] = ls
	}
	ls.files++
	for _, sp := range spans {
		ls.chunks++
		ls.size += sp.Size
		if sp.Size*20 < c.Budget {
			ls.crumbs++
		}
	}
	fit, split := splitNodes(f, c.Budget, spans)
	s.fitting += fit
	s.split += split
}

func (s *summary) log(t *testing.T) {
	var names []string
	for name := range s.perLang {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		ls := s.perLang[name]
		mean, crumbs := 0.0, 0.0
		if ls.chunks > 0 {
			mean = float64(ls.size) / float64(ls.chunks) / float64(s.budget) * 100
			crumbs = float64(ls.crumbs) / float64(ls.chunks) * 100
		}
		fmt.Fprintf(&b, " %s %d/%d/%.0f%%/%.0f%%", name, ls.chunks, ls.files, mean, crumbs)
	}
	t.Logf("%-7s budget %4d (language chunks/files/mean size of budget/crumbs under 5%%):%s", s.config, s.budget, b.String())
}

// clampOutOfFittingNodes moves pos, a cut in the whitespace [p, q), out of
// any node that fits the budget and holds pos strictly inside: to the node's
// start when that is within the gap, else to its end.
func clampOutOfFittingNodes(f *corpusFile, budget, pos, p, q int) int {
	for moved := true; moved; {
		moved = false
		for _, n := range f.nodes {
			if n.start < pos && pos < n.end && f.size(n.start, n.end) <= budget && !f.gap(n) {
				if n.start >= p {
					pos = n.start
				} else if n.end <= q {
					pos = n.end
				} else {
					continue
				}
				moved = true
			}
		}
	}
	return pos
}
