package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// rec is one record line as chunk writes it, with the fields that the
// checks read; extra (",\"scope\":[]" and the like) goes after content.
func rec(path string, id, index int, method string, start, end int, extra string) string {
	return fmt.Sprintf(`{"id":"%032x","path":%q,"language":"python","method":%q,"index":%d,"start_line":1,"end_line":1,"start_byte":%d,"end_byte":%d,"size":1,"content":"x"%s}`+"\n",
		id, path, method, index, start, end, extra)
}

// file is n tiling records of path made by method, ids from id on.
func file(path string, id, n int, method, extra string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(rec(path, id+i, i, method, 10*i, 10*i+10, extra))
	}
	return b.String()
}

// readAll reads every file of in, and returns the error that stopped it
// (nil at the end).
func readAll(in string) error {
	r := reader(in, "in.jsonl")
	for {
		if _, err := r.Next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// TestReaderIDsAndIndex: a file's ids are unique and its records, when
// they have an index, are numbered 0, 1, 2, … in order; the error names
// the input, the line and what is wrong, and diff and merge both refuse.
func TestReaderIDsAndIndex(t *testing.T) {
	a := file("a.py", 1, 3, "cast", "")
	for _, c := range []struct {
		what, in, want string
	}{
		{"clean", a + file("b.py", 10, 2, "cast", ""), ""},
		{"index restarts in each file", a + file("b.py", 10, 1, "cast", ""), ""},
		{"records without index are not numbered", lines("a.py:1", "a.py:2", "b.py:3"), ""},
		{"a record repeated", a + rec("a.py", 3, 2, "cast", 20, 30, ""),
			`in.jsonl: line 4: duplicate id 00000000000000000000000000000003 in "a.py" (line 3 has it too)`},
		{"a repeated id, other fields changed", rec("a.py", 1, 0, "cast", 0, 10, "") + rec("a.py", 1, 1, "cast", 10, 20, ""),
			`in.jsonl: line 2: duplicate id 00000000000000000000000000000001 in "a.py" (line 1 has it too)`},
		{"an id repeated without index", lines("a.py:1", "a.py:2", "a.py:1"),
			`in.jsonl: line 3: duplicate id 00000000000000000000000000000001 in "a.py" (line 1 has it too)`},
		{"a chunk missing", rec("a.py", 1, 0, "cast", 0, 10, "") + rec("a.py", 2, 2, "cast", 20, 30, ""),
			`in.jsonl: line 2: index 2 in "a.py", expected 1: a file's chunks are numbered 0, 1, 2, … in order`},
		{"not from 0", file("a.py", 1, 1, "cast", "") + rec("b.py", 2, 1, "cast", 0, 10, ""),
			`in.jsonl: line 2: index 1 in "b.py", expected 0`},
		{"out of order", rec("a.py", 1, 1, "cast", 10, 20, "") + rec("a.py", 2, 0, "cast", 0, 10, ""),
			`in.jsonl: line 1: index 1 in "a.py", expected 0`},
	} {
		err := readAll(c.in)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.what, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q...", c.what, err, c.want)
		case c.want == "":
			continue
		}
		_, err = Diff(reader(a, "old.jsonl"), reader(c.in, "in.jsonl"), func(Change) error { return nil })
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: diff: error %v, want %q...", c.what, err, c.want)
		}
		err = Merge([]*Reader{reader(c.in, "in.jsonl")}, io.Discard)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: merge: error %v, want %q...", c.what, err, c.want)
		}
	}
}

