package walk

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// configCases are parsed by TestParseConfig, and by git in
// TestConfigAgainstGit, which checks the expectations below against git.
var configCases = []struct {
	name string
	in   string
	want gitConfig
	line int // the line git refuses, 0 if none
}{
	{name: "empty", in: "", want: gitConfig{}},
	{name: "plain", in: "[core]\n\texcludesfile = /x\n", want: gitConfig{"core.excludesfile": "/x"}},
	{name: "no final newline", in: "[core]\nexcludesfile=/x", want: gitConfig{"core.excludesfile": "/x"}},
	{name: "names are case-insensitive", in: "[CoRe]\n\tExcludesFile = /x\n[EXTENSIONS]\nobjectFormat = sha256\n",
		want: gitConfig{"core.excludesfile": "/x", "extensions.objectformat": "sha256"}},
	{name: "subsection", in: "[remote \"origin\"]\n\turl = u\n\tfetch = f\n",
		want: gitConfig{"remote.origin.url": "u", "remote.origin.fetch": "f"}},
	{name: "subsection is not the section", in: "[core \"x\"]\nexcludesfile = a\n[core \"\"]\nexcludesfile = b\n",
		want: gitConfig{"core.x.excludesfile": "a", "core..excludesfile": "b"}},
	{name: "subsection is case-sensitive", in: "[Core \"X\"]\nExcludesFile = a\n[core \"x\"]\nexcludesfile = b\n",
		want: gitConfig{"core.X.excludesfile": "a", "core.x.excludesfile": "b"}},
	{name: "subsection escapes and spaces", in: "[a  \t\"b \\\"c\\\\d\\e\"]\nk=v\n",
		want: gitConfig{"a.b \"c\\de.k": "v"}},
	{name: "deprecated subsection", in: "[Core.Sub]\nexcludesfile = a\n[core.sub.deeper]\nk = b\n",
		want: gitConfig{"core.sub.excludesfile": "a", "core.sub.deeper.k": "b"}},
	{name: "back to the section", in: "[core \"x\"]\nexcludesfile = a\n[core]\nexcludesfile = b\n[core.y]\nexcludesfile = c\n",
		want: gitConfig{"core.x.excludesfile": "a", "core.excludesfile": "b", "core.y.excludesfile": "c"}},
	{name: "key on the header line", in: "[core] excludesfile = a\n[x]k=v[y]k=w\n",
		want: gitConfig{"core.excludesfile": "a", "x.k": "v[y]k=w"}},
	{name: "key before any section", in: "excludesfile = a\n[core]\n", want: gitConfig{"excludesfile": "a"}},
	{name: "key alone is not set", in: "[core]\nexcludesfile = a\nexcludesfile\n\texcludesFile  \t\nother\n",
		want: gitConfig{"core.excludesfile": "a"}},
	{name: "empty values", in: "[core]\na =\nb = \nc = \"\"\nd=;c\n",
		want: gitConfig{"core.a": "", "core.b": "", "core.c": "", "core.d": ""}},
	{name: "whitespace trimmed around, kept inside", in: "[core]\nk =  \t a  b\t c \t \n",
		want: gitConfig{"core.k": "a  b\t c"}},
	{name: "tabs around the equals sign", in: "[core]\nk\t=\tv\n", want: gitConfig{"core.k": "v"}},
	{name: "equals sign in the value", in: "[core]\nk = a=b = c\n", want: gitConfig{"core.k": "a=b = c"}},
	{name: "quotes", in: "[core]\nk = \"  a # b ; c  \"  \n", want: gitConfig{"core.k": "  a # b ; c  "}},
	{name: "quoted parts", in: "[core]\nk = a\" b \"c \"\" d \" \"\n", want: gitConfig{"core.k": "a b c  d  "}},
	{name: "empty quotes then text", in: "[core]\nk = \"\" a\n", want: gitConfig{"core.k": "a"}},
	{name: "escapes", in: "[core]\nk = a\\\\b\\\"c\\nd\\te\\bf\n", want: gitConfig{"core.k": "a\\b\"c\nd\te\bf"}},
	{name: "escapes in quotes", in: "[core]\nk = \"\\\\ \\\" \\t\"\n", want: gitConfig{"core.k": "\\ \" \t"}},
	{name: "unknown escape", in: "[core]\na = 1\nk = a\\qb\nb = 2\n", want: gitConfig{"core.a": "1"}, line: 3},
	{name: "continuation", in: "[core]\nk = a \\\n  b\\\nc\n", want: gitConfig{"core.k": "a   bc"}},
	{name: "continuation in quotes", in: "[core]\nk = \"a \\\n b\"\n", want: gitConfig{"core.k": "a  b"}},
	{name: "continuation at the end", in: "[core]\nk = a\\", want: gitConfig{"core.k": "a"}},
	{name: "comments", in: "# c\n; c [x]\n  [core] # c\n\tk = v # c\n\tl = w;c\n\tm = x#c\n#[core]\n;k = no\n",
		want: gitConfig{"core.k": "v", "core.l": "w", "core.m": "x"}},
	{name: "last value wins", in: "[core]\nk = a\n[other]\nk = x\n[CORE]\nK = b\n", want: gitConfig{"core.k": "b", "other.k": "x"}},
	{name: "CRLF", in: "[core]\r\n\tk = v \r\n\tl = \"w\"\r\n", want: gitConfig{"core.k": "v", "core.l": "w"}},
	{name: "lone CR", in: "[core]\nk = a\rb\r\n\r\nl = c\r", want: gitConfig{"core.k": "a\rb", "core.l": "c"}},
	{name: "BOM", in: "\xef\xbb\xbf[core]\nk = v\n", want: gitConfig{"core.k": "v"}},
	{name: "part of a BOM", in: "\xef\xbb[core]\nk = v\n", want: gitConfig{}, line: 1},
	{name: "BOM not at the start", in: "\n\xef\xbb\xbf[core]\n", want: gitConfig{}, line: 2},
	{name: "NUL ends a value", in: "[core]\nk = a\x00b\n", want: gitConfig{"core.k": "a"}},
	{name: "include is not followed", in: "[include]\n\tpath = other\n[includeIf \"gitdir:~/\"]\n\tpath = x\n",
		want: gitConfig{"include.path": "other", "includeif.gitdir:~/.path": "x"}},
	{name: "key with digits and dashes", in: "[core]\nk-1 = v\n", want: gitConfig{"core.k-1": "v"}},

	// Lines git refuses: what was read before stays.
	{name: "key and junk", in: "[core]\na = 1\nb c\nd = 2\n", want: gitConfig{"core.a": "1"}, line: 3},
	{name: "key and comment", in: "[core]\na = 1\nb # c\n", want: gitConfig{"core.a": "1"}, line: 3},
	{name: "underscore in a key", in: "[core]\nexcludes_file = x\n", want: gitConfig{}, line: 2},
	{name: "key starts with a digit", in: "[core]\n1k = x\n", want: gitConfig{}, line: 2},
	{name: "unterminated quote", in: "[core]\na = 1\nb = \"x\nc = 2\n", want: gitConfig{"core.a": "1"}, line: 3},
	{name: "unterminated quote at the end", in: "[core]\na = \"x", want: gitConfig{}, line: 2},
	{name: "unterminated header", in: "[core]\na = 1\n[core\nb = 2\n", want: gitConfig{"core.a": "1"}, line: 3},
	{name: "unterminated header at the end", in: "a = 1\n[core", want: gitConfig{"a": "1"}, line: 3},
	{name: "unterminated subsection", in: "[core \"x\nk = v\n", want: gitConfig{}, line: 1},
	{name: "space after the section name", in: "[core ]\nk = v\n", want: gitConfig{}, line: 1},
	{name: "text after the subsection", in: "[core \"x\" ]\nk = v\n", want: gitConfig{}, line: 1},
	{name: "bad character in a section name", in: "[co_re]\nk = v\n", want: gitConfig{}, line: 1},
	{name: "empty section name", in: "[]\nk = v\n", want: gitConfig{}, line: 1},
	{name: "stray character", in: "[core]\nk = v\n= w\n", want: gitConfig{"core.k": "v"}, line: 3},
	{name: "error after a continuation", in: "[core]\nk = a\\\nb\nl = \\x\n", want: gitConfig{"core.k": "ab"}, line: 4},
}

