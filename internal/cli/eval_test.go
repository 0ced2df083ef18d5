package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/eval"
)

func TestEvalBaseline(t *testing.T) {
	on, off := true, false
	for _, tc := range []struct {
		in   string
		want eval.Baseline
	}{
		{"sliding", eval.Baseline{Method: "sliding"}},
		{"cast:500", eval.Baseline{Method: "cast", MaxSize: 500}},
		{"sliding:2000:on", eval.Baseline{Method: "sliding", MaxSize: 2000, Context: &on}},
		{"sliding:2000:off", eval.Baseline{Method: "sliding", MaxSize: 2000, Context: &off}},
		{"sliding:1000:off:bm25", eval.Baseline{Method: "sliding", MaxSize: 1000, Context: &off, Retriever: "bm25"}},
		{"cast::on", eval.Baseline{Method: "cast", Context: &on}},
	} {
		got, err := parseBaseline(tc.in)
		if err != nil || got.Method != tc.want.Method || got.MaxSize != tc.want.MaxSize || got.Retriever != tc.want.Retriever ||
			(got.Context == nil) != (tc.want.Context == nil) || got.Context != nil && *got.Context != *tc.want.Context {
			t.Errorf("parseBaseline(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "nope", "sliding:0", "sliding:x", "sliding:100:maybe", "sliding:1:on:x", "sliding:1:on:bm25:x"} {
		if _, err := parseBaseline(bad); err == nil {
			t.Errorf("parseBaseline(%q) accepted", bad)
		}
	}
}

func TestEvalConfigs(t *testing.T) {
	o := &evalOptions{methods: []string{"sliding", "cast", "cast"}, sizes: []int{300, 300}, contexts: []string{"on", "off"},
		retrievers: []string{"bm25", "dense", "bm25"}}
	cs, err := o.configs()
	if err != nil {
		t.Fatal(err)
	}
	want := []eval.Config{
		{Method: "sliding", MaxSize: 300, Context: true, Retriever: "bm25"}, {Method: "sliding", MaxSize: 300, Context: true, Retriever: "dense"},
		{Method: "sliding", MaxSize: 300, Retriever: "bm25"}, {Method: "sliding", MaxSize: 300, Retriever: "dense"},
		{Method: "cast", MaxSize: 300, Context: true, Retriever: "bm25"}, {Method: "cast", MaxSize: 300, Context: true, Retriever: "dense"},
		{Method: "cast", MaxSize: 300, Retriever: "bm25"}, {Method: "cast", MaxSize: 300, Retriever: "dense"}}
	if len(cs) != len(want) {
		t.Fatalf("configs = %+v, want %+v", cs, want)
	}
	for i := range want {
		if cs[i] != want[i] {
			t.Errorf("configs[%d] = %+v, want %+v", i, cs[i], want[i])
		}
	}
}

// TestEvalFolderDefault: outside a git repository, eval measures completion
// queries without being asked, and --json is one document on stdout.
func TestEvalFolderDefault(t *testing.T) {
	dir := t.TempDir()
	src := "def total(lines):\n    s = 0\n    for line in lines:\n        s += line.amount\n    return s\n"
	if err := os.WriteFile(filepath.Join(dir, "a.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"eval", "--json", "--resamples", "10", "--method", "cast", "--max-size", "500", "--context", "off", dir},
		Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	if code != ExitOK || errOut.Len() > 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	var rep eval.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out.String())
	}
	if len(rep.Sources) != 1 || rep.Sources[0].Name != "completion" || rep.Sources[0].Queries.Asked != defaultCompletionQueries ||
		rep.Sources[0].Queries.Kept != 1 || len(rep.Sources[0].Rows) != 4 { // and the verdict's reference, castchunk's defaults (cast 2000), with its baseline
		t.Errorf("report: %+v", rep.Sources)
	}
}
