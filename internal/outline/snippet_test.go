package outline

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

// TestScopeSnippets pins the scope at the line marked ‹here› in small
// sources, one per rule the package documents.
func TestScopeSnippets(t *testing.T) {
	for _, c := range []struct{ lang, src, want string }{
		{"markdown", "# Guide\n\nintro\n\n## Install\n\n‹here›run it\n\n# Other\n", "section Guide > section Install"},
		{"json", "{\n  \"name\": \"x\",\n  \"dependencies\": {\n    ‹here›\"a\": \"1\"\n  }\n}\n", "key dependencies"},
		{"json", "{\"patternProperties\": {\"^\\\\d+$\": {\n  ‹here›\"type\": \"string\"}}}\n", "key patternProperties > key ^\\d+$"},
		{"python", "class A:\n    @property\n    def f(self):\n        ‹here›return 1\n", "class A > method f"},
		{"python", "class A:\n    ‹here›@property\n    def f(self):\n        return 1\n", "class A"},
		{"python", "def f():\n    def g():\n        ‹here›pass\n", "function f > function g"},
		{"go", "package p\n\ntype T[K any] struct{}\n\nfunc (t *T[K]) Get() {\n\t‹here›return\n}\n", "method T.Get"},
		{"rust", "impl fmt::Display for Ini {\n    fn fmt(&self) {\n        ‹here›x\n    }\n}\n", "impl fmt::Display for Ini > method fmt"},
		{"javascript", "const f = async () => {\n  ‹here›return 1;\n};\n", "function f"},
		{"javascript", "app.get('/', (req, res) => {\n  ‹here›res.send(1);\n});\n", ""},
		{"typescript", "export class A {\n  constructor() {\n    ‹here›x();\n  }\n}\n", "class A > constructor constructor"},
		{"ruby", "module M\n  class << self\n    def f\n      ‹here›1\n    end\n  end\nend\n", "module M > method self.f"},
		{"yaml", "jobs:\n  build:\n    steps:\n      - ‹here›run: x\n", "key jobs > key build > key steps"},
		{"toml", "[package]\nname = \"x\"\n\n[dependencies]\n‹here›serde = \"1\"\n", "table dependencies"},
		{"css", "@media (max-width: 600px) {\n  .a {\n    ‹here›color: red;\n  }\n}\n", "rule @media (max-width: 600px) > rule .a"},
		{"html", "<main id=\"content\">\n  <p>‹here›x</p>\n</main>\n", "element content"},
		{"kotlin", "class A {\n    companion object {\n        fun f() {\n            ‹here›g()\n        }\n    }\n}\n", "class A > object companion object > method f"},
		{"lua", "function M:step()\n  ‹here›x()\nend\n", "method M:step"},
		// Module-level values and test blocks (issue 20); locals are not definitions.
		{"typescript", "export const schema = z.object({\n  ‹here›name: z.string(),\n});\n", "variable schema"},
		{"javascript", "function f() {\n  const local = {\n    ‹here›a: 1,\n  };\n}\n", "function f"},
		{"typescript", "describe('the \\'bus\\'', () => {\n  it(`publishes`, async () => {\n    ‹here›expect(1).toBe(1);\n  });\n});\n", "test the \\'bus\\' > test publishes"},
		{"tsx", "test.each([1, 2])('renders %i', (n) => {\n  ‹here›render(<A n={n} />);\n});\n", "test renders %i"},
		{"javascript", "export default function () {\n  ‹here›return 1;\n}\n", "function default"},
		{"javascript", "export default class {\n  m() {\n    ‹here›x();\n  }\n}\n", "class default > method m"},
		{"python", "ROUTES = [\n    ‹here›\"/a\",\n]\n", "variable ROUTES"},
		{"python", "def f():\n    table = [\n        ‹here›1,\n    ]\n", "function f"},
		{"go", "package p\n\nvar (\n\tA = 1\n\tB = map[string]int{\n\t\t‹here›\"b\": 2,\n\t}\n)\n", "variable B"},
		{"rust", "mod m {\n    pub static TABLE: [u8; 2] = [\n        ‹here›1, 2,\n    ];\n}\n", "module m > variable TABLE"},
		{"ruby", "RSpec.describe Parser do\n  context \"with 'quotes'\" do\n    it 'parses' do\n      ‹here›x\n    end\n  end\nend\n", "test Parser > test with 'quotes' > test parses"},
		{"markdown", "# [1.2.3](https://x.org/v1.2.3) - 2024-05-01\n\n## *Fixed* `--max-size`\n\n‹here›text\n", "section 1.2.3 - 2024-05-01 > section Fixed --max-size"},
		// Dart: a signature and its body are siblings, one definition.
		{"dart", "class Cart {\n  int total() {\n    ‹here›return 1;\n  }\n}\n", "class Cart > method total"},
		{"dart", "void main() {\n  ‹here›run();\n}\n", "function main"},
		{"swift", "extension Bucket: CustomStringConvertible {\n    var description: String {\n        ‹here›return \"b\"\n    }\n}\n", "impl Bucket > property description"},
		{"elixir", "defmodule A.B do\n  def f(x) when x > 0 do\n    ‹here›x\n  end\nend\n", "module A.B > function f"},
		{"haskell", "instance Show T where\n  show _ =\n    ‹here›\"t\"\n", "impl Show T > method show"},
		{"zig", "test \"ring buffer\" {\n    ‹here›try f();\n}\n", "test ring buffer"},
		{"hcl", "resource \"aws_instance\" \"web\" {\n  lifecycle {\n    ‹here›create_before_destroy = true\n  }\n}\n", "table resource \"aws_instance\" \"web\" > table lifecycle"},
		{"makefile", "build/%.o: src/%.c\n\t‹here›$(CC) -c -o $@ $<\n", "rule build/%.o"},
		{"r", "f <- function(x) {\n  ‹here›x + 1\n}\n", "function f"},
		{"julia", "module M\nfunction Base.show(io::IO, x::T) where {T}\n    ‹here›print(io, x)\nend\nend\n", "module M > function Base.show"},
		{"starlark", "cc_library(\n    name = \"core\",\n    ‹here›srcs = [\"a.cc\"],\n)\n", "rule core"},
		// Module-level values and test blocks of the later languages; locals are not definitions.
		{"zig", "const limits = .{\n    ‹here›.max = 4,\n};\n", "variable limits"},
		{"zig", "fn f() void {\n    const local = .{\n        ‹here›.a = 1,\n    };\n}\n", "function f"},
		{"julia", "module M\nconst TABLE = [\n    ‹here›1, 2,\n]\nend\n", "module M > variable TABLE"},
		{"julia", "function f()\n    t = [\n        ‹here›1,\n    ]\nend\n", "function f"},
		{"julia", "@testset \"kmeans\" begin\n    @testset \"empty\" begin\n        ‹here›@test true\n    end\nend\n", "test kmeans > test empty"},
		{"r", "opts <- list(\n  ‹here›a = 1\n)\n", "variable opts"},
		{"r", "f <- function() {\n  t <- list(\n    ‹here›a = 1\n  )\n}\n", "function f"},
		{"elixir", "defmodule A do\n  @table %{\n    ‹here›a: 1\n  }\n  @moduledoc \"\"\"\n  x\n  \"\"\"\nend\n", "module A > variable table"},
		{"elixir", "defmodule A do\n  @moduledoc \"\"\"\n  ‹here›x\n  \"\"\"\nend\n", "module A"},
		{"dart", "const prices = {\n  ‹here›'a': 1,\n};\n", "variable prices"},
		{"dart", "void main() {\n  group('Cart', () {\n    test('adds', () {\n      ‹here›expect(1, 1);\n    });\n  });\n}\n", "function main > test Cart > test adds"},
		{"dart", "class C {\n  static const k = {\n    ‹here›'a': 1,\n  };\n}\n", "class C"},
		{"lua", "local DEFAULTS = {\n  ‹here›a = 1,\n}\n", "variable DEFAULTS"},
		{"lua", "local function f()\n  local t = {\n    ‹here›a = 1,\n  }\nend\n", "function f"},
		{"lua", "describe(\"heap\", function()\n  it(\"pops\", function()\n    ‹here›x()\n  end)\nend)\n", "test heap > test pops"},
		{"swift", "let defaults: [String: Int] = [\n    ‹here›\"a\": 1,\n]\n", "variable defaults"},
		{"swift", "struct S {\n    static let shared = [\n        ‹here›1,\n    ]\n}\n", "struct S"},
		{"kotlin", "val defaults = mapOf(\n    ‹here›\"a\" to 1,\n)\n", "variable defaults"},
		{"kotlin", "fun f() {\n    val local = listOf(\n        ‹here›1,\n    )\n}\n", "function f"},
		{"ocaml", "module M = struct\n  let table = [\n    ‹here›1;\n  ]\nend\n", "module M > variable table"},
		{"ocaml", "let f x =\n  let t = [\n    ‹here›x;\n  ] in\n  t\n", "function f"},
		{"scala", "val defaults = Map(\n  ‹here›\"a\" -> 1,\n)\n", "variable defaults"},
		{"scala", "class ATest extends munit.FunSuite {\n  test(\"adds\") {\n    ‹here›assert(true)\n  }\n}\n", "class ATest > test adds"},
		{"php", "<?php\n$config = [\n    ‹here›'a' => 1,\n];\n", "variable $config"},
		{"php", "<?php\nfunction f() {\n    $t = [\n        ‹here›1,\n    ];\n}\n", "function f"},
		{"php", "<?php\ndescribe('cart', function () {\n    it('adds', function () {\n        ‹here›expect(1)->toBe(1);\n    });\n});\n", "test cart > test adds"},
		{"c", "static const int table[] = {\n    ‹here›1, 2,\n};\n", "variable table"},
		{"c", "int f(void) {\n    int t[] = {\n        ‹here›1,\n    };\n}\n", "function f"},
		{"cpp", "namespace geo {\nconstexpr int kSizes[] = {\n    ‹here›1, 2,\n};\n}\n", "namespace geo > variable kSizes"},
		{"cpp", "class K {\n    int m[2] = {\n        ‹here›1, 2,\n    };\n};\n", "class K"},
		{"starlark", "DEPS = [\n    ‹here›\"//a\",\n]\n", "variable DEPS"},
		{"hcl", "locals {\n  tags = {\n    ‹here›a = 1\n  }\n}\n", "table locals > variable tags"},
		{"haskell", "main = hspec $ do\n  describe \"Queue\" $ do\n    it \"pops\" $\n      ‹here›True `shouldBe` True\n", "function main > test Queue > test pops"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			if got := snippetScope(t, c.lang, c.src); got != c.want {
				t.Errorf("%q: scope %q, want %q", c.src, got, c.want)
			}
		})
	}
}

