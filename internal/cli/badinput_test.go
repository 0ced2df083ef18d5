package cli

// Bad input: files castchunk must skip, chunk anyway, or refuse, and faults
// of the output and of the inputs. Every case builds its input in a fresh
// temporary folder (no git), runs castchunk in-process and checks the exact
// outcome: the records (and that `castchunk verify` accepts them), the
// warning lines on stderr and the exit status.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/record"
)

// badSetup writes files (path → content) into a fresh temporary folder and
// makes it the working directory, so record paths and warnings are short
// relative paths.
func badSetup(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	return dir
}

// badRecords decodes stdout strictly.
func badRecords(t *testing.T, out string) []record.Record {
	t.Helper()
	dec := record.NewDecoder(strings.NewReader(out))
	var recs []record.Record
	for {
		var r record.Record
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			return recs
		}
		if err != nil {
			t.Fatalf("stdout: %v", err)
		}
		recs = append(recs, r)
	}
}

// strictRecords decodes out as castchunk writes it (record.Decoder with
// Strict) and returns the records; what is not a record fails the test.
func strictRecords(t *testing.T, what string, out io.Reader) []record.Record {
	t.Helper()
	dec := record.NewDecoder(out)
	dec.Strict = true
	var recs []record.Record
	for {
		var r record.Record
		err := dec.Decode(&r)
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		recs = append(recs, r)
	}
}

// badVerify runs `castchunk verify --root DIR --max-size N` on out and
// requires it to accept every record.
func badVerify(t *testing.T, dir, out string, budget int) {
	t.Helper()
	vout, verr, code := run(t, out, "verify", "--root", dir, "--max-file-size", "0", "--max-size", strconv.Itoa(budget))
	if code != 0 || verr != "" || !strings.HasSuffix(vout, " 0 problems\n") {
		t.Fatalf("verify: status %d, stderr %q, stdout:\n%s", code, verr, badTail(vout))
	}
}

// badCheck compares stderr and the status with what is expected.
func badCheck(t *testing.T, stderr string, code int, wantErr string, wantCode int) {
	t.Helper()
	if stderr != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, wantErr)
	}
	if code != wantCode {
		t.Errorf("exit status %d, want %d", code, wantCode)
	}
}

// badRebuild concatenates path's records and compares them with the file.
func badRebuild(t *testing.T, recs []record.Record, path, src string) {
	t.Helper()
	var b strings.Builder
	n := 0
	for _, r := range recs {
		if r.Path == path {
			if r.Index != n {
				t.Fatalf("%s: record %d has index %d", path, n, r.Index)
			}
			b.WriteString(r.Content)
			n++
		}
	}
	if b.String() != src {
		t.Fatalf("%s: the %d chunks do not rebuild the file (%d bytes, want %d)", path, n, b.Len(), len(src))
	}
}

func badTail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}

// badNoOutput requires a run that skipped its only file: no record.
func badNoOutput(t *testing.T, stdout string) {
	t.Helper()
	if stdout != "" {
		t.Errorf("stdout should be empty, got %q", badTail(stdout))
	}
}

type badEncodingCase struct{ name, src, warning string }

