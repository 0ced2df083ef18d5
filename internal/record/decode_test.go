package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// goodLine is a valid record line without its '\n'.
func goodLine(t *testing.T) string {
	t.Helper()
	return strings.TrimSuffix(encode(t, "src/a.py", "x = 1\n", spansAt("x = 1\n")), "\n")
}

func TestDecodeGood(t *testing.T) {
	g := goodLine(t)
	d := NewDecoder(strings.NewReader(g + "\n"))
	var r Record
	if err := d.Decode(&r); err != nil {
		t.Fatal(err)
	}
	want := Record{ID: ID("", "src/a.py", []byte("x = 1\n"), 0), Path: "src/a.py", Language: "python", Method: "cast",
		Index: 0, StartLine: 1, EndLine: 1, StartByte: 0, EndByte: 6, Size: 3, Content: "x = 1\n", Languages: []string{"python"}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got %+v\nwant %+v", r, want)
	}
	if err := d.Decode(&r); err != io.EOF {
		t.Errorf("after the last line: %v, want io.EOF", err)
	}
	if err := d.Decode(&r); err != io.EOF {
		t.Errorf("EOF is not sticky: %v", err)
	}
	if d.Line() != 1 {
		t.Errorf("Line() = %d", d.Line())
	}
}

func TestDecodeEmptyInput(t *testing.T) {
	var r Record
	if err := NewDecoder(strings.NewReader("")).Decode(&r); err != io.EOF {
		t.Errorf("empty input: %v, want io.EOF", err)
	}
}

func TestDecodeRejects(t *testing.T) {
	g := goodLine(t)
	id := g[len(`{"id":"`) : len(`{"id":"`)+IDLen]
	rep := func(old, new string) string {
		if !strings.Contains(g, old) {
			t.Fatalf("%q not in %s", old, g)
		}
		return strings.Replace(g, old, new, 1)
	}
	tests := []struct {
		name, line, want string
	}{
		{"missing field", rep(`,"size":3`, ``), `missing field "size"`},
		{"missing fields", `{"id":"` + id + `"}`, `missing fields "path", "language",`},
		{"wrong type int", rep(`"index":0`, `"index":"0"`), `field "index": want an integer, got a string`},
		{"wrong type string", rep(`"content":"x = 1\n"`, `"content":5`), `field "content": want a string, got a number`},
		{"array", rep(`"path":"src/a.py"`, `"path":["src/a.py"]`), `field "path": want a string, got an array`},
		{"null", rep(`"language":"python"`, `"language":null`), `field "language": want a string, got null`},
		{"boolean", rep(`"end_byte":6`, `"end_byte":true`), `field "end_byte": want an integer, got a boolean`},
		{"extra field", rep(`"}`, `","extra":1}`), `unknown field "extra"`},
		{"extra field first", `{"ID":"` + id + `"}`, `unknown field "ID"`},
		{"bad id uppercase", rep(id, strings.ToUpper(id)), `field "id": "` + strings.ToUpper(id) + `" is not 32 lowercase hex digits`},
		{"bad id short", rep(id, id[:31]), `is not 32 lowercase hex digits`},
		{"bad id non-hex", rep(id, "g"+id[1:]), `is not 32 lowercase hex digits`},
		{"negative int", rep(`"start_line":1`, `"start_line":-1`), `field "start_line": -1 is negative`},
		{"negative zero", rep(`"index":0`, `"index":-0`), `field "index": -0 is negative`},
		{"fraction", rep(`"size":3`, `"size":3.0`), `field "size": 3.0 is not an integer`},
		{"exponent", rep(`"size":3`, `"size":3e0`), `field "size": 3e0 is not an integer`},
		{"out of range", rep(`"size":3`, `"size":99999999999999999999`), `is out of range`},
		{"malformed truncated", g[:40], `malformed JSON`},
		{"malformed syntax", rep(`"method":"cast"`, `"method":cast`), `malformed JSON at column`},
		{"not an object", `[1,2]`, `not a JSON object`},
		{"duplicate", rep(`,"content"`, `,"size":3,"content"`), `duplicate field "size"`},
		{"out of order", rep(`"path":"src/a.py","language":"python"`, `"language":"python","path":"src/a.py"`), `field "path" comes after "language"`},
		{"whitespace", rep(`"index":0`, `"index": 0`), `not in canonical form at column`},
		{"trailing space", g + " ", `not in canonical form at column`},
		{"CRLF line end", g + "\r", `not in canonical form at column`},
		{"escape spelling", rep(`x = 1\n`, `x = 1\u000a`), `not in canonical form at column`},
		{"lone surrogate", rep(`x = 1\n`, `x = 1\ud800`), `not in canonical form at column`},
		{"data after object", g + `{}`, `data after the object at column`},
		{"invalid UTF-8", rep(`x = 1`, "x = \xff"), `not valid UTF-8 at column`},
		{"empty line", ``, `empty line`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := g + "\n" + g + "\n" + tc.line + "\n" + g + "\n"
			d := NewDecoder(strings.NewReader(in))
			d.Strict = true
			var r Record
			for i := 1; i <= 2; i++ {
				if err := d.Decode(&r); err != nil {
					t.Fatalf("line %d: %v", i, err)
				}
			}
			err := d.Decode(&r)
			var le *LineError
			if !errors.As(err, &le) || le.Line != 3 {
				t.Fatalf("err = %v, want a *LineError for line 3", err)
			}
			if !strings.HasPrefix(err.Error(), "line 3: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to contain %q", err, tc.want)
			}
			// The decoder goes on with the next line.
			if err := d.Decode(&r); err != nil {
				t.Errorf("line 4 after a bad line: %v", err)
			}
			if err := d.Decode(&r); err != io.EOF {
				t.Errorf("end: %v", err)
			}
		})
	}
}

