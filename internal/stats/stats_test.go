package stats_test

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/stats"
)

// sample is a summary with known contents (budget 100):
//
//	python: 2 files, 1,500,000 bytes, chunks 10 50 100 2 | 80
//	java:   1 file,    250,000 bytes, chunks 30 3 70
//	skipped: binary 2, too large 1; 1 sliding fallback; 2 with syntax errors
func sample() *stats.Summary {
	s := &stats.Summary{Budget: 100}
	s.AddFile("python", 1_000_000)
	for _, n := range []int{10, 50, 100, 2} {
		s.AddChunk("python", n)
	}
	s.AddFile("java", 250_000)
	for _, n := range []int{30, 3, 70} {
		s.AddChunk("java", n)
	}
	s.AddFile("python", 500_000)
	s.AddChunk("python", 80)
	s.Skip("binary")
	s.Skip("too large")
	s.Skip("binary")
	s.Fallback()
	s.SyntaxErrors()
	s.SyntaxErrors()
	return s
}

func sampleReport() stats.Report {
	return stats.Report{
		Budget: 100,
		Languages: []stats.Line{
			{Language: "java", Files: 1, Chunks: 3, Bytes: 250_000, Sizes: stats.Dist{
				Min: 3, Median: 30, P90: 70, Max: 70,
				Mean: 103.0 / 3, MeanShare: div(103.0/3, 100), TinyShare: 1.0 / 3,
			}},
			{Language: "python", Files: 2, Chunks: 5, Bytes: 1_500_000, Sizes: stats.Dist{
				Min: 2, Median: 50, P90: 100, Max: 100,
				Mean: 242.0 / 5, MeanShare: div(242.0/5, 100), TinyShare: 1.0 / 5,
			}},
		},
		Total: stats.Line{Language: "all", Files: 3, Chunks: 8, Bytes: 1_750_000, Sizes: stats.Dist{
			Min: 2, Median: 30, P90: 100, Max: 100,
			Mean: 345.0 / 8, MeanShare: div(345.0/8, 100), TinyShare: 2.0 / 8,
		}},
		Skipped:      map[string]int{"binary": 2, "too large": 1},
		Fallback:     1,
		SyntaxErrors: 2,
		// width 101/10 = 10, the last bar ends at 101; sizes 2 3 | 10 | 30 | 50 | 70 | 80 | 100
		Histogram: []stats.Bin{
			{0, 10, 2}, {10, 20, 1}, {20, 30, 0}, {30, 40, 1}, {40, 50, 0},
			{50, 60, 1}, {60, 70, 0}, {70, 80, 1}, {80, 90, 1}, {90, 101, 1},
		},
	}
}

// div divides at run time, rounding as the code under test does (a constant
// expression would be computed exactly and rounded once).
func div(a, b float64) float64 { return a / b }

func TestReport(t *testing.T) {
	s := sample()
	got := s.Report()
	want := sampleReport()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Report():\n%+v\nwant:\n%+v", got, want)
	}
	// Reporting again, and after more input, stays right.
	if again := s.Report(); !reflect.DeepEqual(again, want) {
		t.Errorf("second Report():\n%+v\nwant:\n%+v", again, want)
	}
	s.AddFile("java", 1)
	s.AddChunk("java", 1)
	r := s.Report()
	if r.Languages[0].Files != 2 || r.Languages[0].Chunks != 4 || r.Languages[0].Sizes.Min != 1 ||
		r.Languages[0].Sizes.Median != 3 || r.Total.Chunks != 9 || r.Total.Sizes.Median != 30 || r.Histogram[0].Count != 3 {
		t.Errorf("after one more java chunk: %+v", r)
	}
}