// TestBadEncodings: binary files and files that are not UTF-8 are skipped
// with one warning; nothing of them reaches the output. Named as arguments,
// they make the status 3 (the user asked for them); walked, 0.
func TestBadEncodings(t *testing.T) {
	cases := []badEncodingCase{
		{"nul.py", "x = 1\x00\ny = 2\n", "binary file (NUL byte); skipped"},
		{"nul_after_bom.py", "\xef\xbb\xbfx = '\x00'\n", "binary file (NUL byte); skipped"},
		{"latin1_comment.py", "x = 1  # caf\xe9\n", "not valid UTF-8 (bad byte at offset 12); skipped"},
		{"latin1_after_bom.py", "\xef\xbb\xbfx = 1  # caf\xe9\n", "not valid UTF-8 (bad byte at offset 15); skipped"},
		{"cp1252.py", "s = \x93quoted\x94 \x97 dash\n", "not valid UTF-8 (bad byte at offset 4); skipped"},
		{"truncated_seq.py", "s = '\xe2\x82'\n", "not valid UTF-8 (bad byte at offset 5); skipped"},
		{"utf16le.py", "\xff\xfex\x00 \x00=\x00 \x001\x00\n\x00", "UTF-16 text is not supported, only UTF-8; skipped"},
		{"utf16be.py", "\xfe\xff\x00x\x00 \x00=\x00 \x001\x00\n", "UTF-16 text is not supported, only UTF-8; skipped"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			badSetup(t, map[string]string{c.name: c.src})
			out, stderr, code := run(t, "", "chunk", c.name)
			badNoOutput(t, out)
			badCheck(t, stderr, code, "castchunk: "+c.name+": "+c.warning+"\n", ExitUnreadable)
		})
	}
	// Walking a folder: the bad files are skipped, the good one chunked.
	t.Run("folder", func(t *testing.T) {
		files := map[string]string{"good.py": "x = 1\n"}
		var want strings.Builder
		for _, c := range cases {
			files[c.name] = c.src
		}
		sorted := slices.Clone(cases) // warnings come in path order
		slices.SortFunc(sorted, func(a, b badEncodingCase) int { return strings.Compare(a.name, b.name) })
		for _, c := range sorted {
			fmt.Fprintf(&want, "castchunk: %s: %s\n", c.name, c.warning)
		}
		dir := badSetup(t, files)
		out, stderr, code := run(t, "", "chunk", "--no-ignore", ".")
		badCheck(t, stderr, code, want.String(), 0)
		recs := badRecords(t, out)
		if len(recs) != 1 || recs[0].Path != "good.py" {
			t.Fatalf("want one record of good.py, got %d: %s", len(recs), out)
		}
		badVerify(t, dir, out, 2000)
	})
}

// TestBadLateNUL: only the first 8000 bytes are searched for a NUL byte; a
// NUL after them is text (valid UTF-8) and is chunked exactly.
func TestBadLateNUL(t *testing.T) {
	pad := strings.Repeat("x = 1\n", 1333) // 7998 bytes
	early := pad + "#\x00\n"               // NUL at byte 7999: binary
	late := pad + "#\n# \x00\n"            // NUL at byte 8002: text
	dir := badSetup(t, map[string]string{"early.py": early, "late.py": late})
	out, stderr, code := run(t, "", "chunk", "--no-ignore", ".")
	badCheck(t, stderr, code, "castchunk: early.py: binary file (NUL byte); skipped\n", 0)
	recs := badRecords(t, out)
	badRebuild(t, recs, "late.py", late)
	if len(recs) == 0 || recs[0].Path != "late.py" {
		t.Fatalf("want the records of late.py only, got %d", len(recs))
	}
	badVerify(t, dir, out, 2000)
}

// TestBadLineEnds: CRLF and lone CR files are chunked exactly; a lone CR is
// not a line break.
func TestBadLineEnds(t *testing.T) {
	crlf := "def f():\r\n    return 1\r\n\r\n\r\ndef g():\r\n    return 2\r\n"
	cr := "def f():\r    return 1\r\rdef g():\r    return 2\r"
	mixed := "def f():\r    return 1\r\n\rdef g():\n    return 2\r"
	dir := badSetup(t, map[string]string{"crlf.py": crlf, "cr.py": cr, "mixed.py": mixed})
	out, stderr, code := run(t, "", "chunk", "--max-size", "20", "crlf.py", "cr.py", "mixed.py")
	badCheck(t, stderr, code, "", 0)
	recs := badRecords(t, out)
	badVerify(t, dir, out, 20)
	for path, src := range map[string]string{"crlf.py": crlf, "cr.py": cr, "mixed.py": mixed} {
		badRebuild(t, recs, path, src)
	}
	var lines []string
	for _, r := range recs {
		if r.Path == "cr.py" && (r.StartLine != 1 || r.EndLine != 1) {
			t.Errorf("cr.py chunk %d: lines %d-%d, want 1-1 (a lone CR is not a line break)", r.Index, r.StartLine, r.EndLine)
		}
		if r.Path == "crlf.py" {
			lines = append(lines, fmt.Sprintf("%d-%d", r.StartLine, r.EndLine))
		}
	}
	// Each function fits the budget (14), both together do not: the first
	// chunk ends with the blank lines, the second starts on line 5.
	if got := strings.Join(lines, " "); got != "1-4 5-6" {
		t.Errorf("crlf.py chunks cover lines %s, want 1-4 5-6", got)
	}
}

