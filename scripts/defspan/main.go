// Command defspan measures how many named definitions (functions, methods,
// classes, types; for CSS rule sets, Markdown sections and TOML tables)
// each chunking of a tree keeps whole: inside one chunk. It reads the
// records of castchunk chunk runs (same tree, same budget, one file each,
// e.g. cast then sliding), parses every file they name once with the
// tree-sitter grammar of the records' language (used directly, not through
// castchunk's code), and prints one JSON line per language:
//
//	{"language":"go","defs":N,"fit":F,"whole":[W1,W2],"whole_fit":[V1,V2]}
//
// where fit counts the definitions whose size (non-white-space code points,
// as castchunk counts) is within -budget, whole[i] those that lie in one
// chunk of input i, and whole_fit[i] those of them that fit. For Go, a
// second line (language "go/ast") takes the definitions from the standard
// library's go/parser instead: a parser independent of tree-sitter.
//
// Usage (from scripts/languages.sh):
//
//	go run ./scripts/defspan -root DIR -budget 2000 cast.jsonl sliding.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"unicode"
	"unicode/utf8"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"

	kotlin "github.com/tree-sitter-grammars/tree-sitter-kotlin/bindings/go"
	lua "github.com/tree-sitter-grammars/tree-sitter-lua/bindings/go"
	markdown "github.com/tree-sitter-grammars/tree-sitter-markdown/bindings/go"
	toml "github.com/tree-sitter-grammars/tree-sitter-toml/bindings/go"
	bash "github.com/tree-sitter/tree-sitter-bash/bindings/go"
	csharp "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	c "github.com/tree-sitter/tree-sitter-c/bindings/go"
	cpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	css "github.com/tree-sitter/tree-sitter-css/bindings/go"
	golang "github.com/tree-sitter/tree-sitter-go/bindings/go"
	java "github.com/tree-sitter/tree-sitter-java/bindings/go"
	javascript "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	php "github.com/tree-sitter/tree-sitter-php/bindings/go"
	python "github.com/tree-sitter/tree-sitter-python/bindings/go"
	ruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	rust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	scala "github.com/tree-sitter/tree-sitter-scala/bindings/go"
	typescript "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// tsKinds are the definitions of TypeScript and TSX.
var tsKinds = map[string]kind{"function_declaration": plain, "generator_function_declaration": plain, "class_declaration": plain,
	"abstract_class_declaration": plain, "method_definition": plain, "interface_declaration": plain, "enum_declaration": plain}

// kind is a definition node type; named means only nodes that have a name
// and a body count (struct_specifier is also a mere type reference).
type kind struct{ named bool }

type language struct {
	grammar func() unsafe.Pointer
	kinds   map[string]kind
}

var plain = kind{}
var withBody = kind{named: true}

var languages = map[string]language{
	"python":     {python.Language, map[string]kind{"function_definition": plain, "class_definition": plain}},
	"java":       {java.Language, map[string]kind{"method_declaration": plain, "constructor_declaration": plain, "class_declaration": plain, "interface_declaration": plain, "enum_declaration": plain, "record_declaration": plain}},
	"typescript": {typescript.LanguageTypescript, tsKinds},
	"tsx":        {typescript.LanguageTSX, tsKinds},
	"csharp":     {csharp.Language, map[string]kind{"method_declaration": plain, "constructor_declaration": plain, "class_declaration": plain, "interface_declaration": plain, "struct_declaration": plain, "enum_declaration": plain, "record_declaration": plain}},
	"go":         {golang.Language, map[string]kind{"function_declaration": plain, "method_declaration": plain, "type_declaration": plain}},
	"javascript": {javascript.Language, map[string]kind{"function_declaration": plain, "generator_function_declaration": plain, "class_declaration": plain, "method_definition": plain}},
	"rust":       {rust.Language, map[string]kind{"function_item": plain, "impl_item": plain, "struct_item": plain, "enum_item": plain, "union_item": plain, "trait_item": plain, "macro_definition": plain}},
	"c":          {c.Language, map[string]kind{"function_definition": plain, "struct_specifier": withBody, "union_specifier": withBody, "enum_specifier": withBody}},
	"cpp":        {cpp.Language, map[string]kind{"function_definition": plain, "class_specifier": withBody, "struct_specifier": withBody, "union_specifier": withBody, "enum_specifier": withBody}},
	"ruby":       {ruby.Language, map[string]kind{"method": plain, "singleton_method": plain, "class": plain, "module": plain}},
	"php":        {php.LanguagePHP, map[string]kind{"function_definition": plain, "method_declaration": plain, "class_declaration": plain, "interface_declaration": plain, "trait_declaration": plain, "enum_declaration": plain}},
	"bash":       {bash.Language, map[string]kind{"function_definition": plain}},
	"kotlin":     {kotlin.Language, map[string]kind{"function_declaration": plain, "class_declaration": plain, "object_declaration": plain}},
	"scala":      {scala.Language, map[string]kind{"function_definition": plain, "class_definition": plain, "object_definition": plain, "trait_definition": plain}},
	"lua":        {lua.Language, map[string]kind{"function_declaration": plain}},
	"css":        {css.Language, map[string]kind{"rule_set": plain, "media_statement": plain, "keyframes_statement": plain}},
	"markdown":   {markdown.Language, map[string]kind{"section": plain}},
	"toml":       {toml.Language, map[string]kind{"table": plain, "table_array_element": plain}},
}

