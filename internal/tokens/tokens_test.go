package tokens

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"unicode/utf8"
)

// corpusDir is the sample corpus every package's tests share.
const corpusDir = "../../testdata/corpus"

// corpus returns every file under testdata/corpus, by path.
func corpus(t testing.TB) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(corpusDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no files under %s", corpusDir)
	}
	return files
}

func load(t testing.TB, name string) *Encoding {
	t.Helper()
	e, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// checkText compares Count with the references on text, and AppendStarts
// with both: the starts cut text into exactly the reference's tokens. The
// references split with Go's unicode tables, so on a text with a rune that
// newerClasses amends only the starts' shape is checked (TestNewerUnicode
// and the js-tiktoken tests cover those runes).
func checkText(t *testing.T, c *Counter, what string, text []byte) {
	t.Helper()
	name := c.e.name
	got := c.Count(text)
	if hasNewer(text) {
		starts := c.AppendStarts(nil, text)
		if len(starts) != got || len(text) > 0 && (len(starts) == 0 || starts[0] != 0) || !isIncreasing(starts) {
			t.Errorf("%s %s: Count = %d, starts %v (text %.200q)", name, what, got, starts, text)
		}
		return
	}
	want := fixedTokens(t, name, string(text))
	if got != len(want) {
		t.Errorf("%s %s: Count = %d, reference says %d (text %.200q)", name, what, got, len(want), text)
	}
	if n, ok := moduleCount(t, name, string(text)); ok && n != got {
		t.Errorf("%s %s: Count = %d, module says %d (text %.200q)", name, what, got, n, text)
	}
	starts := c.AppendStarts(nil, text)
	if len(starts) != got {
		t.Errorf("%s %s: %d starts for %d tokens", name, what, len(starts), got)
	}
	if len(text) > 0 && (len(starts) == 0 || starts[0] != 0) || !isIncreasing(starts) {
		t.Errorf("%s %s: starts %v are not strictly increasing from 0", name, what, starts)
	}
	if len(starts) == len(want) && isIncreasing(starts) {
		for i, s := range starts {
			end := len(text)
			if i+1 < len(starts) {
				end = int(starts[i+1])
			}
			if tok := string(text[s:end]); tok != want[i] {
				t.Errorf("%s %s: token %d is %q, reference says %q", name, what, i, tok, want[i])
				break
			}
		}
	}
}

// hasNewer reports whether text has a rune newerClasses lists.
func hasNewer(text []byte) bool {
	for _, r := range string(text) {
		if _, ok := newerClass(r); ok {
			return true
		}
	}
	return false
}

func isIncreasing(s []int32) bool {
	for i := 1; i < len(s); i++ {
		if s[i] <= s[i-1] {
			return false
		}
	}
	return true
}

// TestMatchesModuleOnCorpus: every corpus file, whole and line by line, for
// both encodings, counts as the module counts.
func TestMatchesModuleOnCorpus(t *testing.T) {
	files := corpus(t)
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			c := load(t, name).NewCounter()
			for path, text := range files {
				if !utf8.Valid(text) {
					continue
				}
				checkText(t, c, path, text)
				for i, line := range bytes.SplitAfter(text, []byte("\n")) {
					checkText(t, c, path+":"+strconv.Itoa(i+1), line)
				}
			}
		})
	}
}
