package stream

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func mentry(p string) string {
	return `{"path":` + p + `,"status":"chunked","language":"","method":"","chunks":0,"syntax_errors":false,"note":""}` + "\n"
}

func TestSniff(t *testing.T) {
	for in, want := range map[string]Kind{
		"":                                      Empty,
		" \n\n":                                 Empty,
		mentry(`"a.py"`):                        Manifest,
		"\n" + mentry(`"a.py"`):                 Manifest,
		lines("a.py:1"):                         Records,
		`{"path":"a.py","status":"x","id":"1"}`: Records,
		`{"path":"` + strings.Repeat("a", sniffSize) + `"}`: Records, // too long to tell: the record reader says
	} {
		kind, r, err := Sniff(strings.NewReader(in))
		if err != nil || kind != want {
			t.Errorf("Sniff(%.40q) = %v, %v; want %v", in, kind, err, want)
			continue
		}
		if all, _ := io.ReadAll(r); string(all) != in {
			t.Errorf("Sniff(%.40q): the reader gives %.40q", in, all)
		}
	}
}

// TestSniffNeither: a first line that is neither a record nor a manifest
// entry is not taken for records: Sniff says so, naming the line.
func TestSniffNeither(t *testing.T) {
	for in, line := range map[string]int{
		"not json\n":                  1,
		"\n\ngarbage":                 3,
		`{"path":"a.py"}` + "\n":      1,
		"[1, 2]\n" + mentry(`"a.py"`): 1,
	} {
		_, _, err := Sniff(strings.NewReader(in))
		var ne *NeitherError
		if !errors.As(err, &ne) || ne.Line != line {
			t.Errorf("Sniff(%.40q): %v, want line %d is neither", in, err, line)
		}
	}
}

// TestMergeManifests: shard manifests merge in path order, byte for byte;
// a path out of order, listed twice or in two inputs, and a record among
// entries are errors naming the input and line.
func TestMergeManifests(t *testing.T) {
	merge := func(ins ...string) (string, error) {
		var rs []io.Reader
		var names []string
		for i, in := range ins {
			rs = append(rs, strings.NewReader(in))
			names = append(names, string(rune('a'+i))+".jsonl")
		}
		var out bytes.Buffer
		err := MergeManifests(rs, names, []string{"chunked", "hidden"}, &out)
		return out.String(), err
	}
	// "\xff" sorts after every other byte; chunk writes it quoted.
	a := mentry(`".github/ci.yml"`) + mentry(`"b.py"`) + mentry(`"\"z/\\xff.py\""`)
	b := mentry(`"a.py"`) + mentry(`"c.py"`) + mentry(`"z/y.py"`)
	want := mentry(`".github/ci.yml"`) + mentry(`"a.py"`) + mentry(`"b.py"`) + mentry(`"c.py"`) + mentry(`"z/y.py"`) + mentry(`"\"z/\\xff.py\""`)
	if got, err := merge(a, "", b); err != nil || got != want {
		t.Errorf("merge: %v\n%s\nwant\n%s", err, got, want)
	}
	for _, c := range []struct {
		ins  []string
		want string
	}{
		{[]string{mentry(`"b.py"`) + mentry(`"a.py"`)}, `a.jsonl: line 2: entries are not in path order ("a.py" after "b.py")`},
		{[]string{mentry(`"a.py"`) + mentry(`"a.py"`)}, `a.jsonl: line 2: a path is listed twice`},
		{[]string{mentry(`"a.py"`), mentry(`"a.py"`)}, `"a.py" is in both a.jsonl and b.jsonl`},
		{[]string{mentry(`"a.py"`) + lines("b.py:1")}, `a.jsonl: line 2: a record ("id"), not a manifest entry`},
		{[]string{mentry(`"a.py"`) + "{\"path\":\"b.py\"}\n"}, `a.jsonl: line 2: not a manifest entry: "path" and "status" are needed`},
		{[]string{"{\n"}, `a.jsonl: line 1: not a manifest entry`},
		{[]string{mentry(`"a.py"`) + `{"path":"b.py","status":"bogus"}` + "\n"}, `a.jsonl: line 2: unknown status "bogus": castchunk chunk writes "chunked" or "hidden"`},
	} {
		if _, err := merge(c.ins...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("merge(%q): %v, want %q", c.ins, err, c.want)
		}
	}
}