type span struct{ start, end int }

type tally struct {
	defs, fit       int
	whole, wholeFit []int
}

func main() {
	root := flag.String("root", ".", "the folder the records' paths are relative to")
	budget := flag.Int("budget", 2000, "the budget the runs had")
	flag.Parse()
	inputs := flag.Args()
	if len(inputs) == 0 {
		fmt.Fprintln(os.Stderr, "usage: defspan -root DIR -budget N RUN.jsonl...")
		os.Exit(2)
	}
	r := readRuns(inputs)
	report(r.tally(*root, *budget))
}

// runs are the records of the inputs: chunks[i][path] the spans of input
// i, in order; lang[path] its language; paths sorted.
type runs struct {
	chunks []map[string][]span
	lang   map[string]string
	paths  []string
}

// readRuns reads the spans of every input's records.
func readRuns(inputs []string) *runs {
	r := &runs{chunks: make([]map[string][]span, len(inputs)), lang: map[string]string{}}
	for i, in := range inputs {
		r.chunks[i] = map[string][]span{}
		f, err := os.Open(in)
		check(err)
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		for sc.Scan() {
			var rec struct {
				Path      string `json:"path"`
				Language  string `json:"language"`
				StartByte int    `json:"start_byte"`
				EndByte   int    `json:"end_byte"`
			}
			check(json.Unmarshal(sc.Bytes(), &rec))
			if _, ok := r.lang[rec.Path]; !ok {
				r.lang[rec.Path] = rec.Language
				r.paths = append(r.paths, rec.Path)
			}
			r.chunks[i][rec.Path] = append(r.chunks[i][rec.Path], span{rec.StartByte, rec.EndByte})
		}
		check(sc.Err())
		f.Close()
	}
	sort.Strings(r.paths)
	return r
}

// tally parses each file and counts, by language, its definitions, those
// within budget, and those each input keeps whole.
func (r *runs) tally(root string, budget int) map[string]*tally {
	tallies := map[string]*tally{}
	count := func(name string, data []byte, p string, defs []span) {
		t := tallies[name]
		if t == nil {
			t = &tally{whole: make([]int, len(r.chunks)), wholeFit: make([]int, len(r.chunks))}
			tallies[name] = t
		}
		for _, d := range defs {
			fits := size(data[d.start:d.end]) <= budget
			t.defs++
			if fits {
				t.fit++
			}
			for i := range r.chunks {
				if inside(r.chunks[i][p], d) {
					t.whole[i]++
					if fits {
						t.wholeFit[i]++
					}
				}
			}
		}
	}
	parsers := map[string]*sitter.Parser{}
	for _, p := range r.paths {
		l, ok := languages[r.lang[p]]
		if !ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, p))
		check(err)
		ps := parsers[r.lang[p]]
		if ps == nil {
			ps = sitter.NewParser()
			check(ps.SetLanguage(sitter.NewLanguage(l.grammar())))
			parsers[r.lang[p]] = ps
		}
		tree := ps.Parse(data, nil)
		count(r.lang[p], data, p, definitions(tree, l.kinds))
		tree.Close()
		if r.lang[p] == "go" {
			count("go/ast", data, p, goDefinitions(data))
		}
	}
	return tallies
}

// report writes one JSON line per language, in name order.
func report(tallies map[string]*tally) {
	var names []string
	for n := range tallies {
		names = append(names, n)
	}
	sort.Strings(names)
	out := json.NewEncoder(os.Stdout)
	for _, n := range names {
		t := tallies[n]
		check(out.Encode(map[string]any{"language": n, "defs": t.defs, "fit": t.fit, "whole": t.whole, "whole_fit": t.wholeFit}))
	}
}

// definitions walks the tree and returns the spans of the nodes of the
// given kinds.
func definitions(tree *sitter.Tree, kinds map[string]kind) []span {
	var out []span
	cur := tree.Walk()
	defer cur.Close()
	for {
		n := cur.Node()
		if k, ok := kinds[n.Kind()]; ok && (!k.named || (n.ChildByFieldName("name") != nil && n.ChildByFieldName("body") != nil)) {
			out = append(out, span{int(n.StartByte()), int(n.EndByte())})
		}
		if cur.GotoFirstChild() {
			continue
		}
		for !cur.GotoNextSibling() {
			if !cur.GotoParent() {
				return out
			}
		}
	}
}

// goDefinitions returns the spans of a Go file's functions, methods and
// type declarations, as go/parser sees them (nil when it cannot parse).
func goDefinitions(data []byte) []span {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", data, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var out []span
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok != token.TYPE {
			continue
		}
		out = append(out, span{fset.Position(d.Pos()).Offset, fset.Position(d.End()).Offset})
	}
	return out
}

// inside reports whether d lies within one of the spans (sorted by start).
func inside(spans []span, d span) bool {
	i := sort.Search(len(spans), func(i int) bool { return spans[i].start > d.start }) - 1
	return i >= 0 && spans[i].start <= d.start && d.end <= spans[i].end
}

// size counts the code points that are not white space (unicode.IsSpace),
// as castchunk's budget does.
func size(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, w := utf8.DecodeRune(b)
		if !unicode.IsSpace(r) {
			n++
		}
		b = b[w:]
	}
	return n
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "defspan:", err)
		os.Exit(1)
	}
}
