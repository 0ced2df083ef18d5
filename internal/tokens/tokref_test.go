package tokens

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"unicode/utf8"
)

// tokrefDir holds the independent reference: js-tiktoken, run by count.mjs.
const tokrefDir = "../../scripts/tokref"

// jsCounts returns js-tiktoken's counts of texts for each encoding, or skips
// the test when node or the package is missing, unless
// CASTCHUNK_REQUIRE_TOKREF=1 (CI sets it) makes that a failure.
func jsCounts(t *testing.T, texts []string) map[string][]int {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(tokrefDir, "node_modules", "js-tiktoken", "package.json"))
	}
	if err != nil {
		msg := "js-tiktoken reference missing (" + err.Error() + "): install Node.js, then run `npm ci` in scripts/tokref"
		if os.Getenv("CASTCHUNK_REQUIRE_TOKREF") == "1" {
			t.Fatal(msg + " (CASTCHUNK_REQUIRE_TOKREF=1)")
		}
		t.Skip(msg)
	}
	in, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "count.mjs", "cl100k_base", "o200k_base")
	cmd.Dir = tokrefDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node count.mjs: %v\n%s", err, stderr.Bytes())
	}
	var counts map[string][]int
	if err := json.Unmarshal(out, &counts); err != nil {
		t.Fatalf("node count.mjs: %v in %.200q", err, out)
	}
	for _, name := range Names() {
		if len(counts[name]) != len(texts) {
			t.Fatalf("node count.mjs: %d %s counts for %d texts", len(counts[name]), name, len(texts))
		}
	}
	return counts
}

// corpusSlices is every valid UTF-8 corpus file whole, then in slices of 40
// lines, with a label for each.
func corpusSlices(t *testing.T) (labels, texts []string) {
	files := corpus(t)
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		text := files[p]
		if !utf8.Valid(text) {
			continue
		}
		labels, texts = append(labels, p), append(texts, string(text))
		lines := bytes.SplitAfter(text, []byte("\n"))
		for i := 0; i < len(lines); i += 40 {
			slice := bytes.Join(lines[i:min(i+40, len(lines))], nil)
			if len(slice) > 0 {
				labels = append(labels, p+":"+strconv.Itoa(i+1)+"+40")
				texts = append(texts, string(slice))
			}
		}
	}
	return labels, texts
}

// TestMatchesJSTiktoken holds Count to js-tiktoken, a reference that shares
// nothing with this package or the Go module but the published vocabulary
// and patterns, on the whole corpus and its 40-line slices.
func TestMatchesJSTiktoken(t *testing.T) {
	labels, texts := corpusSlices(t)
	counts := jsCounts(t, texts)
	for _, name := range Names() {
		c := load(t, name).NewCounter()
		moduleOff := 0
		for i, text := range texts {
			got, want := c.Count([]byte(text)), counts[name][i]
			if got != want {
				t.Errorf("%s %s: Count = %d, js-tiktoken says %d", name, labels[i], got, want)
			}
			if n, err := refs()[name].module.Count(text); err == nil && n != want {
				moduleOff++
			}
		}
		t.Logf("%s: %d texts agree with js-tiktoken; the module's codec disagrees on %d (its \\s*[\\r\\n]+ bug, see ref_test.go)", name, len(texts), moduleOff)
	}
}

// jsDivergences are texts on which js-tiktoken departs from Python tiktoken
// (and from Count, which follows Python and the Go module): JavaScript's \s
// has U+FEFF but not U+0085, where Unicode's White_Space, which Python's
// (Rust's) and Go's \s follow, has U+0085 but not U+FEFF. (js-tiktoken also
// spells (?i:'s|...) out as explicit cases, leaving out ſ, U+017F, which
// Unicode folds to s: that changes the split of "'ſt" but, in every case
// tried, not the count.) No corpus file has these runes in such places.
var jsDivergences = []string{" \ufeffx", "a \u0085b"}

// TestJSTiktokenDivergences documents them: Count follows the regexp2
// reference there, and js-tiktoken counts otherwise (if it stops doing so,
// the list and this comment are stale).
func TestJSTiktokenDivergences(t *testing.T) {
	counts := jsCounts(t, jsDivergences)
	for _, name := range Names() {
		c := load(t, name).NewCounter()
		for i, text := range jsDivergences {
			got, js := c.Count([]byte(text)), counts[name][i]
			if want := len(fixedTokens(t, name, text)); got != want {
				t.Errorf("%s %q: Count = %d, the regexp2 reference says %d", name, text, got, want)
			}
			if got == js {
				t.Errorf("%s %q: js-tiktoken now agrees (%d): the divergence list is stale", name, text, js)
			}
			t.Logf("%s %q: Count %d, js-tiktoken %d", name, text, got, js)
		}
	}
}
