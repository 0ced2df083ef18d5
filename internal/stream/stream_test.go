package stream

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lines makes an output: one record per "path:id" pair.
func lines(recs ...string) string {
	var b strings.Builder
	for _, r := range recs {
		p, id, _ := strings.Cut(r, ":")
		fmt.Fprintf(&b, `{"id":"%032s","path":"%s","x":1}`+"\n", id, p)
	}
	return b.String()
}

func reader(s, name string) *Reader { return NewReader(strings.NewReader(s), name) }

func TestDiff(t *testing.T) {
	old := lines("a.py:1", "a.py:2", "b.py:3", "c.py:4", "c.py:5")
	new := lines("a.py:1", "a.py:6", "c.py:4", "c.py:5", "d.py:7")
	var got []string
	st, err := Diff(reader(old, "old"), reader(new, "new"), func(c Change) error {
		if c.Add {
			got = append(got, "add "+string(c.Record))
		} else {
			got = append(got, "delete "+c.Path+" "+strings.TrimLeft(c.ID, "0"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"delete a.py 2",
		"add " + strings.TrimSuffix(lines("a.py:6"), "\n"),
		"delete b.py 3",
		"add " + strings.TrimSuffix(lines("d.py:7"), "\n"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	wantSt := DiffStats{Added: 2, Deleted: 2, Unchanged: 3, FilesAdded: 1, FilesDeleted: 1, FilesChanged: 1, FilesSame: 1}
	if st != wantSt {
		t.Errorf("stats %+v, want %+v", st, wantSt)
	}
	if st.Old() != 5 || st.New() != 5 {
		t.Errorf("Old() %d, New() %d: want 5 and 5 (the records of each input)", st.Old(), st.New())
	}
}

// TestDiffRelabelled: a chunk whose id both outputs have but whose
// language or host_language changed (a newer castchunk found the fence it
// lies in) is added again, with its reason, so that an index keyed by id
// replaces the stale label; its file counts as changed.
func TestDiffRelabelled(t *testing.T) {
	rec := func(id, language, host string) string {
		r := fmt.Sprintf(`{"id":"%032s","path":"a.md","language":"%s"`, id, language)
		if host != "" {
			r += fmt.Sprintf(`,"host_language":"%s"`, host)
		}
		return r + "}"
	}
	old := strings.Join([]string{rec("1", "markdown", ""), rec("2", "markdown", ""), rec("3", "markdown", ""), rec("4", "rust", "markdown")}, "\n") + "\n"
	new := strings.Join([]string{rec("1", "markdown", "markdown"), rec("2", "rust", "markdown"), rec("3", "markdown", "markdown"), rec("4", "rust", "markdown"), rec("5", "rust", "markdown")}, "\n") + "\n"
	var got []string
	st, err := Diff(reader(old, "old"), reader(new, "new"), func(c Change) error {
		got = append(got, fmt.Sprintf("add %q %s", c.Reason, c.Record))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`add "language" ` + rec("1", "markdown", "markdown"),
		`add "language" ` + rec("2", "rust", "markdown"),
		`add "language" ` + rec("3", "markdown", "markdown"),
		`add "" ` + rec("5", "rust", "markdown"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	wantSt := DiffStats{Added: 1, Relabelled: 3, Unchanged: 1, FilesChanged: 1}
	if st != wantSt {
		t.Errorf("stats %+v, want %+v", st, wantSt)
	}
}

// TestDiffRelabelledLanguages: a chunk whose languages alone changed (a
// fence found in its prose, or an older castchunk's record without the
// field) is added again as relabelled; one whose languages are the same is
// unchanged.
func TestDiffRelabelledLanguages(t *testing.T) {
	rec := func(id, languages string) string {
		r := fmt.Sprintf(`{"id":"%032s","path":"a.md","language":"markdown","host_language":"markdown"`, id)
		if languages != "" {
			r += `,"languages":` + languages
		}
		return r + "}"
	}
	old := strings.Join([]string{rec("1", `["markdown"]`), rec("2", ""), rec("3", `["markdown","rust"]`)}, "\n") + "\n"
	new := strings.Join([]string{rec("1", `["markdown","rust"]`), rec("2", `["markdown"]`), rec("3", `["markdown","rust"]`)}, "\n") + "\n"
	var got []string
	st, err := Diff(reader(old, "old"), reader(new, "new"), func(c Change) error {
		got = append(got, fmt.Sprintf("add %q %s", c.Reason, c.Record))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`add "language" ` + rec("1", `["markdown","rust"]`), `add "language" ` + rec("2", `["markdown"]`)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if wantSt := (DiffStats{Relabelled: 2, Unchanged: 1, FilesChanged: 1}); st != wantSt {
		t.Errorf("stats %+v, want %+v", st, wantSt)
	}
}

func TestReaderOrder(t *testing.T) {
	for _, c := range []struct {
		in, want string
	}{
		{lines("b.py:1", "a.py:2"), `in: line 2: files are not in path order ("a.py" after "b.py")`},
		{lines("a.py:1", "b.py:2", "a.py:3"), `in: line 3: files are not in path order ("a.py" after "b.py")`},
		{"{}\n", `in: line 1: `},
		{lines("a.py:1") + "oops", "in: line 2: "},
	} {
		r := reader(c.in, "in")
		var err error
		for err == nil {
			_, err = r.Next()
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %q, want %q...", c.in, err, c.want)
		}
	}
}

func TestMerge(t *testing.T) {
	a := lines("a.py:1", "a.py:2", "d.py:3")
	b := lines("b.py:4", "c.py:5", "e.py:6")
	c := ""
	var out bytes.Buffer
	if err := Merge([]*Reader{reader(b, "b"), reader(c, "c"), reader(a, "a")}, &out); err != nil {
		t.Fatal(err)
	}
	want := lines("a.py:1", "a.py:2", "b.py:4", "c.py:5", "d.py:3", "e.py:6")
	if out.String() != want {
		t.Errorf("merged:\n%s\nwant:\n%s", out.String(), want)
	}
	err := Merge([]*Reader{reader(a, "a"), reader(lines("d.py:9"), "x")}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `"d.py" is in both`) {
		t.Errorf("a file in two inputs: error %v", err)
	}
}
