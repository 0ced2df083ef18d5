package eval

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/castchunk/castchunk/internal/enrich"
)

var (
	castCfg    = Config{Method: "cast", MaxSize: 1000, Retriever: RetrieverBM25}
	slidingCfg = Config{Method: "sliding", MaxSize: 1000, Retriever: RetrieverBM25}
)

// tinyReport is report() on three queries (git, completion, git) and two
// configurations, cast and its baseline sliding, with resamples
// bootstrap resamples. The plan is built here alone, so that a change of
// the planner's types touches one place.
func tinyReport(resamples int, sources ...string) *Report {
	opt := &Options{Path: "repo", Seed: 7, Budget: 4000, Resamples: resamples, Baseline: Baseline{Method: "sliding"},
		Reference: slidingCfg, ReferenceName: "your baseline", FromGit: 2, Completion: 1, MinWords: 3, MaxFiles: 10}
	p := &queryPlan{commit: "0123456789abcdef0123", entries: []*entry{{Path: "a.go"}, {Path: "b.go"}, {Path: "c.go"}},
		queries: []*query{{Source: SourceGit}, {Source: SourceCompletion}, {Source: SourceGit}},
		counts:  map[string]*Counts{}}
	for _, s := range sources {
		switch s {
		case SourceGit:
			p.counts[s] = &Counts{Asked: 2, Candidates: 3, Kept: 2, Skipped: []Reason{{"message under 3 words", 1}}}
		case SourceCompletion:
			p.counts[s] = &Counts{Asked: 1, Candidates: 1, Kept: 1}
		}
	}
	results := []*scores{
		{values: [][2]float64{{1, 1}, {0.25, 0.75}, {0.5, 0}}, live: []int{10, 30, 21}, chunked: 3,
			skipped: map[string]int{"generated": 1, "binary": 2}},
		{values: [][2]float64{{0.5, 1}, {0.5, 0.5}, {0, 0}}, live: []int{12, 30, 20}, chunked: 2,
			skipped: map[string]int{"binary": 2, "too large": 1}},
	}
	return report(opt, p, []Config{castCfg, slidingCfg}, results)
}

