package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/castchunk/castchunk/internal/chunk"
)

var update = flag.Bool("update", false, "rewrite testdata/parquet/*.golden from the Parquet writer's output")

const (
	corpusDir    = "../../testdata/corpus"
	pqGoldenDir  = "../../testdata/parquet"
	parquetref   = "../../scripts/parquetref"
	requirePQRef = "CASTCHUNK_REQUIRE_PARQUETREF"
)

// pqFile is one file to write, with its spans.
type pqFile struct {
	f     File
	spans []chunk.Span
}

// defNames are definition names with what a string column must keep:
// non-ASCII, quotes, backslashes, control characters.
var defNames = []string{"App", "Größe", "日本語", `say"hi\`, "tab\tname", "emoji😀", "", "x\u2028y"}

// pqCorpus is every corpus file (and a few made-up ones: control
// characters, a BOM and CRLF, one chunk larger than a Parquet page), cut
// into whole-line chunks: tiling runs of a few lines (method cast), or for
// every fifth file overlapping windows (method sliding); each chunk with
// made-up extras (scope, defines, tokens, a header).
// fenceMD is Markdown with a Rust and a Python fence, whose chunks name
// one, two or three languages (fenceRegions are its regions).
const fenceMD = "# T\n\nprose\n```rust\nfn a() {}\n```\nmore\n```py\nx = 1\n```\nend\n"

var fenceRegions = []Region{
	{Start: 19, End: 28, From: 11, To: 33, Language: "rust"},
	{Start: 44, End: 49, From: 38, To: 54, Language: "python"},
}

func pqCorpus(t testing.TB) []pqFile {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(corpusDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	type named struct{ path, lang, src string }
	var srcs []named
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(b) {
			continue
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, corpusDir+string(filepath.Separator)))
		srcs = append(srcs, named{rel, strings.Split(rel, "/")[0], string(b)})
	}
	if len(srcs) < 20 {
		t.Fatalf("%d corpus files", len(srcs))
	}
	srcs = append(srcs,
		named{"made/controls.txt", "text", "a\x00\x01\x1f\"\\/\u2028\u2029\U0001F600<>&\x7f\n\n\n"},
		named{"made/bom crlf é.cs", "csharp", "\xEF\xBB\xBFclass A {\r\n\tint x = 1; // é\r\n}\r\n"},
		named{"made/fence.md", "markdown", fenceMD},
		named{"made/big.txt", "text", strings.Repeat("a long line of text with some words in it\n", 8000) + "no newline"})
	var out []pqFile
	for i, s := range srcs {
		lines := strings.SplitAfter(s.src, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		starts := make([]int, len(lines)+1) // starts[k]: the offset of line k
		for k, l := range lines {
			starts[k+1] = starts[k] + len(l)
		}
		f := File{Path: s.path, Language: s.lang, Method: "cast", Src: []byte(s.src)}
		if s.path == "made/fence.md" {
			f.Regions = fenceRegions
		}
		var spans []chunk.Span
		switch {
		case s.path == "made/big.txt":
			spans = []chunk.Span{span(s.src, 0, 100), span(s.src, 100, len(s.src))}
		case i%5 == 4: // windows of 6 lines, step 3
			f.Method = "sliding"
			for k := 0; k < len(lines); k += 3 {
				spans = append(spans, span(s.src, starts[k], starts[min(k+6, len(lines))]))
				if k+6 >= len(lines) {
					break
				}
			}
		default:
			step := 3 + i%7
			for k := 0; k < len(lines); k += step {
				spans = append(spans, span(s.src, starts[k], starts[min(k+step, len(lines))]))
			}
		}
		for j, sp := range spans {
			defs := func(n int) []Def {
				var d []Def
				for k := range n {
					d = append(d, Def{Kind: []string{"class", "function", "method"}[(i+j+k)%3], Name: defNames[(i+j+k)%len(defNames)], Line: 1 + j*3 + k})
				}
				return d
			}
			x := Extra{Scope: defs(j % 3), Defines: defs((i + j) % 4), Tokens: (sp.End-sp.Start)/4 + j, Header: s.path + "\n"}
			for k, d := range x.Scope {
				if k > 0 {
					x.Header += " > "
				}
				x.Header += d.Kind + " " + d.Name
			}
			if len(x.Scope) > 0 {
				x.Header += "\n"
			}
			f.Extras = append(f.Extras, x)
		}
		out = append(out, pqFile{f, spans})
	}
	return out
}

// writeFormat writes the files in a format of the table and returns the
// output; files the writer refuses (an *EncodeError) are counted in skipped.
func writeFormat(t testing.TB, format string, s *Schema, files []pqFile) (out []byte, skipped int) {
	t.Helper()
	var b bytes.Buffer
	w, err := FormatByName(format).New(&b, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := w.WriteFile(f.f, f.spans); err != nil {
			var ee *EncodeError
			if !errors.As(err, &ee) {
				t.Fatalf("%s: %v", f.f.Path, err)
			}
			skipped++
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), skipped
}

// canon is a JSON value with sorted keys: the form both sides of a
// comparison are brought to.
func canon(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// parseJSON parses one JSON object, numbers kept exact.
func parseJSON(t testing.TB, line []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("%v in %.200q", err, line)
	}
	return m
}

// pqRanges brings a record's ranges to the form Parquet holds them: a
// list of {start, end}, empty for a record without ranges.
func pqRanges(m map[string]any) {
	pairs, _ := m["ranges"].([]any)
	out := []any{}
	for _, p := range pairs {
		p := p.([]any)
		out = append(out, map[string]any{"start": p[0], "end": p[1]})
	}
	m["ranges"] = out
}

// jsonlRows parses JSON Lines into canonical rows.
func jsonlRows(t testing.TB, out []byte) []string {
	t.Helper()
	var rows []string
	for _, l := range bytes.SplitAfter(out, []byte("\n")) {
		if len(l) > 0 {
			m := parseJSON(t, l)
			if _, ok := m["host_language"]; !ok {
				m["host_language"] = "" // Parquet's columns are fixed: "" stands for absent
			}
			for _, k := range []string{"cell", "end_cell"} {
				if _, ok := m[k]; !ok {
					m[k] = json.Number("-1") // and -1
				}
			}
			pqRanges(m)
			rows = append(rows, canon(t, m))
		}
	}
	return rows
}

// goRows reads a Parquet file with parquet-go's own reader, each row as a
// map (lists as []any, structs as maps), in canonical form.
func goRows(t testing.TB, data []byte) (*parquet.File, []string) {
	t.Helper()
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	r := parquet.NewGenericReader[map[string]any](pf, pf.Schema())
	defer r.Close()
	var rows []string
	buf := make([]map[string]any, 64)
	for {
		for i := range buf {
			buf[i] = map[string]any{}
		}
		n, err := r.Read(buf)
		for _, m := range buf[:n] {
			rows = append(rows, canon(t, m))
		}
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if int64(len(rows)) != pf.NumRows() {
		t.Fatalf("read %d rows of %d", len(rows), pf.NumRows())
	}
	return pf, rows
}

// sameRows compares rows read from Parquet with the JSON Lines records.
func sameRows(t *testing.T, reader string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, JSON Lines has %d records", reader, len(got), len(want))
	}
	bad := 0
	for i := range want {
		if got[i] != want[i] {
			if bad++; bad <= 3 {
				t.Errorf("%s: row %d differs from JSON Lines:\n got %.400s\nwant %.400s", reader, i, got[i], want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d rows differ", reader, bad, len(want))
	}
}

// schemas are the ones a run can have: the default, each optional field
// alone, all of them.
func schemas(t testing.TB) map[string]*Schema {
	out := map[string]*Schema{"default": Default(), "all": All()}
	for _, f := range All().Fields() {
		if f.Optional {
			s, err := Select(f.Name)
			if err != nil {
				t.Fatal(err)
			}
			out[f.Name] = s
		}
	}
	return out
}

// TestParquetMatchesJSONL reads the Parquet output back with parquet-go's
// reader and finds every record equal, field by field, to the JSON Lines
// output of the same files, for every schema a run can have.
func TestParquetMatchesJSONL(t *testing.T) {
	files := pqCorpus(t)
	for name, s := range schemas(t) {
		t.Run(name, func(t *testing.T) {
			jl, _ := writeFormat(t, "jsonl", s, files)
			pq, _ := writeFormat(t, "parquet", s, files)
			want := jsonlRows(t, jl)
			pf, got := goRows(t, pq)
			sameRows(t, "parquet-go", got, want)
			var names []string
			for _, f := range pf.Schema().Fields() {
				names = append(names, f.Name())
			}
			if !slices.Equal(names, s.Names()) {
				t.Errorf("columns %v, want the schema's fields %v", names, s.Names())
			}
			t.Logf("%d records: JSON Lines %d bytes, Parquet %d bytes", len(want), len(jl), len(pq))
		})
	}
}

// TestParquetSchemaGolden holds the Parquet schema and the columns'
// physical layout (type, compression, encodings, statistics) to
// testdata/parquet/schema.golden; -update rewrites it.
func TestParquetSchemaGolden(t *testing.T) {
	files := pqCorpus(t)
	var b strings.Builder
	for _, c := range []struct {
		name string
		s    *Schema
	}{{"default fields (record.Default())", Default()}, {"every field (record.All(): --context --tokenizer --embed-text)", All()}} {
		pq, _ := writeFormat(t, "parquet", c.s, files)
		pf, err := parquet.OpenFile(bytes.NewReader(pq), int64(len(pq)))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "# %s\n%s\n", c.name, pf.Schema())
		for _, col := range pf.Metadata().RowGroups[0].Columns {
			md := col.MetaData
			var encs []string
			for _, e := range md.Encoding {
				encs = append(encs, e.String())
			}
			stats := "no statistics"
			if len(md.Statistics.MinValue) > 0 || len(md.Statistics.MaxValue) > 0 {
				stats = "min/max"
			}
			fmt.Fprintf(&b, "%-26s %-10s %s %s, %s\n", strings.Join(md.PathInSchema, "."), md.Type, md.Codec, strings.Join(encs, "+"), stats)
		}
		b.WriteString("\n")
	}
	golden := filepath.Join(pqGoldenDir, "schema.golden")
	if *update {
		if err := os.MkdirAll(pqGoldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/record -run TestParquetSchemaGolden -update)", err)
	}
	if b.String() != string(want) {
		t.Errorf("Parquet layout differs from %s (-update rewrites it):\n%s", golden, b.String())
	}
}

// hyparquet runs scripts/parquetref/read.mjs on a Parquet file: its
// description of the file and its rows, canonical. It skips the test when
// Node.js or the package is missing, unless CASTCHUNK_REQUIRE_PARQUETREF=1
// (CI sets it) makes that a failure.
func hyparquet(t *testing.T, data []byte) (head map[string]any, rows []string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(parquetref, "node_modules", "hyparquet", "package.json"))
	}
	if err != nil {
		msg := "hyparquet reference missing (" + err.Error() + "): install Node.js, then run `npm ci` in scripts/parquetref"
		if os.Getenv(requirePQRef) == "1" {
			t.Fatal(msg + " (" + requirePQRef + "=1)")
		}
		t.Skip(msg)
	}
	file := filepath.Join(t.TempDir(), "out.parquet")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "read.mjs", file)
	cmd.Dir = parquetref
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node read.mjs: %v\n%s", err, stderr.Bytes())
	}
	lines := bytes.SplitAfter(out, []byte("\n"))
	head = parseJSON(t, lines[0])
	for _, l := range lines[1:] {
		if len(l) > 0 {
			m := parseJSON(t, l)
			if _, ok := m["host_language"]; !ok {
				m["host_language"] = "" // Parquet's columns are fixed: "" stands for absent
			}
			for _, k := range []string{"cell", "end_cell"} {
				if _, ok := m[k]; !ok {
					m[k] = json.Number("-1") // and -1
				}
			}
			pqRanges(m)
			rows = append(rows, canon(t, m))
		}
	}
	return head, rows
}

// wantElements is the Parquet schema of s as the format promises it,
// written from the Parquet specification (not from parquet-go): the flat
// list of schema elements, as hyparquet reports them.
func wantElements(s *Schema) []any {
	str := map[string]any{"type": "BYTE_ARRAY", "repetition_type": "REQUIRED", "converted_type": "UTF8", "logical_type": map[string]any{"type": "STRING"}}
	i64 := map[string]any{"type": "INT64", "repetition_type": "REQUIRED", "converted_type": "INT_64", "logical_type": map[string]any{"type": "INTEGER", "bitWidth": 64, "isSigned": true}}
	named := func(name string, m map[string]any) map[string]any {
		out := map[string]any{"name": name}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	els := []any{map[string]any{"name": "castchunk", "num_children": len(s.fields)}}
	for _, f := range s.fields {
		switch f.Type {
		case String:
			els = append(els, named(f.Name, str))
		case Int:
			els = append(els, named(f.Name, i64))
		case Defs:
			els = append(els,
				map[string]any{"name": f.Name, "repetition_type": "REQUIRED", "converted_type": "LIST", "logical_type": map[string]any{"type": "LIST"}, "num_children": 1},
				map[string]any{"name": "list", "repetition_type": "REPEATED", "num_children": 1},
				map[string]any{"name": "element", "repetition_type": "REQUIRED", "num_children": 3},
				named("kind", str), named("name", str), named("line", i64))
		case Strings:
			els = append(els,
				map[string]any{"name": f.Name, "repetition_type": "REQUIRED", "converted_type": "LIST", "logical_type": map[string]any{"type": "LIST"}, "num_children": 1},
				map[string]any{"name": "list", "repetition_type": "REPEATED", "num_children": 1},
				named("element", str))
		case Ranges:
			els = append(els,
				map[string]any{"name": f.Name, "repetition_type": "REQUIRED", "converted_type": "LIST", "logical_type": map[string]any{"type": "LIST"}, "num_children": 1},
				map[string]any{"name": "list", "repetition_type": "REPEATED", "num_children": 1},
				map[string]any{"name": "element", "repetition_type": "REQUIRED", "num_children": 2},
				named("start", i64), named("end", i64))
		}
	}
	return els
}

// TestParquetMatchesHyparquet reads the Parquet output with hyparquet, a
// JavaScript reader independent of the Go module that wrote it, and finds
// every record equal, field by field, to the JSON Lines output; the schema
// it reports is the one the format promises, every column zstd-compressed
// in encodings every reader knows. One output is written with small row
// groups, so that several are read back.
func TestParquetMatchesHyparquet(t *testing.T) {
	files := pqCorpus(t)
	type run struct {
		name string
		s    *Schema
		cfg  pqConfig
	}
	small := defaultPQ
	small.groupBytes = 64 << 10
	runs := []run{{"default", Default(), defaultPQ}, {"all", All(), defaultPQ}, {"all, small row groups", All(), small}, {"tokens", mustSelect("tokens"), defaultPQ}}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			jl, _ := writeFormat(t, "jsonl", r.s, files)
			var pq bytes.Buffer
			w, err := newParquetWith(&pq, r.s, r.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if err := w.WriteFile(f.f, f.spans); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			head, got := hyparquet(t, pq.Bytes())
			want := jsonlRows(t, jl)
			sameRows(t, "hyparquet", got, want)
			if g, w := canon(t, head["schema"]), canon(t, wantElements(r.s)); g != w {
				t.Errorf("hyparquet reports the schema\n%s\nwant\n%s", g, w)
			}
			groups := head["row_groups"].([]any)
			if r.cfg.groupBytes < rowGroupBytes && len(groups) < 4 {
				t.Errorf("%d row groups of at most %d bytes, want several", len(groups), r.cfg.groupBytes)
			}
			known := map[any]bool{"PLAIN": true, "RLE": true, "RLE_DICTIONARY": true}
			for _, g := range groups {
				for _, c := range g.(map[string]any)["columns"].([]any) {
					col := c.(map[string]any)
					if col["codec"] != "ZSTD" {
						t.Errorf("column %v: codec %v, want ZSTD", col["path"], col["codec"])
					}
					for _, e := range col["encodings"].([]any) {
						if !known[e] {
							t.Errorf("column %v: encoding %v, want PLAIN, RLE or RLE_DICTIONARY only", col["path"], e)
						}
					}
				}
			}
		})
	}
	t.Run("empty", func(t *testing.T) {
		pq, _ := writeFormat(t, "parquet", All(), nil)
		head, rows := hyparquet(t, pq)
		if len(rows) != 0 || canon(t, head["num_rows"]) != "0" {
			t.Errorf("an output of no file: %d rows, num_rows %v", len(rows), head["num_rows"])
		}
		if g, w := canon(t, head["schema"]), canon(t, wantElements(All())); g != w {
			t.Errorf("an output of no file has the schema\n%s\nwant\n%s", g, w)
		}
	})
}

// TestParquetEncodeError: a file whose records cannot be written exactly
// is refused with an *EncodeError and nothing of it is written; the files
// around it are, and the output is the JSON Lines writer's.
func TestParquetEncodeError(t *testing.T) {
	good := pqCorpus(t)[:6]
	src := "ok\nx\xffy\n"
	badUTF8 := pqFile{File{Path: "bad.py", Language: "python", Method: "cast", Src: []byte(src), Extras: make([]Extra, 2)}, spansAt(src, 3)}
	src2 := "ab\ncd\n"
	badSpans := pqFile{File{Path: "spans.py", Language: "python", Method: "cast", Src: []byte(src2), Extras: make([]Extra, 2)}, []chunk.Span{span(src2, 3, 6), span(src2, 0, 3)}}
	badName := pqFile{File{Path: "name.py", Language: "python", Method: "cast", Src: []byte(src2),
		Extras: []Extra{{}, {Scope: []Def{{Kind: "class", Name: "A\xff", Line: 1}}}}}, spansAt(src2, 3)}
	badHeader := pqFile{File{Path: "header.py", Language: "python", Method: "cast", Src: []byte(src2),
		Extras: []Extra{{}, {Header: "h\xfe\n"}}}, spansAt(src2, 3)}
	noExtras := pqFile{File{Path: "noextras.py", Language: "python", Method: "cast", Src: []byte(src2)}, spansAt(src2, 3)}
	files := []pqFile{good[0], badUTF8, good[1], badSpans, good[2], badName, good[3], badHeader, good[4], noExtras, good[5]}
	jl, jskipped := writeFormat(t, "jsonl", All(), files)
	pq, pskipped := writeFormat(t, "parquet", All(), files)
	if jskipped != 5 || pskipped != 5 {
		t.Errorf("skipped %d files (JSON Lines) and %d (Parquet), want 5", jskipped, pskipped)
	}
	want := jsonlRows(t, jl)
	_, got := goRows(t, pq)
	sameRows(t, "parquet-go", got, want)
	for _, r := range got {
		for _, p := range []string{"bad.py", "spans.py", "name.py", "header.py", "noextras.py"} {
			if strings.Contains(r, `"path":"`+p+`"`) {
				t.Errorf("a record of the refused file %s was written", p)
			}
		}
	}
	// The default schema needs no extras: that file is written then.
	if _, n := writeFormat(t, "parquet", Default(), []pqFile{noExtras}); n != 0 {
		t.Error("a file without extras was refused by the default schema")
	}
}

// TestParquetRowGroups: the writer closes a row group every groupBytes of
// values, so the output reaches the destination while files are written,
// not at Close; and it copies what it keeps, so the caller may reuse a
// file's bytes once WriteFile returns.
func TestParquetRowGroups(t *testing.T) {
	// 4 MiB of random words (that compress to about half: benchInput's
	// repeats would fit the writer's buffer) in chunks of 40 lines.
	rng := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for sb.Len() < 4<<20 {
		for range 8 {
			for range 2 + rng.IntN(8) {
				sb.WriteByte(byte('a' + rng.IntN(26)))
			}
			sb.WriteByte(' ')
		}
		sb.WriteString("\n")
	}
	src := []byte(sb.String())
	var spans []chunk.Span
	for start, lines := 0, 0; start < len(src); {
		end := start
		for lines = 0; lines < 40 && end < len(src); lines++ {
			end += bytes.IndexByte(src[end:], '\n') + 1
		}
		spans = append(spans, chunk.Span{Start: start, End: end, Size: chunk.Size(src[start:end])})
		start = end
	}
	var out maxWriter
	w, err := newParquetWith(&out, Default(), pqConfig{codec: defaultPQ.codec, groupBytes: 512 << 10})
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	var want []string
	for i := range n {
		part := src[:len(src)/n]
		sp := spans[:slices.IndexFunc(spans, func(s chunk.Span) bool { return s.End > len(part) })]
		part = part[:sp[len(sp)-1].End]
		f := File{Path: fmt.Sprintf("f%d.go", i), Language: "go", Method: "cast", Src: bytes.Clone(part)}
		jl, err := AppendFile(nil, f, sp)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, jsonlRows(t, jl)...)
		if err := w.WriteFile(f, sp); err != nil {
			t.Fatal(err)
		}
		for k := range f.Src {
			f.Src[k] = 'X' // the caller reuses its buffer
		}
	}
	before := out.Len()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if before < out.Len()/2 {
		t.Errorf("%d of %d bytes reached the destination before Close: the writer holds the output", before, out.Len())
	}
	pf, got := goRows(t, out.Bytes())
	sameRows(t, "parquet-go", got, want)
	groups := pf.RowGroups()
	t.Logf("%d bytes of content, %d rows: %d row groups, %d bytes, %d before Close", len(src), len(got), len(groups), out.Len(), before)
	if len(groups) < 6 {
		t.Errorf("%d row groups for %d bytes of content in groups of 512 KiB", len(groups), len(src))
	}
	for i, g := range groups[:len(groups)-1] {
		var size int64
		for _, c := range pf.Metadata().RowGroups[i].Columns {
			size += c.MetaData.TotalUncompressedSize
		}
		if size > 2<<20 {
			t.Errorf("row group %d: %d rows, %d bytes uncompressed, want about 512 KiB", i, g.NumRows(), size)
		}
	}
}

// TestParquetDeterministic: the same files give the same bytes.
func TestParquetDeterministic(t *testing.T) {
	files := pqCorpus(t)
	a, _ := writeFormat(t, "parquet", All(), files)
	b, _ := writeFormat(t, "parquet", All(), files)
	if !bytes.Equal(a, b) {
		t.Error("two runs over the same files wrote different Parquet files")
	}
}

func TestFormatTable(t *testing.T) {
	if got := FormatNames(); !slices.Equal(got, []string{"jsonl", "parquet"}) {
		t.Errorf("formats %v, want jsonl (the default) then parquet", got)
	}
	if _, err := FormatByName("parquet").New(io.Discard, nil); err == nil {
		t.Error("parquet without a schema was accepted")
	}
	bad := *All().Fields()[0]
	bad.Name = "Bad-Name"
	s, err := NewSchema(&bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FormatByName("parquet").New(io.Discard, s); err == nil {
		t.Error("a field name that is no Parquet column name was accepted")
	}
}

// BenchmarkWriters compares the formats on the same records: the corpus
// of pqCorpus (real source files, every field); MB/s counts the JSON Lines
// output's bytes for both, out/jsonl is the output's size relative to it.
func BenchmarkWriters(b *testing.B) {
	files := pqCorpus(b)
	jl, _ := writeFormat(b, "jsonl", All(), files)
	for _, name := range FormatNames() {
		b.Run(name, func(b *testing.B) {
			var c countingWriter
			b.SetBytes(int64(len(jl)))
			b.ReportAllocs()
			for b.Loop() {
				w, err := FormatByName(name).New(&c, All())
				if err != nil {
					b.Fatal(err)
				}
				for _, f := range files {
					if err := w.WriteFile(f.f, f.spans); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.n)/float64(b.N)/float64(len(jl)), "out/jsonl")
		})
	}
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }
