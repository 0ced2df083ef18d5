package tokens

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
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

// nodeUnicode is the Unicode version of node's RegExp tables (ICU's), which
// js-tiktoken's \p{..} follow, as major*100+minor (1700 for 17.0); jsCounts
// has found node.
func nodeUnicode(t *testing.T) int {
	t.Helper()
	out, err := exec.Command("node", "-p", "process.versions.unicode").Output()
	if err != nil {
		t.Fatalf("node -p process.versions.unicode: %v", err)
	}
	v := strings.TrimSpace(string(out))
	major, minor, _ := strings.Cut(v, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(strings.SplitN(minor+".", ".", 2)[0])
	if err1 != nil || err2 != nil {
		t.Fatalf("node's Unicode version %q", v)
	}
	return ma*100 + mi
}

// TestNewerUnicodeMatchesJSTiktoken holds newerUnicodeCases to js-tiktoken
// where node's Unicode tables are at least 16.0 (older ones do not know
// those runes, as Go's do not).
func TestNewerUnicodeMatchesJSTiktoken(t *testing.T) {
	texts := make([]string, len(newerUnicodeCases))
	for i, tc := range newerUnicodeCases {
		texts[i] = tc.text
	}
	counts := jsCounts(t, texts)
	if v := nodeUnicode(t); v < 1600 {
		t.Skipf("node's Unicode is %d.%d, older than 16.0", v/100, v%100)
	}
	for _, name := range Names() {
		c := load(t, name).NewCounter()
		for i, tc := range newerUnicodeCases {
			if js := counts[name][i]; js != tc.count || c.Count([]byte(tc.text)) != js {
				t.Errorf("%s %+q: Count = %d, the case says %d, js-tiktoken %d", name, tc.text, c.Count([]byte(tc.text)), tc.count, js)
			}
		}
	}
}

// jsNewerDivergences are texts on which js-tiktoken, when node's Unicode is
// 17.0 or later, departs from tiktoken, whose regex crate is at 16.0: a
// letter new in 17.0 (U+A7CE LATIN CAPITAL LETTER PHARYNGEAL VOICED
// FRICATIVE; U+323B0, CJK Extension J) takes a contraction after it into its
// word for js-tiktoken only. (17.0 also made U+0295 ʕ Lo, not Ll, which can
// move an o200k split.)
var jsNewerDivergences = []string{"\uA7CE's", "\U000323B0's"}

// TestJSTiktokenNewerDivergences documents them: Count follows the regexp2
// reference (to which these runes are unassigned, as to Unicode 16.0), and
// js-tiktoken on a node with Unicode 17.0 counts otherwise.
func TestJSTiktokenNewerDivergences(t *testing.T) {
	counts := jsCounts(t, jsNewerDivergences)
	if v := nodeUnicode(t); v < 1700 {
		t.Skipf("node's Unicode is %d.%d: js-tiktoken does not know Unicode 17.0's letters either", v/100, v%100)
	}
	for _, name := range Names() {
		c := load(t, name).NewCounter()
		for i, text := range jsNewerDivergences {
			got, js := c.Count([]byte(text)), counts[name][i]
			if want := len(fixedTokens(t, name, text)); got != want {
				t.Errorf("%s %+q: Count = %d, the regexp2 reference says %d", name, text, got, want)
			}
			if got == js {
				t.Errorf("%s %+q: js-tiktoken agrees (%d): the divergence list is stale", name, text, js)
			}
			t.Logf("%s %+q: Count %d, js-tiktoken %d", name, text, got, js)
		}
	}
}
