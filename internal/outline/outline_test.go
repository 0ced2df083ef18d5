package outline

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

var update = flag.Bool("update", false, "rewrite testdata/outline/*.golden from the current queries")

const (
	corpusDir = "../../testdata/corpus"
	goldenDir = "../../testdata/outline"
)

// TestQueriesCompile compiles every language's query: a query that does not
// compile, or captures a kind outside Kinds, is a bug.
func TestQueriesCompile(t *testing.T) {
	for _, l := range lang.All() {
		c, err := compile(l)
		if err != nil {
			t.Error(err)
			continue
		}
		c.query.Close()
	}
}

// TestQueryKindsInVocabulary reads the query files' text, independently of
// Compile, for @definition.X captures outside Kinds, and the rows'
// FileKind (FileDef's) likewise.
func TestQueryKindsInVocabulary(t *testing.T) {
	re := regexp.MustCompile(`@definition\.([A-Za-z_.-]+)`)
	used := map[string]bool{}
	for _, l := range lang.All() {
		for _, m := range re.FindAllStringSubmatch(l.DefinitionQuery(), -1) {
			if !IsKind(m[1]) {
				t.Errorf("%s: @definition.%s is not in Kinds", l.Name, m[1])
			}
			used[m[1]] = true
		}
		if k := l.FileKind; k != "" {
			if !IsKind(k) {
				t.Errorf("%s: FileKind %q is not in Kinds", l.Name, k)
			}
			used[k] = true
		}
	}
	for _, k := range Kinds {
		if !used[k.Kind] {
			t.Errorf("kind %q is used by no query: drop it from Kinds", k.Kind)
		}
	}
}

// corpusFiles returns the corpus files of each language, sorted, from the
// language each file's name picks.
func corpusFiles(t testing.TB) map[*lang.Language][]string {
	files := map[*lang.Language][]string{}
	err := filepath.WalkDir(corpusDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if l := lang.ForPath(p); l != nil {
			files[l] = append(files[l], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, ps := range files {
		sort.Strings(ps)
	}
	return files
}

// findFile parses one file and finds its definitions.
func findFile(t testing.TB, p *parse.Parser, f *Finder, l *lang.Language, path string) ([]byte, []Def) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := p.Parse(src, l)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer tree.Close()
	defs, err := f.Find(l, src, tree)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return src, defs
}

// TestGolden compares each language's definitions in one corpus file with
// testdata/outline/LANG.golden, a listing checked by a person against the
// source. The golden's first line names its source file; -update rewrites
// the listings (for a language without one, from its largest corpus file).
func TestGolden(t *testing.T) {
	p, f := parse.New(0), NewFinder()
	defer p.Close()
	defer f.Close()
	files := corpusFiles(t)
	for _, l := range lang.All() {
		golden := filepath.Join(goldenDir, l.Name+".golden")
		source := goldenSource(t, golden)
		if source == "" {
			if !*update {
				t.Errorf("%s: no %s (run go test ./internal/outline -update)", l.Name, golden)
				continue
			}
			source = largest(t, files[l], filepath.Join(corpusDir, l.Name))
		}
		_, defs := findFile(t, p, f, l, filepath.Join(corpusDir, source))
		got := listing(source, defs)
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, _ := os.ReadFile(golden)
		if got != string(want) {
			t.Errorf("%s: definitions differ from %s:\n%s", l.Name, golden, diffLines(string(want), got))
		}
	}
}

// goldenSource reads the corpus file a golden listing is of, "" when the
// golden does not exist.
func goldenSource(t *testing.T, golden string) string {
	b, err := os.ReadFile(golden)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	src, ok := strings.CutPrefix(first, "# source: testdata/corpus/")
	if !ok {
		t.Fatalf("%s: first line must be # source: testdata/corpus/…", golden)
	}
	return src
}

// largest picks the largest of paths under dir (the language's own corpus
// folder, not the edge cases).
func largest(t *testing.T, paths []string, dir string) string {
	best, size := "", int64(-1)
	for _, p := range paths {
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > size {
			best, size = p, fi.Size()
		}
	}
	rel, err := filepath.Rel(corpusDir, best)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(rel)
}

// listing writes one definition a line: its line, its kind indented by its
// nesting depth, its name.
func listing(source string, defs []Def) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# source: testdata/corpus/%s\n", source)
	var open []Def
	for _, d := range defs {
		for len(open) > 0 && open[len(open)-1].End <= d.Start {
			open = open[:len(open)-1]
		}
		fmt.Fprintf(&sb, "%5d %s%s %s\n", d.Line, strings.Repeat("  ", len(open)), d.Kind, d.Name)
		open = append(open, d)
	}
	return sb.String()
}

func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var sb strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			fmt.Fprintf(&sb, "line %d:\n  want %q\n  got  %q\n", i+1, a, b)
		}
	}
	return sb.String()
}

