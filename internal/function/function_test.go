package function

import (
	"slices"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/parse"
)

// chunkText parses src as language name, finds its definitions as the
// pipeline does, and returns the chunk contents, checked against the
// method's guarantee.
func chunkText(t testing.TB, name, src string, budget chunk.Budget) []string {
	t.Helper()
	l := lang.ByName(name)
	p := parse.New(0)
	defer p.Close()
	tree, err := p.Parse([]byte(src), l)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	f := outline.NewFinder()
	defer f.Close()
	found, err := f.Find(l, []byte(src), tree)
	if err != nil {
		t.Fatal(err)
	}
	defs := outline.ChunkDefs(found)
	spans := New().Chunk(chunk.Input{Src: []byte(src), Tree: tree, Budget: budget, Defs: defs})
	var sz chunk.Sizer
	sz.Reset([]byte(src))
	if err := chunk.CheckWith(Method.CheckSpans, &sz, spans, budget.Size); err != nil {
		t.Fatalf("guarantee broken: %v", err)
	}
	var out []string
	for _, s := range spans {
		out = append(out, src[s.Start:s.End])
	}
	return out
}

func TestFunctionChunks(t *testing.T) {
	big := chunk.Budget{Size: 1000}
	tests := []struct {
		name, lang string
		budget     chunk.Budget
		src        string
		want       []string
	}{
		{"python: decorators, comment and docstring travel with the def; nested def stays; code outside is in no chunk",
			"python", big,
			"import os\n\nX = 1\n\n\n# helper\n@cache\n@trace(level=2)\ndef top(a):\n    \"\"\"Doc.\"\"\"\n    def inner():\n        return a\n    return inner()\n\nprint(top(1))\n",
			[]string{"# helper\n@cache\n@trace(level=2)\ndef top(a):\n    \"\"\"Doc.\"\"\"\n    def inner():\n        return a\n    return inner()"}},
		{"python: each method of a class is a chunk, from its line's start; the class header and fields are in none",
			"python", big,
			"class A:\n    \"\"\"Doc.\"\"\"\n    x = 1\n\n    # says hi\n    def hi(self):\n        return 1\n\n    @staticmethod\n    def bye():\n        pass\n",
			[]string{"    # says hi\n    def hi(self):\n        return 1", "    @staticmethod\n    def bye():\n        pass"}},
		{"python: a comment after a blank line, or trailing code, stays out",
			"python", big,
			"# far\n\ndef f():\n    pass\nx = 1  # trailing\ndef g():\n    pass\n",
			[]string{"def f():\n    pass", "def g():\n    pass"}},
		{"python: an oversized def is split at its statements, appended up to the budget",
			"python", chunk.Budget{Size: 20},
			"def f(a):\n    b = a + 1\n    c = b + 2\n    d = c + 3\n    return d\n",
			[]string{"def f(a):\n    b = a + 1\n    c = b + 2\n", "    d = c + 3\n    return d"}},
		{"python: a statement over the budget alone is cut at its lines, its first piece filling the chunk under way",
			"python", chunk.Budget{Size: 12},
			"def f():\n    x = [\n        111,\n        222,\n        333,\n    ]\n    return x\n",
			[]string{"def f():\n    x = [\n", "        111,\n        222,\n        333,\n", "    ]\n    return x"}},
		{"go: doc comments travel, methods and functions are chunks, types and imports are not",
			"go", big,
			"package main\n\nimport \"fmt\"\n\n// T is a type.\ntype T struct{}\n\n// Hello says hi.\n// Twice.\nfunc (t *T) Hello() string {\n\treturn \"hi\"\n}\n\nfunc main() {\n\tf := func() {}\n\tf()\n\tfmt.Println(1)\n}\n",
			[]string{"// Hello says hi.\n// Twice.\nfunc (t *T) Hello() string {\n\treturn \"hi\"\n}", "func main() {\n\tf := func() {}\n\tf()\n\tfmt.Println(1)\n}"}},
		{"go: an oversized func is cut between lines, its signature whole",
			"go", chunk.Budget{Size: 30},
			"func main() {\n\ta := 1\n\tb := 2\n\tprintln(a, b)\n\tprintln(b, a)\n}\n",
			[]string{"func main() {\n\ta := 1\n\tb := 2\n", "\tprintln(a, b)\n\tprintln(b, a)\n}"}},
		{"java: javadoc and annotations travel; constructor and methods are chunks; fields are not",
			"java", big,
			"package p;\n\npublic class A {\n    private int x;\n\n    /** Makes an A. */\n    public A() { x = 1; }\n\n    @Override\n    public String toString() {\n        return \"A\";\n    }\n}\n",
			[]string{"    /** Makes an A. */\n    public A() { x = 1; }", "    @Override\n    public String toString() {\n        return \"A\";\n    }"}},
		{"typescript: export and JSDoc travel with a function; class methods are chunks",
			"typescript", big,
			"import { x } from './x';\n\nconst n = 1;\n\n/** Adds. */\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n\nclass C {\n  private y = 2;\n  get(): number {\n    return this.y;\n  }\n}\n",
			[]string{"/** Adds. */\nexport function add(a: number, b: number): number {\n  return a + b;\n}", "  get(): number {\n    return this.y;\n  }"}},
		{"python: the body of a class, an if or a try around a def does not travel with it",
			"python", big,
			"class A:\n    x = 1\n    def m(self):\n        pass\nif X:\n    y = 1\n    def f():\n        pass\ntry:\n    import z\nexcept ImportError:\n    def g():\n        pass\n",
			[]string{"    def m(self):\n        pass", "    def f():\n        pass", "    def g():\n        pass"}},
		{"python: over the budget, the body's statements are the units even when the body alone fits",
			"python", chunk.Budget{Size: 60},
			"@property\ndef area(self) -> float:\n    \"\"\"The area, in square units.\"\"\"\n    return self.w * self.h\n",
			[]string{"@property\ndef area(self) -> float:\n    \"\"\"The area, in square units.\"\"\"\n", "    return self.w * self.h"}},
		{"go: the statements of a block's statement list are the units, each whole",
			"go", chunk.Budget{Size: 60},
			"func Mean(xs []float64) (float64, error) {\n\tif len(xs) == 0 {\n\t\treturn 0, ErrEmpty\n\t}\n\ttotal := 0.0\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total / float64(len(xs)), nil\n}\n",
			[]string{"func Mean(xs []float64) (float64, error) {\n", "\tif len(xs) == 0 {\n\t\treturn 0, ErrEmpty\n\t}\n\ttotal := 0.0\n", "\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total / float64(len(xs)), nil\n}"}},
		{"a file with no function has no chunk", "python", big, "import os\nX = 1\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := chunkText(t, tc.lang, tc.src, tc.budget)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestWholeWhenItFits: every top-level function that fits the budget is
// one chunk, exactly its text from its line's start; and no chunk holds
// text outside a function.
func TestWholeWhenItFits(t *testing.T) {
	src := strings.Repeat("def f():\n    return 1\n\nx = 2\n\n", 20)
	got := chunkText(t, "python", src, chunk.Budget{Size: 100})
	if len(got) != 20 {
		t.Fatalf("%d chunks, want 20", len(got))
	}
	for _, c := range got {
		if c != "def f():\n    return 1" {
			t.Fatalf("chunk %q", c)
		}
	}
}

func TestTop(t *testing.T) {
	fn, typ, other := chunk.RoleFunction, chunk.RoleType, chunk.RoleOther
	defs := []chunk.Def{
		{Role: typ, Start: 0, End: 100},
		{Role: fn, Start: 10, End: 50},
		{Role: fn, Start: 20, End: 30},  // nested in the method
		{Role: typ, Start: 32, End: 40}, // a class in the method
		{Role: fn, Start: 33, End: 39},  // and its method
		{Role: fn, Start: 60, End: 90},
		{Role: other, Start: 95, End: 99},
	}
	got := Top(defs)
	want := []chunk.Def{defs[1], defs[5]}
	if !slices.Equal(got, want) {
		t.Errorf("Top = %v, want %v", got, want)
	}
}

func TestTokenBudget(t *testing.T) {
	src := "def f(a):\n    b = a + 1\n    c = b + 2\n    return c\n"
	// One token per non-space character at most: a budget of 12 tokens
	// splits where 1000 characters would not.
	var starts []int32
	for i := range src {
		if src[i] != ' ' && src[i] != '\n' {
			starts = append(starts, int32(i))
		}
	}
	l := lang.ByName("python")
	p := parse.New(0)
	defer p.Close()
	tree, err := p.Parse([]byte(src), l)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	defs := []chunk.Def{{Role: chunk.RoleFunction, Start: 0, End: len(src) - 1}}
	spans := New().Chunk(chunk.Input{Src: []byte(src), Tree: tree, Budget: chunk.Budget{Size: 1000, Tokens: 12}, Defs: defs, TokenStarts: starts})
	if len(spans) < 2 {
		t.Fatalf("spans %v: the token budget was not kept", spans)
	}
	var m chunk.Measure
	m.Reset([]byte(src), chunk.Budget{Size: 1000, Tokens: 12}, starts)
	for _, s := range spans {
		if !m.Fits(s.Start, s.End) {
			t.Errorf("span %v over the token budget", s)
		}
	}
}

// TestTextBetweenChildren: a node whose text its children do not cover (a
// Python string's content after a `\` line continuation, an escape
// sequence its only child) is split like any unit: that text joined the
// chunk before it whatever its size (CPython's test_pprint.py, a 13 KB
// string: a chunk of 4,254 at budget 2,000).
func TestTextBetweenChildren(t *testing.T) {
	src := "def f():\n    x = \"\"\"\\\naaaa bbbb cccc\ndddd eeee ffff\ngggg hhhh iiii\n\"\"\"\n    return x\n"
	got := chunkText(t, "python", src, chunk.Budget{Size: 14})
	if len(got) < 4 || strings.Join(got, "") != strings.TrimSuffix(src, "\n") {
		t.Errorf("got %q", got)
	}
}
