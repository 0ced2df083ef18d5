package cli_test

// End-to-end tests: the scripts in testdata/script run the real castchunk
// command (this test binary re-executed as "castchunk", with cli.Execute as
// its main) through testscript. Besides testscript's own commands the
// scripts can use:
//
//	jsonl [-C dir] [-overlap] [-method m] [-budget n] FILE
//	    checks every line of FILE is a record as docs/design.md describes it:
//	    fields in order, compact, id recipe, content = the file's bytes at
//	    the range, line numbers, size (within -budget), index order, files
//	    sorted by path, chunks tiling each file (covering it with -overlap);
//	    prints "N records in M files".
//	rebuild JSONL PATH OUT
//	    concatenates the contents of PATH's records in index order into OUT.
//	status N PROGRAM [ARG...]
//	    runs PROGRAM like exec and checks it exits with status N.
//	paths JSONL
//	    prints the distinct paths of JSONL's records, one per line.
//	writef [-append] FILE TEXT [COUNT]
//	    writes TEXT, COUNT times, to FILE; Go escapes (\x00, \r, \n,
//	    \xef…) are interpreted in FILE and TEXT.
//	genfiles [-lines n] DIR N
//	    writes N small source files in the five languages under DIR.
//
// and the conditions [exists:PATH] and [realbin]; $REALBIN is the real
// castchunk binary (see buildReal); $EMBEDDER, $EMBEDDER_HANG and
// $EMBEDDER_DEAD are fake embeddings endpoints (see startEmbedders).
//
// Run with -update to rewrite the golden files in the scripts from the
// actual output (then review the diff!).

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/castchunk/castchunk/internal/cli"
	"github.com/castchunk/castchunk/internal/embed/embedtest"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/supervise"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/script from the actual output")

func TestMain(m *testing.M) {
	// The test binary's workers take the tests' fault hook
	// (CASTCHUNK_TEST_FAULT); castchunk's own never do.
	services := cli.WorkerServices()
	maps.Copy(services, pipeline.TestServices())
	supervise.ServeIfWorker(services)
	testscript.Main(m, map[string]func(){
		"castchunk": func() { os.Exit(cli.Execute()) },
	})
}

