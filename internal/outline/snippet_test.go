package outline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
)

// TestScopeSnippets pins the scope at the line marked ‹here› in small
// sources, one per rule the package documents.
func TestScopeSnippets(t *testing.T) {
	for _, c := range []struct{ lang, src, want string }{
		{"markdown", "# Guide\n\nintro\n\n## Install\n\n‹here›run it\n\n# Other\n", "section Guide > section Install"},
		{"json", "{\n  \"name\": \"x\",\n  \"dependencies\": {\n    ‹here›\"a\": \"1\"\n  }\n}\n", "key dependencies"},
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