func TestParseConfig(t *testing.T) {
	for _, c := range configCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseConfig([]byte(c.in))
			if !maps.Equal(got, c.want) {
				t.Errorf("parseConfig(%q) = %q, want %q", c.in, got, c.want)
			}
			if line := errLine(err); line != c.line {
				t.Errorf("parseConfig(%q): error %v, want one on line %d", c.in, err, c.line)
			}
		})
	}
}

// errLine is the line of a configSyntaxError, 0 for no error.
func errLine(err error) int {
	var se *configSyntaxError
	if errors.As(err, &se) {
		return se.line
	}
	if err != nil {
		return -1
	}
	return 0
}

func TestConfigValue(t *testing.T) {
	cfg, err := parseConfig([]byte("[core \"x\"]\nexcludesfile = sub\n[Core]\nExcludesFile = plain\n[core.y]\nexcludesfile = old\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		section, key, want string
		ok                 bool
	}{
		{"core", "excludesfile", "plain", true},
		{"CORE", "excludesFile", "plain", true},
		{"core", "attributesfile", "", false},
		{"extensions", "objectformat", "", false},
		{"core.x", "excludesfile", "sub", true}, // not a lookup walk makes; shown for the naming
	} {
		if v, ok := configValue(cfg, c.section, c.key); v != c.want || ok != c.ok {
			t.Errorf("configValue(%s, %s) = %q, %v; want %q, %v", c.section, c.key, v, ok, c.want, c.ok)
		}
	}
	if v, ok := configValue(nil, "core", "excludesfile"); v != "" || ok {
		t.Errorf("configValue(nil) = %q, %v", v, ok)
	}
}

// TestReadConfig checks readConfig's contract: missing is empty, not
// readable is empty and an error, bad syntax keeps what came before.
func TestReadConfig(t *testing.T) {
	dir := t.TempDir()
	cfg, err := readConfig(filepath.Join(dir, "none"))
	if err != nil || len(cfg) != 0 {
		t.Errorf("missing file: %v, %v", cfg, err)
	}
	cfg, err = readConfig(filepath.Join(dir, "none", "deeper"))
	if err != nil || len(cfg) != 0 {
		t.Errorf("missing directory: %v, %v", cfg, err)
	}
	cfg, err = readConfig(dir) // a directory: there, but not readable as a file
	if err == nil || len(cfg) != 0 {
		t.Errorf("directory: %v, %v; want empty and an error", cfg, err)
	}
	p := filepath.Join(dir, "config")
	writeFile(t, p, "[core]\n\texcludesfile = a\n\tbroken line\n\texcludesfile = b\n")
	cfg, err = readConfig(p)
	if err != nil {
		t.Errorf("bad syntax: %v", err)
	}
	if v, ok := configValue(cfg, "core", "excludesfile"); v != "a" || !ok {
		t.Errorf("bad syntax: core.excludesfile = %q, %v; want what came before the bad line", v, ok)
	}
	big := filepath.Join(dir, "big")
	writeFile(t, big, "[core]\nk = "+strings.Repeat("x", maxRulesSize)+"\n")
	if cfg, err = readConfig(big); err == nil || len(cfg) != 0 {
		t.Errorf("over the cap: %d variables, %v; want empty and an error", len(cfg), err)
	}
}

// gitConfigDump is what git makes of a config file: its variables from
// `git config --list`, the value of a key alone being left out as
// parseConfig does, and the line git refuses (0 if none).
func gitConfigDump(t *testing.T, file string) (gitConfig, int) {
	t.Helper()
	cmd := exec.Command("git", "config", "--file", file, "--null", "--list")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	line := 0
	if err != nil {
		m := regexp.MustCompile(`bad config line (\d+) in file`).FindStringSubmatch(stderr.String())
		if m == nil {
			t.Fatalf("git config --list: %v\n%s", err, stderr.String())
		}
		line, _ = strconv.Atoi(m[1])
	}
	cfg := gitConfig{}
	entries := strings.Split(string(out), "\x00")
	for _, e := range entries[:len(entries)-1] {
		if name, value, ok := strings.Cut(e, "\n"); ok {
			cfg[name] = value
		}
	}
	return cfg, line
}

// gitConfigGet is `git config --file F --get key`: the value, whether it
// is set, and whether git took the file.
func gitConfigGet(t *testing.T, file, key string) (value string, set, parsed bool) {
	t.Helper()
	cmd := exec.Command("git", "config", "--file", file, "--get", key)
	out, err := cmd.Output()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return strings.TrimSuffix(string(out), "\n"), true, true
	case errors.As(err, &ee) && ee.ExitCode() == 1: // not set
		return "", false, true
	case errors.As(err, &ee):
		return "", false, false
	}
	t.Fatalf("git config --get %s: %v", key, err)
	return
}

