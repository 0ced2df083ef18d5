package inject

import (
	"fmt"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/cast"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
	"github.com/castchunk/castchunk/internal/record"
)

// regionsOf parses src as host and describes its regions, one per line:
// language, the code and the construct, and the kinds of the root's
// children of the region's tree.
func regionsOf(t *testing.T, host, src string) string {
	t.Helper()
	var b strings.Builder
	for _, r := range findRegions(t, host, src) {
		fmt.Fprintf(&b, "%s %q in %q:", r.Lang.Name, src[r.Start:r.End], src[r.From:r.To])
		root := r.Tree.RootNode()
		for i := uint(0); i < root.ChildCount(); i++ {
			fmt.Fprintf(&b, " %s", root.Child(i).Kind())
		}
		b.WriteString("\n")
	}
	return b.String()
}

// findRegions parses src as host and returns its regions, closed (with
// their trees) when the test ends.
func findRegions(t *testing.T, host, src string) []Region {
	t.Helper()
	p := parse.New(0)
	t.Cleanup(p.Close)
	l := lang.ByName(host)
	tree, err := p.Parse([]byte(src), l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tree.Close)
	f := NewFinder()
	t.Cleanup(f.Close)
	regions, err := f.Regions(p, l, []byte(src), tree)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Close(regions) })
	return regions
}

func TestMarkdownRegions(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"fence", "# T\n\n```rust\nfn a() {}\n```\n",
			"rust \"fn a() {}\\n\" in \"```rust\\nfn a() {}\\n```\\n\": function_item\n"},
		{"alias and attributes", "```py title=\"x.py\"\ndef f(): pass\n```\n",
			"python \"def f(): pass\\n\" in \"```py title=\\\"x.py\\\"\\ndef f(): pass\\n```\\n\": function_definition\n"},
		{"R Markdown's braces", "```{python, echo=FALSE}\nx = 1\n```\n",
			"python \"x = 1\\n\" in \"```{python, echo=FALSE}\\nx = 1\\n```\\n\": expression_statement\n"},
		{"unknown language", "```klingon\nqapla'\n```\n", ""},
		{"no info string", "```\nplain\n```\n", ""},
		{"the host's own language", "```markdown\n# inner\n```\n", ""},
		{"front matter", "---\ntitle: x\n---\n\n# T\n",
			"yaml \"---\\ntitle: x\\n---\\n\" in \"---\\ntitle: x\\n---\\n\": document document\n"},
		{"block quote: the > are left out", "> ```js\n> f(a, b);\n> ```\n",
			"javascript \"f(a, b);\\n> \" in \"```js\\n> f(a, b);\\n> ```\\n\": expression_statement\n"},
		{"two fences", "```go\npackage a\n```\n\ntext\n\n```c\nint x;\n```\n",
			"go \"package a\\n\" in \"```go\\npackage a\\n```\\n\": package_clause\nc \"int x;\\n\" in \"```c\\nint x;\\n```\\n\": declaration\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := regionsOf(t, "markdown", c.src); got != c.want {
				t.Errorf("%q:\n got %s\nwant %s", c.src, got, c.want)
			}
		})
	}
}