// TestReportJSON pins the --json document of a tiny report byte for byte:
// fields in a fixed order, every metric and chunk count with four
// decimals, a row that is its own baseline with "baseline": null and an
// empty delta, and a trailing newline.
func TestReportJSON(t *testing.T) {
	rep := tinyReport(0, SourceGit)
	rep.Definitions = []Definition{{Name: "Tokens", Text: "identifier runs."}}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	const want = `{
  "path": "repo",
  "commit": "0123456789abcdef0123",
  "seed": 7,
  "budget": 4000,
  "resamples": 0,
  "baseline": "sliding at the same size, same context",
  "files": {
    "versions": 3,
    "chunked": 3,
    "skipped": [
      {
        "reason": "binary",
        "count": 2
      },
      {
        "reason": "generated",
        "count": 1
      }
    ]
  },
  "sources": [
    {
      "name": "git",
      "metrics": [
        "LineRecall",
        "FileHit"
      ],
      "queries": {
        "asked": 2,
        "candidates": 3,
        "kept": 2,
        "skipped": [
          {
            "reason": "message under 3 words",
            "count": 1
          }
        ]
      },
      "rows": [
        {
          "config": {
            "method": "cast",
            "max_size": 1000,
            "context": false,
            "retriever": "bm25"
          },
          "n": 2,
          "chunks": 15.5000,
          "metrics": [
            {
              "mean": 0.7500,
              "lo": 0.7500,
              "hi": 0.7500
            },
            {
              "mean": 0.5000,
              "lo": 0.5000,
              "hi": 0.5000
            }
          ],
          "baseline": {
            "method": "sliding",
            "max_size": 1000,
            "context": false,
            "retriever": "bm25"
          },
          "delta": [
            {
              "mean": 0.5000,
              "lo": 0.5000,
              "hi": 0.5000
            },
            {
              "mean": 0.0000,
              "lo": 0.0000,
              "hi": 0.0000
            }
          ],
          "versus_reference": [
            {
              "mean": 0.5000,
              "lo": 0.5000,
              "hi": 0.5000
            },
            {
              "mean": 0.0000,
              "lo": 0.0000,
              "hi": 0.0000
            }
          ]
        },
        {
          "config": {
            "method": "sliding",
            "max_size": 1000,
            "context": false,
            "retriever": "bm25"
          },
          "n": 2,
          "chunks": 16.0000,
          "metrics": [
            {
              "mean": 0.2500,
              "lo": 0.2500,
              "hi": 0.2500
            },
            {
              "mean": 0.5000,
              "lo": 0.5000,
              "hi": 0.5000
            }
          ],
          "baseline": null,
          "delta": [],
          "versus_reference": []
        }
      ]
    }
  ],
  "verdict": {
    "config": {
      "method": "cast",
      "max_size": 1000,
      "context": false,
      "retriever": "bm25"
    },
    "baseline": {
      "method": "sliding",
      "max_size": 1000,
      "context": false,
      "retriever": "bm25"
    },
    "text": "use cast 1000 context off bm25: better than your baseline (sliding 1000 context off bm25) on git LineRecall +0.500 [+0.500, +0.500], and worse on none"
  },
  "definitions": [
    {
      "name": "Tokens",
      "text": "identifier runs."
    }
  ]
}
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("WriteJSON (-want +got):\n%s", diff)
	}
	// The same inputs, the same bytes, definitions and intervals included.
	var first, again bytes.Buffer
	if err := tinyReport(100, SourceGit, SourceCompletion).WriteJSON(&first); err != nil {
		t.Fatal(err)
	}
	if err := tinyReport(100, SourceGit, SourceCompletion).WriteJSON(&again); err != nil || first.String() != again.String() {
		t.Errorf("two reports of the same inputs differ (%v)", err)
	}
}

// TestReportJSONEmpty: what a report lacks is an empty list, never null,
// and a folder's report (no commit) has no "commit" field.
func TestReportJSONEmpty(t *testing.T) {
	rep := report(&Options{Path: ".", Seed: 1, Budget: 10, Baseline: Baseline{Method: "sliding"}},
		&queryPlan{counts: map[string]*Counts{SourceCompletion: {Asked: 5}}}, []Config{slidingCfg},
		[]*scores{{values: [][2]float64{}, live: []int{}, skipped: map[string]int{}}})
	rep.Definitions = []Definition{}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, b.Bytes()); err != nil {
		t.Fatal(err)
	}
	want := `{"path":".","seed":1,"budget":10,"resamples":0,"baseline":"sliding at the same size, same context",` +
		`"files":{"versions":0,"chunked":0,"skipped":[]},` +
		`"sources":[{"name":"completion","metrics":["AnsLine","IdRecall"],"queries":{"asked":5,"candidates":0,"kept":0,"skipped":[]},` +
		`"rows":[{"config":{"method":"sliding","max_size":1000,"context":false,"retriever":"bm25"},"n":0,"chunks":0.0000,"metrics":[{"mean":0.0000,"lo":0.0000,"hi":0.0000},{"mean":0.0000,"lo":0.0000,"hi":0.0000}],"baseline":null,"delta":[],"versus_reference":[]}]}],` +
		`"verdict":{"config":null,"baseline":null,"text":"nothing was measured: no query was kept"},` +
		`"definitions":[]}`
	if diff := cmp.Diff(want, compact.String()); diff != "" {
		t.Errorf("WriteJSON (-want +got):\n%s", diff)
	}
	// No source at all: "sources": [].
	rep = report(&Options{Path: ".", Baseline: Baseline{Method: "sliding"}}, &queryPlan{counts: map[string]*Counts{}}, nil, nil)
	if rep.Sources == nil || len(rep.Sources) != 0 || rep.Files.Skipped == nil {
		t.Errorf("no sources: Sources %#v, Files.Skipped %#v; want empty, not nil", rep.Sources, rep.Files.Skipped)
	}
}

// TestReportRows: each row's metrics are the bootstrap of its own values
// on the source's queries, its delta the paired bootstrap against its
// baseline's, all on the draws of the source's stream; sources in a fixed
// order; skipped files counted from the first configuration, by reason.
func TestReportRows(t *testing.T) {
	rep := tinyReport(200, SourceCompletion, SourceGit)
	if len(rep.Sources) != 2 || rep.Sources[0].Name != SourceGit || rep.Sources[1].Name != SourceCompletion {
		t.Fatalf("sources %+v, want git then completion", rep.Sources)
	}
	if diff := cmp.Diff(Files{Versions: 3, Chunked: 3, Skipped: []Reason{{"binary", 2}, {"generated", 1}}}, rep.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	boot := func(v, base []float64, stream string) Estimate { return bootstrap(v, base, 7, stream, 200) }
	base := slidingCfg
	want := []Source{
		{Name: SourceGit, Metrics: []string{"LineRecall", "FileHit"},
			Queries: Counts{Asked: 2, Candidates: 3, Kept: 2, Skipped: []Reason{{"message under 3 words", 1}}},
			Rows: []Row{
				{Config: castCfg, N: 2, Chunks: 15.5,
					Metrics:  []Estimate{boot([]float64{1, 0.5}, nil, SourceGit), boot([]float64{1, 0}, nil, SourceGit)},
					Baseline: &base,
					Delta:    []Estimate{boot([]float64{1, 0.5}, []float64{0.5, 0}, SourceGit), boot([]float64{1, 0}, []float64{1, 0}, SourceGit)},
					Versus:   []Estimate{boot([]float64{1, 0.5}, []float64{0.5, 0}, SourceGit), boot([]float64{1, 0}, []float64{1, 0}, SourceGit)}},
				{Config: slidingCfg, N: 2, Chunks: 16,
					Metrics: []Estimate{boot([]float64{0.5, 0}, nil, SourceGit), boot([]float64{1, 0}, nil, SourceGit)},
					Delta:   []Estimate{}, Versus: []Estimate{}},
			}},
		{Name: SourceCompletion, Metrics: []string{"AnsLine", "IdRecall"},
			Queries: Counts{Asked: 1, Candidates: 1, Kept: 1, Skipped: []Reason{}},
			Rows: []Row{
				{Config: castCfg, N: 1, Chunks: 30,
					Metrics:  []Estimate{{0.25, 0.25, 0.25}, {0.75, 0.75, 0.75}},
					Baseline: &base,
					Delta:    []Estimate{{-0.25, -0.25, -0.25}, {0.25, 0.25, 0.25}},
					Versus:   []Estimate{{-0.25, -0.25, -0.25}, {0.25, 0.25, 0.25}}},
				{Config: slidingCfg, N: 1, Chunks: 30,
					Metrics: []Estimate{{0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}},
					Delta:   []Estimate{}, Versus: []Estimate{}},
			}},
	}
	if diff := cmp.Diff(want, rep.Sources); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	// Identical values in two configurations get identical intervals: the
	// draws depend on the seed and the source alone.
	if a, b := rep.Sources[0].Rows[0].Metrics[1], rep.Sources[0].Rows[1].Metrics[1]; a != b {
		t.Errorf("FileHit of equal values: cast %+v, sliding %+v", a, b)
	}
}

// TestReportBaselineMissing: a configuration whose baseline was not
// measured has no baseline and no delta.
func TestReportBaselineMissing(t *testing.T) {
	rep := report(&Options{Path: ".", Seed: 1, Resamples: 10, Baseline: Baseline{Method: "lines"}},
		&queryPlan{queries: []*query{{Source: SourceGit}}, counts: map[string]*Counts{SourceGit: {Kept: 1}}},
		[]Config{castCfg}, []*scores{{values: [][2]float64{{1, 0}}, live: []int{4}, skipped: map[string]int{}}})
	row := rep.Sources[0].Rows[0]
	if row.Baseline != nil || len(row.Delta) != 0 || row.Delta == nil {
		t.Errorf("baseline %v, delta %#v; want none and an empty list", row.Baseline, row.Delta)
	}
	if rep.Baseline != "lines at the same size, same context" {
		t.Errorf("baseline name %q", rep.Baseline)
	}
}

func TestBaselineName(t *testing.T) {
	on, off := true, false
	for _, c := range []struct {
		b    Baseline
		want string
	}{
		{Baseline{Method: "sliding"}, "sliding at the same size, same context"},
		{Baseline{Method: "cast", MaxSize: 2000}, "cast 2000, same context"},
		{Baseline{Method: "lines", Context: &on}, "lines at the same size, context on"},
		{Baseline{Method: "sliding", MaxSize: 500, Context: &off}, "sliding 500, context off"},
	} {
		if got := baselineName(c.b); got != c.want {
			t.Errorf("baselineName(%+v) = %q, want %q", c.b, got, c.want)
		}
	}
	// The baseline of a configuration keeps what the baseline leaves open.
	c := Config{Method: "cast", MaxSize: 1000, Context: true, Header: enrich.NamesHeader, Retriever: RetrieverDense}
	for _, x := range []struct {
		b    Baseline
		want Config
	}{
		{Baseline{Method: "sliding"}, Config{"sliding", 1000, true, enrich.NamesHeader, RetrieverDense}},
		{Baseline{Method: "sliding", MaxSize: 2000, Context: &off}, Config{"sliding", 2000, false, "", RetrieverDense}},
		{Baseline{Method: "cast", Context: &on, Header: enrich.ScopeHeader, Retriever: RetrieverBM25}, Config{"cast", 1000, true, enrich.ScopeHeader, RetrieverBM25}},
	} {
		if got := x.b.of(c); got != x.want {
			t.Errorf("%s.of(%v) = %v, want %v", baselineName(x.b), c, got, x.want)
		}
	}
}

// TestNumbers: four decimals, rounded, never "-0.0000".
func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		n    float64
		want string
	}{
		{0, "0.0000"}, {1, "1.0000"}, {2.5, "2.5000"}, {2.0 / 3, "0.6667"}, {-0.25, "-0.2500"},
		{-0.00004, "0.0000"}, {0.00005, "0.0001"}, {123456.789, "123456.7890"},
	} {
		b, err := Number(c.n).MarshalJSON()
		if err != nil || string(b) != c.want {
			t.Errorf("Number(%v) = %s, %v; want %s", c.n, b, err, c.want)
		}
	}
	b, err := json.Marshal(Estimate{Mean: 1.0 / 3, Lo: -0.00001, Hi: 0.99999})
	if err != nil || string(b) != `{"mean":0.3333,"lo":0.0000,"hi":1.0000}` {
		t.Errorf("Estimate = %s, %v", b, err)
	}
}

// TestReportText pins the tables for people.
func TestReportText(t *testing.T) {
	rep := tinyReport(0, SourceGit, SourceCompletion)
	rep.Definitions = []Definition{{Name: "Tokens", Text: "identifier runs (letters, digits, underscores) split into sub-words at underscores and case changes, lowercased."}}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "castchunk eval: repo at 0123456789ab\n" +
		"context budget 4000 non-whitespace characters; seed 7; 0 bootstrap resamples; baseline: sliding at the same size, same context\n" +
		"files: 3 versions indexed, 3 chunked, 2 binary, 1 generated\n" +
		"\n" +
		"git history: 2 queries kept of 3 commits read (--from-git 2); skipped: 1 message under 3 words\n" +
		"method   size  context  retriever  n  chunks  LineRecall            FileHit               ΔLineRecall              ΔFileHit\n" +
		"cast     1000  off      bm25       2  16      0.750 [0.750, 0.750]  0.500 [0.500, 0.500]  +0.500 [+0.500, +0.500]  +0.000 [+0.000, +0.000]\n" +
		"sliding  1000  off      bm25       2  16      0.250 [0.250, 0.250]  0.500 [0.500, 0.500]  (baseline)\n" +
		"\n" +
		"completion: 1 queries drawn from 1 functions (--completion 1)\n" +
		"method   size  context  retriever  n  chunks  AnsLine               IdRecall              ΔAnsLine                 ΔIdRecall\n" +
		"cast     1000  off      bm25       1  30      0.250 [0.250, 0.250]  0.750 [0.750, 0.750]  -0.250 [-0.250, -0.250]  +0.250 [+0.250, +0.250]\n" +
		"sliding  1000  off      bm25       1  30      0.500 [0.500, 0.500]  0.500 [0.500, 0.500]  (baseline)\n" +
		"\n" +
		"verdict: nothing is measurably better than your baseline (sliding 1000 context off bm25) here: keep\n" +
		"  it\n" +
		"\n" +
		"Definitions:\n" +
		"Tokens: identifier runs (letters, digits, underscores) split into sub-words at underscores and case\n" +
		"  changes, lowercased.\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("WriteText (-want +got):\n%s", diff)
	}
	// A source with no query kept has its count line and no table.
	rep.Sources[1].Queries.Kept = 0
	b.Reset()
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "completion: 0 queries drawn from 1 functions (--completion 1)\n\nverdict: ") {
		t.Errorf("a source with no query kept still has a table:\n%s", b.String())
	}
}

func TestSignedAndWrap(t *testing.T) {
	for f, want := range map[float64]string{0.5: "+0.500", -0.25: "-0.250", 0: "+0.000", -0.00001: "+0.000", -0.0004: "+0.000", 1: "+1.000"} {
		if got := signed(f); got != want {
			t.Errorf("signed(%v) = %q, want %q", f, got, want)
		}
	}
	for _, c := range []struct {
		text  string
		width int
		want  string
	}{
		{"aaa bbb ccc", 7, "aaa bbb\n  ccc\n"},
		{"aaa  bbb\n\tccc", 100, "aaa bbb ccc\n"},
		// A word longer than the width has a line of its own.
		{"a bbbbbbbbbb c", 5, "a\n  bbbbbbbbbb\n  c\n"},
		{"", 10, ""},
	} {
		if got := wrap(c.text, "  ", c.width); got != c.want {
			t.Errorf("wrap(%q, %d) = %q, want %q", c.text, c.width, got, c.want)
		}
	}
}

// TestDefinitions: a report defines what it measured, with this run's
// values: the git rules only with git queries, the completion rules only
// with completion queries.
func TestDefinitions(t *testing.T) {
	names := func(opt *Options) []string {
		var out []string
		for _, d := range definitions(opt, opt.Configs) {
			out = append(out, d.Name)
		}
		return out
	}
	common := []string{"Tokens", "Index", "BM25", "Verdict", "Context"}
	tail := []string{"Files", "Statistics"}
	git := []string{"Git queries", "LineRecall", "FileHit"}
	comp := []string{"Completion queries", "AnsLine", "IdRecall"}
	join := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, c := range []struct {
		opt  Options
		want []string
	}{
		{Options{FromGit: 100}, join(common, git, tail)},
		{Options{Completion: 100}, join(common, comp, tail)},
		{Options{FromGit: 1, Completion: 1}, join(common, git, comp, tail)},
		{Options{}, join(common, tail)},
	} {
		if diff := cmp.Diff(c.want, names(&c.opt)); diff != "" {
			t.Errorf("FromGit %d, Completion %d (-want +got):\n%s", c.opt.FromGit, c.opt.Completion, diff)
		}
	}
	byName := map[string]string{}
	for _, d := range definitions(&Options{FromGit: 50, Completion: 20, Budget: 1234, Seed: 99, Resamples: 321, MinWords: 4, MaxFiles: 6}, nil) {
		byName[d.Name] = d.Text
	}
	for name, part := range map[string]string{
		"BM25":               "k1=1.5, b=0.75;",
		"Context":            "fit in 1234 non-whitespace characters",
		"Git queries":        "the last 50 non-merge commits",
		"Completion queries": "20 functions, methods and constructors",
		"Statistics":         "the means of 321 resamples of the queries with replacement (SplitMix64 seeded by --seed 99)",
	} {
		if !strings.Contains(byName[name], part) {
			t.Errorf("definition %s = %q, lacks %q", name, byName[name], part)
		}
	}
	if g := byName["Git queries"]; !strings.Contains(g, "messages under 4 words") || !strings.Contains(g, "more than 6 indexed files") {
		t.Errorf("Git queries = %q: lacks --min-words 4 or --max-files 6", g)
	}
}

// TestReportSameDraws: every configuration is resampled with the same
// draws (README: "the paired difference with a baseline ... on the same
// resamples"): when cast scores each query exactly 0.25 above sliding, its
// interval is sliding's moved by 0.25, and its delta is 0.25 throughout.
func TestReportSameDraws(t *testing.T) {
	const n, resamples = 12, 300
	p := &queryPlan{commit: "c", counts: map[string]*Counts{SourceGit: {Asked: n, Candidates: n, Kept: n}}}
	cast := &scores{values: make([][2]float64, n), live: make([]int, n), skipped: map[string]int{}}
	sliding := &scores{values: make([][2]float64, n), live: make([]int, n), skipped: map[string]int{}}
	var lineRecall, fileHit []float64
	for i := range n {
		p.queries = append(p.queries, &query{Source: SourceGit})
		v := float64(i*7%5) / 8 // 0, 0.375, 0.25, 0.125, 0.5, ...
		hit := float64(i * 5 % 3 % 2)
		sliding.values[i] = [2]float64{v, hit}
		cast.values[i] = [2]float64{v + 0.25, hit}
		lineRecall, fileHit = append(lineRecall, v), append(fileHit, hit)
	}
	rep := report(&Options{Seed: 11, Resamples: resamples, Baseline: Baseline{Method: "sliding"}}, p,
		[]Config{castCfg, slidingCfg}, []*scores{cast, sliding})
	rows := rep.Sources[0].Rows
	c, s := rows[0], rows[1]
	if want := bootstrap(lineRecall, nil, 11, SourceGit, resamples); s.Metrics[0] != want {
		t.Errorf("sliding LineRecall %+v, want %+v", s.Metrics[0], want)
	}
	if want := bootstrap(fileHit, nil, 11, SourceGit, resamples); c.Metrics[1] != want || s.Metrics[1] != want {
		t.Errorf("FileHit: cast %+v, sliding %+v, want %+v for both", c.Metrics[1], s.Metrics[1], want)
	}
	if s.Metrics[0].Lo == s.Metrics[0].Hi {
		t.Fatalf("degenerate interval %+v: the test needs spread values", s.Metrics[0])
	}
	const eps = 1e-12
	for _, d := range [][2]float64{
		{c.Metrics[0].Mean, s.Metrics[0].Mean}, {c.Metrics[0].Lo, s.Metrics[0].Lo}, {c.Metrics[0].Hi, s.Metrics[0].Hi},
	} {
		if diff := d[0] - d[1]; diff < 0.25-eps || diff > 0.25+eps {
			t.Errorf("cast %+v is not sliding %+v moved by 0.25", c.Metrics[0], s.Metrics[0])
			break
		}
	}
	if d := c.Delta[0]; d != (Estimate{0.25, 0.25, 0.25}) {
		t.Errorf("delta LineRecall %+v, want 0.25 throughout", d)
	}
	if d := c.Delta[1]; d != (Estimate{}) {
		t.Errorf("delta FileHit %+v, want 0 throughout", d)
	}
}

// TestVerdictChooses: the verdict takes a configuration better than the
// reference (what the user runs now) on some metric and worse on none, the
// one whose intervals' lower ends sum highest, the first of a tie; one
// worse anywhere is out, whatever it wins; with none, it says to keep the
// reference.
func TestVerdictChooses(t *testing.T) {
	cfg := func(m string, size int) Config { return Config{Method: m, MaxSize: size, Retriever: RetrieverBM25} }
	est := func(lo, hi float64) Estimate { return Estimate{Mean: (lo + hi) / 2, Lo: lo, Hi: hi} }
	ref := Defaults()
	configs := []Config{cfg("cast", 500), cfg("cast", 1000), ref, cfg("cast", 3000), cfg("sliding", 1000)}
	row := func(c Config, d ...Estimate) Row { return Row{Config: c, Versus: d} }
	verdictOf := func(rows []Row) Verdict {
		rep := &Report{Sources: []Source{{Name: SourceGit, Metrics: []string{"LineRecall", "FileHit"}, Queries: Counts{Kept: 9}, Rows: rows}}}
		return verdict(rep, configs, ref, "castchunk's defaults")
	}
	v := verdictOf([]Row{
		row(configs[0], est(0.10, 0.30), est(-0.20, -0.01)), // wins most, worse on FileHit: out
		row(configs[1], est(0.01, 0.05), est(-0.02, 0.02)),  // better: 0.01 - 0.02
		row(ref),
		row(configs[3], est(0.02, 0.06), est(0.00, 0.04)), // better: 0.02 + 0.00, the most
		row(configs[4], est(0.00, 0.06), est(0.02, 0.04)), // better, the same sum: later
	})
	if v.Config == nil || *v.Config != configs[3] || v.Baseline == nil || *v.Baseline != ref {
		t.Fatalf("verdict %+v, want cast 3000", v)
	}
	if want := "use cast 3000 context off bm25: better than castchunk's defaults (cast 2000 context off bm25) on git LineRecall +0.040 [+0.020, +0.060], and worse on none"; v.Text != want {
		t.Errorf("verdict text %q\nwant %q", v.Text, want)
	}
	v = verdictOf([]Row{row(configs[0], est(0.10, 0.30), est(-0.20, -0.01)), row(configs[1], est(-0.01, 0.05), est(-0.02, 0.02)),
		row(ref), row(configs[3]), row(configs[4])})
	if v.Config != nil || v.Text != "nothing is measurably better than castchunk's defaults (cast 2000 context off bm25) here: keep them" {
		t.Errorf("none better: %+v", v)
	}
}

// TestVerdictNamesTheSettings: the verdict answers "which settings?", not
// "cast or sliding?" (issue 37): cast 1000 context on, better than the
// defaults by more than cast 1000 context off is, wins, whatever each
// gains over sliding at its own size and context.
func TestVerdictNamesTheSettings(t *testing.T) {
	est := func(lo, hi float64) Estimate { return Estimate{Mean: (lo + hi) / 2, Lo: lo, Hi: hi} }
	var configs []Config
	for _, size := range []int{1000, 2000} {
		for _, ctx := range []bool{false, true} {
			for _, m := range []string{"cast", "sliding"} {
				c := Config{Method: m, MaxSize: size, Context: ctx, Retriever: RetrieverBM25}
				configs = append(configs, c)
			}
		}
	}
	ref := Defaults()
	versus := map[Config][]Estimate{
		configs[0]: {est(0.02, 0.09), est(-0.01, 0.03)}, // cast 1000 off: better than the defaults
		configs[2]: {est(0.09, 0.23), est(0.00, 0.05)},  // cast 1000 on: better by more
		configs[6]: {est(0.01, 0.10), est(-0.02, 0.02)}, // cast 2000 on
	}
	var rows []Row
	for _, c := range configs {
		r := Row{Config: c, Versus: versus[c]}
		if c != ref && r.Versus == nil {
			r.Versus = []Estimate{est(-0.05, 0.01), est(-0.03, 0.03)}
		}
		rows = append(rows, r)
	}
	rep := &Report{Sources: []Source{{Name: SourceGit, Metrics: []string{"LineRecall", "FileHit"}, Queries: Counts{Kept: 50}, Rows: rows}}}
	v := verdict(rep, configs, ref, "castchunk's defaults")
	if v.Config == nil || *v.Config != configs[2] {
		t.Fatalf("verdict %+v, want cast 1000 context on", v)
	}
	if !strings.HasPrefix(v.Text, "use cast 1000 context on bm25: better than castchunk's defaults (cast 2000 context off bm25) on git LineRecall +0.160 [+0.090, +0.230]") {
		t.Errorf("verdict text %q", v.Text)
	}
}