func TestScripts(t *testing.T) {
	realBin := buildReal(t)
	testscript.Run(t, testscript.Params{
		Dir:                "../../testdata/script",
		UpdateScripts:      *update,
		RequireUniqueNames: true,
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			e.Setenv("REALBIN", realBin)
			if err := startEmbedders(e); err != nil {
				return err
			}
			for _, kv := range [][2]string{
				{"HOME", home},
				{"XDG_CONFIG_HOME", filepath.Join(e.WorkDir, ".xdg")},
				{"GIT_CONFIG_GLOBAL", "/dev/null"},
				{"GIT_CONFIG_NOSYSTEM", "1"},
				{"GIT_AUTHOR_NAME", "Test"},
				{"GIT_AUTHOR_EMAIL", "test@example.com"},
				{"GIT_COMMITTER_NAME", "Test"},
				{"GIT_COMMITTER_EMAIL", "test@example.com"},
				{"GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z"},
				{"GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z"},
				{"LC_ALL", "C"},
			} {
				e.Setenv(kv[0], kv[1])
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "realbin" {
				return realBin != "", nil
			}
			if name, ok := strings.CutPrefix(cond, "exists:"); ok { // [exists:/dev/full]
				_, err := os.Stat(name)
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jsonl":    cmdJSONL,
			"rebuild":  cmdRebuild,
			"writef":   cmdWritef,
			"genfiles": cmdGenfiles,
			"paths":    cmdPaths,
			"status":   cmdStatus,
		},
	})
}

// startEmbedders starts the script's fake embeddings endpoints (package
// embedtest: vectors of 16 numbers from a hash of the text), stopped when
// the script ends: $EMBEDDER answers, $EMBEDDER_HANG accepts requests and
// never answers, and $EMBEDDER_DEAD is a port nobody listens on.
func startEmbedders(e *testscript.Env) error {
	good, err := embedtest.Start(16)
	if err != nil {
		return err
	}
	e.Defer(good.Close)
	hang, err := embedtest.Start(16)
	if err != nil {
		return err
	}
	hang.SetFault(embedtest.Hang)
	e.Defer(hang.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	dead := "http://" + ln.Addr().String() + "/v1"
	if err := ln.Close(); err != nil {
		return err
	}
	e.Setenv("EMBEDDER", good.URL)
	e.Setenv("EMBEDDER_HANG", hang.URL)
	e.Setenv("EMBEDDER_DEAD", dead)
	return nil
}

// buildReal builds the real castchunk binary for the scripts that need
// what a test binary lacks: the dependency versions in its build
// information, which `castchunk version` and `languages` report. It
// returns "" (those scripts skip) with -short or without the go command.
func buildReal(t *testing.T) string {
	if testing.Short() {
		return ""
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return ""
	}
	bin := filepath.Join(t.TempDir(), "castchunk")
	cmd := exec.Command(goCmd, "build", "-o", bin, "github.com/castchunk/castchunk/cmd/castchunk")
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// fieldOrder is the record's fields in schema order.
var fieldOrder = mustSchema("repo").Names()

// mustSchema is record.Select that cannot fail.
func mustSchema(optional ...string) *record.Schema {
	s, err := record.Select(optional...)
	if err != nil {
		panic(err)
	}
	return s
}

// omittable are the fields only some files' records have: host_language
// (embedded regions), cell and end_cell (notebooks), ranges (a method of
// chunks of several pieces).
var omittable = map[string]bool{"repo": true, "host_language": true, "cell": true, "end_cell": true, "ranges": true}

// languageOf maps extensions to record languages, independently of the
// lang package.
var languageOf = map[string]string{
	".py": "python", ".pyi": "python",
	".java": "java",
	".ts":   "typescript", ".mts": "typescript", ".cts": "typescript",
	".tsx": "tsx",
	".cs":  "csharp",
}

type rec struct {
	id, repo, path, language, method string
	index, startLine, endLine        int
	startByte, endByte, size         int
	content                          string
	languages                        []string
	ranges                           [][2]int // a chunk of several pieces' (declaration)
}

// parseRecord decodes one line strictly: an object with exactly the
// fields of fieldOrder in that order, compact.
func parseRecord(line []byte) (*rec, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, line); err != nil {
		return nil, err
	}
	if !bytes.Equal(compact.Bytes(), line) {
		return nil, fmt.Errorf("not compact JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	r := &rec{}
	strs := map[string]*string{"id": &r.id, "repo": &r.repo, "path": &r.path, "language": &r.language, "method": &r.method, "content": &r.content}
	ints := map[string]*int{"index": &r.index, "start_line": &r.startLine, "end_line": &r.endLine, "start_byte": &r.startByte, "end_byte": &r.endByte, "size": &r.size}
	var key any // a key read but not yet matched
	for _, want := range fieldOrder {
		tok := key
		if tok == nil {
			if tok, err = dec.Token(); err != nil {
				return nil, err
			}
		}
		key = nil
		if tok != want && omittable[want] {
			key = tok // only some files' records have it
			continue
		}
		if tok != want {
			return nil, fmt.Errorf("field %v where %q belongs", tok, want)
		}
		if want == "ranges" {
			if err := dec.Decode(&r.ranges); err != nil {
				return nil, fmt.Errorf("ranges: %v", err)
			}
			continue
		}
		if omittable[want] && strs[want] == nil {
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			continue
		}
		if want == "languages" {
			if err := dec.Decode(&r.languages); err != nil {
				return nil, fmt.Errorf("languages: %v", err)
			}
			if len(r.languages) == 0 || r.languages[0] != r.language {
				return nil, fmt.Errorf("languages %q does not start with language %q", r.languages, r.language)
			}
			continue
		}
		tok, err = dec.Token()
		if err != nil {
			return nil, err
		}
		if p := strs[want]; p != nil {
			s, ok := tok.(string)
			if !ok {
				return nil, fmt.Errorf("%s: %v is not a string", want, tok)
			}
			*p = s
			continue
		}
		n, ok := tok.(json.Number)
		if !ok {
			return nil, fmt.Errorf("%s: %v is not a number", want, tok)
		}
		v, err := strconv.Atoi(n.String())
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%s: %v is not a non-negative integer", want, n)
		}
		*ints[want] = v
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, fmt.Errorf("extra fields after content")
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data")
	}
	return r, nil
}

func readRecords(ts *testscript.TestScript, name string) []*rec {
	data := ts.ReadFile(name)
	if data != "" && !strings.HasSuffix(data, "\n") {
		ts.Fatalf("%s: last line has no newline", name)
	}
	var out []*rec
	sc := bufio.NewScanner(strings.NewReader(data))
	sc.Buffer(nil, 1<<30)
	for n := 1; sc.Scan(); n++ {
		r, err := parseRecord(sc.Bytes())
		if err != nil {
			ts.Fatalf("%s:%d: %v", name, n, err)
		}
		out = append(out, r)
	}
	return out
}

func chunkID(repo, p, content string, k int) string {
	if repo != "" {
		p = repo + "\x00" + p
	}
	h := sha256.Sum256([]byte(p + "\x00" + content + "\x00" + strconv.Itoa(k)))
	return hex.EncodeToString(h[:16])
}

func nonSpace(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

// cmdJSONL checks a JSON Lines output against docs/design.md.
func cmdJSONL(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! jsonl")
	}
	fs := flag.NewFlagSet("jsonl", flag.ContinueOnError)
	dir := fs.String("C", ".", "folder the paths are relative to")
	repoDirs := repoFlag{}
	fs.Var(repoDirs, "repo", "NAME=DIR: the records of repository NAME are relative to DIR (repeatable); with it, every record must name a repository given")
	overlap := fs.Bool("overlap", false, "chunks may overlap (sliding windows)")
	partial := fs.Bool("partial", false, "chunks cover part of each file, in order, apart (function)")
	method := fs.String("method", "", "the method every record must name")
	budget := fs.Int("budget", 0, "if > 0, the largest size allowed")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		ts.Fatalf("usage: jsonl [-C dir] [-overlap|-partial] [-method m] [-budget n] FILE")
	}
	recs := readRecords(ts, fs.Arg(0))
	ids := map[string]bool{}
	type fileState struct {
		src     []byte
		seen    map[string]int
		covered int // bytes [0, covered) are in some chunk
		next    int // next index
	}
	var cur *fileState
	var curPath string // the current file's key: repo, NUL, path
	files := 0
	finish := func() {
		if cur != nil && !*partial && cur.covered != len(cur.src) {
			ts.Fatalf("%s: chunks cover %d of %d bytes", curPath, cur.covered, len(cur.src))
		}
	}
	for i, r := range recs {
		where := fmt.Sprintf("%s:%d (%s %s #%d)", fs.Arg(0), i+1, r.repo, r.path, r.index)
		if key := r.repo + "\x00" + r.path; cur == nil || key != curPath {
			finish()
			if cur != nil && key <= curPath {
				ts.Fatalf("%s: path %q after %q: files not sorted or not contiguous", where, key, curPath)
			}
			if r.path == "" || path.Clean(r.path) != r.path || strings.HasPrefix(r.path, "./") || strings.Contains(r.path, "\\") {
				ts.Fatalf("%s: path %q is not clean and /-separated", where, r.path)
			}
			top, ok := repoDirs[r.repo]
			switch {
			case len(repoDirs) == 0 && r.repo == "":
				top = *dir
			case !ok:
				ts.Fatalf("%s: repository %q, want one of -repo's", where, r.repo)
			}
			src, err := os.ReadFile(ts.MkAbs(filepath.Join(top, filepath.FromSlash(r.path))))
			if err != nil {
				ts.Fatalf("%s: %v", where, err)
			}
			cur, curPath = &fileState{src: src, seen: map[string]int{}}, key
			files++
		}
		if r.index != cur.next {
			ts.Fatalf("%s: index %d, want %d", where, r.index, cur.next)
		}
		cur.next++
		if want, ok := languageOf[path.Ext(r.path)]; ok && r.language != want {
			ts.Fatalf("%s: language %q, want %q", where, r.language, want)
		}
		if !slices.Contains([]string{"cast", "sliding", "function", "declaration"}, r.method) || *method != "" && r.method != *method {
			ts.Fatalf("%s: method %q", where, r.method)
		}
		src := cur.src
		if r.startByte >= r.endByte || r.endByte > len(src) {
			ts.Fatalf("%s: byte range [%d, %d) in a %d-byte file", where, r.startByte, r.endByte, len(src))
		}
		if r.content != joinRanges(ts, where, src, r) {
			ts.Fatalf("%s: content is not the file's bytes [%d, %d), or those of its ranges joined by a line feed", where, r.startByte, r.endByte)
		}
		if want := 1 + bytes.Count(src[:r.startByte], []byte("\n")); r.startLine != want {
			ts.Fatalf("%s: start_line %d, want %d", where, r.startLine, want)
		}
		if want := 1 + bytes.Count(src[:r.endByte-1], []byte("\n")); r.endLine != want {
			ts.Fatalf("%s: end_line %d, want %d", where, r.endLine, want)
		}
		if want := nonSpace(r.content); r.size != want {
			ts.Fatalf("%s: size %d, want %d", where, r.size, want)
		}
		if *budget > 0 && r.size > *budget {
			ts.Fatalf("%s: size %d over the budget %d", where, r.size, *budget)
		}
		if want := chunkID(r.repo, r.path, r.content, cur.seen[r.content]); r.id != want {
			ts.Fatalf("%s: id %s, want %s", where, r.id, want)
		}
		cur.seen[r.content]++
		if ids[r.id] {
			ts.Fatalf("%s: duplicate id %s", where, r.id)
		}
		ids[r.id] = true
		if *partial {
			if r.startByte < cur.covered {
				ts.Fatalf("%s: starts at byte %d, before the previous chunk's end %d", where, r.startByte, cur.covered)
			}
		} else if *overlap {
			if r.startByte > cur.covered || r.endByte <= cur.covered {
				ts.Fatalf("%s: [%d, %d) leaves a gap or adds nothing after byte %d", where, r.startByte, r.endByte, cur.covered)
			}
		} else if r.startByte != cur.covered {
			ts.Fatalf("%s: starts at byte %d, want %d (chunks must tile the file)", where, r.startByte, cur.covered)
		}
		cur.covered = r.endByte
	}
	finish()
	fmt.Fprintf(ts.Stdout(), "%d records in %d files\n", len(recs), files)
}

// repoFlag is jsonl's -repo NAME=DIR, repeated.
type repoFlag map[string]string

func (f repoFlag) String() string { return fmt.Sprint(map[string]string(f)) }

func (f repoFlag) Set(v string) error {
	name, dir, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("want NAME=DIR, got %q", v)
	}
	f[name] = dir
	return nil
}

// joinRanges returns what r's content must be: src's bytes of r's ranges,
// in order and apart, from start_byte to end_byte, joined by a line feed;
// without ranges, the bytes [start_byte, end_byte).
func joinRanges(ts *testscript.TestScript, where string, src []byte, r *rec) string {
	if r.ranges == nil {
		return string(src[r.startByte:r.endByte])
	}
	var parts []string
	for i, p := range r.ranges {
		if p[0] >= p[1] || i > 0 && p[0] <= r.ranges[i-1][1] || i == 0 && p[0] != r.startByte || i == len(r.ranges)-1 && p[1] != r.endByte {
			ts.Fatalf("%s: ranges %v are not pieces from %d to %d, in order and apart", where, r.ranges, r.startByte, r.endByte)
		}
		parts = append(parts, string(src[p[0]:p[1]]))
	}
	return strings.Join(parts, "\n")
}

// cmdRebuild writes the concatenated contents of one file's records.
func cmdRebuild(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: rebuild JSONL PATH OUT")
	}
	var b strings.Builder
	n := 0
	for _, r := range readRecords(ts, args[0]) {
		if r.path != args[1] {
			continue
		}
		if r.index != n {
			ts.Fatalf("%s: index %d, want %d", r.path, r.index, n)
		}
		n++
		b.WriteString(r.content)
	}
	if n == 0 {
		ts.Fatalf("no records for %s", args[1])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(b.String()), 0o644))
}