func TestDist(t *testing.T) {
	for _, tt := range []struct {
		name   string
		budget int
		sizes  []int
		want   stats.Dist
	}{
		{"one chunk", 10, []int{4}, stats.Dist{Min: 4, Median: 4, P90: 4, Max: 4, Mean: 4, MeanShare: 0.4}},
		{"two chunks: the lower median, p90 the larger", 10, []int{8, 2}, stats.Dist{Min: 2, Median: 2, P90: 8, Max: 8, Mean: 5, MeanShare: 0.5}},
		{"three chunks", 10, []int{3, 1, 2}, stats.Dist{Min: 1, Median: 2, P90: 3, Max: 3, Mean: 2, MeanShare: 0.2}},
		{"ten chunks", 100, []int{10, 9, 8, 7, 6, 5, 4, 3, 2, 1},
			stats.Dist{Min: 1, Median: 5, P90: 9, Max: 10, Mean: 5.5, MeanShare: 0.055, TinyShare: 0.4}},
		{"eleven chunks", 100, []int{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100},
			stats.Dist{Min: 0, Median: 50, P90: 90, Max: 100, Mean: 50, MeanShare: 0.5, TinyShare: 1.0 / 11}},
		{"tiny means under 5% of the budget, not at it", 100, []int{4, 5, 5, 100},
			stats.Dist{Min: 4, Median: 5, P90: 100, Max: 100, Mean: 28.5, MeanShare: 0.285, TinyShare: 0.25}},
		{"no budget: no shares", 0, []int{3, 1, 2}, stats.Dist{Min: 1, Median: 2, P90: 3, Max: 3, Mean: 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := stats.Summary{Budget: tt.budget}
			s.AddFile("x", 1)
			for _, n := range tt.sizes {
				s.AddChunk("x", n)
			}
			r := s.Report()
			if len(r.Languages) != 1 || r.Languages[0].Sizes != tt.want || r.Total.Sizes != tt.want {
				t.Errorf("sizes %v: %+v (total %+v), want %+v", tt.sizes, r.Languages, r.Total.Sizes, tt.want)
			}
		})
	}
}

// TestHistogramCoversTheBudget: ten contiguous bins from 0, the budget in the
// last one, every chunk counted exactly once in the bin holding its size.
func TestHistogramCoversTheBudget(t *testing.T) {
	for _, budget := range []int{1, 2, 7, 10, 11, 50, 89, 90, 99, 100, 101, 2000} {
		t.Run(strconv.Itoa(budget), func(t *testing.T) {
			s := stats.Summary{Budget: budget}
			s.AddFile("x", 1)
			for n := 0; n <= budget; n++ {
				s.AddChunk("x", n)
			}
			bins := s.Report().Histogram
			if len(bins) == 0 {
				t.Fatal("no histogram")
			}
			total := 0
			for i, b := range bins {
				if i == 0 && b.Lo != 0 || i > 0 && b.Lo != bins[i-1].Hi || b.Hi <= b.Lo {
					t.Errorf("bin %d [%d,%d) does not follow %v", i, b.Lo, b.Hi, bins[max(i-1, 0)])
				}
				// Sizes 0..budget are all present: a bin counts the sizes it covers.
				want := max(0, min(b.Hi, budget+1)-b.Lo)
				if b.Count != want {
					t.Errorf("bin %d [%d,%d) counts %d, want %d", i, b.Lo, b.Hi, b.Count, want)
				}
				total += b.Count
			}
			if total != budget+1 {
				t.Errorf("bins count %d chunks, want %d", total, budget+1)
			}
			// "the last bar includes top itself" (stats.go): the budget is in
			// the last bin, so no bar lies wholly past the budget.
			if last := bins[len(bins)-1]; budget < last.Lo || budget >= last.Hi {
				t.Errorf("the budget %d is not in the last bin [%d,%d): bins %v", budget, last.Lo, last.Hi, bins)
			}
		})
	}
}