// TestCorpusProperties checks Find, Scope, Defines and Index on every corpus
// file, with chunks made as fixed windows of 7 lines (and 1 and 3): the
// definitions are sorted and distinct with non-empty names; each scope
// entry starts before the chunk's anchor and ends after it, outermost
// first; Index.Scope is Scope bounded; each defines entry starts in the
// chunk.
func TestCorpusProperties(t *testing.T) {
	p, f := parse.New(0), NewFinder()
	defer p.Close()
	defer f.Close()
	for l, paths := range corpusFiles(t) {
		for _, path := range paths {
			src, defs := findFile(t, p, f, l, path)
			checkDefs(t, path, defs)
			for _, n := range []int{1, 3, 7} {
				checkWindows(t, path, src, defs, lineWindows(src, n))
			}
		}
	}
}

func checkDefs(t *testing.T, path string, defs []Def) {
	for i, d := range defs {
		if d.Name == "" || len(d.Name) > MaxName || !IsKind(d.Kind) || d.Start >= d.End || d.Line < 1 {
			t.Errorf("%s: bad def %+v", path, d)
		}
		if strings.ContainsAny(d.Name, "\n\t") || strings.Contains(d.Name, "  ") {
			t.Errorf("%s: name %q not collapsed", path, d.Name)
		}
		if i == 0 {
			continue
		}
		prev := defs[i-1]
		if prev.Start > d.Start || prev.Start == d.Start && prev.End <= d.End {
			t.Errorf("%s: defs out of order or duplicated: %+v then %+v", path, prev, d)
		}
	}
}

func checkWindows(t *testing.T, path string, src []byte, defs []Def, windows [][2]int) {
	x := NewIndex(defs)
	var scope, indexed, defines []Def
	for _, w := range windows {
		start, end := w[0], w[1]
		anchor := Anchor(src, start, end)
		scope = Scope(scope[:0], defs, src, start, end)
		for i, d := range scope {
			if !(d.Start < anchor && anchor < d.End) {
				t.Errorf("%s [%d,%d): scope %+v does not enclose anchor %d", path, start, end, d, anchor)
			}
			if i > 0 && !(scope[i-1].Start <= d.Start && d.End <= scope[i-1].End) {
				t.Errorf("%s [%d,%d): scope not outermost first: %+v", path, start, end, scope)
			}
		}
		if n := countEnclosing(defs, anchor); n != len(scope) {
			t.Errorf("%s [%d,%d): scope has %d defs, %d enclose the anchor", path, start, end, len(scope), n)
		}
		indexed = x.Scope(indexed[:0], src, start, end)
		if want := bounded(scope); fmt.Sprint(indexed) != fmt.Sprint(want) {
			t.Errorf("%s [%d,%d): Index.Scope %v, bounded Scope %v", path, start, end, indexed, want)
		}
		defines = Defines(defines[:0], defs, start, end)
		for _, d := range defines {
			if d.Start < start || d.Start >= end {
				t.Errorf("%s [%d,%d): defines %+v starts outside", path, start, end, d)
			}
		}
	}
}