func TestHTMLRegions(t *testing.T) {
	src := `<style>p { color: red }</style>
<script>let a = 1;</script>
<script type="module">export const b = 2;</script>
<script type="application/json">{"c": 3}</script>
<script type="text/x-template"><p>{{ d }}</p></script>
`
	want := `css "p { color: red }" in "<style>p { color: red }</style>": rule_set
javascript "let a = 1;" in "<script>let a = 1;</script>": lexical_declaration
javascript "export const b = 2;" in "<script type=\"module\">export const b = 2;</script>": export_statement
json "{\"c\": 3}" in "<script type=\"application/json\">{\"c\": 3}</script>": object
`
	if got := regionsOf(t, "html", src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestForInfoString(t *testing.T) {
	for info, want := range map[string]string{
		"rust": "rust", "Rust": "rust", "py": "python", "python3": "python", "sh": "bash",
		"shell": "bash", "c++": "cpp", "ts": "typescript", "tsx": "tsx", "yml": "yaml",
		"{python}": "python", "go title=main.go": "go", ".js": "javascript", "jsonc": "json",
		"": "", "klingon": "", "console": "",
	} {
		got := ""
		if l := lang.ForInfoString(info); l != nil {
			got = l.Name
		}
		if got != want {
			t.Errorf("ForInfoString(%q) = %q, want %q", info, got, want)
		}
	}
}

// TestHostileRegions: many fences, a huge one, a long info string, a fence
// never closed: regions are found in time linear in the file, and each is
// parsed once.
func TestHostileRegions(t *testing.T) {
	many := strings.Repeat("```py\nx = 1\n```\n\n", 5000)
	if got := strings.Count(regionsOf(t, "markdown", many), "\n"); got != 5000 {
		t.Errorf("5,000 fences: %d regions", got)
	}
	huge := "```js\n" + strings.Repeat("f(1);\n", 50000) + "```\n"
	if got := regionsOf(t, "markdown", huge); !strings.HasPrefix(got, "javascript ") {
		t.Errorf("a 300 KB fence: %.80s", got)
	}
	long := "```" + strings.Repeat("x", 100000) + "\ncode\n```\n"
	if got := regionsOf(t, "markdown", long); got != "" {
		t.Errorf("a 100 KB info string: %.80s", got)
	}
	open := "```go\npackage a\n\nfunc f() {\n"
	if got := regionsOf(t, "markdown", open); !strings.HasPrefix(got, "go ") {
		t.Errorf("an unclosed fence: %q", got)
	}
}

// TestQueriesRooted: every injection query's patterns have roots that
// package match can run them at, so that finding regions costs a walk of
// the tree, not a query over every node.
func TestQueriesRooted(t *testing.T) {
	f := NewFinder()
	defer f.Close()
	for _, l := range lang.All() {
		q, err := f.query(l)
		if err != nil {
			t.Fatal(err)
		}
		if q != nil && q.roots == nil {
			t.Errorf("%s: an injection pattern's root cannot be told", l.Name)
		}
	}
}

func TestSvelteRegions(t *testing.T) {
	src := `<script lang="ts">let n: number = 1;</script>
<script context="module">export const k = 2;</script>
<p>{n}</p>
<style lang="scss">.a { .b { color: red } }</style>
<style>p { color: blue }</style>
`
	want := `typescript "let n: number = 1;" in "<script lang=\"ts\">let n: number = 1;</script>": lexical_declaration
javascript "export const k = 2;" in "<script context=\"module\">export const k = 2;</script>": export_statement
css "p { color: blue }" in "<style>p { color: blue }</style>": rule_set
`
	if got := regionsOf(t, "svelte", src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestVueRegions: a single-file component, parsed with the HTML grammar:
// its scripts in their languages, its style as CSS, its template (Vue's
// directives are attributes, {{ }} text) no region.
func TestVueRegions(t *testing.T) {
	src := `<template>
  <p v-if="n" :class="{ a: n }" @click="inc">{{ n }}</p>
</template>
<script lang="ts">export interface P { n: number }</script>
<script setup lang="ts">const n = ref<number>(1);</script>
<style scoped>p { color: blue }</style>
<style lang="scss">.a { .b { color: red } }</style>
`
	want := `typescript "export interface P { n: number }" in "<script lang=\"ts\">export interface P { n: number }</script>": export_statement
typescript "const n = ref<number>(1);" in "<script setup lang=\"ts\">const n = ref<number>(1);</script>": lexical_declaration
css "p { color: blue }" in "<style scoped>p { color: blue }</style>": rule_set
`
	if got := regionsOf(t, "vue", src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestChunkRegionOfOneNode: a region whose tree's only node spans all of
// it (a one-line script, an unclosed fence at the end of a file with no
// final line break) is split by that tree once: cast went on substituting
// the region's root for its own child, without end and without bound on
// memory.
func TestChunkRegionOfOneNode(t *testing.T) {
	for _, c := range []struct{ host, src string }{
		{"html", "<script>var x = 1;</script>\n"},
		{"html", "<style>a{color:red}</style>\n"},
		{"markdown", "</div>"},
		{"markdown", "# Notes\n\n```python\nDATA = [1, 2, 3, 4, 5, 6, 7, 8, 9]"},
		{"markdown", "```python\nDATA = [1, 2, 3, 4, 5, 6, 7, 8, 9]\n```"},
	} {
		p := parse.New(0)
		l := lang.ByName(c.host)
		src := []byte(c.src)
		tree, err := p.Parse(src, l)
		if err != nil {
			t.Fatal(err)
		}
		f := NewFinder()
		regions, err := f.Regions(p, l, src, tree)
		if err != nil {
			t.Fatal(err)
		}
		ch := cast.New()
		spans := ch.Chunk(chunk.Input{Src: src, Tree: tree, Budget: chunk.Budget{Size: 5}, Embedded: ForChunker(regions)})
		if err := chunk.CheckTiling(spans, len(src), 5); err != nil {
			t.Errorf("%q: %v", c.src, err)
		}
		ch.Close()
		Close(regions)
		f.Close()
		tree.Close()
		p.Close()
	}
}

// labelOf parses src as host and returns the language records give the
// chunk that starts right after the text after (which src holds once; ""
// for the start of the file) and holds chunk.
func labelOf(t *testing.T, host, src, after, chunk string) string {
	t.Helper()
	start := 0
	if after != "" {
		if strings.Count(src, after) != 1 {
			t.Fatalf("%q is not once in %q", after, src)
		}
		start = strings.Index(src, after) + len(after)
	}
	if !strings.HasPrefix(src[start:], chunk) {
		t.Fatalf("%q does not follow %q in %q", chunk, after, src)
	}
	file := record.File{Language: host, Src: []byte(src), Regions: Records(findRegions(t, host, src))}
	return file.LanguageAt(start, start+len(chunk))
}

// TestQuotedFenceLabels: in a block quote, the `> ` before each line of a
// fence are the host's, not code: a chunk of the whole quoted fence is
// the fence's language, one of its closing line alone (with the blank
// lines above it) the host's, as without the quote.
func TestQuotedFenceLabels(t *testing.T) {
	quoted := "> Note:\n>\n> ```js\n> f(a, b);\n>\n> g();\n>\n> ```\n\nafter\n"
	nested := "> > ```js\n> > f(a);\n> > ```\n"
	listed := "> - item\n>   ```js\n>   f(a);\n>   ```\n"
	for _, c := range []struct{ name, host, src, after, chunk, want string }{
		{"the whole quoted fence", "markdown", quoted, "Note:\n>\n", "> ```js\n> f(a, b);\n>\n> g();\n>\n> ```\n", "javascript"},
		{"its closing line", "markdown", quoted, "g();\n>\n", "> ```\n", "markdown"},
		{"its closing line and a blank line", "markdown", quoted, "g();\n", ">\n> ```\n", "markdown"},
		{"its opening line", "markdown", quoted, "Note:\n>\n", "> ```js\n", "markdown"},
		{"its opening line and a blank line", "markdown", "> ```js\n>\n> f();\n> ```\n", "", "> ```js\n>\n", "markdown"},
		{"a line of code", "markdown", quoted, "```js\n", "> f(a, b);\n", "javascript"},
		{"a blank line of code", "markdown", quoted, "f(a, b);\n", ">\n", "javascript"},
		{"the quote's text and the fence", "markdown", quoted, "", "> Note:\n>\n> ```js\n> f(a, b);\n", "markdown"},
		{"a fence quoted twice", "markdown", nested, "", nested, "javascript"},
		{"its closing line", "markdown", nested, "f(a);\n", "> > ```\n", "markdown"},
		{"a fence in a quoted list", "markdown", listed, "item\n", ">   ```js\n>   f(a);\n>   ```\n", "javascript"},
		{"a list item's fence with its marker", "markdown", "- ```js\n  f(a);\n  ```\n", "", "- ```js\n  f(a);\n  ```\n", "markdown"},
		{"a script after a tag on its line", "html", "<div><script>f()</script></div>\n", "", "<div><script>f()</script>", "html"},
		{"an indented fence", "markdown", "  ```js\n  f(a);\n  ```\n", "", "  ```js\n  f(a);\n  ```\n", "javascript"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := labelOf(t, c.host, c.src, c.after, c.chunk); got != c.want {
				t.Errorf("%q in %q: %s, want %s", c.chunk, c.src, got, c.want)
			}
		})
	}
}

// TestBOMLabels: a BOM at the start of the file is the host's bytes, not
// the text of a region's construct: the file's first chunk, the BOM and a
// whole fence or script, is the region's, as it is without the BOM.
func TestBOMLabels(t *testing.T) {
	const bom = "\ufeff"
	for _, c := range []struct{ name, host, src, want string }{
		{"a fence", "markdown", bom + "```js\nf(a);\n```\n", "javascript"},
		{"a fence after blank lines", "markdown", bom + "\n\n```js\nf(a);\n```\n", "javascript"},
		{"a quoted fence", "markdown", bom + "> ```js\n> f(a);\n> ```\n", "javascript"},
		{"front matter", "markdown", bom + "---\ntitle: x\n---\n", "yaml"},
		{"a script", "html", bom + "<script>f(a);</script>\n", "javascript"},
		{"a style", "html", bom + "<style>p { color: red }</style>\n", "css"},
		{"a Svelte script", "svelte", bom + "<script lang=\"ts\">let n: number = 1;</script>\n", "typescript"},
		{"the BOM and a paragraph", "markdown", bom + "text\n```js\nf(a);\n```\n", "markdown"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := labelOf(t, c.host, c.src, "", c.src); got != c.want {
				t.Errorf("%q: %s, want %s", c.src, got, c.want)
			}
			if got := labelOf(t, c.host, c.src[len(bom):], "", c.src[len(bom):]); got != c.want {
				t.Errorf("%q without its BOM: %s, want %s", c.src, got, c.want)
			}
		})
	}
}

// TestClosingFenceAtEnd: a fence's closing ``` at the end of a file with
// no final newline, which tree-sitter-markdown parses as the fence's
// content, is left out of the code: the region's tree has no ERROR for
// it, and a chunk of it alone is Markdown. A line that does not close the
// fence (shorter, other text after it, indented as code) stays code.
func TestClosingFenceAtEnd(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"```", "```js\nf(a);\n```", "javascript \"f(a);\\n```\" in \"```js\\nf(a);\\n```\": expression_statement\n"},
		{"spaces after it", "```js\nf(a);\n```  \t", "javascript \"f(a);\\n```  \\t\" in \"```js\\nf(a);\\n```  \\t\": expression_statement\n"},
		{"indented, longer", "~~~js\nf(a);\n   ~~~~", "javascript \"f(a);\\n   ~~~~\" in \"~~~js\\nf(a);\\n   ~~~~\": expression_statement\n"},
		{"CRLF", "```js\r\nf(a);\r\n```", "javascript \"f(a);\\r\\n```\" in \"```js\\r\\nf(a);\\r\\n```\": expression_statement\n"},
		{"quoted", "> ```js\n> f(a);\n> ```", "javascript \"f(a);\\n> ```\" in \"```js\\n> f(a);\\n> ```\": expression_statement\n"},
		{"nothing but it", "```js\n```", ""},
		{"shorter", "````js\nf(a);\n```", "javascript \"f(a);\\n```\" in \"````js\\nf(a);\\n```\": expression_statement ERROR\n"},
		{"text after it", "```js\nf(a);\n```x", "javascript \"f(a);\\n```x\" in \"```js\\nf(a);\\n```x\": expression_statement ERROR expression_statement\n"},
		{"four spaces", "```js\nf(a);\n    ```", "javascript \"f(a);\\n    ```\" in \"```js\\nf(a);\\n    ```\": expression_statement ERROR\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := regionsOf(t, "markdown", c.src); got != c.want {
				t.Errorf("%q:\n got %s\nwant %s", c.src, got, c.want)
			}
		})
	}
	src := "# T\n\n```js\nf(a);\n```"
	for chunk, want := range map[string]string{"```": "markdown", "f(a);\n```": "javascript"} {
		if got := labelOf(t, "markdown", src, strings.TrimSuffix(src, chunk), chunk); got != want {
			t.Errorf("%q in %q: %s, want %s", chunk, src, got, want)
		}
	}
}