// lastIsKeyAlone reports whether the last line setting key (a canonical
// name) in git's view is a key alone, from `git config --list`.
func lastIsKeyAlone(t *testing.T, file, key string) bool {
	t.Helper()
	out, _ := exec.Command("git", "config", "--file", file, "--null", "--list").Output()
	alone := false
	for _, e := range strings.Split(string(out), "\x00") {
		name, _, ok := strings.Cut(e, "\n")
		if name == key {
			alone = !ok
		}
	}
	return alone
}

// compareConfigWithGit parses a config file with parseConfig and git and
// compares: all the variables, the line refused, and the two values walk
// looks up, with `git config --get`.
func compareConfigWithGit(t *testing.T, name, content string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "config")
	writeFile(t, file, content)
	got, err := parseConfig([]byte(content))
	want, wantLine := gitConfigDump(t, file)
	same := maps.Equal[gitConfig, gitConfig]
	if !gitKeepsInnerSpace() {
		same = func(a, b gitConfig) bool { return maps.EqualFunc(a, b, sameButInnerSpace) }
	}
	if !same(got, want) {
		t.Errorf("%s: %q:\nparseConfig: %q\ngit:         %q", name, content, got, want)
	}
	if line := errLine(err); line != wantLine {
		t.Errorf("%s: %q: parseConfig error %v, git refuses line %d", name, content, err, wantLine)
	}
	for _, key := range [][2]string{{"core", "excludesFile"}, {"extensions", "objectFormat"}} {
		full := key[0] + "." + key[1]
		v, set, parsed := gitConfigGet(t, file, full)
		if !parsed {
			continue // git refuses the file; the partial result was checked above
		}
		if lastIsKeyAlone(t, file, strings.ToLower(full)) {
			continue // git has it set without a value; not set here (see gitconfig.go)
		}
		if gv, gset := configValue(got, key[0], key[1]); !sameButInnerSpace(gv, v) || gset != set ||
			gitKeepsInnerSpace() && gv != v {
			t.Errorf("%s: %q: %s = %q, %v; git config --get: %q, %v", name, content, full, gv, gset, v, set)
		}
	}
}

