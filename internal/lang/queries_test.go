package lang

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestEveryLanguageHasAQuery checks that each row has its definition query,
// that it composes (its directives are well formed, a language it extends
// is a row, no cycle) and that no query file is left without a row.
// Package outline compiles every composed query with its language's grammar
// (TestQueriesCompile), which is what catches an inherited pattern naming a
// node the extending grammar lacks.
func TestEveryLanguageHasAQuery(t *testing.T) {
	for _, l := range All() {
		f, err := readQueryFile(queries, "queries", l.Name)
		if err != nil {
			t.Errorf("%s: %v", l.Name, err)
			continue
		}
		if f.extends != "" && ByName(f.extends) == nil {
			t.Errorf("queries/%s.scm extends %q, which is no language", l.Name, f.extends)
			continue
		}
		q, err := composeQuery(queries, "queries", l.Name)
		if err != nil {
			t.Errorf("%s: %v", l.Name, err)
			continue
		}
		if !strings.Contains(q, "@definition.") {
			t.Errorf("%s: queries/%s.scm defines nothing", l.Name, l.Name)
		}
		if q != l.DefinitionQuery() {
			t.Errorf("%s: DefinitionQuery is not the composed query", l.Name)
		}
	}
	entries, err := queries.ReadDir("queries")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if name := strings.TrimSuffix(e.Name(), ".scm"); ByName(name) == nil {
			t.Errorf("queries/%s: no language %q", e.Name(), name)
		}
	}
}

// TestQueriesDoNotRepeat: a query file holds only what the query it
// extends lacks. A pattern repeated from there adds nothing (the first
// pattern wins) and is one more copy to keep in step.
func TestQueriesDoNotRepeat(t *testing.T) {
	for _, l := range All() {
		f, err := readQueryFile(queries, "queries", l.Name)
		if err != nil || f.extends == "" {
			continue // TestEveryLanguageHasAQuery reports errors
		}
		base, err := composeQuery(queries, "queries", f.extends)
		if err != nil {
			continue
		}
		inherited := map[string]bool{}
		for _, p := range queryPatterns(base) {
			inherited[p] = true
		}
		for _, p := range queryPatterns(f.text) {
			if inherited[p] {
				t.Errorf("queries/%s.scm repeats a pattern of the %s query it extends: %s", l.Name, f.extends, p)
			}
		}
	}
}

// queryPatterns splits the text of a query into its top-level patterns,
// comments dropped and whitespace runs made one space. Enough for the
// query files here: a pattern starts with "(" or "[" at depth 0 and runs to
// the next one (its captures and quantifiers included).
func queryPatterns(text string) []string {
	var patterns []string
	var cur strings.Builder
	flush := func() {
		if p := strings.Join(strings.Fields(cur.String()), " "); p != "" {
			patterns = append(patterns, p)
		}
		cur.Reset()
	}
	depth := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case ';':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			cur.WriteByte(' ')
		case '"':
			j := i + 1
			for j < len(text) && text[j] != '"' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			cur.WriteString(text[i:min(j+1, len(text))])
			i = j
		case '(', '[':
			if depth == 0 {
				flush()
			}
			depth++
			cur.WriteByte(c)
		case ')', ']':
			depth--
			cur.WriteByte(c)
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return patterns
}

func TestQueryPatterns(t *testing.T) {
	got := queryPatterns("; a comment (not a pattern)\n(a name: (_) @name) @definition.x\n\n" +
		"((b) @name (#eq? @name \"(;\")) @definition.y ; trailing\n[(c) (d)] @name\n")
	want := []string{`(a name: (_) @name) @definition.x`, `((b) @name (#eq? @name "(;")) @definition.y`, `[(c) (d)] @name`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("queryPatterns = %q, want %q", got, want)
	}
}

// TestComposeQuery: a query is its file, then the part of the query it
// extends that is inherited, down the chain; directives out of place are
// errors.
func TestComposeQuery(t *testing.T) {
	fsys := fstest.MapFS{
		"queries/base.scm":   {Data: []byte("; Base.\n(a) @definition.a\n; not inherited: base's grammar only\n(b) @definition.b\n")},
		"queries/mid.scm":    {Data: []byte("; extends: base\n(m) @definition.m\n")},
		"queries/top.scm":    {Data: []byte("; extends: mid\n; Top: mid's query as it is.")},
		"queries/loop1.scm":  {Data: []byte("; extends: loop2\n")},
		"queries/loop2.scm":  {Data: []byte("; extends: loop1\n")},
		"queries/self.scm":   {Data: []byte("; extends: self\n")},
		"queries/late.scm":   {Data: []byte("(x) @definition.x\n; extends: base\n")},
		"queries/two.scm":    {Data: []byte("; extends: base mid\n")},
		"queries/empty.scm":  {Data: []byte(";extends:\n")},
		"queries/cuts.scm":   {Data: []byte("(x) @definition.x\n; not inherited: one\n; not inherited: two\n")},
		"queries/orphan.scm": {Data: []byte("; extends: missing\n")},
	}
	for _, tt := range []struct{ name, want, err string }{
		{name: "base", want: "; Base.\n(a) @definition.a\n; not inherited: base's grammar only\n(b) @definition.b\n"},
		{name: "mid", want: "; extends: base\n(m) @definition.m\n\n; queries/base.scm, which mid extends\n; Base.\n(a) @definition.a\n"},
		{name: "top", want: "; extends: mid\n; Top: mid's query as it is.\n" +
			"\n; queries/mid.scm, which top extends\n; extends: base\n(m) @definition.m\n" +
			"\n; queries/base.scm, which mid extends\n; Base.\n(a) @definition.a\n"},
		{name: "loop1", err: "cycle: loop1 → loop2 → loop1"},
		{name: "self", err: "cycle: self → self"},
		{name: "late", err: `queries/late.scm:2: "; extends:" must be the first line`},
		{name: "two", err: `names one language, not "base mid"`},
		{name: "empty", err: `names one language, not ""`},
		{name: "cuts", err: `queries/cuts.scm:3: a second "; not inherited:" line`},
		{name: "orphan", err: "queries/missing.scm"},
		{name: "none", err: "queries/none.scm"},
	} {
		got, err := composeQuery(fsys, "queries", tt.name)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: error %v, want one saying %q", tt.name, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.err == "" && got != tt.want:
			t.Errorf("%s: composed\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}
