package record

import (
	"bytes"
	"strings"
	"testing"
)

// maxWriter records the largest single write.
type maxWriter struct {
	bytes.Buffer
	largest, writes int
}

func (m *maxWriter) Write(p []byte) (int, error) {
	m.largest, m.writes = max(m.largest, len(p)), m.writes+1
	return m.Buffer.Write(p)
}

// TestJSONLStreams: a file whose records are many times flushAt is written
// in pieces of about flushAt, never gathered whole, and the bytes are
// those of AppendFile.
func TestJSONLStreams(t *testing.T) {
	src := strings.Repeat("x = 1\n", 20000)
	var spans []int
	for i := 6; i < len(src); i += 6 {
		spans = append(spans, i)
	}
	sp := spansAt(src, spans...)
	f := File{Path: "a.py", Language: "python", Method: "sliding", Src: []byte(src)}
	want, err := AppendFile(nil, f, sp)
	if err != nil {
		t.Fatal(err)
	}
	var out maxWriter
	w, err := FormatByName("jsonl").New(&out, Default())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile(f, sp); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatal("streamed records differ from AppendFile's")
	}
	if len(want) < 10*flushAt || out.largest > flushAt+1024 || out.writes < len(want)/flushAt {
		t.Errorf("%d bytes of records in %d writes, the largest %d; want pieces of about %d", len(want), out.writes, out.largest, flushAt)
	}
	// A bad span is refused before anything is written.
	out.Reset()
	bad := append(sp[:len(sp):len(sp)], sp[0])
	if err := w.WriteFile(f, bad); err == nil || out.Len() != 0 {
		t.Errorf("bad spans: err %v, %d bytes written", err, out.Len())
	}
}
