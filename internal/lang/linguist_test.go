package lang_test

import (
	"testing"

	"github.com/castchunk/castchunk/internal/lang"
)

func TestForLinguist(t *testing.T) {
	for in, want := range map[string]string{"C++": "cpp", "C#": "csharp", "Shell": "bash", "Python": "python", "TSX": "tsx", "JavaScript": "javascript", "Go": "go", "COBOL": "", "": ""} {
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