// TestDecodeLenient: records that other tools enriched (`jq -c '. + {x: 1}'`,
// fields reordered, nested values) are read without --strict; what no
// reader can use is still refused.
func TestDecodeLenient(t *testing.T) {
	g := goodLine(t)
	want := Record{ID: ID("", "src/a.py", []byte("x = 1\n"), 0), Path: "src/a.py", Language: "python", Method: "cast",
		Index: 0, StartLine: 1, EndLine: 1, StartByte: 0, EndByte: 6, Size: 3, Content: "x = 1\n", Languages: []string{"python"}}
	reordered := `{"content":"x = 1\n","size":3,"end_byte":6,"start_byte":0,"end_line":1,"start_line":1,"index":0,` +
		`"method":"cast","languages":[ "python" ],"language":"python","path":"src/a.py","id":"` + want.ID + `"}`
	accepted := []struct{ name, line string }{
		{"enriched", strings.TrimSuffix(g, "}") + `,"tokens":1}`},
		{"enriched first", `{"tokens":1,` + g[1:]},
		{"nested unknown", strings.TrimSuffix(g, "}") + `,"scope":[{"kind":"class","name":"A","line":[1,{"x":null}]},true,-1.5e3],"meta":{}}`},
		{"reordered", reordered},
		{"spaced", strings.ReplaceAll(reordered, `,"`, `, "`)},
	}
	for _, tc := range accepted {
		var r Record
		if err := NewDecoder(strings.NewReader(tc.line + "\n")).Decode(&r); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		} else if !reflect.DeepEqual(r, want) {
			t.Errorf("%s: got %+v", tc.name, r)
		}
		d := NewDecoder(strings.NewReader(tc.line + "\n"))
		d.Strict = true
		if err := d.Decode(&r); err == nil {
			t.Errorf("%s: accepted with Strict", tc.name)
		}
	}
	refused := []struct{ name, line, want string }{
		{"duplicate", strings.TrimSuffix(g, "}") + `,"size":3}`, `duplicate field "size"`},
		{"wrong type", strings.Replace(g, `"index":0`, `"index":"0"`, 1), `want an integer`},
		{"missing", strings.Replace(g, `,"size":3`, ``, 1), `missing field "size"`},
		{"pretty-printed", "{", "use `jq -c`"},
		{"unknown malformed", strings.TrimSuffix(g, "}") + `,"x":[1,}`, "malformed JSON"},
	}
	for _, tc := range refused {
		var r Record
		err := NewDecoder(strings.NewReader(tc.line + "\n")).Decode(&r)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	// A reader that needs fewer fields (stats) takes records without content.
	d := NewDecoder(strings.NewReader(strings.Replace(g, `,"content":"x = 1\n"`, ``, 1) + "\n"))
	d.Need = []string{"path", "language", "size", "end_byte"}
	var r Record
	if err := d.Decode(&r); err != nil || r.Size != 3 || r.Content != "" {
		t.Errorf("without content: %+v, %v", r, err)
	}
}

