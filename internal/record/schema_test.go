package record

import (
	"io"
	"strings"
	"testing"
)

// TestFakeField adds a field the way a real one is added: a row in the
// table (here appended to a schema) and the code that computes its value.
// The encoder writes it, a decoder that knows it reads it (even with
// Strict), and a reader that does not know it skips it.
func TestFakeField(t *testing.T) {
	var decoded []int
	lines := &Field{
		Name: "lines", Type: Int, Optional: true, Help: "lines in the chunk",
		Append: intField(func(c *Chunk) int { return c.EndLine - c.StartLine + 1 }),
		Raw:    rawInt(func(c *Chunk) int { return c.EndLine - c.StartLine + 1 }),
		Set:    func(_ *Record, v Value) { decoded = append(decoded, v.Int) },
	}
	schema, err := NewSchema(append(Default().Fields(), lines)...)
	if err != nil {
		t.Fatal(err)
	}
	src := "a = 1\nb = 2\n\nc = 3\n"
	enc := Encoder{Schema: schema}
	out, err := enc.AppendFile(nil, File{Path: "a.py", Language: "python", Method: "cast", Src: []byte(src)}, spansAt(src, 6, 13))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	for i, suffix := range []string{`,"lines":1}`, `,"lines":2}`, `,"lines":1}`} {
		if !strings.HasSuffix(got[i], suffix) {
			t.Errorf("record %d: %s, want it to end with %s", i, got[i], suffix)
		}
	}
	d := NewDecoder(strings.NewReader(string(out)))
	d.Schema, d.Strict = schema, true
	var r Record
	for {
		if err := d.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if len(decoded) != 3 || decoded[1] != 2 {
		t.Errorf("decoded lines %v, want [1 2 1]", decoded)
	}
	// Parquet gets a column for it, after the others.
	pq, _ := writeFormat(t, "parquet", schema, []pqFile{{File{Path: "a.py", Language: "python", Method: "cast", Src: []byte(src)}, spansAt(src, 6, 13)}})
	_, rows := goRows(t, pq)
	for i, want := range []string{`"lines":1`, `"lines":2`, `"lines":1`} {
		if i >= len(rows) || !strings.Contains(rows[i], want) {
			t.Errorf("Parquet rows %v, want row %d to hold %s", rows, i, want)
		}
	}
	// Readers of the default schema: lenient skips it, Strict refuses it.
	if err := NewDecoder(strings.NewReader(got[0] + "\n")).Decode(&r); err != nil {
		t.Errorf("lenient default decoder: %v", err)
	}
	strict := NewDecoder(strings.NewReader(got[0] + "\n"))
	strict.Strict = true
	if err := strict.Decode(&r); err == nil || !strings.Contains(err.Error(), `unknown field "lines"`) {
		t.Errorf("strict default decoder: %v", err)
	}
	// A record without the optional field is still read by its schema.
	plain, _ := new(Encoder).AppendFile(nil, File{Path: "a.py", Language: "python", Method: "cast", Src: []byte(src)}, spansAt(src))
	d = NewDecoder(strings.NewReader(string(plain)))
	d.Schema, d.Strict = schema, true
	if err := d.Decode(&r); err != nil {
		t.Errorf("schema with an optional field, record without it: %v", err)
	}
}

func TestSchemaDeclarations(t *testing.T) {
	if _, err := NewSchema(append(All().Fields(), All().Fields()[0])...); err == nil {
		t.Error("a field declared twice was accepted")
	}
	if _, err := Select("no-such-field"); err == nil {
		t.Error("Select accepted an unknown optional field")
	}
	want := []string{"id", "path", "language", "host_language", "cell", "end_cell", "method", "index", "start_line", "end_line", "start_byte", "end_byte", "ranges", "size", "languages", "content"}
	if got := Default().Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("default fields %v, want %v", got, want)
	}
	help := All().Help(80)
	for _, line := range strings.Split(strings.TrimSuffix(help, "\n"), "\n") {
		if len(line) > 80 {
			t.Errorf("help line over 80 columns: %q", line)
		}
	}
	for _, name := range All().Names() {
		if !strings.Contains(help, "  "+name+" ") || !strings.Contains(All().Markdown(), "| `"+name+"` |") {
			t.Errorf("field %s missing from Help or Markdown", name)
		}
	}
}