// TestBadDegenerateFiles: a BOM alone, whitespace alone, nothing at all.
func TestBadDegenerateFiles(t *testing.T) {
	dir := badSetup(t, map[string]string{"bom.py": "\xef\xbb\xbf", "blank.py": "  \n\t\n  ", "empty.py": "", "bomblank.py": "\xef\xbb\xbf\n\n"})
	out, stderr, code := run(t, "", "chunk", "--no-ignore", ".")
	badCheck(t, stderr, code, "", 0)
	recs := badRecords(t, out)
	type want struct {
		path             string
		lines            [2]int
		start, end, size int
		content          string
	}
	wants := []want{
		{"blank.py", [2]int{1, 3}, 0, 7, 0, "  \n\t\n  "},
		{"bom.py", [2]int{1, 1}, 0, 3, 1, "\ufeff"},
		{"bomblank.py", [2]int{1, 2}, 0, 5, 1, "\ufeff\n\n"},
	}
	if len(recs) != len(wants) {
		t.Fatalf("%d records, want %d (none for empty.py):\n%s", len(recs), len(wants), out)
	}
	for i, w := range wants {
		r := recs[i]
		got := want{r.Path, [2]int{r.StartLine, r.EndLine}, r.StartByte, r.EndByte, r.Size, r.Content}
		if got != w || r.Index != 0 || r.Method != "cast" || r.Language != "python" {
			t.Errorf("record %d: %+v (index %d, %s, %s), want %+v", i, got, r.Index, r.Method, r.Language, w)
		}
	}
	badVerify(t, dir, out, 2000)
	// The empty file named alone: no record; nothing chunked is an error
	// unless --allow-empty.
	out, stderr, code = run(t, "", "chunk", "empty.py")
	badNoOutput(t, out)
	badCheck(t, stderr, code, "castchunk: nothing chunked: none of the 1 file listed gave a chunk: 1 empty; give --allow-empty if an empty result is expected\n", 1)
	out, stderr, code = run(t, "", "chunk", "--allow-empty", "empty.py")
	badNoOutput(t, out)
	badCheck(t, stderr, code, "", 0)
}

// TestBadHugeInputs: a 5 MB line, a 10 MB list literal, 50,000 nested
// parentheses, a 200,000-character string: chunked within the budget,
// nothing dropped, verify passes.
func TestBadHugeInputs(t *testing.T) {
	var line strings.Builder // 5 MB on one line, no final newline: a minified file
	for i := 0; line.Len() < 5<<20; i++ {
		fmt.Fprintf(&line, "v%d = [%d, 'é中%d'];", i, i, i)
	}
	var list strings.Builder // 10 MB: one top-level node
	list.WriteString("DATA = [\n")
	for i := 0; list.Len() < 10<<20; i++ {
		fmt.Fprintf(&list, "    (%d, \"key-%07d\", %d.5),\n", i, i, i%977)
	}
	list.WriteString("]\n")
	const depth = 50000
	nested := "x = " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + "\n"
	var str strings.Builder // 200,000 characters inside one string literal
	str.WriteString("s = \"")
	alphabet := []rune("abcdefghé€中𝄞 ")
	for i := range 200000 {
		str.WriteRune(alphabet[i%len(alphabet)])
	}
	str.WriteString("\"\n")

	files := map[string]string{"line.py": line.String(), "list.py": list.String(), "nested.py": nested, "string.py": str.String()}
	dir := badSetup(t, files)
	start := time.Now()
	out, stderr, code := run(t, "", "chunk", "--no-ignore", "--max-file-size", "16MiB", ".")
	t.Logf("chunked %d MB in %v", (line.Len()+list.Len()+len(nested)+str.Len())>>20, time.Since(start))
	badCheck(t, stderr, code, "", 0)
	recs := badRecords(t, out)
	perFile := map[string]int{}
	for _, r := range recs {
		perFile[r.Path]++
		if r.Size > 2000 {
			t.Errorf("%s chunk %d: size %d over the budget", r.Path, r.Index, r.Size)
		}
		if r.Method != "cast" {
			t.Errorf("%s chunk %d: method %s", r.Path, r.Index, r.Method)
		}
		if r.Path == "line.py" && r.StartLine != 1 {
			t.Errorf("line.py chunk %d starts on line %d", r.Index, r.StartLine)
		}
	}
	for path, src := range files {
		badRebuild(t, recs, path, src)
	}
	t.Logf("chunks per file: %v", perFile)
	start = time.Now()
	badVerify(t, dir, out, 2000)
	t.Logf("verified in %v", time.Since(start))
}

