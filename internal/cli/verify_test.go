package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// verifyRun runs castchunk verify on records and returns its report and
// status, failing on anything on stderr.
func verifyRun(t *testing.T, records string, args ...string) (string, int) {
	t.Helper()
	out, stderr, code := run(t, records, append([]string{"verify"}, args...)...)
	if stderr != "" {
		t.Errorf("verify %q: stderr %q", args, stderr)
	}
	return out, code
}

// chunked runs castchunk chunk and returns its records.
func chunked(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, code := run(t, "", append([]string{"chunk"}, args...)...)
	if code != 0 || stderr != "" || out == "" {
		t.Fatalf("chunk %q: status %d, stderr %q", args, code, stderr)
	}
	return out
}

// TestVerifyOutsideRootFlag: records naming files outside --root (the
// absolute paths of `castchunk chunk /abs/dir`, a ../ path) are one problem
// line each, unless --allow-outside-root, or a --root they lie under.
func TestVerifyOutsideRootFlag(t *testing.T) {
	dir := badSetup(t, map[string]string{"src/app.py": frictionPy})
	// Run from elsewhere: a file outside the root (here the current folder)
	// keeps the absolute path it was reached by.
	t.Chdir(t.TempDir())
	abs := chunked(t, "--max-size", "30", filepath.Join(dir, "src", "app.py"))
	t.Chdir(dir)
	absPath := filepath.ToSlash(filepath.Join(dir, "src", "app.py"))

	out, code := verifyRun(t, abs, "--root", t.TempDir())
	want := absPath + ": path is outside --root; pass --allow-outside-root to read it\n"
	if code != 1 || !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 2 {
		t.Errorf("absolute paths outside --root: status %d, report:\n%s", code, out)
	}
	for _, args := range [][]string{
		{"--allow-outside-root"},
		{"--root", dir},
		{"--root", "/"},
		{"--root", "src", "--allow-outside-root"},
	} {
		if out, code := verifyRun(t, abs, args...); code != 0 || !strings.HasSuffix(out, ": 0 problems\n") {
			t.Errorf("absolute paths with %q: status %d, report:\n%s", args, code, out)
		}
	}

	// Relative records, read from a --root below them: ../ climbs out.
	rel := chunked(t, "--max-size", "30", "src/app.py")
	t.Chdir("src")
	up := strings.ReplaceAll(rel, `"path":"src/app.py"`, `"path":"../src/app.py"`)
	out, code = verifyRun(t, up)
	if code != 1 || !strings.HasPrefix(out, "../src/app.py: path is outside --root") {
		t.Errorf("../ path: status %d, report:\n%s", code, out)
	}
	if out, code := verifyRun(t, rel, "--root", ".."); code != 0 {
		t.Errorf("relative records under --root ..: status %d, report:\n%s", code, out)
	}
}

// TestVerifyMaxFileSizeFlag: a file over --max-file-size is a problem and
// is not read; a line longer than any record of such a file is refused
// without being held; a bad size is a usage error.
func TestVerifyMaxFileSizeFlag(t *testing.T) {
	badSetup(t, map[string]string{"app.py": frictionPy}) // 116 bytes
	recs := chunked(t, "--max-size", "30", "app.py")
	out, code := verifyRun(t, recs, "--max-file-size", "100")
	if code != 1 || !strings.HasPrefix(out, "app.py: file too large (116 B > 100 B limit); a larger --max-file-size reads it\n") {
		t.Errorf("file over the limit: status %d, report:\n%s", code, out)
	}
	for _, size := range []string{"116", "1KiB", "0"} {
		if out, code := verifyRun(t, recs, "--max-file-size", size); code != 0 {
			t.Errorf("--max-file-size %s: status %d, report:\n%s", size, code, out)
		}
	}

	// A record line of 2 MiB: longer than any record of a file of at most
	// 100 bytes (6 x 100 + 1 MiB), fine without a limit.
	first := strings.SplitAfter(recs, "\n")[0]
	long := strings.TrimSuffix(first, "}\n") + `,"embedding":"` + strings.Repeat("x", 2<<20) + "\"}\n"
	out, code = verifyRun(t, long, "--max-file-size", "100")
	if code != 1 || !strings.Contains(out, "stdin: line 1: line longer than 1049176 bytes (longer than any record of a file within --max-file-size 100 B)\n") {
		t.Errorf("long line: status %d, report:\n%.300s", code, out)
	}
	if out, code := verifyRun(t, long, "--max-file-size", "0"); code != 1 || strings.Contains(out, "longer than") || !strings.Contains(out, "chunks end at byte") {
		t.Errorf("long line, no limit: status %d, report:\n%.300s", code, out)
	}

	for _, bad := range []string{"lots", "-1", "0.5"} {
		_, stderr, code := run(t, recs, "verify", "--max-file-size", bad)
		if code != 2 || !strings.Contains(stderr, "--max-file-size: invalid size") {
			t.Errorf("--max-file-size %s: status %d, stderr %q", bad, code, stderr)
		}
	}
}

