package verify

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/record"
)

// fuzzTree is the small fixed tree FuzzVerify checks records against: each
// file, how it is chunked and by which method.
var fuzzTree = []struct {
	path, language, method, text string
	spans                        [][2]int // nil: cut before every line
}{
	{path: "a.py", language: "python", method: "cast",
		text: "\ufeffimport os\r\n\ndef f(x):\n\treturn \"é\\u2028\" + '\x01\x1b'  \u2028\n\nclass C:\n    pass\n"},
	{path: "src/b.ts", language: "typescript", method: "cast",
		text: "export class A {\n  m(): void {}\n}\n// end"},
	{path: "s.py", language: "python", method: "sliding",
		text:  "l1 = 1\nl2 = 2\nl3 = 3\nl4 = 4\n",
		spans: [][2]int{{0, 14}, {7, 21}, {14, 28}}}, // three lines a window, one shared
}

// fuzzLimit bounds a line and a file in FuzzVerify: the most a record can
// make the verifier hold.
const fuzzLimit = 1 << 20

// FuzzVerify feeds arbitrary record lines to the decoder and the verifier
// over a small fixed tree: they must not panic, and memory must stay
// bounded by the input and the limits. It also checks, for the records the
// real encoder writes for the tree, that the clean stream verifies with no
// problem, that any change of one byte of a record's content is reported,
// and that any change of one byte of the stream is caught (by the strict
// decoder or by verify).
func FuzzVerify(f *testing.F) {
	root := f.TempDir()
	clean := fuzzStream(f, root)
	f.Add(clean, uint16(0), uint32(0), byte('x'))
	f.Add(clean, uint16(3), uint32(5), byte('\n'))
	f.Add([]byte(`{"id":"00000000000000000000000000000000","path":"../../etc/shadow","language":"python","method":"cast","index":0,"start_line":1,"end_line":1,"start_byte":0,"end_byte":1,"size":1,"languages":["python"],"content":"x"}`+"\n"), uint16(1), uint32(1), byte(0))
	f.Add([]byte(`{"id":"00000000000000000000000000000000","path":"/dev/zero","language":"cobol","method":"sliding","index":0,"start_line":1,"end_line":1,"start_byte":0,"end_byte":1,"size":1,"languages":["cobol"],"content":"x"}`+"\n"), uint16(1), uint32(1), byte(0xc3))
	f.Fuzz(func(t *testing.T, data []byte, pick uint16, at uint32, to byte) {
		// Arbitrary lines: no panic, bounded memory.
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, strict := range []bool{false, true} {
			verifyStream(root, data, strict)
		}
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64*uint64(len(data))+8<<20 {
			t.Fatalf("%d bytes allocated verifying %d bytes of records", alloc, len(data))
		}

		// The clean stream verifies.
		if errs, problems := verifyStream(root, clean, true); errs+len(problems) != 0 {
			t.Fatalf("clean stream: %d line errors, problems %q", errs, problems)
		}

		// One byte of one record's content changed: reported, for that record.
		recs := decode(t, clean)
		r := &recs[int(pick)%len(recs)]
		i := int(at) % len(r.Content)
		if r.Content[i] != to {
			b := []byte(r.Content)
			b[i] = to
			r.Content = string(b)
			v, lines := checkWith(&Verifier{Root: root, MaxFileSize: fuzzLimit}, recs)
			found := false
			for _, l := range lines {
				found = found || strings.HasPrefix(l, Problem{Path: r.Path, Index: r.Index}.String())
			}
			if v.Problems == 0 || !found {
				t.Fatalf("content byte %d of %s chunk %d changed to %q: not reported (%q)", i, r.Path, r.Index, to, lines)
			}
		}

		// One byte of the stream changed: caught.
		j := int(at) % len(clean)
		if clean[j] != to {
			mutated := bytes.Clone(clean)
			mutated[j] = to
			if errs, problems := verifyStream(root, mutated, true); errs+len(problems) == 0 {
				t.Fatalf("byte %d of the stream changed from %q to %q: not caught", j, clean[j], to)
			}
		}
	})
}

// fuzzStream writes the tree under root and returns the records the
// encoder writes for it.
func fuzzStream(f *testing.F, root string) []byte {
	var out []byte
	for _, file := range fuzzTree {
		name := filepath.Join(root, filepath.FromSlash(file.path))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(file.text), 0o644); err != nil {
			f.Fatal(err)
		}
		var spans []chunk.Span
		add := func(a, b int) {
			spans = append(spans, chunk.Span{Start: a, End: b, Size: chunk.Size([]byte(file.text[a:b]))})
		}
		if file.spans != nil {
			for _, s := range file.spans {
				add(s[0], s[1])
			}
		} else {
			start := 0
			for i := 0; i < len(file.text); i++ {
				if file.text[i] == '\n' && i+1 < len(file.text) {
					add(start, i+1)
					start = i + 1
				}
			}
			add(start, len(file.text))
		}
		var err error
		out, err = record.AppendFile(out, record.File{Path: file.path, Language: file.language, Method: file.method, Src: []byte(file.text)}, spans)
		if err != nil {
			f.Fatal(err)
		}
	}
	return out
}

// verifyStream decodes records from data and verifies them as `castchunk
// verify` does, with limits: the number of lines that did not decode, and
// the problems.
func verifyStream(root string, data []byte, strict bool) (lineErrors int, problems []string) {
	dec := record.NewDecoder(bytes.NewReader(data))
	dec.Strict = strict
	dec.MaxLineBytes = fuzzLimit
	v := &Verifier{Root: root, MaxFileSize: fuzzLimit, Report: func(p Problem) { problems = append(problems, p.String()) }}
	var rec record.Record
	for {
		err := dec.Decode(&rec)
		if err == io.EOF {
			break
		}
		var lineErr *record.LineError
		if errors.As(err, &lineErr) {
			lineErrors++
			continue
		}
		if err != nil {
			panic(err) // a bytes.Reader does not fail
		}
		v.Add(&rec)
	}
	v.Finish()
	if v.Problems != len(problems) {
		panic("Problems differs from the problems reported")
	}
	return lineErrors, problems
}
