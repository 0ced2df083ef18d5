package cli

// What a new user tripped on, trying castchunk on public repositories: each
// case failed before it was fixed.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/record"
)

// transform rewrites each record line through a generic JSON object, as
// `jq -c '. + {tokens: 1}'` does: the fields come back in another order
// (Go sorts map keys), escaped differently, with a field castchunk does not
// write. edit changes the object; indent pretty-prints it as `jq .` does.
func transform(t *testing.T, jsonl string, edit func(map[string]any), indent bool) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.SplitAfter(strings.TrimSuffix(jsonl, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		var out []byte
		var err error
		if indent {
			out, err = json.MarshalIndent(m, "", "  ")
		} else {
			out, err = json.Marshal(m)
		}
		if err != nil {
			t.Fatal(err)
		}
		b.Write(out)
		b.WriteByte('\n')
	}
	return b.String()
}

const frictionPy = "import os\n\n\ndef f(x):\n    # <tag> & \"quotes\"\n    return os.path.join(x, 'a')\n\n\ndef g(y):\n    return f(y) + '\\u2028'\n"

// TestEnrichedRecords: `castchunk chunk app.py | jq -c '. + {tokens: 1}' |
// castchunk stats` exited 1 (unknown field); verify and stats now read
// records other tools enriched or reordered, and verify --strict keeps the
// byte-for-byte check.
func TestEnrichedRecords(t *testing.T) {
	dir := badSetup(t, map[string]string{"app.py": frictionPy})
	out, stderr, code := run(t, "", "chunk", "--max-size", "30", "app.py")
	if code != 0 || stderr != "" {
		t.Fatalf("chunk: %d %q", code, stderr)
	}
	plainStats, _, _ := run(t, out, "stats", "--max-size", "30")
	enriched := transform(t, out, func(m map[string]any) { m["tokens"] = 1; m["scope"] = []any{map[string]any{"kind": "function"}} }, false)
	if enriched == out {
		t.Fatal("the transformation changed nothing")
	}

	got, stderr, code := run(t, enriched, "stats", "--max-size", "30")
	if code != 0 || stderr != "" || got != plainStats {
		t.Errorf("stats of enriched records: status %d, stderr %q, report:\n%s\nwant:\n%s", code, stderr, got, plainStats)
	}
	got, stderr, code = run(t, enriched, "verify", "--root", dir, "--max-size", "30")
	if code != 0 || stderr != "" || !strings.HasSuffix(got, ": 0 problems\n") {
		t.Errorf("verify of enriched records: status %d, stderr %q, stdout:\n%s", code, stderr, got)
	}
	got, _, code = run(t, enriched, "verify", "--strict", "--root", dir)
	if code != 1 || !strings.Contains(got, "stdin: line 1: ") {
		t.Errorf("verify --strict of enriched records: status %d, stdout:\n%s", code, got)
	}
	got, _, code = run(t, out, "verify", "--strict", "--root", dir)
	if code != 0 {
		t.Errorf("verify --strict of castchunk's own records: status %d, stdout:\n%s", code, got)
	}

	// Pretty-printed JSON is refused, with the way out.
	pretty := transform(t, out, func(map[string]any) {}, true)
	_, stderr, code = run(t, pretty, "stats")
	if code != 1 || !strings.Contains(stderr, "one JSON object per line") || !strings.Contains(stderr, "jq -c") {
		t.Errorf("stats of pretty-printed records: status %d, stderr %q", code, stderr)
	}

	// stats needs no content; verify does.
	bare := transform(t, out, func(m map[string]any) { delete(m, "content") }, false)
	got, stderr, code = run(t, bare, "stats", "--max-size", "30")
	if code != 0 || stderr != "" || got != plainStats {
		t.Errorf("stats without content: status %d, stderr %q, report:\n%s", code, stderr, got)
	}
	got, _, code = run(t, bare, "verify", "--root", dir)
	if code != 1 || !strings.Contains(got, `missing field "content"`) {
		t.Errorf("verify without content: status %d, stdout:\n%s", code, got)
	}
}

