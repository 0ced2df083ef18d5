package lang_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/lang"
)

var update = flag.Bool("update", false, "rewrite the language table of docs/inputs.md from the registry")

// tablePage is the page that holds the language table (the README links to it).
const tablePage = "../../docs/inputs.md"

// TestReadmeLanguageTable: the language table of docs/inputs.md (the
// README's languages link there) is the registry's,
// lang.Markdown (each row's extensions, note and file names), line for
// line, so it cannot drift from the rows. With -update the test rewrites
// the table in place; read the diff before committing it.
func TestReadmeLanguageTable(t *testing.T) {
	data, err := os.ReadFile(tablePage)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start, end, err := languageTable(readme)
	if err != nil {
		t.Fatal(err)
	}
	got, want := readme[start:end], lang.Markdown()
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(tablePage, []byte(readme[:start]+want+readme[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the language table of %s", tablePage)
		return
	}
	t.Errorf("%s's language table is not the registry's (%s; go test ./internal/lang/ -update rewrites it); want:\n%s",
		tablePage, firstDifference(got, want), want)
}

// languageTable returns where the README's language table is: from its
// header row, the one line starting with "| language |", through the last
// line of the table (the lines starting with "|" after it), newline
// included.
func languageTable(readme string) (start, end int, err error) {
	const header = "| language |"
	start = -1
	for i := 0; i < len(readme); {
		line, _, _ := strings.Cut(readme[i:], "\n")
		if strings.HasPrefix(line, header) {
			if start >= 0 {
				return 0, 0, fmt.Errorf("%s: two tables start with %q", tablePage, header)
			}
			start = i
		}
		i += len(line) + 1
	}
	if start < 0 {
		return 0, 0, fmt.Errorf("%s: no line starts with %q", tablePage, header)
	}
	end = start
	for end < len(readme) && strings.HasPrefix(readme[end:], "|") {
		line, _, _ := strings.Cut(readme[end:], "\n")
		end = min(end+len(line)+1, len(readme))
	}
	return start, end, nil
}

// firstDifference says which line of the table differs first.
func firstDifference(got, want string) string {
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d of the table is %q, want %q", i+1, strings.TrimSuffix(gl, "\n"), strings.TrimSuffix(wl, "\n"))
		}
	}
	return "the tables differ"
}
