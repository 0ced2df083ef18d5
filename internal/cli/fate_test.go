package cli

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/plan/plantest"
)

// TestChunkFates: castchunk chunk gives testdata/plan/mixed.txtar's files
// the fates its list says, the list internal/eval's TestSameFatesAsChunk
// holds eval to: the files chunked, each with its language, and the count
// of every reason the others are left out for.
func TestChunkFates(t *testing.T) {
	want := mixedTree(t)
	out, stderr, code := run(t, "", "chunk", "--stats", ".")
	if code != 0 {
		t.Fatalf("status %d, stderr:\n%s", code, stderr)
	}
	got := map[string]string{} // chunked files
	for _, r := range badRecords(t, out) {
		got[r.Path] = "chunked " + r.Language
	}
	wantCounts := map[string]int{}
	for p, w := range want {
		if strings.HasPrefix(w, "chunked") {
			if got[p] != w {
				t.Errorf("%s: chunk gives %q, want %q", p, got[p], w)
			}
			delete(got, p)
			continue
		}
		reason, _, _ := strings.Cut(w, " ") // the language is not in --stats
		wantCounts[reason]++
	}
	for p, g := range got {
		t.Errorf("%s: chunk gives %q, and the fates list none", p, g)
	}
	gotCounts := map[string]int{}
	if m := regexp.MustCompile(`(?m)^skipped files: (.*)$`).FindStringSubmatch(stderr); m != nil {
		for _, part := range strings.Split(m[1], ", ") {
			i := strings.LastIndexByte(part, ' ')
			n, _ := strconv.Atoi(part[i+1:])
			gotCounts[part[:i]] += n
		}
	}
	if m := regexp.MustCompile(`(?m)^unsupported files \(no grammar\): (.*)$`).FindStringSubmatch(stderr); m != nil {
		for _, part := range strings.Split(m[1], ", ") {
			n, _ := strconv.Atoi(part[strings.LastIndexByte(part, ' ')+1:])
			gotCounts["unsupported"] += n
		}
	}
	if fmt.Sprint(sorted(gotCounts)) != fmt.Sprint(sorted(wantCounts)) {
		t.Errorf("left out: %v, want %v; stderr:\n%s", sorted(gotCounts), sorted(wantCounts), stderr)
	}
}

func sorted(m map[string]int) []string {
	var s []string
	for k, v := range m {
		s = append(s, fmt.Sprintf("%s %d", k, v))
	}
	slices.Sort(s)
	return s
}

// mixedTree writes testdata/plan/mixed.txtar's files into a new current
// folder and returns its fates: path → "FATE [LANGUAGE]".
func mixedTree(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	want := plantest.WriteMixed(t, dir)
	t.Chdir(dir)
	return want
}
