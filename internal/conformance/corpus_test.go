package conformance

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/inject"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/parse"
	"github.com/castchunk/castchunk/internal/record"
)

// corpusDir holds the source files the tests run over; goldenDir their
// rendered chunks.
const (
	corpusDir = "../../testdata/corpus"
	goldenDir = "../../testdata/golden"
)

// budgets are the sizes every property is checked at.
var budgets = []int{50, 100, 300, 1000, 2000}

// corpusFile is one file of the corpus with what the checks need of it,
// computed here independently of the chunker packages.
type corpusFile struct {
	rel     string // path under corpusDir, '/'-separated
	lang    *lang.Language
	src     []byte
	prefix  []int // prefix[i]: non-whitespace code points starting before byte i
	lines   []int // byte offsets of every '\n'
	nodes   []node
	regions []record.Region // its embedded regions, as its records say them
}

// node is one syntax node of a file's tree, in pre-order.
type node struct {
	start, end   int
	kind         string
	named, extra bool
	leaf         bool
	broken       bool // an ERROR node or a MISSING one
	depth        int
	parent       int // index in nodes, -1 for the root
	prev, next   int // siblings, -1 when none
	lastKid      int
}

// size is the non-whitespace code points of src[a:b].
func (f *corpusFile) size(a, b int) int { return f.prefix[b] - f.prefix[a] }

// line is the 1-based line of byte offset pos.
func (f *corpusFile) line(pos int) int { return sort.SearchInts(f.lines, pos) + 1 }

