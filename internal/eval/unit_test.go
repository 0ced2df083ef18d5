package eval

import (
	"bufio"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"parseHTTPRequest_v2", []string{"parse", "http", "request", "v2"}},
		{"snake_case_name", []string{"snake", "case", "name"}},
		{"XMLHttpRequest", []string{"xml", "http", "request"}},
		{"__init__", []string{"init"}},
		{"getX", []string{"get", "x"}},
		{"utf8Decode sha256", []string{"utf8", "decode", "sha256"}},
		{"Vec3D a1B2", []string{"vec3", "d", "a1", "b2"}},
		{"ABC", []string{"abc"}},
		{"foo.bar(baz, 42) -> qux", []string{"foo", "bar", "baz", "42", "qux"}},
		{"Fix the README: it's wrong!", []string{"fix", "the", "readme", "it", "s", "wrong"}},
		{"ÜberKlasse naïveCase", []string{"über", "klasse", "naïve", "case"}},
		{"a\xffb", []string{"a", "b"}},
		{"", nil},
		{"___ ... ", nil},
	} {
		if got := Terms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIdentifiers(t *testing.T) {
	got := identifiers([]byte("x := parseHTTP(req_1, 42, x2) // parseHTTP again; _ok é"))
	want := []string{"parseHTTP", "req_1", "x2", "again", "_ok"}
	if !slices.Equal(got, want) {
		t.Errorf("identifiers = %q, want %q", got, want)
	}
}

// toyIndex is three documents whose BM25 scores were computed by hand
// (and checked with a direct transcription of the formula).
func toyIndex() *Index {
	x := NewIndex()
	for _, d := range []string{"apple banana", "Apple apple cherry", "banana cherry date_date"} {
		x.SetLive(x.Add([]byte(d)), true)
	}
	return x
}

func ranked(r *Ranking) []Hit {
	var hs []Hit
	for h, ok := r.Next(); ok; h, ok = r.Next() {
		hs = append(hs, h)
	}
	return hs
}

func TestBM25(t *testing.T) {
	// N=3, lengths 2, 3, 4, avgdl=3. df(apple)=2: idf=ln(1.6); df(date)=1:
	// idf=ln(1+2.5/1.5). d0: ln(1.6)*1*2.5/(1+1.5*(0.25+0.75*2/3));
	// d1: ln(1.6)*2*2.5/(2+1.5); d2: ln(8/3)*2*2.5/(2+1.5*(0.25+0.75*4/3)).
	x := toyIndex()
	check := func(name, q string, want []Hit) {
		t.Helper()
		got := ranked(x.Search(q))
		if len(got) != len(want) {
			t.Fatalf("%s: %d hits %v, want %d", name, len(got), got, len(want))
		}
		for i := range want {
			if got[i].Doc != want[i].Doc || math.Abs(got[i].Score-want[i].Score) > 1e-12 {
				t.Errorf("%s: hit %d = %+v, want %+v", name, i, got[i], want[i])
			}
		}
	}
	check("apple date", "apple date", []Hit{{2, 1.2655861329183566}, {1, 0.6714337560653366}, {0, 0.5529454461714537}})
	// Repeated query terms count each time.
	check("apple apple date", "apple APPLE date", []Hit{{1, 1.3428675121306732}, {2, 1.2655861329183566}, {0, 1.1058908923429074}})
	// Switching d2 off: N=2, avgdl=2.5, date is in no live document.
	x.SetLive(2, false)
	check("d2 off", "apple date", []Hit{{1, 0.24472692187108}, {0, 0.20035335911423582}})
	if x.Live() != 2 || x.Docs() != 3 {
		t.Errorf("Live, Docs = %d, %d; want 2, 3", x.Live(), x.Docs())
	}
	x.SetLive(2, true)
	x.SetLive(2, true) // twice is once
	check("d2 on again", "apple date", []Hit{{2, 1.2655861329183566}, {1, 0.6714337560653366}, {0, 0.5529454461714537}})
	check("unknown terms", "zebra", nil)
}

func TestBM25Ties(t *testing.T) {
	x := NewIndex()
	for range 5 {
		x.SetLive(x.Add([]byte("same words here")), true)
	}
	got := ranked(x.Search("words"))
	for i, h := range got {
		if h.Doc != i {
			t.Fatalf("ties: hit %d is doc %d, want the lower document first", i, h.Doc)
		}
	}
}

func TestAssemble(t *testing.T) {
	texts := func(ts ...string) func() ([]byte, bool) {
		return func() ([]byte, bool) {
			if len(ts) == 0 {
				return nil, false
			}
			b := []byte(ts[0])
			ts = ts[1:]
			return b, true
		}
	}
	for _, tc := range []struct {
		name   string
		budget int
		texts  []string
		want   []int
	}{
		{"all fit", 100, []string{"aaaa\n", "bb bb\n"}, []int{5, 6}},
		{"exact fit, then nothing of the next", 8, []string{"aaaa\n", "bbbb\n", "cc\n"}, []int{5, 5, 0}},
		{"cut to whole lines", 7, []string{"aaaa\n", "b\nccc\ndd"}, []int{5, 2}},
		{"white space is free", 3, []string{"a  \n\n   \n", "b\n  \n\nc c\n"}, []int{9, 6}},
		{"the last line without a newline", 6, []string{"abc\n", "de"}, []int{4, 2}},
		{"first line too big", 3, []string{"abcd\nx\n"}, []int{0}},
		{"stops after the cut one", 3, []string{"ab\ncd\n", "x\n"}, []int{3}},
		{"no text", 10, nil, nil},
	} {
		if got := Assemble(tc.budget, texts(tc.texts...)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Assemble = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestLineRecall(t *testing.T) {
	gold := []goldFile{{"a.go", []int{3, 4, 5, 10}}, {"b.go", []int{1}}}
	for _, tc := range []struct {
		spans     []lineSpan
		recall, f float64
	}{
		{nil, 0, 0},
		{[]lineSpan{{"c.go", 1, 100}}, 0, 0},
		{[]lineSpan{{"a.go", 1, 4}}, 0.4, 1},
		{[]lineSpan{{"a.go", 4, 4}, {"a.go", 5, 20}, {"b.go", 2, 3}}, 0.6, 1},
		{[]lineSpan{{"b.go", 2, 3}}, 0, 1},
		{[]lineSpan{{"a.go", 1, 10}, {"b.go", 1, 1}}, 1, 1},
	} {
		r, f := lineRecall(gold, tc.spans)
		if math.Abs(r-tc.recall) > 1e-12 || f != tc.f {
			t.Errorf("lineRecall(%v) = %v, %v; want %v, %v", tc.spans, r, f, tc.recall, tc.f)
		}
	}
}

func TestCompletionMetrics(t *testing.T) {
	gold := []byte("\tif total < 0 {\n\t\treturn 0\n\t}\n\ttotal = roundCents(total)\n\treturn total * rate\n")
	lines := nonTrivial(gold)
	want := []string{"if total < 0 {", "total = roundCents(total)", "return total * rate"}
	if !slices.Equal(lines, want) {
		t.Fatalf("nonTrivial = %q, want %q", lines, want)
	}
	ctx := []byte("x := 1\n    total = roundCents(total)   \nreturn total*rate\n")
	if got := ansLine(lines, ctx); math.Abs(got-1.0/3) > 1e-12 {
		t.Errorf("ansLine = %v, want 1/3", got)
	}
	ids := identifiers(gold) // if total return roundCents rate
	if got := idRecall(ids, ctx); math.Abs(got-4.0/5) > 1e-12 {
		t.Errorf("idRecall(%q) = %v, want 4/5", ids, got)
	}
	if ansLine(nil, ctx) != 0 || idRecall(nil, ctx) != 0 {
		t.Error("an empty gold must score 0")
	}
}

func TestLines(t *testing.T) {
	src := []byte("a\nbb\n\nccc")
	starts := lineStarts(nil, src)
	if !slices.Equal(starts, []int{0, 2, 5, 6}) {
		t.Fatalf("lineStarts = %v", starts)
	}
	for off, want := range []int{1, 1, 2, 2, 2, 3, 4, 4, 4} {
		if got := lineAt(starts, off); got != want {
			t.Errorf("lineAt(%d) = %d, want %d", off, got, want)
		}
	}
	if got := lineStarts(nil, []byte("x\n")); !slices.Equal(got, []int{0}) {
		t.Errorf("a final newline starts no line: %v", got)
	}
}

func TestBootstrap(t *testing.T) {
	values := []float64{0, 1, 1, 0, 1, 0.5, 0.25, 1, 0, 0.75}
	a := bootstrap(values, nil, 7, "git", 1000)
	b := bootstrap(values, nil, 7, "git", 1000)
	if a != b {
		t.Fatalf("same seed, different estimates: %+v, %+v", a, b)
	}
	if a.Mean != 0.55 || !(a.Lo < a.Mean && a.Mean < a.Hi) || a.Lo < 0 || a.Hi > 1 {
		t.Errorf("estimate %+v: want mean 0.55 inside (lo, hi) within [0, 1]", a)
	}
	if c := bootstrap(values, nil, 8, "git", 1000); c.Lo == a.Lo && c.Hi == a.Hi {
		t.Errorf("seeds 7 and 8 gave the same interval %+v", c)
	}
	if d := bootstrap(values, values, 7, "git", 1000); d != (Estimate{}) {
		t.Errorf("the paired difference of identical values is %+v, want zeros", d)
	}
	if e := bootstrap([]float64{0.5, 0.5, 0.5}, nil, 1, "x", 100); e != (Estimate{0.5, 0.5, 0.5}) {
		t.Errorf("constant values: %+v", e)
	}
	if e := bootstrap(nil, nil, 1, "x", 100); e != (Estimate{}) {
		t.Errorf("no values: %+v", e)
	}
	// The generator is SplitMix64 itself: the reference's first outputs
	// for state 0 (Vigna's splitmix64.c).
	r := &rng{}
	for _, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		if got := r.next(); got != want {
			t.Fatalf("splitmix64: got %#x, want %#x", got, want)
		}
	}
	counts := make([]int, 3)
	r = newRNG(1, "x")
	for range 3000 {
		counts[r.intn(3)]++
	}
	for i, c := range counts {
		if c < 900 || c > 1100 {
			t.Errorf("intn(3) drew %d %d times in 3000", i, c)
		}
	}
}

func TestParseLog(t *testing.T) {
	log := "\x00\x01aaaa pppp\nFix the parser\n\nLonger body.\n\x00\x02\n" +
		"diff --git a/src/x.go b/src/x.go\n" +
		"index 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644\n" +
		"--- a/src/x.go\n+++ b/src/x.go\n" +
		"@@ -3 +3 @@ func f() {\n-\told\n+\tnew\n" +
		"@@ -10,2 +9,0 @@\n--- a removed line that looks like a header\n-x\n" +
		"@@ -20,0 +19,3 @@\n+a\n+b\n+c\n" +
		"@@ -0,0 +1 @@\n+top\n" +
		"diff --git a/new file.py b/new file.py\nnew file mode 100644\n" +
		"index 0000000000000000000000000000000000000000..3333333333333333333333333333333333333333\n" +
		"--- /dev/null\n+++ b/new file.py\n@@ -0,0 +1 @@\n+x = 1\n" +
		"diff --git \"a/caf\\303\\251.go\" \"b/caf\\303\\251.go\"\n" +
		"index 4444444444444444444444444444444444444444..5555555555555555555555555555555555555555 100644\n" +
		"--- \"a/caf\\303\\251.go\"\n+++ \"b/caf\\303\\251.go\"\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/img.png b/img.png\nindex 6666666666666666666666666666666666666666..7777777777777777777777777777777777777777 100644\nBinary files a/img.png and b/img.png differ\n" +
		"\x00\x01bbbb\nroot\x00\x02\n" +
		"diff --git a/r.go b/r.go\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..8888888888888888888888888888888888888888\n--- /dev/null\n+++ b/r.go\n@@ -0,0 +1 @@\n+package r\n"
	var got []*commit
	if err := parseLog(bufio.NewReader(strings.NewReader(log)), func(c *commit) bool { got = append(got, c); return true }); err != nil {
		t.Fatal(err)
	}
	want := []*commit{
		{Sha: "aaaa", Parent: "pppp", Parents: 1, Message: "Fix the parser\n\nLonger body.\n", Files: []fileDiff{
			{Path: "src/x.go", OldBlob: "1111111111111111111111111111111111111111", Lines: []int{3, 10, 11, 20, 1}},
			{Path: "new file.py", Added: true, Lines: []int{1}},
			{Path: "café.go", OldBlob: "4444444444444444444444444444444444444444", Lines: []int{1}},
			{Path: "img.png", OldBlob: "6666666666666666666666666666666666666666"},
		}},
		{Sha: "bbbb", Parents: 0, Message: "root", Files: []fileDiff{{Path: "r.go", Added: true, Lines: []int{1}}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseLog (-want +got):\n%s", diff)
	}
	// Stopping early.
	n := 0
	if err := parseLog(bufio.NewReader(strings.NewReader(log)), func(*commit) bool { n++; return false }); err != nil || n != 1 {
		t.Errorf("stop after the first: %d commits, %v", n, err)
	}
}

func TestCleanMessage(t *testing.T) {
	got := cleanMessage("Fix it\n\nBody line.\n\nSigned-off-by: A <a@x>\nCo-authored-by: B <b@x>\n")
	if got != "Fix it\n\nBody line." {
		t.Errorf("cleanMessage = %q", got)
	}
}