func TestHistogramEdges(t *testing.T) {
	// A chunk over the budget (not produced by castchunk, but `castchunk
	// stats` reads any file) widens the bins rather than being lost.
	s := stats.Summary{Budget: 100}
	s.AddChunk("x", 5)
	s.AddChunk("x", 250)
	want := []stats.Bin{{0, 25, 1}, {25, 50, 0}, {50, 75, 0}, {75, 100, 0}, {100, 125, 0},
		{125, 150, 0}, {150, 175, 0}, {175, 200, 0}, {200, 225, 0}, {225, 251, 1}}
	if got := s.Report().Histogram; !reflect.DeepEqual(got, want) {
		t.Errorf("histogram %v, want %v", got, want)
	}
	// No budget: the bins go up to the largest chunk.
	s = stats.Summary{}
	s.AddChunk("x", 9)
	s.AddChunk("x", 0)
	want = []stats.Bin{{0, 1, 1}, {1, 2, 0}, {2, 3, 0}, {3, 4, 0}, {4, 5, 0},
		{5, 6, 0}, {6, 7, 0}, {7, 8, 0}, {8, 9, 0}, {9, 10, 1}}
	if got := s.Report().Histogram; !reflect.DeepEqual(got, want) {
		t.Errorf("histogram %v, want %v", got, want)
	}
	// No chunk, or only empty chunks and no budget: no histogram.
	s = stats.Summary{Budget: 100}
	s.AddFile("x", 10)
	if got := s.Report().Histogram; got != nil {
		t.Errorf("histogram without chunks: %v", got)
	}
	s = stats.Summary{}
	s.AddChunk("x", 0)
	if got, want := s.Report().Histogram, []stats.Bin{{0, 1, 1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("histogram of empty chunks without a budget: %v, want %v", got, want)
	}
}

func TestEmptySummary(t *testing.T) {
	s := stats.Summary{Budget: 2000}
	want := stats.Report{Budget: 2000, Total: stats.Line{Language: "all"}}
	if got := s.Report(); !reflect.DeepEqual(got, want) {
		t.Errorf("Report() = %+v, want %+v", got, want)
	}
	var b bytes.Buffer
	if err := s.Report().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	wantText := "language       files   chunks         MB    min median    p90    max    mean  mean%  tiny%\n" +
		"all                0        0       0.00      0      0      0      0     0.0   0.0%   0.0%\n" +
		"mean%: mean size as a share of the budget (2000); tiny%: chunks under 5% of it\n"
	if b.String() != wantText {
		t.Errorf("WriteText:\n%s\nwant:\n%s", b.String(), wantText)
	}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := sample().Report().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	const h20 = "####################" // (1*40+1)/2 bars
	want := []string{
		"language       files   chunks         MB    min median    p90    max    mean  mean%  tiny%",
		"java               1        3       0.25      3     30     70     70    34.3  34.3%  33.3%",
		"python             2        5       1.50      2     50    100    100    48.4  48.4%  20.0%",
		"all                3        8       1.75      2     30    100    100    43.1  43.1%  25.0%",
		"mean%: mean size as a share of the budget (100); tiny%: chunks under 5% of it",
		"skipped files: binary 2, too large 1",
		"chunked with sliding windows after a failed parse: 1",
		"files with syntax errors (chunked by cast anyway): 2",
		"chunk sizes:",
		"       0-9             2 " + strings.Repeat("#", 40),
		"      10-19            1 " + h20,
		"      20-29            0 ",
		"      30-39            1 " + h20,
		"      40-49            0 ",
		"      50-59            1 " + h20,
		"      60-69            0 ",
		"      70-79            1 " + h20,
		"      80-89            1 " + h20,
		"      90-100           1 " + h20,
		"",
	}
	if got := strings.Split(b.String(), "\n"); !slices.Equal(got, want) {
		t.Errorf("WriteText:\n%s\nwant:\n%s", b.String(), strings.Join(want, "\n"))
	}
}

func TestWriteTextWithoutBudget(t *testing.T) {
	s := stats.Summary{}
	s.AddFile("python", 2_000_000)
	s.AddChunk("python", 4)
	s.AddChunk("python", 9)
	var b bytes.Buffer
	if err := s.Report().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	// width (9+10)/10 = 1
	want := "language       files   chunks         MB    min median    p90    max    mean\n" +
		"python             1        2       2.00      4      4      9      9     6.5\n" +
		"all                1        2       2.00      4      4      9      9     6.5\n" +
		"chunk sizes:\n" +
		"       0-0             0 \n" +
		"       1-1             0 \n" +
		"       2-2             0 \n" +
		"       3-3             0 \n" +
		"       4-4             1 " + strings.Repeat("#", 40) + "\n" +
		"       5-5             0 \n" +
		"       6-6             0 \n" +
		"       7-7             0 \n" +
		"       8-8             0 \n" +
		"       9-9             1 " + strings.Repeat("#", 40) + "\n"
	if b.String() != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteJSON(t *testing.T) {
	r := sample().Report()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b.Bytes()) {
		t.Fatalf("WriteJSON output is not valid JSON:\n%s", b.String())
	}
	if !strings.HasSuffix(b.String(), "}\n") {
		t.Errorf("WriteJSON output does not end with a newline: %q", b.String())
	}
	// It decodes back to the same report.
	var back stats.Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("round trip:\n%+v\nwant:\n%+v", back, r)
	}
	// The field names.
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	wantKeys := []string{"budget", "files_with_syntax_errors", "histogram", "languages", "over_budget", "skipped", "sliding_fallback", "total"}
	if got := keys(doc); !slices.Equal(got, wantKeys) {
		t.Errorf("top-level fields %q, want %q", got, wantKeys)
	}
	if doc["budget"] != 100.0 || doc["sliding_fallback"] != 1.0 || doc["files_with_syntax_errors"] != 2.0 {
		t.Errorf("budget, fallback, syntax errors: %v %v %v", doc["budget"], doc["sliding_fallback"], doc["files_with_syntax_errors"])
	}
	if sk, _ := doc["skipped"].(map[string]any); sk["binary"] != 2.0 || sk["too large"] != 1.0 || len(sk) != 2 {
		t.Errorf("skipped: %v", doc["skipped"])
	}
	total, _ := doc["total"].(map[string]any)
	if got := keys(total); !slices.Equal(got, []string{"bytes", "chunks", "files", "language", "sizes"}) {
		t.Errorf("total fields %q", got)
	}
	if total["language"] != "all" || total["files"] != 3.0 || total["chunks"] != 8.0 || total["bytes"] != 1_750_000.0 {
		t.Errorf("total: %v", total)
	}
	sizes, _ := total["sizes"].(map[string]any)
	if got := keys(sizes); !slices.Equal(got, []string{"max", "mean", "mean_share", "median", "min", "p90", "tiny_share"}) {
		t.Errorf("sizes fields %q", got)
	}
	if sizes["min"] != 2.0 || sizes["median"] != 30.0 || sizes["p90"] != 100.0 || sizes["max"] != 100.0 || sizes["mean"] != 43.125 || sizes["tiny_share"] != 0.25 {
		t.Errorf("total sizes: %v", sizes)
	}
	langs, _ := doc["languages"].([]any)
	if len(langs) != 2 || langs[0].(map[string]any)["language"] != "java" || langs[1].(map[string]any)["language"] != "python" {
		t.Errorf("languages: %v", doc["languages"])
	}
	hist, _ := doc["histogram"].([]any)
	if len(hist) != 10 {
		t.Fatalf("histogram: %v", doc["histogram"])
	}
	last, _ := hist[9].(map[string]any)
	if last["lo"] != 90.0 || last["hi"] != 101.0 || last["count"] != 1.0 || len(last) != 3 {
		t.Errorf("last bin: %v", last)
	}

	// Without a budget and without skips, the optional fields are left out.
	s := stats.Summary{}
	s.AddFile("java", 10)
	s.AddChunk("java", 3)
	b.Reset()
	if err := s.Report().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	doc = nil
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if got := keys(doc); !slices.Equal(got, []string{"histogram", "languages", "total"}) {
		t.Errorf("top-level fields without budget %q", got)
	}
	sizes = doc["total"].(map[string]any)["sizes"].(map[string]any)
	if got := keys(sizes); !slices.Equal(got, []string{"max", "mean", "median", "min", "p90"}) {
		t.Errorf("sizes fields without budget %q", got)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestPercentilesNearestRank: the p-th percentile is the size at rank
// ceil(p/100 * n) (1-based), the median at rank ceil(n/2).
func TestPercentilesNearestRank(t *testing.T) {
	for _, tt := range []struct {
		sizes       []int
		median, p90 int
	}{
		{[]int{7}, 7, 7},
		{[]int{8, 2}, 2, 8},    // ranks 1 and ceil(1.8) = 2
		{[]int{3, 1, 2}, 2, 3}, // ranks 2 and ceil(2.7) = 3
		{[]int{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 5, 9},
	} {
		s := stats.Summary{Budget: 10}
		for _, n := range tt.sizes {
			s.AddChunk("x", n)
		}
		d := s.Report().Total.Sizes
		if d.Median != tt.median || d.P90 != tt.p90 {
			t.Errorf("sizes %v: median %d, p90 %d; want %d, %d", tt.sizes, d.Median, d.P90, tt.median, tt.p90)
		}
	}
}

// TestUnsupported: files skipped for want of a grammar are counted by
// extension (by base name without one), and listed most first.
func TestUnsupported(t *testing.T) {
	s := stats.Summary{Budget: 100}
	for _, p := range []string{"a.js", "src/b.js", "c/d.js", "README.md", "Makefile", "sub/Makefile", "x.d/LICENSE", "odd.", ".eslintrc"} {
		s.Unsupported(p)
	}
	r := s.Report()
	want := map[string]int{".js": 3, ".md": 1, "Makefile": 2, "LICENSE": 1, "odd.": 1, ".eslintrc": 1}
	if !reflect.DeepEqual(r.Unsupported, want) {
		t.Errorf("Unsupported %v, want %v", r.Unsupported, want)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	line := "unsupported files (no grammar): .js 3, Makefile 2, .eslintrc 1, .md 1, LICENSE 1, odd. 1\n"
	if !strings.Contains(b.String(), line) {
		t.Errorf("WriteText:\n%s\nwant a line %q", b.String(), line)
	}
	b.Reset()
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Unsupported map[string]int `json:"unsupported"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || !reflect.DeepEqual(doc.Unsupported, want) {
		t.Errorf("JSON unsupported %v (%v), want %v", doc.Unsupported, err, want)
	}

	// More than ten extensions: the ten biggest, then the rest counted.
	s = stats.Summary{}
	for i := range 13 {
		for range i + 1 {
			s.Unsupported("f." + string(rune('a'+i)))
		}
	}
	b.Reset()
	if err := s.Report().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	line = "unsupported files (no grammar): .m 13, .l 12, .k 11, .j 10, .i 9, .h 8, .g 7, .f 6, .e 5, .d 4, and 3 more (6 files)\n"
	if !strings.Contains(b.String(), line) {
		t.Errorf("WriteText:\n%s\nwant a line %q", b.String(), line)
	}

	// None: no line, no field.
	b.Reset()
	if err := sample().Report().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "unsupported") {
		t.Errorf("WriteText without unsupported files:\n%s", b.String())
	}
}

// TestOverBudget: chunks over the budget are counted and warned of; the
// JSON field is there whenever the budget is known.
func TestOverBudget(t *testing.T) {
	s := stats.Summary{Budget: 10}
	for _, n := range []int{5, 10, 11, 250} {
		s.AddChunk("x", n)
	}
	r := s.Report()
	if r.OverBudget != 2 {
		t.Errorf("OverBudget = %d, want 2", r.OverBudget)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	line := "warning: 2 chunks are larger than the budget of 10 (were the records made with another --max-size?)\n"
	if !strings.Contains(b.String(), line) {
		t.Errorf("WriteText:\n%s\nwant a line %q", b.String(), line)
	}
	// The histogram still holds every chunk, up to the largest.
	if h := r.Histogram; len(h) != 10 || h[len(h)-1].Hi != 251 || h[0].Count+h[len(h)-1].Count != 4 {
		t.Errorf("histogram %v", h)
	}

	s = stats.Summary{Budget: 10}
	s.AddChunk("x", 11)
	b.Reset()
	if err := s.Report().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if line := "warning: 1 chunk is larger than the budget of 10 "; !strings.Contains(b.String(), line) {
		t.Errorf("WriteText:\n%s\nwant %q", b.String(), line)
	}

	for _, tt := range []struct {
		budget int
		sizes  []int
		want   any // over_budget in the JSON; nil: absent
	}{
		{10, []int{11, 12}, 2.0},
		{10, []int{1, 10}, 0.0},
		{10, nil, 0.0},
		{0, []int{11}, nil},
	} {
		s := stats.Summary{Budget: tt.budget}
		for _, n := range tt.sizes {
			s.AddChunk("x", n)
		}
		r := s.Report()
		b.Reset()
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if got, ok := doc["over_budget"]; got != tt.want || ok != (tt.want != nil) {
			t.Errorf("budget %d sizes %v: over_budget %v (present %v), want %v", tt.budget, tt.sizes, got, ok, tt.want)
		}
		b.Reset()
		r.WriteText(&b)
		if strings.Contains(b.String(), "warning") != (tt.want != nil && tt.want != 0.0) {
			t.Errorf("budget %d sizes %v: WriteText:\n%s", tt.budget, tt.sizes, b.String())
		}
	}
}

// TestSharesPresentWithBudget: mean_share and tiny_share are in the JSON
// whenever the budget is known, 0 included, and absent when it is not.
func TestSharesPresentWithBudget(t *testing.T) {
	for _, tt := range []struct {
		budget  int
		sizes   []int
		present bool
	}{
		{100, []int{50, 60}, true}, // no tiny chunk: tiny_share 0
		{100, []int{0}, true},      // mean_share 0
		{100, nil, true},           // no chunk at all
		{0, []int{50}, false},
	} {
		s := stats.Summary{Budget: tt.budget}
		s.AddFile("java", 10)
		for _, n := range tt.sizes {
			s.AddChunk("java", n)
		}
		var b bytes.Buffer
		if err := s.Report().WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Languages []struct {
				Sizes map[string]any `json:"sizes"`
			} `json:"languages"`
			Total struct {
				Sizes map[string]any `json:"sizes"`
			} `json:"total"`
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		all := []map[string]any{doc.Total.Sizes}
		for _, l := range doc.Languages {
			all = append(all, l.Sizes)
		}
		for _, sizes := range all {
			for _, k := range []string{"mean_share", "tiny_share"} {
				if _, ok := sizes[k]; ok != tt.present {
					t.Errorf("budget %d sizes %v: %s present %v, want %v:\n%s", tt.budget, tt.sizes, k, ok, tt.present, b.String())
				}
			}
		}
	}
}

// TestHugeBudget: no budget or size is too large for the figures, the
// histogram or the reports.
func TestHugeBudget(t *testing.T) {
	for _, tt := range []struct {
		budget int
		sizes  []int
	}{
		{math.MaxInt, []int{0, 5, math.MaxInt, math.MaxInt32, math.MaxInt - 1}},
		{math.MaxInt, []int{1}},
		{math.MaxInt - 1, []int{0}},
		{math.MaxInt32, []int{math.MaxInt, 3}},
		{10, []int{math.MaxInt, math.MaxInt, 7, -3}},
		{0, []int{math.MaxInt, math.MaxInt32 + 1, 0}},
	} {
		s := stats.Summary{Budget: tt.budget}
		s.AddFile("x", math.MaxInt)
		for _, n := range tt.sizes {
			s.AddChunk("x", n)
		}
		r := s.Report()
		d := r.Total.Sizes
		if d.Min < 0 || d.Max < d.Min || d.Median < d.Min || d.P90 > d.Max || d.Mean < 0 || d.MeanShare < 0 || d.TinyShare < 0 || d.TinyShare > 1 {
			t.Errorf("budget %d sizes %v: sizes %+v", tt.budget, tt.sizes, d)
		}
		if r.OverBudget < 0 || r.OverBudget > len(tt.sizes) {
			t.Errorf("budget %d sizes %v: OverBudget %d", tt.budget, tt.sizes, r.OverBudget)
		}
		total := 0
		for i, b := range r.Histogram {
			if b.Hi <= b.Lo || b.Count < 0 || i == 0 && b.Lo != 0 || i > 0 && b.Lo != r.Histogram[i-1].Hi {
				t.Errorf("budget %d sizes %v: bin %d %v of %v", tt.budget, tt.sizes, i, b, r.Histogram)
			}
			total += b.Count
		}
		if total != len(tt.sizes) {
			t.Errorf("budget %d sizes %v: histogram counts %d chunks: %v", tt.budget, tt.sizes, total, r.Histogram)
		}
		var b bytes.Buffer
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
	}

	// Over the budget: chunks larger than it count, as int32 sizes.
	s := stats.Summary{Budget: 10}
	s.AddChunk("x", math.MaxInt)
	s.AddChunk("x", 11)
	s.AddChunk("x", 10)
	if r := s.Report(); r.OverBudget != 2 || r.Total.Sizes.Max != math.MaxInt32 {
		t.Errorf("sizes over the budget: OverBudget %d, max %d", r.OverBudget, r.Total.Sizes.Max)
	}
}