// cmdStatus runs a program like exec and checks its exact exit status.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N PROGRAM [ARG...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// cmdPaths prints the distinct paths of the records, in output order.
func cmdPaths(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: paths JSONL")
	}
	last := ""
	for _, r := range readRecords(ts, args[0]) {
		if r.path != last {
			fmt.Fprintln(ts.Stdout(), r.path)
			last = r.path
		}
	}
}

// cmdWritef writes (or appends) TEXT, COUNT times, to a file; name and
// text are Go-escaped strings.
func cmdWritef(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("writef", flag.ContinueOnError)
	appendTo := fs.Bool("append", false, "append to the file")
	if neg || fs.Parse(args) != nil || fs.NArg() < 2 || fs.NArg() > 3 {
		ts.Fatalf("usage: writef [-append] FILE TEXT [COUNT]")
	}
	unescape := func(s string) string {
		u, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)
		ts.Check(err)
		return u
	}
	count := 1
	if fs.NArg() == 3 {
		n, err := strconv.Atoi(fs.Arg(2))
		ts.Check(err)
		count = n
	}
	text := strings.Repeat(unescape(fs.Arg(1)), count)
	name := ts.MkAbs(unescape(fs.Arg(0)))
	ts.Check(os.MkdirAll(filepath.Dir(name), 0o755))
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if *appendTo {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(name, flags, 0o644)
	ts.Check(err)
	_, err = f.WriteString(text)
	ts.Check(err)
	ts.Check(f.Close())
}