// TestStdin: `cat app.py | castchunk chunk --lang python -` failed with
// "-: no such file"; - now reads standard input.
func TestStdin(t *testing.T) {
	badSetup(t, map[string]string{"app.py": frictionPy})
	want, _, _ := run(t, "", "chunk", "--max-size", "30", "app.py")

	out, stderr, code := run(t, frictionPy, "chunk", "--max-size", "30", "--lang", "python", "--stdin-path", "app.py", "-")
	if code != 0 || stderr != "" || out != want {
		t.Errorf("stdin as app.py: status %d, stderr %q, records differ from the file's: %v", code, stderr, out != want)
	}
	// The extension of --stdin-path picks the language.
	if out2, _, code := run(t, frictionPy, "chunk", "--max-size", "30", "--stdin-path", "app.py", "-"); code != 0 || out2 != want {
		t.Errorf("--stdin-path app.py without --lang: status %d", code)
	}
	out, _, code = run(t, frictionPy, "chunk", "--lang", "python", "-")
	recs := badRecords(t, out)
	if code != 0 || len(recs) != 1 || recs[0].Path != "<stdin>" || recs[0].Content != frictionPy {
		t.Errorf("stdin without a name: status %d, records %+v", code, recs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"chunk", "-"}, "reading standard input needs --lang"},
		{[]string{"chunk", "--lang", "python", "-", "app.py"}, "must be the only path"},
		{[]string{"chunk", "--stdin-path", "x.py", "app.py"}, "--stdin-path needs the path argument -"},
	} {
		_, stderr, code := run(t, frictionPy, tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "Run 'castchunk chunk --help'") {
			t.Errorf("%v: status %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	// Too large is refused like a named file: status 3.
	_, stderr, code = run(t, frictionPy, "chunk", "--lang", "python", "--max-file-size", "10", "-")
	if code != ExitUnreadable || !strings.Contains(stderr, "castchunk: <stdin>: file too large") {
		t.Errorf("stdin over --max-file-size: status %d, stderr %q", code, stderr)
	}
}

// TestFiltersSayWhatTheyDid: `--include tests .` gave nothing and
// `--exclude 'tests/'` did nothing, silently.
func TestFiltersSayWhatTheyDid(t *testing.T) {
	badSetup(t, map[string]string{"src/app.py": "x = 1\n", "tests/test_app.py": "y = 2\n", "src/tests/test_b.py": "z = 3\n"})
	paths := func(out string) string {
		var p []string
		for _, r := range badRecords(t, out) {
			p = append(p, r.Path)
		}
		return strings.Join(p, " ")
	}
	out, stderr, code := run(t, "", "chunk", "--no-ignore", "--include", "tests", ".")
	if got := paths(out); code != 0 || stderr != "" || got != "src/tests/test_b.py tests/test_app.py" {
		t.Errorf("--include tests: status %d, stderr %q, paths %q", code, stderr, got)
	}
	out, stderr, code = run(t, "", "chunk", "--no-ignore", "--exclude", "tests/", ".")
	if got := paths(out); code != 0 || stderr != "" || got != "src/app.py" {
		t.Errorf("--exclude tests/: status %d, stderr %q, paths %q", code, stderr, got)
	}
	_, stderr, code = run(t, "", "chunk", "--no-ignore", "--allow-empty", "--include", "nothing-here", ".")
	if code != 0 || !strings.Contains(stderr, `pattern "nothing-here" matches nothing`) {
		t.Errorf("--include matching nothing: status %d, stderr %q", code, stderr)
	}
}

// TestStatsCountsUnsupported: 200 .js files of a TypeScript repository
// vanished without a word; --stats now counts the files of languages
// without a grammar by extension (JavaScript has one since).
func TestStatsCountsUnsupported(t *testing.T) {
	files := map[string]string{"a.ts": "export const a = 1;\n", "README.rst": "hi\n==\n"}
	for i := range 3 {
		files[fmt.Sprintf("contracts/m%d.sol", i)] = "contract M {}\n"
	}
	badSetup(t, files)
	out, stderr, code := run(t, "", "chunk", "--no-ignore", "--stats", ".")
	if code != 0 || len(badRecords(t, out)) != 1 {
		t.Fatalf("status %d, records:\n%s", code, out)
	}
	if !strings.Contains(stderr, "unsupported files (no grammar): .sol 3, .rst 1\n") {
		t.Errorf("--stats does not count the unsupported files:\n%s", stderr)
	}
	// Without --stats, nothing is printed for them.
	if _, stderr, _ := run(t, "", "chunk", "--no-ignore", "."); stderr != "" {
		t.Errorf("without --stats: %q", stderr)
	}
}

// TestStatsBudget: stats compared sizes with 2000 whatever budget made the
// records ("mean of max 146%"); it now warns, and chunk --stats passes its
// own budget.
func TestStatsBudget(t *testing.T) {
	var src strings.Builder
	for i := range 200 {
		fmt.Fprintf(&src, "def f%d(x):\n    return [x * %d for _ in range(%d)]\n\n", i, i, i)
	}
	badSetup(t, map[string]string{"big.py": src.String()})
	out, stderr, _ := run(t, "", "chunk", "--max-size", "5000", "--stats", "big.py")
	if strings.Contains(stderr, "larger than") || !strings.Contains(stderr, "budget (5000)") {
		t.Errorf("chunk --stats does not use its own budget:\n%s", stderr)
	}
	_, stderr, code := run(t, out, "stats")
	if code != 0 || !strings.Contains(stderr, "chunks are larger than --max-size 2000") {
		t.Errorf("stats with the wrong budget: status %d, stderr %q", code, stderr)
	}
	if _, stderr, _ := run(t, out, "stats", "--max-size", "5000"); stderr != "" {
		t.Errorf("stats with the right budget: %q", stderr)
	}
	report, _, _ := run(t, out, "stats", "--json", "--max-size", "5000")
	var r struct {
		Total struct {
			Sizes map[string]any `json:"sizes"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Total.Sizes["tiny_share"]; !ok {
		t.Errorf("tiny_share missing from --json when 0: %s", report)
	}
}

// TestReadmeFieldTable: the field table of docs/record-format.md, which
// the README links to, is the schema's.
func TestReadmeFieldTable(t *testing.T) {
	format, err := os.ReadFile("../../docs/record-format.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := record.All().Markdown(); !bytes.Contains(format, []byte(want)) {
		t.Errorf("docs/record-format.md does not hold the field table of the schema; paste this in:\n%s", want)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("(docs/record-format.md)")) {
		t.Error("README.md does not link to docs/record-format.md, the record format")
	}
	help, _, _ := run(t, "", "--help")
	if !strings.Contains(help, record.All().Help(80)) {
		t.Errorf("castchunk --help does not list the schema's fields:\n%s", help)
	}
}

// TestWarningsQuoteNames: a file name with a newline forged a second
// `castchunk: …` line, and escape sequences reached the terminal; names
// that would not print safely are now quoted, Go style.
func TestWarningsQuoteNames(t *testing.T) {
	forged := "a.py\ncastchunk: b.py: forged.py"
	escape := "\x1b[31mred.py"
	badSetup(t, map[string]string{forged: "x = '\xff'\n", escape: "\x00", "plain é.py": "\xfe"})
	_, stderr, code := run(t, "", "chunk", "--no-ignore", "--allow-empty", ".")
	want := "castchunk: \"\\x1b[31mred.py\": binary file (NUL byte); skipped\n" +
		"castchunk: \"a.py\\ncastchunk: b.py: forged.py\": not valid UTF-8 (bad byte at offset 5); skipped\n" +
		"castchunk: plain é.py: not valid UTF-8 (bad byte at offset 0); skipped\n"
	if code != 0 || stderr != want {
		t.Errorf("status %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	// A usage error naming the file, and an error from the system.
	_, stderr, _ = run(t, "", "chunk", "--lang", "python", "no\x1bsuch.py")
	if strings.ContainsRune(stderr, '\x1b') || strings.Count(stderr, "\n") != 1 {
		t.Errorf("missing file: %q", stderr)
	}
}

func TestQuoteName(t *testing.T) {
	for in, want := range map[string]string{
		"src/a.py": "src/a.py", "plain é.py": "plain é.py", "": `""`, " lead.py": `" lead.py"`,
		"tab\t.py": `"tab\t.py"`, "caf\xe9.py": `"caf\xe9.py"`, `q"uote.py`: `"q\"uote.py"`, "ls\u2028.py": `"ls\u2028.py"`,
	} {
		if got := quoteName(in); got != want {
			t.Errorf("quoteName(%q) = %s, want %s", in, got, want)
		}
	}
	if got := safeText("open a\nb\x1b: no such file\xff"); got != `open a\nb\x1b: no such file\xff` {
		t.Errorf("safeText = %s", got)
	}
}
