package cli

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/lang"
)

// columns splits a row of castchunk languages: tabwriter pads the columns
// with at least two spaces, and values inside a column are separated by
// one.
var columns = regexp.MustCompile(`  +`)

// languageRows runs `castchunk languages` with run and returns its rows,
// header first, each split into its columns.
func languageRows(t *testing.T, run func(args ...string) (string, string, int)) [][]string {
	t.Helper()
	out, stderr, code := run("languages")
	if code != 0 || stderr != "" {
		t.Fatalf("languages: status %d, stderr %q", code, stderr)
	}
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		rows = append(rows, columns.Split(strings.TrimRight(line, " "), -1))
	}
	return rows
}

// checkLanguageRows checks the table against the registry: one row per
// language in name order, each with its extensions, module (source gives
// the one expected), a version and its file names ("-" for none). version
// checks the version column.
func checkLanguageRows(t *testing.T, rows [][]string, source func(l *lang.Language) string, version func(l *lang.Language, v string)) {
	t.Helper()
	want := []string{"LANGUAGE", "EXTENSIONS", "GRAMMAR", "VERSION", "FILES"}
	if len(rows) == 0 || strings.Join(rows[0], "|") != strings.Join(want, "|") {
		t.Fatalf("header %q, want %q", rows[0], want)
	}
	all := lang.All()
	if len(rows)-1 != len(all) {
		t.Errorf("%d rows, want one per language (%d)", len(rows)-1, len(all))
	}
	dash := func(v []string) string {
		if len(v) == 0 {
			return "-"
		}
		return strings.Join(v, " ")
	}
	for i, l := range all {
		if i+1 >= len(rows) {
			break
		}
		row := rows[i+1]
		if len(row) != len(want) {
			t.Errorf("row %d: %q has %d columns, want %d", i+1, row, len(row), len(want))
			continue
		}
		if row[0] != l.Name || row[1] != dash(l.Extensions) || row[2] != source(l) || row[4] != dash(l.FileNames) {
			t.Errorf("row %d: %q, want %s | %s | %s | … | %s", i+1, row, l.Name, dash(l.Extensions), source(l), dash(l.FileNames))
		}
		version(l, row[3])
	}
}

// TestLanguagesListsTheRegistry: `castchunk languages` prints the whole
// registry, whatever it holds. (A test binary carries no dependency
// versions: TestLanguagesRealBinary checks them on the real binary.)
func TestLanguagesListsTheRegistry(t *testing.T) {
	rows := languageRows(t, func(args ...string) (string, string, int) { return run(t, "", args...) })
	checkLanguageRows(t, rows, (*lang.Language).Source, func(l *lang.Language, v string) {
		if v != l.Version() {
			t.Errorf("%s: version %q, want %q", l.Name, v, l.Version())
		}
	})
}

// TestVersionLineListsEveryLanguage: the --version line names every
// grammar, in the order of castchunk languages.
func TestVersionLineListsEveryLanguage(t *testing.T) {
	line := versionLine()
	_, grammars, ok := strings.Cut(line, "; grammars: ")
	if !ok || !strings.HasSuffix(grammars, ")") {
		t.Fatalf("version line %q has no grammar list", line)
	}
	var want []string
	for _, l := range lang.All() {
		want = append(want, l.Name+" "+l.Version())
	}
	if got := strings.TrimSuffix(grammars, ")"); got != strings.Join(want, ", ") {
		t.Errorf("grammars %q, want %q", got, strings.Join(want, ", "))
	}
}

// requiredVersions reads the require lines of go.mod: module → version.
func requiredVersions(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	req := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && strings.Contains(f[0], "/") && strings.HasPrefix(f[1], "v") {
			req[f[0]] = f[1]
		}
	}
	return req
}

// replacedModules reads the replace directives of go.mod (one per line,
// in a block or not): module → the module that replaces it.
func replacedModules(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	rep := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "replace "))
		if len(f) >= 3 && f[1] == "=>" {
			rep[f[0]] = f[2]
		}
	}
	return rep
}

// TestLanguagesRealBinary builds castchunk and checks that `languages`
// and `version` report, for every language of the registry, the version of
// its grammar module that go.mod requires: the versions come from the
// binary's build information, which a test binary lacks. Skipped with
// -short or without the go command.
func TestLanguagesRealBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the real binary")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bin := t.TempDir() + "/castchunk"
	build := exec.Command(goCmd, "build", "-o", bin, "github.com/castchunk/castchunk/cmd/castchunk")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	exe := func(args ...string) (string, string, int) {
		var stderr strings.Builder
		cmd := exec.Command(bin, args...)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		code := 0
		if err != nil {
			code = -1
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				code = ee.ExitCode()
			}
		}
		return string(out), stderr.String(), code
	}
	req, rep := requiredVersions(t), replacedModules(t)
	source := func(l *lang.Language) string {
		if r, ok := rep[l.Module]; ok {
			return r
		}
		return l.Module
	}
	checkLanguageRows(t, languageRows(t, exe), source, func(l *lang.Language, v string) {
		if want, ok := req[l.Module]; !ok || v != want {
			t.Errorf("%s: version %q, go.mod requires %s %q", l.Name, v, l.Module, want)
		}
	})
	out, _, code := exe("version")
	if code != 0 {
		t.Fatalf("version: status %d", code)
	}
	var want []string
	for _, l := range lang.All() {
		want = append(want, l.Name+" "+req[l.Module])
	}
	if !strings.Contains(out, "; grammars: "+strings.Join(want, ", ")+")\n") {
		t.Errorf("version: %q does not list %q", out, strings.Join(want, ", "))
	}
	if v := req[treeSitterModule]; !strings.Contains(out, "(go-tree-sitter "+v+";") {
		t.Errorf("version: %q, want go-tree-sitter %s", out, v)
	}
}
