package lang

import (
	"strings"
	"testing"
)

// TestEveryLanguageHasAQuery checks that each row has its definition query
// and that no query file is left without a row. Package outline compiles
// them (TestQueriesCompile).
func TestEveryLanguageHasAQuery(t *testing.T) {
	for _, l := range All() {
		if q := l.DefinitionQuery(); !strings.Contains(q, "@definition.") {
			t.Errorf("%s: queries/%s.scm defines nothing", l.Name, l.Name)
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