func snippetScope(t *testing.T, name, marked string) string {
	const mark = "‹here›"
	at := strings.Index(marked, mark)
	src := []byte(strings.Replace(marked, mark, "", 1))
	l := lang.ByName(name)
	p, f := parse.New(0), NewFinder()
	defer p.Close()
	defer f.Close()
	tree, err := p.Parse(src, l)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	defs, err := f.Find(l, src, tree)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, d := range Scope(nil, defs, src, at, len(src)) {
		parts = append(parts, fmt.Sprintf("%s %s", d.Kind, d.Name))
	}
	return strings.Join(parts, " > ")
}

// TestJSONKeyNames pins the names of JSON keys: the whole key, its escapes
// decoded, not the text up to the first escape.
func TestJSONKeyNames(t *testing.T) {
	for _, c := range []struct{ key, want string }{
		{`"plain"`, "plain"},
		{`"p\"q"`, `p"q`},
		{`"^\\d+$"`, `^\d+$`},
		{`"caf\u00e9"`, "café"},
		{`"caf\u00E9s"`, "cafés"},
		{`"\ud83d\ude00 grin"`, "\U0001F600 grin"},
		{`"a\/b"`, "a/b"},
		{`"tab\there"`, "tab here"},
		{`"two\nlines\r\n  indented"`, "two lines indented"},
		{`"\u2028sep\u2029"`, "sep"},
		{`"lone \ud800 high"`, "lone \uFFFD high"},
		{`"lone \udc00 low"`, "lone \uFFFD low"},
		{`"high then bmp \ud800\u0041"`, "high then bmp \uFFFDA"},
		{`"\b\f"`, "\b"},
		{`"\u0000x"`, "\x00x"},
		{`"bad \u12"`, `bad \u12`},
		{`"bad \q"`, `bad \q`},
		{`"` + strings.Repeat(`\u00e9`, MaxName) + `"`, strings.Repeat("é", MaxName/2)},
		{"\"raw \xff byte\"", "raw \uFFFD byte"},
		{`"ü raw"`, "ü raw"},
		{`"\n \t"`, ""},
		{`""`, ""},
	} {
		src := "{" + c.key + ": {}}"
		got := ""
		for _, d := range snippetDefs(t, "json", src) {
			if d.Kind != "key" {
				t.Errorf("%s: kind %q", src, d.Kind)
			}
			got = d.Name
		}
		if got != c.want {
			t.Errorf("%s: name %q, want %q", src, got, c.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s: name %q is not UTF-8", src, got)
		}
	}
}

func snippetDefs(t *testing.T, name, src string) []Def {
	t.Helper()
	l := lang.ByName(name)
	p, f := parse.New(0), NewFinder()
	defer p.Close()
	defer f.Close()
	tree, err := p.Parse([]byte(src), l)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	defs, err := f.Find(l, []byte(src), tree)
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// TestQuotedNamesWhole pins the names other grammars give quoted keys and
// string names with escapes in them: the whole literal as written, not the
// text up to its first escape. Unlike JSON's, they are not decoded.
func TestQuotedNamesWhole(t *testing.T) {
	for _, c := range []struct{ lang, src, want string }{
		{"yaml", "\"p\\\"q\": {a: 1}\n", `"p\"q"`},
		{"yaml", "'it''s':\n  - 1\n", `'it''s'`},
		{"toml", "[\"p\\\"q\".b]\na = 1\n", `"p\"q".b`},
		{"javascript", "const o = {\"a\\\"b\": () => 1};\n", `"a\"b"`},
		{"typescript", "interface I { \"m\\\"n\"(): void }\n", `"m\"n"`},
		{"css", "[data-x=\"p\\\"q\"] { color: red }\n", `[data-x="p\"q"]`},
		{"html", "<p id=\"a&amp;b\">x</p>\n", "a&amp;b"},
	} {
		defs := snippetDefs(t, c.lang, c.src)
		if len(defs) == 0 {
			t.Errorf("%s %q: no definitions", c.lang, c.src)
		} else if got := defs[len(defs)-1].Name; got != c.want {
			t.Errorf("%s %q: name %q, want %q", c.lang, c.src, got, c.want)
		}
	}
}