// TestIndentedClosingFenceAtEnd: a fence opened with one to three spaces
// (which the grammar's opening delimiter holds) and closed by the file's
// last line, with no final newline, has that line left out of its code
// too: the closing line alone is Markdown, not the fence's language.
func TestIndentedClosingFenceAtEnd(t *testing.T) {
	for _, c := range []struct{ indent, close string }{
		{" ", " ```"}, {"  ", "  ```"}, {"   ", "   ```"}, {"  ", "```"}, {"  ", "   ````"},
	} {
		src := c.indent + "```js\n" + c.indent + "f(a);\n" + c.close
		want := fmt.Sprintf("javascript %q in %q: expression_statement\n", src[len(c.indent)+6:], src)
		if got := regionsOf(t, "markdown", src); got != want {
			t.Errorf("%q:\n got %s\nwant %s", src, got, want)
		}
		if got := labelOf(t, "markdown", src, "f(a);\n", c.close); got != "markdown" {
			t.Errorf("%q in %q: %s, want markdown", c.close, src, got)
		}
	}
}

// TestAttributeCase: a script's type, and a Svelte script's or style's
// lang, are compared ASCII case-insensitively, as browsers compare types,
// with the attribute's name, without the white space around the value,
// quoted or not. A value that is not ASCII never matches (Go's (?i) would
// fold ſ into s), nor does one that is not UTF-8.
func TestAttributeCase(t *testing.T) {
	for _, c := range []struct{ host, tag, want string }{
		{"html", `<script type="Module">`, "javascript"},
		{"html", `<script TYPE="MODULE">`, "javascript"},
		{"html", `<script type=" text/JavaScript ">`, "javascript"},
		{"html", `<script type="application/x-javascript">`, "javascript"},
		{"html", `<script type="text/javascript1.5">`, "javascript"},
		{"html", `<script type="">`, "javascript"},
		{"html", `<script type=" ">`, "javascript"},
		{"html", `<script type=module>`, "javascript"},
		{"html", `<script TYPE="application/LD+JSON">`, "json"},
		{"html", `<script type=application/json>`, "json"},
		{"html", `<script type="ImportMap">`, "json"},
		{"html", `<script type="speculationrules">`, "json"},
		{"html", `<script type="text/x-template">`, ""},
		{"html", `<script type=text/x-template>`, ""},
		{"html", `<script type="text/javaſcript">`, ""},
		{"html", "<script type=\"application/j\u017fon\">", ""},
		{"html", "<script type=\"text/java\xffscript\">", ""},
		{"html", "<script type=\"application/j\xffson\">", ""},
		{"svelte", `<script lang="TS">`, "typescript"},
		{"svelte", `<script LANG="TypeScript">`, "typescript"},
		{"svelte", `<script lang=ts>`, "typescript"},
		{"svelte", `<script lang="tſ">`, "javascript"},
		{"svelte", `<style lang="CSS">`, "css"},
		{"svelte", `<style LANG="SCSS">`, ""},
		{"svelte", `<style lang=scss>`, ""},
		{"svelte", `<style lang="cſs">`, ""},
		{"vue", `<script setup lang="ts">`, "typescript"},
		{"vue", `<script LANG="TypeScript">`, "typescript"},
		{"vue", `<script lang=TSX>`, "tsx"},
		{"vue", `<script setup lang="jsx">`, "javascript"},
		{"vue", `<script lang="JS">`, "javascript"},
		{"vue", `<script setup>`, "javascript"},
		{"vue", `<script lang="coffee">`, ""},
		{"vue", `<script lang="tſx">`, ""},
		{"vue", `<script lang="javaſcript">`, ""},
		{"vue", "<script lang=\"t\xffs\">", ""},
		{"vue", `<style scoped>`, "css"},
		{"vue", `<style lang="CSS" scoped>`, "css"},
		{"vue", `<style lang="scss">`, ""},
		{"vue", `<style lang=stylus>`, ""},
		{"vue", `<style lang="cſs">`, ""},
	} {
		end := "</script>"
		if strings.HasPrefix(c.tag, "<style") {
			end = "</style>"
		}
		src := c.tag + "a" + end + "\n"
		got := regionsOf(t, c.host, src)
		if lang, _, _ := strings.Cut(got, " "); lang != c.want {
			t.Errorf("%s %q: %q, want %s", c.host, src, got, c.want)
		}
	}
}