// TestMergeOneRun: merge refuses inputs that cannot be shards of one run:
// records with different fields (one made with --context, one without; a
// field another tool added to one), or two methods shown (a cast record and
// overlapping sliding windows), and names the input and line of both. A
// run's fallback records (sliding, tiling) beside cast ones are merged.
func TestMergeOneRun(t *testing.T) {
	const scope = `,"scope":[],"defines":[]`
	overlapping := rec("c.py", 20, 0, "sliding", 0, 10, "") + rec("c.py", 21, 1, "sliding", 5, 15, "")
	for _, c := range []struct {
		what   string
		inputs []string
		want   string
	}{
		{"shards of one run", []string{file("a.py", 1, 2, "cast", scope), file("b.py", 10, 2, "cast", scope)}, ""},
		{"the fallback beside cast", []string{file("a.py", 1, 2, "cast", ""), file("b.py", 10, 2, "sliding", "")}, ""},
		{"the fallback alone", []string{file("a.py", 1, 2, "sliding", ""), file("b.py", 10, 2, "sliding", "")}, ""},
		{"overlapping windows of one run", []string{overlapping, file("b.py", 10, 2, "sliding", "")}, ""},
		{"fields in another order", []string{file("a.py", 1, 1, "cast", ""),
			`{"path":"b.py","id":"0000000000000000000000000000000a","language":"python","method":"cast","index":0,"start_line":1,"end_line":1,"start_byte":0,"end_byte":10,"size":1,"content":"x"}` + "\n"}, ""},
		{"one with --context, one without", []string{file("a.py", 1, 2, "cast", scope), file("b.py", 10, 2, "sliding", "")},
			`b.jsonl: line 1: the record's fields differ from those of a.jsonl line 1: it lacks "defines", "scope"; merge takes the shards of one run`},
		{"one without --context, one with", []string{file("a.py", 1, 2, "cast", ""), file("b.py", 10, 2, "cast", scope)},
			`b.jsonl: line 1: the record's fields differ from those of a.jsonl line 1: it has "defines", "scope"`},
		{"text instead of tokens", []string{file("a.py", 1, 2, "cast", `,"tokens":1`), file("b.py", 10, 2, "cast", `,"text":"a\nx"`)},
			`b.jsonl: line 1: the record's fields differ from those of a.jsonl line 1: it has "text" and it lacks "tokens"`},
		{"host_language and cell in some files' records only", []string{file("a.py", 1, 2, "cast", ""), file("b.md", 10, 2, "cast", `,"host_language":"markdown"`), file("c.ipynb", 20, 2, "cast", `,"cell":0`)}, ""},
		{"a field another tool added", []string{file("a.py", 1, 2, "cast", ""), file("b.py", 10, 2, "cast", `,"vector":[0.5,1]`)},
			`b.jsonl: line 1: the record's fields differ from those of a.jsonl line 1: it has "vector"`},
		{"fields differ inside one input", []string{file("a.py", 1, 2, "cast", "") + rec("a.py", 3, 2, "cast", 20, 30, scope)},
			`a.jsonl: line 3: the record's fields differ from those of a.jsonl line 1: it has "defines", "scope"`},
		{"cast and overlapping windows", []string{file("a.py", 1, 2, "cast", ""), overlapping},
			`b.jsonl: line 2: sliding windows that overlap, which only a run of method sliding makes (the fallback's windows tile the file), but a.jsonl line 1 holds a chunk made by cast, which only a run of method cast makes (the fallback is sliding); merge takes the shards of one run`},
		{"overlapping windows, then cast", []string{overlapping, file("d.py", 1, 2, "cast", "")},
			`b.jsonl: line 1: a chunk made by cast, which only a run of method cast makes (the fallback is sliding), but a.jsonl line 2 holds sliding windows that overlap`},
		{"a method castchunk lacks", []string{file("a.py", 1, 1, "cast", ""), file("b.py", 10, 1, "other", "")},
			`b.jsonl: line 1: a chunk made by other, which only a run of method other makes (the fallback is sliding), but a.jsonl line 1 holds a chunk made by cast`},
	} {
		var inputs []*Reader
		for i, in := range c.inputs {
			inputs = append(inputs, reader(in, string(rune('a'+i))+".jsonl"))
		}
		var out bytes.Buffer
		err := Merge(inputs, &out)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.what, err)
		case c.want == "" && out.Len() != len(strings.Join(c.inputs, "")):
			t.Errorf("%s: merged %d bytes of %d", c.what, out.Len(), len(strings.Join(c.inputs, "")))
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q...", c.what, err, c.want)
		case c.want != "":
			t.Logf("%s: %v", c.what, err)
		}
	}
}

// TestDiffAcrossSettings: diff compares runs made with different flags
// (turning --embed-text on re-adds every chunk), so it does not compare
// fields or methods between its inputs.
func TestDiffAcrossSettings(t *testing.T) {
	old := file("a.py", 1, 2, "cast", "")
	new := file("a.py", 5, 2, "sliding", `,"text":"a.py\nx"`)
	st, err := Diff(reader(old, "old"), reader(new, "new"), func(Change) error { return nil })
	if err != nil || st.Added != 2 || st.Deleted != 2 {
		t.Errorf("diff across settings: %+v, %v", st, err)
	}
}

// TestAppendKeys checks the key scanner against encoding/json on lines
// whose strings hold quotes, backslashes, brackets and escapes.
func TestAppendKeys(t *testing.T) {
	for _, line := range []string{
		`{}`,
		` { } `,
		`{"a":1}`,
		`{"id":"x","content":"say \"hi\", {not: a key} [\\]\\\"","n":-1.5e3,"t":true,"z":null}`,
		`{"content":"\\","b":[1,{"c":"}"},"]"],"d":{"e":{"f":[]}}}`,
		`{ "sp" : "a" , "k\u0065y":2, "q\"uote":3, "back\\slash":4, "nl\n":5 }`,
		`{"a":1,"a":2}`,
		`{"scope":[{"kind":"class","name":"A \"x\"","line":1}],"defines":[],"text":"p\n"}`,
	} {
		got := appendKeys(nil, []byte(line))
		want := jsonKeys(t, line)
		if !slices.Equal(got, want) {
			t.Errorf("%s: keys %q, want %q", line, got, want)
		}
	}
}

// jsonKeys returns the top-level keys of line, in order, by encoding/json.
func jsonKeys(t *testing.T, line string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