// TestVerifyLangFlag: records made with chunk --lang name a language the
// extension does not give; verify --lang accepts them, and a path with no
// known extension may name any language.
func TestVerifyLangFlag(t *testing.T) {
	badSetup(t, map[string]string{"a.py": "x = 1\n", "notes.txt": "x = 1\n"})
	java := chunked(t, "--lang", "java", "a.py")
	out, code := verifyRun(t, java)
	if code != 1 || !strings.HasPrefix(out, `a.py: chunk 0: language is "java", but a.py is python by its name (if the records were made with chunk --lang java, verify with --lang java)`) {
		t.Errorf("java records of a .py file: status %d, report:\n%s", code, out)
	}
	if out, code := verifyRun(t, java, "--lang", "java"); code != 0 {
		t.Errorf("--lang java: status %d, report:\n%s", code, out)
	}
	if out, code := verifyRun(t, java, "--lang", "python"); code != 1 || !strings.Contains(out, `language is "java", not "python" as --lang says`) {
		t.Errorf("--lang python on java records: status %d, report:\n%s", code, out)
	}
	notes := chunked(t, "--lang", "python", "notes.txt")
	for _, args := range [][]string{nil, {"--lang", "python"}} {
		if out, code := verifyRun(t, notes, args...); code != 0 {
			t.Errorf("notes.txt chunked as python, verify %q: status %d, report:\n%s", args, code, out)
		}
	}
	cobol := strings.ReplaceAll(notes, `"language":"python"`, `"language":"cobol"`)
	if out, code := verifyRun(t, cobol); code != 1 || !strings.Contains(out, `language "cobol" has no grammar, so method cast cannot have made this chunk`) {
		t.Errorf("cobol: status %d, report:\n%s", code, out)
	}
	_, stderr, code := run(t, notes, "verify", "--lang", "cobol")
	if code != 2 || !strings.Contains(stderr, `unknown language "cobol"`) {
		t.Errorf("--lang cobol: status %d, stderr %q", code, stderr)
	}
}

// TestVerifyQuotesNames: a record's path is input; a path that would not
// print on one line is quoted, so it cannot forge a line of the report.
func TestVerifyQuotesNames(t *testing.T) {
	badSetup(t, map[string]string{"app.py": "x = 1\n"})
	recs := chunked(t, "app.py")
	forged := strings.ReplaceAll(recs, `"path":"app.py"`, `"path":"x.py: chunk 0: ok\nverified 1 records of 1 files: 0 problems\n\u001b[2J"`)
	out, code := verifyRun(t, forged)
	if code != 1 || strings.Contains(out, "\n"+"verified 1 records of 1 files: 0 problems") || strings.Contains(out, "\x1b") ||
		!strings.HasPrefix(out, `"x.py: chunk 0: ok\nverified 1 records of 1 files: 0 problems\n\x1b[2J": `) {
		t.Errorf("status %d, report:\n%s", code, out)
	}
}

// TestVerifyNotRegularFlag: a record naming a device or a folder is one
// problem line (the package tests cover FIFOs and /dev/zero).
func TestVerifyNotRegularFlag(t *testing.T) {
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip(err)
	}
	badSetup(t, map[string]string{"app.py": "x = 1\n"})
	recs := strings.ReplaceAll(chunked(t, "app.py"), `"path":"app.py"`, `"path":"/dev/null"`)
	out, code := verifyRun(t, recs, "--allow-outside-root")
	if code != 1 || !strings.HasPrefix(out, "/dev/null: not a regular file (a character device): only regular files are read\n") {
		t.Errorf("status %d, report:\n%s", code, out)
	}
}

// stuckReader is a records stream that never says anything: its first Read
// cancels the run (as SIGTERM would) and then blocks until released.
type stuckReader struct {
	cancel  context.CancelFunc
	release chan struct{}
}

func (r stuckReader) Read([]byte) (int, error) {
	r.cancel()
	<-r.release
	return 0, io.EOF
}

// TestVerifyInterruptedRead: a signal stops verify even while it waits for
// records that do not come (a FIFO, a terminal, a stalled pipe). Were the
// read not interruptible, this test would block until go test's timeout.
func TestVerifyInterruptedRead(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	in := stuckReader{cancel, make(chan struct{})}
	defer close(in.release)
	var out, errOut bytes.Buffer
	if code := Main(ctx, []string{"verify"}, Streams{In: in, Out: &out, Err: &errOut}); code != ExitInterrupted {
		t.Errorf("status %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

// TestVerifyInterruptedOpen: a records FILE that is a FIFO no one writes
// to does not keep a signal from stopping verify.
func TestVerifyInterruptedOpen(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "records.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	code := Main(ctx, []string{"verify", fifo}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	// Release the open left waiting in the background: a FIFO opened for
	// reading and writing does not wait, and counts as a writer.
	if rw, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
		defer rw.Close()
	}
	if code != ExitInterrupted {
		t.Errorf("status %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

// TestVerifyEmbedHeaderFlag: --embed-header names the format of the
// texts' headers, with chunk's default; records with scope lines pass as
// scope (given or by default) and not as path or names; an unknown format
// is a usage error naming the formats.
func TestVerifyEmbedHeaderFlag(t *testing.T) {
	badSetup(t, map[string]string{"app.py": frictionPy})
	recs := chunked(t, "--context", "--embed-text", "--max-size", "30", "app.py")
	if !strings.Contains(recs, `"scope":[{`) {
		t.Fatalf("no chunk has a scope: %s", recs)
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{nil, 0},
		{[]string{"--embed-header", "scope"}, 0},
		{[]string{"--embed-header", "path"}, 1},
		{[]string{"--embed-header", "names"}, 1},
		{[]string{"--embed-header", "signature"}, 1},
	} {
		out, code := verifyRun(t, recs, c.args...)
		if code != c.code || code == 1 && !strings.Contains(out, "text's header is") {
			t.Errorf("verify %q: status %d, want %d; report:\n%s", c.args, code, c.code, out)
		}
	}
	out, stderr, code := run(t, recs, "verify", "--embed-header", "sig")
	if code != 2 || !strings.Contains(stderr, "scope, path, names, signature, lines") {
		t.Errorf("verify --embed-header sig: status %d, stdout %q, stderr %q", code, out, stderr)
	}
}