// cmdGenfiles writes n source files, cycling through the languages, each
// with its own content (and -lines functions).
func cmdGenfiles(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("genfiles", flag.ContinueOnError)
	lines := fs.Int("lines", 3, "functions per file")
	if neg || fs.Parse(args) != nil || fs.NArg() != 2 {
		ts.Fatalf("usage: genfiles [-lines n] DIR N")
	}
	n, err := strconv.Atoi(fs.Arg(1))
	ts.Check(err)
	dir := ts.MkAbs(fs.Arg(0))
	for i := range n {
		var b strings.Builder
		var name string
		switch i % 5 {
		case 0:
			name = fmt.Sprintf("pkg%d/mod_%03d.py", i%3, i)
			fmt.Fprintf(&b, "\"\"\"Module %d.\"\"\"\nimport os\n\n", i)
			for j := range *lines {
				fmt.Fprintf(&b, "\n# helper %d\ndef f%d_%d(x, y=%d):\n    if x > y:\n        return os.path.join(str(x), str(y))\n    return [x * k for k in range(%d)]\n\n", j, i, j, j, i+j)
			}
		case 1:
			name = fmt.Sprintf("pkg%d/C%03d.java", i%3, i)
			fmt.Fprintf(&b, "package p;\n\nimport java.util.List;\n\npublic class C%03d {\n", i)
			for j := range *lines {
				fmt.Fprintf(&b, "    /** Method %d. */\n    public int m%d(List<Integer> xs) {\n        int s = %d;\n        for (int x : xs) { s += x * %d; }\n        return s;\n    }\n\n", j, j, i, j)
			}
			b.WriteString("}\n")
		case 2:
			name = fmt.Sprintf("pkg%d/m%03d.ts", i%3, i)
			fmt.Fprintf(&b, "import { a } from './a%d';\n\n", i)
			for j := range *lines {
				fmt.Fprintf(&b, "// fn %d\nexport function g%d_%d(x: number): number {\n  const y: number = x * %d;\n  return y > a ? y : a + %d;\n}\n\n", j, i, j, i, j)
			}
		case 3:
			name = fmt.Sprintf("pkg%d/V%03d.tsx", i%3, i)
			fmt.Fprintf(&b, "import React from 'react';\n\n")
			for j := range *lines {
				fmt.Fprintf(&b, "export const V%d_%d = (p: { n: number }) => (\n  <div className=\"v%d\">\n    <span>{p.n + %d}</span>\n  </div>\n);\n\n", i, j, j, i)
			}
		case 4:
			name = fmt.Sprintf("pkg%d/S%03d.cs", i%3, i)
			fmt.Fprintf(&b, "using System;\n\nnamespace N%d\n{\n    public static class S%d\n    {\n", i, i)
			for j := range *lines {
				fmt.Fprintf(&b, "        // M%d\n        public static int M%d(int x)\n        {\n            return x * %d + %d;\n        }\n\n", j, j, i, j)
			}
			b.WriteString("    }\n}\n")
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
		ts.Check(os.WriteFile(p, []byte(b.String()), 0o644))
	}
}