// TestBadTooLarge: a file over --max-file-size is skipped with a warning,
// the others are chunked, status 0 (3 when it was named).
func TestBadTooLarge(t *testing.T) {
	big := strings.Repeat("x = 1\n", 700) // 4200 bytes
	dir := badSetup(t, map[string]string{"big.py": big, "small.py": "y = 2\n"})
	out, stderr, code := run(t, "", "chunk", "--no-ignore", "--max-file-size", "4KiB", ".")
	badCheck(t, stderr, code, "castchunk: big.py: file too large (4.1 KiB > 4 KiB limit); skipped\n", 0)
	recs := badRecords(t, out)
	if len(recs) != 1 || recs[0].Path != "small.py" {
		t.Fatalf("want one record of small.py, got %s", out)
	}
	badVerify(t, dir, out, 2000)
	// Named on the command line: the same, but status 3: a file asked for
	// was left out.
	out, stderr, code = run(t, "", "chunk", "--max-file-size", "4KiB", "big.py", "small.py")
	badCheck(t, stderr, code, "castchunk: big.py: file too large (4.1 KiB > 4 KiB limit); skipped\n", ExitUnreadable)
	if recs := badRecords(t, out); len(recs) != 1 || recs[0].Path != "small.py" {
		t.Fatalf("want one record of small.py, got %s", out)
	}
}

// TestBadParseTimeout: a parse that times out falls back to sliding windows,
// with a warning; the output is still exact.
func TestBadParseTimeout(t *testing.T) {
	var src strings.Builder
	for i := range 300 {
		fmt.Fprintf(&src, "def f%d(x):\n    return [x + %d for _ in range(%d)]\n\n", i, i, i)
	}
	dir := badSetup(t, map[string]string{"slow.py": src.String(), "empty.py": ""})
	out, stderr, code := run(t, "", "chunk", "--no-ignore", "--parse-timeout", "1ns", "--max-size", "300", ".")
	badCheck(t, stderr, code, "castchunk: slow.py: parse timed out after 1ns; chunked with the sliding method\n", ExitFellBack)
	recs := badRecords(t, out)
	if len(recs) < 2 {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs {
		if r.Method != "sliding" || r.Path != "slow.py" {
			t.Fatalf("record %s chunk %d: method %q, want sliding", r.Path, r.Index, r.Method)
		}
	}
	badRebuild(t, recs, "slow.py", src.String())
	badVerify(t, dir, out, 300)
}

// TestBadOutputDevFull: a write error is a failure, said clearly.
func TestBadOutputDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	badSetup(t, map[string]string{"a.py": "x = 1\n"})
	out, stderr, code := run(t, "", "chunk", "--no-ignore", "-o", "/dev/full", ".")
	badNoOutput(t, out)
	badCheck(t, stderr, code, "castchunk: write output: write /dev/full: no space left on device\n", 1)
}

// badPrevious is an earlier run's output, exactly a record as chunk
// writes it: inside the tree it is left out of the inputs, as any earlier
// output is (a file that merely starts like one would be refused).
const badPrevious = `{"id":"1ab61e21b11fe21abfdf04fd03386a4a","path":"previous.py","language":"python","method":"cast","index":0,"start_line":1,"end_line":2,"start_byte":0,"end_byte":22,"size":14,"languages":["python"],"content":"def f():\n    return 1\n"}` + "\n"