// TestDecodeUnknownValues: the values of fields the decoder does not know
// are checked as encoding/json checks them (the same nesting limit
// included) and skipped.
func TestDecodeUnknownValues(t *testing.T) {
	g := goodLine(t)
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct{ value, want string }{
		{`[1,{"b":"\u2028\n","c":[]},null,true,false,-2.5]`, ""},
		{`{"a":{"b":{"c":[0e+1,1E-2,-0.5e7,{}]}},"a":[]}`, ""},
		{` [ [ ] , { } ] `, ""},
		{`"\ud83d\ude00 \ud800 \udc00\ud800 \/"`, ""},
		{deep(maxDepth - 1), ""}, // with the line's object: the limit
		{deep(maxDepth), "exceeded max depth"},
		{`[1,]`, "invalid character ']' looking for beginning of value"},
		{`[1 2]`, "invalid character '2' after array element"},
		{`{"a" 1}`, "invalid character '1' after object key"},
		{`{"a":1 "b":2}`, `invalid character '"' after object key:value pair`},
		{`{1:2}`, "looking for beginning of object key string"},
		{`01`, "invalid character '1' after object key:value pair"},
		{`-`, "invalid character '}' in numeric literal"},
		{`1.`, "after decimal point in numeric literal"},
		{`1e+`, "in exponent of numeric literal"},
		{`tru`, "invalid character '}' in literal true (expecting 'e')"},
		{`nul1`, "in literal null (expecting 'l')"},
		{`"\x"`, "invalid character 'x' in string escape code"},
		{`"\u12g4"`, "invalid character 'g' in \\u hexadecimal character escape"},
		{"\"\t\"", `invalid character '\t' in string literal`},
		{`[`, "invalid character '}' looking for beginning of value"},
		{`"abc`, "use `jq -c`"},
	}
	for _, tc := range tests {
		line := strings.TrimSuffix(g, "}") + `,"x":` + tc.value + "}"
		var r Record
		err := NewDecoder(strings.NewReader(line + "\n")).Decode(&r)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%.40s: err = %v, want %q", tc.value, err, tc.want)
		}
		if json.Valid([]byte(line)) != (tc.want == "") {
			t.Errorf("%.40s: encoding/json disagrees", tc.value)
		}
	}
}

func TestDecodeNoFinalNewline(t *testing.T) {
	g := goodLine(t)
	for _, tc := range []struct{ in, want string }{
		{g + "\n" + g, "line 2: no newline at the end of the last line"},
		{g + "\n" + g[:50], "line 2: malformed JSON"},
	} {
		d := NewDecoder(strings.NewReader(tc.in))
		var r Record
		if err := d.Decode(&r); err != nil {
			t.Fatal(err)
		}
		if err := d.Decode(&r); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
		if err := d.Decode(&r); err != io.EOF {
			t.Errorf("after the last line: %v, want io.EOF", err)
		}
	}
}

func TestDecodeLongLines(t *testing.T) {
	// A 5 MB chunk (far beyond bufio.Scanner's 64 KiB default), read
	// through a reader that returns one byte at a time at first.
	big := strings.Repeat("abcdefgh\t\"é\"\n", 400_000)
	out := encode(t, "big.txt", big, spansAt(big, 13))
	d := NewDecoder(iotest.HalfReader(strings.NewReader(out)))
	var r Record
	for i := 0; i < 2; i++ {
		if err := d.Decode(&r); err != nil {
			t.Fatal(err)
		}
	}
	if r.Content != big[13:] || r.EndLine != 400_000 {
		t.Errorf("big record: %d bytes, end_line %d", len(r.Content), r.EndLine)
	}

	// Over the limit: reported with its line number, skipped, and the
	// decoder goes on.
	g := goodLine(t)
	d = NewDecoder(strings.NewReader(g + "\n" + out + g + "\n"))
	d.MaxLineBytes = 1000
	if err := d.Decode(&r); err != nil {
		t.Fatal(err)
	}
	if err := d.Decode(&r); err != nil || r.Content != big[:13] {
		t.Fatalf("line 2: %v", err)
	}
	if err := d.Decode(&r); err == nil || err.Error() != "line 3: line longer than 1000 bytes" {
		t.Errorf("err = %v", err)
	}
	if err := d.Decode(&r); err != nil || d.Line() != 4 {
		t.Errorf("line %d after long lines: %v", d.Line(), err)
	}
}

