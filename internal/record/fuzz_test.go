package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/chunk"
)

// FuzzDecoder feeds arbitrary bytes to the decoder: it must never panic or
// loop, every record it accepts with Strict must be exactly what the
// encoder writes for it (the decoder only accepts canonical lines), and,
// line by line, it must agree with encoding/json:
//
//   - without Strict, a line is accepted exactly when encoding/json reads
//     it as one object whose known fields have their schema types, plus the
//     decoder's documented rules: valid UTF-8, every required field, no
//     known field twice, integers spelled as non-negative integers in int
//     range, the id of 32 lowercase hex digits; and the record holds the
//     values encoding/json reads;
//   - with Strict, a line is accepted exactly when it is accepted without
//     Strict and is what the encoder writes for the record read.
func FuzzDecoder(f *testing.F) {
	src := []byte("\ufeffdef f():\r\n\treturn \"é\\u2028\"\n")
	good, err := AppendFile(nil, File{Path: "a.py", Language: "python", Method: "cast", Src: src},
		[]chunk.Span{{Start: 0, End: 13, Size: chunk.Size(src[:13])}, {Start: 13, End: len(src), Size: chunk.Size(src[13:])}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	pieces, err := AppendFile(nil, File{Path: "a.py", Language: "python", Method: "declaration", Pieces: true, Src: src},
		[]chunk.Span{{Start: 0, End: len(src), Size: chunk.Size(src[:11]) + chunk.Size(src[13:]), Pieces: []chunk.Piece{{Start: 0, End: 11}, {Start: 13, End: len(src)}}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pieces)
	f.Add(bytes.Replace(pieces, []byte(`"ranges":[[0,11],`), []byte(`"ranges":[[0 ,11],[`), 1))
	f.Add([]byte("{}\n"))
	f.Add([]byte(`{"id":"00000000000000000000000000000000","path":"p","language":"x","method":"cast","index":0,"start_line":1,"end_line":1,"start_byte":0,"end_byte":1,"size":1,"languages":["x"],"content":"x"}`))
	line := string(good[:bytes.IndexByte(good, '\n')])
	for _, variant := range []string{
		strings.Replace(line, `{"id"`, `{"\u0069d"`, 1),
		strings.Replace(line, `"content":"`, `"content":"\ud83d\ude00\ud800\udc00\u00e9\/`, 1),
		strings.Replace(line, `{`, `{"x":[{"y":[1,-2.5e+3,true,null]},"\u2028"],`, 1),
		strings.Replace(line, `,"`, ` , "`, -1),
		strings.Replace(line, `"index":0`, `"index":-0`, 1),
		strings.Replace(line, `"index":0`, `"index":9223372036854775808`, 1),
		strings.Replace(line, `"size":`, `"size":1,"size":`, 1),
		strings.Replace(line, `{`, `{"x":1,"x":2,`, 1),
		line + " \r\t",
	} {
		f.Add([]byte(variant + "\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := NewDecoder(bytes.NewReader(data))
		dec.Strict = true
		lines := bytes.SplitAfter(data, []byte("\n"))
		var rec Record
		for {
			err := dec.Decode(&rec)
			if err == io.EOF {
				break
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

		for _, line := range bytes.Split(data, []byte("\n")) {
			lenient, lerr := decodeLine(line, false)
			want, ok := jsonRecord(line)
			if (lerr == nil) != ok {
				t.Fatalf("decoder: %v; encoding/json accepts: %v\n%q", lerr, ok, line)
			}
			if ok && !reflect.DeepEqual(lenient, want) {
				t.Fatalf("decoder and encoding/json read different records:\n%+v\n%+v\n%q", lenient, want, line)
			}
			strict, serr := decodeLine(line, true)
			canonical := false
			if lerr == nil {
				again, err := new(Encoder).AppendRecord(nil, &lenient)
				canonical = err == nil && bytes.Equal(again, append(line, '\n'))
			}
			if (serr == nil) != canonical {
				t.Fatalf("Strict: %v; accepted without Strict and canonical: %v\n%q", serr, canonical, line)
			}
			if serr == nil && !reflect.DeepEqual(strict, lenient) {
				t.Fatalf("Strict and lenient records differ:\n%+v\n%+v", strict, lenient)
			}
		}
	})
}

// decodeLine decodes one line (without its '\n') with a new decoder.
func decodeLine(line []byte, strict bool) (Record, error) {
	dec := NewDecoder(bytes.NewReader(append(line[:len(line):len(line)], '\n')))
	dec.Strict = strict
	var r Record
	err := dec.Decode(&r)
	return r, err
}

// jsonRanges reads ranges by the decoder's rules with encoding/json: a
// non-empty array of [start, end] pairs of plain non-negative integers,
// each non-empty, in order and apart.
func jsonRanges(raw json.RawMessage) ([]chunk.Piece, bool) {
	var pairs []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &pairs) != nil || len(pairs) == 0 {
		return nil, false
	}
	var out []chunk.Piece
	for _, p := range pairs {
		var nums []json.RawMessage
		if p[0] != '[' || json.Unmarshal(p, &nums) != nil || len(nums) != 2 {
			return nil, false
		}
		var n [2]int
		for k, num := range nums {
			s := string(num)
			if s[0] < '0' || s[0] > '9' || strings.ContainsAny(s, ".eE") {
				return nil, false
			}
			v, err := strconv.Atoi(s)
			if err != nil {
				return nil, false
			}
			n[k] = v
		}
		if n[1] <= n[0] || len(out) > 0 && n[0] <= out[len(out)-1].End {
			return nil, false
		}
		out = append(out, chunk.Piece{Start: n[0], End: n[1]})
	}
	return out, true
}

// jsonRecord is the decoder's lenient rules written with encoding/json: the
// record of line, and whether the decoder must accept it.
func jsonRecord(line []byte) (Record, bool) {
	var r Record
	if len(line) == 0 || !utf8.Valid(line) || !json.Valid(line) {
		return r, false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return r, false
	}
	schema := Default()
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			panic(err) // json.Valid said it is valid
		}
		key := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			panic(err)
		}
		f, _ := schema.field(key)
		if f == nil {
			continue
		}
		if seen[key] {
			return r, false
		}
		seen[key] = true
		switch f.Type {
		case Int:
			s := string(raw)
			if s == "" || s[0] < '0' || s[0] > '9' || strings.ContainsAny(s, ".eE") {
				return r, false
			}
			n, err := strconv.Atoi(s)
			if err != nil {
				return r, false
			}
			f.Set(&r, Value{Int: n})
		case Strings:
			var elems []json.RawMessage
			if raw[0] != '[' || json.Unmarshal(raw, &elems) != nil {
				return r, false
			}
			strs := []string{}
			for _, e := range elems {
				var s string
				if e[0] != '"' || json.Unmarshal(e, &s) != nil {
					return r, false
				}
				strs = append(strs, s)
			}
			f.Set(&r, Value{Strs: strs})
		case Ranges:
			pieces, ok := jsonRanges(raw)
			if !ok {
				return r, false
			}
			f.Set(&r, Value{Pieces: pieces})
		default:
			var s string
			if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
				return r, false
			}
			f.Set(&r, Value{Str: s})
		}
	}
	for _, f := range schema.fields {
		if !f.Optional && f.Omit == nil && !seen[f.Name] {
			return r, false
		}
	}
	return r, validID(r.ID)
}
