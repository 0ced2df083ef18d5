package output

import (
	"strings"
	"testing"
)

// TestClassify: only exactly castchunk's outputs are outputs (issue 37): a
// route table whose first object has "id" and "path", a fixture of one
// record-like line, records with one other line appended, a manifest line
// with a status chunk never writes, are not.
func TestClassify(t *testing.T) {
	rec := `{"id":"1ab61e21b11fe21abfdf04fd03386a4a","path":"a.py","language":"python","method":"cast","index":0,"start_line":1,"end_line":2,"start_byte":0,"end_byte":22,"size":14,"languages":["python"],"content":"def f():\n    return 1\n"}` + "\n"
	man := `{"path":"a.py","status":"chunked","language":"python","method":"cast","chunks":1,"syntax_errors":false,"note":""}` + "\n"
	tests := []struct {
		name, text string
		want       Kind
	}{
		{"empty", "", Empty},
		{"records", rec + rec, Records},
		{"manifest", man, Manifest},
		{"changes", `{"op":"delete","id":"1ab61e21b11fe21abfdf04fd03386a4a","path":"a.py"}` + "\n" + `{"op":"add",` + rec[1:] + `{"op":"add","reason":"language",` + rec[1:], Changes},
		{"parquet", "PAR1....PAR1", Parquet},
		{"route table", "{\n  \"id\": \"home\",\n  \"path\": \"/\"\n}\n", None},
		{"status json", `{"path": "/health", "status": "ok"}` + "\n", None},
		{"fixture", `{"id":"x","path":"a.py","language":"python"}` + "\n", None},
		{"records and more", rec + `{"id":"x"}` + "\n", None},
		{"no final newline", strings.TrimSuffix(rec, "\n"), None},
		{"unknown status", strings.Replace(man, `"chunked"`, `"ok"`, 1), None},
		{"manifest spaced", strings.Replace(man, `,"status"`, `, "status"`, 1), None},
		{"delete with more", `{"op":"delete","id":"1ab6","path":"a.py","x":1}` + "\n", None},
		{"half parquet", "PAR1 not parquet", None},
	}
	for _, tt := range tests {
		if got := Classify(strings.NewReader(tt.text), int64(len(tt.text))); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if !Probe([]byte(`{"id":"0123456789`)) || Probe([]byte("{\n  \"id\": \"home\"")) || Probe([]byte("#!/bin/sh\necho hi")) {
		t.Error("Probe: want true for a record's start only")
	}
}
