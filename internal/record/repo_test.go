package record

import (
	"bytes"
	"strings"
	"testing"
)

// TestRepoFieldAndID: a file of a named repository writes repo second, and
// its id covers the name, so two repositories' identical files differ.
func TestRepoFieldAndID(t *testing.T) {
	s, err := Select("repo")
	if err != nil {
		t.Fatal(err)
	}
	e := Encoder{Schema: s}
	out := map[string]string{}
	for _, repo := range []string{"one", "two"} {
		b, err := e.AppendFile(nil, File{Repo: repo, Path: "README.md", Language: "markdown", Method: "cast", Src: []byte("# Hi\n")}, spansAt("# Hi\n"))
		if err != nil {
			t.Fatal(err)
		}
		out[repo] = string(b)
	}
	want := `{"id":"` + refID("one\x00README.md", "# Hi\n", 0) + `","repo":"one","path":"README.md","language":"markdown",`
	if !strings.HasPrefix(out["one"], want) {
		t.Fatalf("got %s\nwant prefix %s", out["one"], want)
	}
	if out["one"][:40] == out["two"][:40] {
		t.Fatalf("two repositories' identical files share an id:\n%s%s", out["one"], out["two"])
	}
	d := NewDecoder(bytes.NewReader([]byte(out["two"])))
	d.Strict, d.Schema = true, s
	var r Record
	if err := d.Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Repo != "two" || !r.HasRepo || r.ID != ID("two", "README.md", []byte("# Hi\n"), 0) {
		t.Fatalf("decoded %+v", r)
	}
	var again []byte
	if again, err = e.AppendRecord(nil, &r); err != nil || string(again) != strings.TrimSuffix(out["two"], "\n") && string(again) != out["two"] {
		t.Fatalf("re-encoded %q (%v), want %q", again, err, out["two"])
	}
}

// TestCheckRepo: names that would make ids ambiguous, break a header or a
// list, or hide in one are refused.
func TestCheckRepo(t *testing.T) {
	for _, ok := range []string{"one", "github.com/org/repo", "deux dépôts"} {
		if err := CheckRepo(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", " one", "one\n", "a\x00b", "a\tb", "\xff"} {
		if CheckRepo(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