// badOutputDir makes out/out.jsonl hold badPrevious and returns its path.
func badOutputDir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "out", "out.jsonl")
	if err := os.WriteFile(name, []byte(badPrevious), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// badUntouched requires the previous output as it was and no temporary file.
func badUntouched(t *testing.T, name string) {
	t.Helper()
	if got, err := os.ReadFile(name); err != nil || string(got) != badPrevious {
		t.Errorf("%s: %q, %v; want the previous content %q", name, got, err, badPrevious)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(name), ".out.jsonl.tmp-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestBadOutputKeptOnFailure: a run that fails leaves the previous -o FILE
// as it was and no temporary file.
func TestBadOutputKeptOnFailure(t *testing.T) {
	t.Run("usage error", func(t *testing.T) {
		dir := badSetup(t, map[string]string{"a.py": "x = 1\n"})
		name := badOutputDir(t, dir)
		out, stderr, code := run(t, "", "chunk", "--no-ignore", "-o", name, "--include", "[a-", ".")
		badNoOutput(t, out)
		badCheck(t, stderr, code, "castchunk: invalid include pattern \"[a-\": syntax error in pattern\nRun 'castchunk chunk --help' for usage.\n", 2)
		badUntouched(t, name)
	})
	t.Run("unwritable output folder", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root can write to a read-only folder")
		}
		dir := badSetup(t, map[string]string{"a.py": "x = 1\n"})
		name := badOutputDir(t, dir)
		if err := os.Chmod(filepath.Dir(name), 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(filepath.Dir(name), 0o755)
		out, stderr, code := run(t, "", "chunk", "--no-ignore", "-o", name, ".")
		badNoOutput(t, out)
		if code != 1 || !strings.HasPrefix(stderr, "castchunk: cannot write output: ") || !strings.Contains(stderr, "permission denied") {
			t.Errorf("status %d, stderr %q", code, stderr)
		}
		badUntouched(t, name)
	})
	// A write that fails once the temporary file exists (here: the file
	// size limit, which binds root too): the temporary file is removed.
	t.Run("write error", func(t *testing.T) {
		dir := badSetup(t, badManyFiles(20, 300))
		name := badOutputDir(t, dir)
		var old syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Skip(err)
		}
		signal.Ignore(syscall.SIGXFSZ) // a write past the limit fails with EFBIG instead
		defer signal.Reset(syscall.SIGXFSZ)
		limited := old
		limited.Cur = 64 << 10
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limited); err != nil {
			t.Skip(err)
		}
		out, stderr, code := run(t, "", "chunk", "--no-ignore", "-o", name, ".")
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Fatal(err)
		}
		badNoOutput(t, out)
		prefix := "castchunk: write output: write " + filepath.Join(filepath.Dir(name), ".out.jsonl.tmp-")
		if code != 1 || !strings.HasPrefix(stderr, prefix) || !strings.HasSuffix(stderr, ": file too large\n") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("status %d, stderr %q; want 1 and %s…: file too large", code, stderr, prefix)
		}
		badUntouched(t, name)
	})
	t.Run("cancelled before the run", func(t *testing.T) {
		files := map[string]string{}
		for i := range 30 {
			files[fmt.Sprintf("m%02d.py", i)] = fmt.Sprintf("def f%d(x):\n    return x\n", i)
		}
		dir := badSetup(t, files)
		name := badOutputDir(t, dir)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var out, errOut bytes.Buffer
		code := Main(ctx, []string{"chunk", "--no-ignore", "-o", name, "."}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
		badNoOutput(t, out.String())
		t.Logf("stderr: %q", errOut.String())
		if code != ExitInterrupted || !strings.HasSuffix(errOut.String(), "castchunk: interrupted\n") {
			t.Errorf("status %d, stderr %q; want %d and castchunk: interrupted", code, errOut.String(), ExitInterrupted)
		}
		badUntouched(t, name)
	})
	// Cancelled while the first file is written: the run stops, FILE stays.
	t.Run("cancelled during the run", func(t *testing.T) {
		files := map[string]string{"a_binary.py": "\x00"}
		for i := range 30 {
			files[fmt.Sprintf("m%02d.py", i)] = fmt.Sprintf("def f%d(x):\n    return x\n", i)
		}
		dir := badSetup(t, files)
		name := badOutputDir(t, dir)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		errOut := &badHook{hook: cancel}
		code := Main(ctx, []string{"chunk", "--no-ignore", "-o", name, "."}, Streams{In: strings.NewReader(""), Out: io.Discard, Err: errOut})
		t.Logf("stderr: %q", errOut.String())
		if code != ExitInterrupted || !strings.HasSuffix(errOut.String(), "castchunk: interrupted\n") {
			t.Errorf("status %d, stderr %q; want %d and castchunk: interrupted", code, errOut.String(), ExitInterrupted)
		}
		badUntouched(t, name)
	})
	// Cancelled while the last file is written: status 130 says the run was
	// interrupted, so FILE must be as it was (README, "Exit status").
	t.Run("cancelled at the last file", func(t *testing.T) {
		files := map[string]string{"z_binary.py": "\x00"}
		for i := range 3 {
			files[fmt.Sprintf("m%02d.py", i)] = fmt.Sprintf("def f%d(x):\n    return x\n", i)
		}
		dir := badSetup(t, files)
		name := badOutputDir(t, dir)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		errOut := &badHook{hook: cancel}
		code := Main(ctx, []string{"chunk", "--no-ignore", "-o", name, "."}, Streams{In: strings.NewReader(""), Out: io.Discard, Err: errOut})
		switch code {
		case ExitInterrupted: // then FILE must be as it was
			badUntouched(t, name)
		case 0: // or the run counts as done, and FILE holds every record
			got, _ := os.ReadFile(name)
			if recs := badRecords(t, string(got)); len(recs) != 3 {
				t.Errorf("status 0 but %d records in %s", len(recs), name)
			}
		default:
			t.Errorf("status %d, stderr %q", code, errOut.String())
		}
	})
}

