package record

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
)

// FuzzDecoder feeds arbitrary bytes to the decoder: it must never panic or
// loop, and every record it accepts must be exactly what the encoder writes
// for it (the decoder only accepts canonical lines).
func FuzzDecoder(f *testing.F) {
	src := []byte("\ufeffdef f():\r\n\treturn \"é\\u2028\"\n")
	good, err := AppendFile(nil, File{Path: "a.py", Language: "python", Method: "cast", Src: src},
		[]chunk.Span{{Start: 0, End: 13, Size: chunk.Size(src[:13])}, {Start: 13, End: len(src), Size: chunk.Size(src[13:])}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte("{}\n"))
	f.Add([]byte(`{"id":"00000000000000000000000000000000","path":"p","language":"x","method":"cast","index":0,"start_line":1,"end_line":1,"start_byte":0,"end_byte":1,"size":1,"content":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := NewDecoder(bytes.NewReader(data))
		dec.Strict = true
		lines := bytes.SplitAfter(data, []byte("\n"))
		var rec Record
		for {
			err := dec.Decode(&rec)
			if err == io.EOF {
				return
			}
			var lineErr *LineError
			if errors.As(err, &lineErr) {
				continue
			}
			if err != nil {
				t.Fatalf("read error from a bytes.Reader: %v", err)
			}
			line := lines[dec.Line()-1]
			again, err := new(Encoder).AppendRecord(nil, &rec)
			if err != nil {
				t.Fatalf("accepted record cannot be encoded: %v\n%q", err, line)
			}
			if !bytes.Equal(again, line) {
				t.Fatalf("accepted a line that is not canonical:\n got %q\nwant %q", line, again)
			}
		}
	})
}