// nonSpace counts the code points of b for which unicode.IsSpace is false,
// reading b as Go reads a string: a byte that starts no valid UTF-8
// sequence is one character. It is docs/design.md's size metric, written here
// again so that the tests do not trust chunk.Size.
func nonSpace(b []byte) int {
	n := 0
	for _, r := range string(b) {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

var (
	corpusOnce sync.Once
	corpus     []*corpusFile
	corpusErr  error
)

// loadCorpus reads, and parses once, every file under corpusDir whose
// extension names a language.
func loadCorpus(t testing.TB) []*corpusFile {
	t.Helper()
	corpusOnce.Do(func() { corpus, corpusErr = readCorpus() })
	if corpusErr != nil {
		t.Fatal(corpusErr)
	}
	if len(corpus) == 0 {
		t.Fatal("empty corpus")
	}
	return corpus
}

func readCorpus() ([]*corpusFile, error) {
	var files []*corpusFile
	p := parse.New(10 * time.Second)
	defer p.Close()
	err := filepath.WalkDir(corpusDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(corpusDir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		l := lang.ForPath(rel)
		if l == nil {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := newCorpusFile(p, rel, l, src)
		if err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	return files, err
}

// newCorpusFile prepares src, in language l, for the checks.
func newCorpusFile(p *parse.Parser, rel string, l *lang.Language, src []byte) (*corpusFile, error) {
	f := &corpusFile{rel: rel, lang: l, src: src}
	f.prefix = make([]int, len(src)+1)
	for i := 0; i < len(src); {
		r, w := utf8.DecodeRune(src[i:])
		inc := 0
		if !unicode.IsSpace(r) {
			inc = 1
		}
		for k := 1; k <= w; k++ {
			f.prefix[i+k] = f.prefix[i] + inc
		}
		i += w
	}
	for i, c := range src {
		if c == '\n' {
			f.lines = append(f.lines, i)
		}
	}
	tree, err := p.Parse(src, l)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	regions, err := injector().Regions(p, l, src, tree)
	if err != nil {
		return nil, err
	}
	defer inject.Close(regions)
	f.nodes = collectNodes(tree, regions)
	f.regions = inject.Records(regions)
	return f, nil
}

// collectNodes lists every node of the tree, named and anonymous, in
// pre-order, without recursion, as the chunkers see it: a node that is an
// embedded region's (its byte range is one of regions') has the children of
// the region's tree's root instead of its own.
func collectNodes(tree *sitter.Tree, regions []inject.Region) []node {
	embedded := map[[2]uint]*sitter.Tree{}
	for _, r := range regions {
		if r.Tree != nil {
			embedded[[2]uint{uint(r.Start), uint(r.End)}] = r.Tree
		}
	}
	kids := func(n *sitter.Node) []sitter.Node {
		if t, ok := embedded[[2]uint{n.StartByte(), n.EndByte()}]; ok {
			n = t.RootNode()
		}
		out := make([]sitter.Node, 0, n.ChildCount())
		for i := uint(0); i < n.ChildCount(); i++ {
			out = append(out, *n.Child(i))
		}
		return out
	}
	type visit struct {
		n      sitter.Node
		depth  int
		parent int
	}
	var nodes []node
	stack := []visit{{n: *tree.RootNode(), parent: -1}}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := &v.n
		children := kids(n)
		idx := len(nodes)
		nodes = append(nodes, node{
			start: int(n.StartByte()), end: int(n.EndByte()), kind: n.Kind(),
			named: n.IsNamed(), extra: n.IsExtra(), leaf: len(children) == 0,
			broken: n.IsError() || n.IsMissing(),
			depth:  v.depth, parent: v.parent, prev: -1, next: -1, lastKid: -1,
		})
		if p := v.parent; p >= 0 {
			if last := nodes[p].lastKid; last >= 0 {
				nodes[idx].prev = last
				nodes[last].next = idx
			}
			nodes[p].lastKid = idx
		}
		for i := len(children) - 1; i >= 0; i-- {
			stack = append(stack, visit{n: children[i], depth: v.depth + 1, parent: idx})
		}
	}
	return nodes
}

// methods is the method registry, the one list of chunkers every test
// iterates: a new method is checked without editing a test. The checks
// take the methods as an argument, so that TestANewMethodIsChecked can run
// them on the registry plus a fake without changing the registry.
func methods() []*chunk.Method { return method.All() }

// config is one way of chunking a file: a method with a budget and option
// values.
type config struct {
	chunk.Setup
	name    string // the method's name, then each value that is not the default
	overlap bool   // chunks may share text
	// chunk returns a fresh copy of the spans of f.
	chunk func(f *corpusFile) []chunk.Span
}

// reparser parses files again for the methods that read the tree, so that
// every chunking starts from a fresh tree. The tests run one at a time; it
// lives as long as the test binary.
var reparser = sync.OnceValue(func() *parse.Parser { return parse.New(10 * time.Second) })

// injector finds the embedded regions of the files reparser parses, as
// the pipeline does.
var injector = sync.OnceValue(inject.NewFinder)

// parseWithRegions parses f afresh, with its embedded regions (a Markdown
// fence's code, an HTML page's scripts), as the pipeline hands them to a
// chunker. Close both.
func parseWithRegions(f *corpusFile) (*sitter.Tree, []inject.Region) {
	tree, err := reparser().Parse(f.src, f.lang)
	if err != nil {
		panic(f.rel + ": " + err.Error())
	}
	regions, err := injector().Regions(reparser(), f.lang, f.src, tree)
	if err != nil {
		panic(f.rel + ": " + err.Error())
	}
	return tree, regions
}

// newConfig makes the chunker of s, which must pass its Check, for as long
// as the test runs.
func newConfig(t testing.TB, s chunk.Setup) config {
	t.Helper()
	if err := s.Check(); err != nil {
		t.Fatalf("%s: %v", s.Key(), err)
	}
	c := s.New()
	t.Cleanup(c.Close)
	return config{Setup: s, name: configName(s), overlap: s.Overlapping(), chunk: func(f *corpusFile) []chunk.Span {
		in := chunk.Input{Src: f.src, Budget: chunk.Budget{Size: s.Budget}}
		if s.Method.NeedsTree {
			tree, regions := parseWithRegions(f)
			defer tree.Close()
			defer inject.Close(regions)
			in.Tree, in.Embedded = tree, inject.ForChunker(regions)
		}
		if s.Method.NeedsDefs {
			tree, regions := parseWithRegions(f)
			defer tree.Close()
			defer inject.Close(regions)
			in.Defs, in.Member = fileDefs(f, tree, regions)
		}
		return append([]chunk.Span(nil), c.Chunk(in)...)
	}}
}

// finder finds the definitions of the files, as the pipeline does.
var finder = sync.OnceValue(outline.NewFinder)

// fileDefs returns f's definitions, its tree's and its embedded regions'
// merged, and the rule for their types' members, as the pipeline finds
// them for a method that NeedsDefs; the rule reads tree and regions.
func fileDefs(f *corpusFile, tree *sitter.Tree, regions []inject.Region) ([]chunk.Def, func(n *sitter.Node, owner int) bool) {
	trees := []outline.Tree{{Lang: f.lang, Tree: tree, End: len(f.src)}}
	for _, r := range regions {
		trees = append(trees, outline.Tree{Lang: r.Lang, Tree: r.Tree, Start: r.Start, End: r.End})
	}
	defs, member, err := finder().ForChunker(f.src, trees)
	if err != nil {
		panic(f.rel + ": " + err.Error())
	}
	return defs, member
}

// configName names a setup in subtests and golden directories: the
// method's name, followed by -NAME=VALUE for each option, in declared
// order, whose value is not its default ("sliding-overlap-lines=3").
func configName(s chunk.Setup) string {
	var b strings.Builder
	b.WriteString(s.Method.Name)
	for _, o := range s.Method.Options {
		if v := s.Value(o.Name); v != o.Default {
			fmt.Fprintf(&b, "-%s=%d", o.Name, v)
		}
	}
	return b.String()
}

// variants are the option values a method is checked with at a budget,
// derived from its declared options alone: the defaults, each option alone
// set to 3, and each ordered pair of options set to 20 and 10, and to 50
// and 10. Of these, those the method's Check accepts, each set of values
// once (a value equal to the default adds nothing).
func variants(m *chunk.Method, budget int) []chunk.Values {
	cands := []chunk.Values{nil}
	for _, o := range m.Options {
		cands = append(cands, chunk.Values{o.Name: 3})
	}
	for _, pair := range [][2]int{{20, 10}, {50, 10}} {
		for _, a := range m.Options {
			for _, b := range m.Options {
				if a.Name != b.Name {
					cands = append(cands, chunk.Values{a.Name: pair[0], b.Name: pair[1]})
				}
			}
		}
	}
	seen := map[string]bool{}
	var out []chunk.Values
	for _, v := range cands {
		s := chunk.Setup{Method: m, Budget: budget, Values: v}
		if s.Check() != nil || seen[s.Key()] {
			continue
		}
		seen[s.Key()] = true
		out = append(out, v)
	}
	return out
}

// setups are every configuration of the methods checked at a budget: each
// method with each of its variants.
func setups(t testing.TB, ms []*chunk.Method, budget int) []chunk.Setup {
	t.Helper()
	var out []chunk.Setup
	for _, m := range ms {
		vs := variants(m, budget)
		if len(vs) == 0 || len(vs[0]) != 0 {
			t.Errorf("method %s: its defaults fail its Check at budget %d", m.Name, budget)
		}
		for _, v := range vs {
			out = append(out, chunk.Setup{Method: m, Budget: budget, Values: v})
		}
	}
	return out
}

// configs are the setups with their chunkers.
func configs(t testing.TB, ms []*chunk.Method, budget int) []config {
	t.Helper()
	var out []config
	for _, s := range setups(t, ms, budget) {
		out = append(out, newConfig(t, s))
	}
	return out
}

// langDir is the language a summary groups a file under: its grammar, with
// the edge files apart.
func langDir(f *corpusFile) string {
	if strings.HasPrefix(f.rel, "edge/") {
		return "edge"
	}
	return f.lang.Name
}

// TestCorpusParses checks the corpus is what it claims to be: every file
// parses without an error, except the one written with syntax errors, which
// has some; the edge files hold the bytes they are about.
func TestCorpusParses(t *testing.T) {
	files := loadCorpus(t)
	seen := map[string]*corpusFile{}
	for _, f := range files {
		seen[f.rel] = f
		broken := 0
		for _, n := range f.nodes {
			if n.broken {
				broken++
			}
		}
		wantBroken := strings.Contains(f.rel, "syntax_error")
		if (broken > 0) != wantBroken {
			t.Errorf("%s: %d error or missing nodes", f.rel, broken)
		}
	}
	edge := []struct {
		rel  string
		test func([]byte) bool
	}{
		{"edge/crlf.py", func(b []byte) bool { return bytes.Count(b, []byte("\r\n")) == bytes.Count(b, []byte("\n")) }},
		{"edge/crlf.cs", func(b []byte) bool { return bytes.Count(b, []byte("\r\n")) == bytes.Count(b, []byte("\n")) }},
		{"edge/bom.cs", func(b []byte) bool { return bytes.HasPrefix(b, []byte("\ufeff")) && bytes.Contains(b, []byte("\r\n")) }},
		{"edge/bom.java", func(b []byte) bool { return bytes.HasPrefix(b, []byte("\ufeff")) }},
		{"edge/tabs.java", func(b []byte) bool { return bytes.Contains(b, []byte("\n\t\t")) && !bytes.Contains(b, []byte("    ")) }},
		{"edge/long_line.py", func(b []byte) bool {
			longest := 0
			for _, l := range bytes.Split(b, []byte("\n")) {
				longest = max(longest, len(l))
			}
			return longest > 20000
		}},
		{"edge/empty.py", func(b []byte) bool { return len(b) == 0 }},
		{"edge/whitespace_only.py", func(b []byte) bool { return len(b) > 0 && len(bytes.TrimSpace(b)) == 0 }},
		{"edge/one_line.py", func(b []byte) bool { return bytes.IndexByte(b, '\n') < 0 && len(b) > 0 }},
		{"edge/unicode.py", func(b []byte) bool { return utf8.Valid(b) && len(b) > utf8.RuneCount(b) }},
		{"edge/unicode.java", func(b []byte) bool { return utf8.Valid(b) && len(b) > utf8.RuneCount(b) }},
	}
	for _, e := range edge {
		f := seen[e.rel]
		if f == nil {
			t.Errorf("%s: missing from the corpus (go generate ./internal/conformance)", e.rel)
		} else if !e.test(f.src) {
			t.Errorf("%s: does not hold the bytes it is about; did git or an editor convert it?", e.rel)
		}
	}
}