// badHook is a stderr that calls hook once, at its first write.
type badHook struct {
	bytes.Buffer
	hook func()
	done bool
}

func (h *badHook) Write(p []byte) (int, error) {
	if !h.done {
		h.done = true
		h.hook()
	}
	return h.Buffer.Write(p)
}

// badEPIPE is a stdout whose reader goes away after the first write.
type badEPIPE struct{ writes int }

func (w *badEPIPE) Write(p []byte) (int, error) {
	w.writes++
	if w.writes > 1 {
		return 0, syscall.EPIPE
	}
	return len(p), nil
}

// badManyFiles returns n Python files of funcs small functions each (about
// 10 KB of code and, with --max-size 100, 60 KB of records for 300).
func badManyFiles(n, funcs int) map[string]string {
	files := map[string]string{}
	for i := range n {
		var b strings.Builder
		for j := range funcs {
			fmt.Fprintf(&b, "def f%d_%d(x):\n    return x + %d\n", i, j, j)
		}
		files[fmt.Sprintf("m%02d.py", i)] = b.String()
	}
	return files
}

// TestBadClosedStdout: `castchunk chunk | head`: stop quietly, status 0.
func TestBadClosedStdout(t *testing.T) {
	badSetup(t, badManyFiles(40, 300))
	w := &badEPIPE{}
	var errOut bytes.Buffer
	code := Main(context.Background(), []string{"chunk", "--no-ignore", "--max-size", "100", "."}, Streams{In: strings.NewReader(""), Out: w, Err: &errOut})
	badCheck(t, errOut.String(), code, "", 0)
	if w.writes < 2 {
		t.Fatalf("only %d writes: the output is too small to test a closed stdout", w.writes)
	}
	if w.writes > 3 {
		t.Errorf("%d writes after the reader went away: castchunk should stop at the first failed one", w.writes-1)
	}
}