// bounded is the bound on a scope as the package documents it: a chain of
// more than MaxScope keeps its ScopeOuter outermost and ScopeInner
// innermost, the number left out in an Elided entry between them.
func bounded(chain []Def) []Def {
	if len(chain) <= MaxScope {
		return chain
	}
	out := slices.Clone(chain[:ScopeOuter])
	out = append(out, Def{Kind: Elided, Name: strconv.Itoa(len(chain) - MaxScope),
		Start: chain[ScopeOuter].Start, End: chain[ScopeOuter].End, Line: chain[ScopeOuter].Line})
	return append(out, chain[len(chain)-ScopeInner:]...)
}

func countEnclosing(defs []Def, anchor int) int {
	n := 0
	for _, d := range defs {
		if d.Start < anchor && anchor < d.End {
			n++
		}
	}
	return n
}

// lineWindows cuts src into chunks of n lines each.
func lineWindows(src []byte, n int) [][2]int {
	var out [][2]int
	start, lines := 0, 0
	for i, b := range src {
		if b == '\n' {
			lines++
			if lines == n {
				out = append(out, [2]int{start, i + 1})
				start, lines = i+1, 0
			}
		}
	}
	if start < len(src) || len(out) == 0 {
		out = append(out, [2]int{start, len(src)})
	}
	return out
}

// TestScopeSmall pins Scope, Defines and Anchor on a hand-made outline.
func TestScopeSmall(t *testing.T) {
	src := []byte("class A:\n  def f():\n    x\n  def g():\n    y\n")
	defs := []Def{
		{Kind: "class", Name: "A", Start: 0, End: 43, Line: 1},
		{Kind: "method", Name: "f", Start: 11, End: 26, Line: 2},
		{Kind: "method", Name: "g", Start: 28, End: 43, Line: 4},
	}
	names := func(ds []Def) string {
		var s []string
		for _, d := range ds {
			s = append(s, d.Name)
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct {
		start, end     int
		scope, defines string
	}{
		{0, 9, "", "A"},
		{9, 21, "A", "f"},   // "  def f():\n": anchor at def, f starts there
		{21, 26, "A,f", ""}, // "    x\n"
		{26, 43, "A", "g"},
		{43, 43, "", ""},
	} {
		if got := names(Scope(nil, defs, src, c.start, c.end)); got != c.scope {
			t.Errorf("Scope [%d,%d) = %q, want %q", c.start, c.end, got, c.scope)
		}
		if got := names(Defines(nil, defs, c.start, c.end)); got != c.defines {
			t.Errorf("Defines [%d,%d) = %q, want %q", c.start, c.end, got, c.defines)
		}
	}
}

func TestCleanName(t *testing.T) {
	long := strings.Repeat("é", 150) // 300 bytes
	for in, want := range map[string]string{
		"  a \n\t b  ": "a b",
		"x":            "x",
		"\n":           "",
		long:           strings.Repeat("é", 100),
	} {
		if got := cleanName([]byte(in)); got != want {
			t.Errorf("cleanName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFileDef: a Vue or Svelte file is a component named by its file name,
// spanning the file; other languages, and a name with no extension to drop,
// have none.
func TestFileDef(t *testing.T) {
	src := []byte("<script>\nlet x = 1\n</script>\n")
	for _, c := range []struct {
		lang, path, want string
	}{
		{"vue", "src/components/TodoList.vue", "component TodoList [0,29) line 1"},
		{"svelte", "routes/+page.svelte", "component +page [0,29) line 1"},
		{"svelte", "App.test.svelte", "component App.test [0,29) line 1"},
		{"vue", "<stdin>", ""},
		{"vue", "dir.d/.vue", ""},
		{"html", "index.html", ""},
		{"markdown", "README.md", ""},
	} {
		got := ""
		if d, ok := FileDef(lang.ByName(c.lang), c.path, src); ok {
			got = fmt.Sprintf("%s %s [%d,%d) line %d", d.Kind, d.Name, d.Start, d.End, d.Line)
		}
		if got != c.want {
			t.Errorf("FileDef(%s, %q) = %q, want %q", c.lang, c.path, got, c.want)
		}
	}
	if _, ok := FileDef(nil, "a.vue", src); ok {
		t.Error("FileDef(nil) found a definition")
	}
}
