package lang_test

import (
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/lang"
)

func TestForLinguist(t *testing.T) {
	for in, want := range map[string]string{"C++": "cpp", "C#": "csharp", "Shell": "bash", "Python": "python", "TSX": "tsx", "JavaScript": "javascript", "Go": "go", "HCL": "hcl", "Terraform": "hcl", "Makefile": "makefile", "R": "r", "Starlark": "starlark", "Cuda": "cuda", "XML": "xml", "Vue": "vue", "COBOL": "", "": ""} {
		got := ""
		if l := lang.ForLinguist(in); l != nil {
			got = l.Name
		}
		if got != want && !(lang.ByName(want) == nil && got == "") {
			t.Errorf("ForLinguist(%q) = %q, want %q", in, got, want)
		}
	}
	for _, l := range lang.All() {
		if lang.ForLinguist(l.Name) != l {
			t.Errorf("ForLinguist(%q) does not find its own row", l.Name)
		}
	}
}

// TestAliasesUnique: an alias names one row, and never another row's name.
func TestAliasesUnique(t *testing.T) {
	seen := map[string]string{}
	for _, l := range lang.All() {
		seen[strings.ToLower(l.Name)] = l.Name
	}
	for _, l := range lang.All() {
		for _, a := range l.Aliases {
			if other, dup := seen[strings.ToLower(a)]; dup {
				t.Errorf("alias %q of %s is taken by %s", a, l.Name, other)
			}
			seen[strings.ToLower(a)] = l.Name
		}
	}
}