// gitKeepsInnerSpace reports whether the git installed keeps whitespace
// inside a value as it is: git before 2.45 turned each unquoted tab or
// carriage return there into a space.
var gitKeepsInnerSpace = sync.OnceValue(func() bool {
	out, err := exec.Command("git", "--version").Output()
	if err != nil {
		return true
	}
	m := regexp.MustCompile(`(\d+)\.(\d+)`).FindStringSubmatch(string(out))
	if m == nil {
		return true
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return major > 2 || major == 2 && minor >= 45
})

// sameButInnerSpace compares values as git before 2.45 would give them:
// tabs and carriage returns as spaces.
func sameButInnerSpace(a, b string) bool {
	r := strings.NewReplacer("\t", " ", "\r", " ")
	return r.Replace(a) == r.Replace(b)
}

// TestConfigAgainstGit runs the cases of TestParseConfig, and some more
// files, through git.
func TestConfigAgainstGit(t *testing.T) {
	isolateGit(t)
	if !gitKeepsInnerSpace() {
		t.Log("git before 2.45: tabs and carriage returns inside values are compared as spaces")
	}
	unsetenv(t, "GIT_CONFIG_PARAMETERS")
	unsetenv(t, "GIT_CONFIG_COUNT")
	for _, c := range configCases {
		compareConfigWithGit(t, c.name, c.in)
	}
	more := []string{
		"[core]\n\texcludesFile = ~/.gitignore_global\n[extensions]\n\tobjectFormat = sha256\n",
		"[core]\n\texcludesfile = \"/path with spaces/x\" ; where\n",
		"[core]\n\texcludesfile = a\n[core \"excludesfile\"]\n\texcludesfile = b\n",
		"[core]\n\texcludesfile = a\n\texcludesfile\n",
		"[core]\n\texcludesfile\n",
		"[core]\n\texcludesfile = a\n[extensions]\n\tobjectformat\n\tobjectformat = sha1\n\tobjectformat\n",
		"[core.excludesfile]\n\tx = y\n[core]excludesfile=z",
		"[core]\n\texcludesfile = \"a\\\n\tb\" \\\n\tc\n",
		"[core]\n\texcludesfile = \"a\nb\"\n",
		"[user]\n\tname = \"x\n[core]\n\texcludesfile = a\n",
		"[include]\n\tpath = /etc/gitconfig\n[core]\n\texcludesfile = a\n",
		"\xef\xbb\xbf[core]\r\n\texcludesfile = \"a b\"\r\n",
		"[core]\n\texcludesfile = a\n[core \"x\"]\n\texcludesfile = b\n[CORE \"X\"]\n\texcludesfile = c\n",
		"[core]\n\texcludesfile = \" \"\n",
		"[core]\n\texcludesfile = a # \"b\n",
		"[core]\n\texcludesfile = a\\\n",
		"[core]\n\texcludesfile = a\\",
		"[core]\n\texcludesfile =\\\n\tb",
		"[\"core\"]\nexcludesfile = a\n",
		"[ \"x\"]\nexcludesfile = a\n",
		"[core.]\nexcludesfile = a\n",
		"[.core]\nexcludesfile = a\n",
		"[core]\n\texcludesfile = a\x00b\n",
		"[core \"a\x00b\"]\n\texcludesfile = x\n",
		"[core]\n\texcludesfile = a\n\x00",
		"[core]\n\texcludesfile = a\f\n",
		"[core]\n\texcludesfile = \va\v\n",
		"[core]\n\texcludesfile = \xc3\xa9 \xff\n",
	}
	for i, content := range more {
		compareConfigWithGit(t, fmt.Sprintf("more %d", i), content)
	}
}

// configPieces are put together at random by TestConfigRandomAgainstGit.
var configPieces = []string{
	"[core]", "[Core]", "[core \"x\"]", "[core \"X\"]", "[core.x]", "[core ", "[", "]", "[extensions]",
	"excludesfile", "ExcludesFile", "objectformat", "k", "-", "_", "1",
	"=", " = ", " ", "\t", "\n", "\n", "\n", "\r\n", "\r", "\"", "\\", "\\\n", "\\\\", "\\\"", "\\n", "\\t", "\\b", "\\q",
	"#", ";", "a", "b c", "~/x", "\x00", "\xef\xbb\xbf", "\xef",
}

// TestConfigRandomAgainstGit compares parseConfig with git on random
// files made of the pieces of the config syntax. The seed is fixed so a
// failure reproduces.
func TestConfigRandomAgainstGit(t *testing.T) {
	isolateGit(t)
	if !gitKeepsInnerSpace() {
		t.Log("git before 2.45: tabs and carriage returns inside values are compared as spaces")
	}
	unsetenv(t, "GIT_CONFIG_PARAMETERS")
	unsetenv(t, "GIT_CONFIG_COUNT")
	n := 300
	if v := os.Getenv("WALK_RANDOM_N"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	if testing.Short() {
		n = 30
	}
	rng := rand.New(rand.NewSource(1))
	for i := range n {
		var b strings.Builder
		if rng.Intn(2) == 0 { // mostly well-formed start, so that more is read
			b.WriteString("[core]\n\texcludesfile = ")
		}
		for range 1 + rng.Intn(20) {
			b.WriteString(configPieces[rng.Intn(len(configPieces))])
		}
		compareConfigWithGit(t, fmt.Sprintf("random %d", i), b.String())
	}
}