func TestDecodeReadError(t *testing.T) {
	g := goodLine(t)
	boom := errors.New("boom")
	d := NewDecoder(io.MultiReader(strings.NewReader(g+"\n"+g[:10]), iotest.ErrReader(boom)))
	var r Record
	if err := d.Decode(&r); err != nil {
		t.Fatal(err)
	}
	err := d.Decode(&r)
	var le *LineError
	if !errors.Is(err, boom) || errors.As(err, &le) {
		t.Fatalf("err = %v, want the read error, not a line error", err)
	}
	if err2 := d.Decode(&r); err2 != err {
		t.Errorf("read error not sticky: %v", err2)
	}
}

func TestRecordCheck(t *testing.T) {
	good := Record{ID: strings.Repeat("0", 32), Path: "a.py", Language: "python", Method: "sliding",
		StartLine: 3, EndLine: 4, StartByte: 10, EndByte: 17, Size: 4, Content: "ab\r\ncd\n"}
	if err := good.Check(); err != nil {
		t.Fatalf("good record: %v", err)
	}
	tests := []struct {
		name string
		mod  func(*Record)
		want string
	}{
		{"method", func(r *Record) { r.Method = "" }, `empty method`},
		{"empty path", func(r *Record) { r.Path = "" }, "empty path"},
		{"empty language", func(r *Record) { r.Language = "" }, "empty language"},
		{"empty range", func(r *Record) { r.EndByte = 10 }, "empty or reversed"},
		{"length", func(r *Record) { r.EndByte = 18 }, "content has 7 bytes"},
		{"line 0", func(r *Record) { r.StartLine, r.EndLine = 0, 1 }, "not 1-based"},
		{"end line", func(r *Record) { r.EndLine = 5 }, "end_line is 5, content from line 3 ends on line 4"},
		{"size", func(r *Record) { r.Size = 7 }, "size is 7, content has 4"},
	}
	for _, tc := range tests {
		r := good
		tc.mod(&r)
		if err := r.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestAppendRecordMatchesEncoder(t *testing.T) {
	src := "\xEF\xBB\xBFa\u2028\"\\\x01\n\tb\r\n"
	out := encode(t, "x/y.cs", src, spansAt(src, 11))
	d := NewDecoder(strings.NewReader(out))
	var got []byte
	for {
		var r Record
		if err := d.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		var err error
		if got, err = new(Encoder).AppendRecord(got, &r); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, []byte(out)) {
		t.Errorf("AppendRecord\n%s\nencoder\n%s", got, out)
	}
}

func TestDecodeLimitBoundary(t *testing.T) {
	g := goodLine(t)
	var r Record
	d := NewDecoder(strings.NewReader(g + "\n"))
	d.MaxLineBytes = len(g)
	if err := d.Decode(&r); err != nil {
		t.Errorf("line of exactly the limit: %v", err)
	}
	d = NewDecoder(strings.NewReader(g)) // over the limit and unterminated
	d.MaxLineBytes = len(g) - 1
	if err := d.Decode(&r); err == nil || !strings.Contains(err.Error(), "line 1: line longer than") {
		t.Errorf("err = %v", err)
	}
	if err := d.Decode(&r); err != io.EOF {
		t.Errorf("after: %v", err)
	}
}

// TestDecodeMemory: decoding a long line costs its content and little
// else: the line is read in place (no copy of it, no canonical copy of it
// with Strict), and a string field is one allocation of its decoded length.
// Measured as bytes allocated per decode once the decoder is warm, with
// and without Strict, on a line of a few MB.
func TestDecodeMemory(t *testing.T) {
	big := strings.Repeat("def f(x):\n\treturn \"x\" + 1  # é\n", 100_000) // 3.3 MB, escapes every few bytes
	line := encode(t, "big.py", big, spansAt(big))
	for _, strict := range []bool{false, true} {
		const runs = 3
		d := NewDecoder(strings.NewReader(strings.Repeat(line, runs+1)))
		d.Strict = strict
		var r Record
		if err := d.Decode(&r); err != nil { // warm up
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range runs {
			if err := d.Decode(&r); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		perDecode := (after.TotalAlloc - before.TotalAlloc) / runs
		if r.Content != big {
			t.Fatal("content differs")
		}
		t.Logf("Strict %v: %d bytes allocated per decode of a %d-byte line (content %d bytes)", strict, perDecode, len(line), len(big))
		if perDecode > uint64(2*len(line)) {
			t.Errorf("Strict %v: %d bytes allocated per decode of a %d-byte line, want at most twice the line", strict, perDecode, len(line))
		}
	}
}