// TestBadInputFaults: inputs that cannot be read are reported, the others
// still chunked, status 3.
func TestBadInputFaults(t *testing.T) {
	t.Run("missing path", func(t *testing.T) {
		dir := badSetup(t, map[string]string{"a.py": "x = 1\n", "b.py": "y = 2\n"})
		out, stderr, code := run(t, "", "chunk", "a.py", "nope.py", "b.py")
		badCheck(t, stderr, code, "castchunk: nope.py: no such file or directory\n", 3)
		if recs := badRecords(t, out); len(recs) != 2 || recs[0].Path != "a.py" || recs[1].Path != "b.py" {
			t.Fatalf("want the records of a.py and b.py, got %s", out)
		}
		badVerify(t, dir, out, 2000)
	})
	t.Run("missing path in --files-from", func(t *testing.T) {
		dir := badSetup(t, map[string]string{"a.py": "x = 1\n"})
		out, stderr, code := run(t, "a.py\nnope.py\n", "chunk", "--files-from", "-")
		badCheck(t, stderr, code, "castchunk: nope.py: no such file or directory\n", 3)
		if recs := badRecords(t, out); len(recs) != 1 || recs[0].Path != "a.py" {
			t.Fatalf("want the record of a.py, got %s", out)
		}
		badVerify(t, dir, out, 2000)
	})
	t.Run("dangling symlink", func(t *testing.T) {
		dir := badSetup(t, map[string]string{"a.py": "x = 1\n"})
		if err := os.Symlink("missing.py", "dangling.py"); err != nil {
			t.Fatal(err)
		}
		out, stderr, code := run(t, "", "chunk", "a.py", "dangling.py")
		badCheck(t, stderr, code, "castchunk: dangling.py: dangling symlink\n", 3)
		if recs := badRecords(t, out); len(recs) != 1 || recs[0].Path != "a.py" {
			t.Fatalf("want the record of a.py, got %s", out)
		}
		badVerify(t, dir, out, 2000)
	})
	t.Run("symlink loop named", func(t *testing.T) {
		dir := badSetup(t, map[string]string{"a.py": "x = 1\n"})
		for _, l := range [][2]string{{"l2.py", "l1.py"}, {"l1.py", "l2.py"}} {
			if err := os.Symlink(l[0], l[1]); err != nil {
				t.Fatal(err)
			}
		}
		out, stderr, code := run(t, "", "chunk", "--follow", "a.py", "l1.py")
		badCheck(t, stderr, code, "castchunk: l1.py: symlink loop\n", 3)
		if recs := badRecords(t, out); len(recs) != 1 || recs[0].Path != "a.py" {
			t.Fatalf("want the record of a.py, got %s", out)
		}
		badVerify(t, dir, out, 2000)
	})
	t.Run("symlink loop walked with --follow", func(t *testing.T) {
		dir := badSetup(t, map[string]string{"d/a.py": "x = 1\n", "d/sub/b.py": "y = 2\n"})
		if err := os.Symlink("..", filepath.Join("d", "sub", "up")); err != nil {
			t.Fatal(err)
		}
		out, stderr, code := run(t, "", "chunk", "--no-ignore", "--follow", "--root", ".", "d")
		badCheck(t, stderr, code, "castchunk: d/sub/up: symlink loop\n", 3)
		if recs := badRecords(t, out); len(recs) != 2 || recs[0].Path != "d/a.py" || recs[1].Path != "d/sub/b.py" {
			t.Fatalf("want the records of d/a.py and d/sub/b.py, got %s", out)
		}
		badVerify(t, dir, out, 2000)
		// Without --follow the link is skipped silently.
		out2, stderr, code := run(t, "", "chunk", "--no-ignore", "--root", ".", "d")
		badCheck(t, stderr, code, "", 0)
		if out2 != out {
			t.Errorf("without --follow: different records")
		}
	})
	// A file that vanishes between listing and reading: the first warning
	// of the walk (an --exclude pattern that matches nothing) is printed
	// after the listing and before any file is read, and deletes vanish.py;
	// grow.py grows past the limit at the same moment.
	t.Run("vanished and grown after listing", func(t *testing.T) {
		dir := badSetup(t, map[string]string{
			"a.py": "x = 1\n", "big.py": strings.Repeat("#", 2000) + "\n",
			"grow.py": "y = 2\n", "vanish.py": "z = 3\n",
		})
		errOut := &badHook{hook: func() {
			if err := os.Remove("vanish.py"); err != nil {
				t.Error(err)
			}
			if err := os.WriteFile("grow.py", []byte(strings.Repeat("y = 2\n", 300)), 0o644); err != nil {
				t.Error(err)
			}
		}}
		var out bytes.Buffer
		code := Main(context.Background(), []string{"chunk", "--no-ignore", "--max-file-size", "1KiB", "--exclude", "none", "."}, Streams{In: strings.NewReader(""), Out: &out, Err: errOut})
		badCheck(t, errOut.String(), code, "castchunk: --exclude: pattern \"none\" matches nothing\n"+
			"castchunk: big.py: file too large (2 KiB > 1 KiB limit); skipped\n"+
			"castchunk: grow.py: file too large (1.8 KiB > 1 KiB limit); skipped\n"+
			"castchunk: vanish.py: no such file or directory (did it vanish while castchunk ran?)\n", 3)
		if recs := badRecords(t, out.String()); len(recs) != 1 || recs[0].Path != "a.py" {
			t.Fatalf("want the record of a.py, got %s", out.String())
		}
		badVerify(t, dir, out.String(), 2000)
	})
}

// TestBadUsage: bad flags and arguments: status 2, nothing done, a pointer
// to --help.
func TestBadUsage(t *testing.T) {
	const help = "Run 'castchunk chunk --help' for usage.\n"
	badSetup(t, map[string]string{"d/a.py": "x = 1\n", "a.txt": "text\n"})
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--lang", "python", "d"}, "--lang applies to files, and d is a directory: name the files, or drop --lang to pick languages by extension"},
		{[]string{"--include", "[a-", "d"}, `invalid include pattern "[a-": syntax error in pattern`},
		{[]string{"--exclude", "[a-", "d"}, `invalid exclude pattern "[a-": syntax error in pattern`},
		{[]string{"--lang", "cobol", "d/a.py"}, `unknown language "cobol": want one of ` + strings.Join(lang.Names(), ", ")},
		{[]string{"--max-file-size", "lots", "d"}, `--max-file-size: invalid size "lots": want a number of bytes, optionally followed by a unit: KiB, MiB, GiB (or K, M, G), KB, MB, GB`},
		{[]string{"--bogus", "d"}, "unknown flag: --bogus"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out, stderr, code := run(t, "", append([]string{"chunk"}, c.args...)...)
			badNoOutput(t, out)
			badCheck(t, stderr, code, "castchunk: "+c.want+"\n"+help, 2)
		})
	}
	// A named file no grammar parses is no usage error: it is named with
	// the reason, the other files are chunked, and the status is 3.
	out, stderr, code := run(t, "", "chunk", "a.txt", "d/a.py")
	badCheck(t, stderr, code, "castchunk: a.txt: no grammar for this file; name a language with --lang ("+strings.Join(lang.Names(), ", ")+"), or chunk it as text with --all-text\n", ExitUnreadable)
	if recs := badRecords(t, out); len(recs) != 1 || recs[0].Path != "d/a.py" {
		t.Fatalf("want one record of d/a.py, got %s", out)
	}
}

// TestBadPathNotUTF8: a file whose name is not valid UTF-8 cannot be
// written into a record exactly. It must not break the run: it is skipped
// with a warning (as a file whose content is not UTF-8 is), the other files
// are chunked, and -o FILE is still written.
func TestBadPathNotUTF8(t *testing.T) {
	dir := badSetup(t, map[string]string{"a.py": "x = 1\n", "caf\xe9.py": "y = 2\n"})
	name := badOutputDir(t, dir)
	out, stderr, code := run(t, "", "chunk", "--no-ignore", "-o", name, ".")
	badNoOutput(t, out)
	t.Logf("status %d, stderr %q", code, stderr)
	if stderr != "castchunk: \"caf\\xe9.py\": file name is not valid UTF-8; skipped\n" {
		t.Errorf("stderr %q: want one warning about caf\\xe9.py", stderr)
	}
	if strings.Contains(stderr, "internal error") {
		t.Errorf("a file name is bad input, not an internal error: %q", stderr)
	}
	if code != 0 && code != ExitUnreadable {
		t.Errorf("status %d, want 0 (skipped on purpose) or 3 (could not be read)", code)
	}
	got, _ := os.ReadFile(name)
	if recs := badRecords(t, string(got)); len(recs) != 1 || recs[0].Path != "a.py" {
		t.Fatalf("want the record of a.py in %s, got %q", name, got)
	}
}
