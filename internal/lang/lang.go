// Package lang is the language registry: the one place that knows which
// files map to which tree-sitter grammar. Nothing else in castchunk holds
// language knowledge (docs/design.md guarantee 5).
//
// Each language is one row of the registry table below: its name, the
// file name suffixes and exact file names that pick it, the interpreters
// whose shebang line names it, and its grammar module. Adding a language
// is its row, its module in go.mod, its definition query
// queries/NAME.scm (which may extend another language's query; without
// the file DefinitionQuery panics) and a sample under
// testdata/corpus/NAME/; the tests derive everything else from the table,
// the language table of docs/inputs.md included (Markdown).
package lang

import (
	"path"
	"runtime/debug"
	"sort"
	"strings"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"

	dart "github.com/UserNobody14/tree-sitter-dart/bindings/go"
	cuda "github.com/tree-sitter-grammars/tree-sitter-cuda/bindings/go"
	hcl "github.com/tree-sitter-grammars/tree-sitter-hcl/bindings/go"
	kotlin "github.com/tree-sitter-grammars/tree-sitter-kotlin/bindings/go"
	lua "github.com/tree-sitter-grammars/tree-sitter-lua/bindings/go"
	makefile "github.com/tree-sitter-grammars/tree-sitter-make/bindings/go"
	markdown "github.com/tree-sitter-grammars/tree-sitter-markdown/bindings/go"
	starlark "github.com/tree-sitter-grammars/tree-sitter-starlark/bindings/go"
	svelte "github.com/tree-sitter-grammars/tree-sitter-svelte/bindings/go"
	toml "github.com/tree-sitter-grammars/tree-sitter-toml/bindings/go"
	xml "github.com/tree-sitter-grammars/tree-sitter-xml/bindings/go"
	yaml "github.com/tree-sitter-grammars/tree-sitter-yaml/bindings/go"
	zig "github.com/tree-sitter-grammars/tree-sitter-zig/bindings/go"
	bash "github.com/tree-sitter/tree-sitter-bash/bindings/go"
	csharp "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	c "github.com/tree-sitter/tree-sitter-c/bindings/go"
	cpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	css "github.com/tree-sitter/tree-sitter-css/bindings/go"
	elixir "github.com/tree-sitter/tree-sitter-elixir/bindings/go"
	golang "github.com/tree-sitter/tree-sitter-go/bindings/go"
	haskell "github.com/tree-sitter/tree-sitter-haskell/bindings/go"
	html "github.com/tree-sitter/tree-sitter-html/bindings/go"
	java "github.com/tree-sitter/tree-sitter-java/bindings/go"
	javascript "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	json "github.com/tree-sitter/tree-sitter-json/bindings/go"
	julia "github.com/tree-sitter/tree-sitter-julia/bindings/go"
	ocaml "github.com/tree-sitter/tree-sitter-ocaml/bindings/go"
	php "github.com/tree-sitter/tree-sitter-php/bindings/go"
	python "github.com/tree-sitter/tree-sitter-python/bindings/go"
	r "github.com/tree-sitter/tree-sitter-r/bindings/go"
	ruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	rust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	scala "github.com/tree-sitter/tree-sitter-scala/bindings/go"
	swift "github.com/tree-sitter/tree-sitter-swift/bindings/go"
	typescript "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// Language is one supported language and its grammar.
type Language struct {
	Name         string   // name used in records and for --lang: lowercase
	Extensions   []string // file name suffixes, with the dot, matched case-sensitively
	FileNames    []string // exact file names (the last path element) that are this language
	Interpreters []string // programs a shebang line names (`#!/usr/bin/env node` → "node")
	Aliases      []string // other names GitHub's Linguist gives it (`linguist-language=C++`), matched case-insensitively
	Module       string   // Go module of the grammar
	HTMLScanner  bool     // its external scanner keeps tree-sitter-html's stack of open tags (package parse bounds its work)
	XMLScanner   bool     // its external scanner keeps tree-sitter-xml's stack of open tags, counted at another place (as HTMLScanner)
	FileKind     string   // the definition kind (outline.Kinds) a whole file is, named by its file name (outline.FileDef); "" none
	Private      Privacy  // which definitions and members are private (declaration chunking leaves them out); zero: none
	note         string   // a choice the lists do not show, for the table of docs/inputs.md (Markdown)
	grammar      func() unsafe.Pointer
}

// Grammar returns the tree-sitter language. Grammar values are static C
// data, so creating them on demand costs nothing and needs no Close: no
// grammar is touched until a file of its language is parsed.
func (l *Language) Grammar() *sitter.Language {
	return sitter.NewLanguage(l.grammar())
}

// Module paths of the grammars, for the rows below.
const (
	official = "github.com/tree-sitter/tree-sitter-"
	grammars = "github.com/tree-sitter-grammars/tree-sitter-"
)

// privateWord is the modifier most languages mark a private definition with.
var privateWord = []string{"private"}

// registry is the table of languages, one row each, sorted by name. It is
// immutable after package initialisation (static data: building it loads
// no grammar).
//
// Choices a row's lists cannot say (its note says them in docs/inputs.md):
//   - .h is C: a C++ header named .h is parsed as C unless --lang says
//     otherwise (the C grammar is error-tolerant, so it is still chunked).
//   - JavaScript uses the JavaScript grammar for .js and .jsx alike: it
//     parses JSX.
//   - PHP uses the grammar with HTML (LanguagePHP), not LanguagePHPOnly: a
//     .php file starts in HTML mode (`<?php` opens code, `?>` closes it, and
//     templates mix the two), which is what the php grammar parses; the
//     php_only grammar expects code without the opening tag.
//   - Markdown uses the block grammar (headings, lists, code blocks,
//     paragraphs): blocks are what chunks are made of; the inline grammar
//     (emphasis, links inside one paragraph) would only split text finer
//     than any budget needs, and a tree needs one grammar.
//   - Extensions, file names and interpreters each belong to one row.
//   - Where a grammar's module is not what its repository's name says,
//     go.mod says so: Swift (alex-pinkus/tree-sitter-swift: its version
//     tags have no "v" and its generated parser.c is only on the
//     with-generated-files branch, so go.mod pins that branch's commit of
//     0.7.3), Elixir (elixir-lang/tree-sitter-elixir v0.3.5) and R
//     (r-lib/tree-sitter-r v1.1.0: v1.2.0's Go binding leaves out its
//     scanner and does not link) declare the module path
//     github.com/tree-sitter/tree-sitter-NAME, which their own binding
//     tests import, so the rows name that path and a replace directive in
//     go.mod gives the author's module; Version reports the replacement's
//     version. Dart (UserNobody14/tree-sitter-dart) has no version tags:
//     go.mod pins a commit.
//   - Svelte's scanner is tree-sitter-html's, its open tags counted at
//     the same place (HTMLScanner); XML's keeps a stack of open tags too,
//     its count at another place (XMLScanner): both rebuild the whole
//     stack on every token, so package parse bounds their work.
//   - Vue single-file components are parsed with the HTML grammar, the
//     html row's: no Vue grammar is served by the module proxy at a
//     version (tree-sitter-grammars/tree-sitter-vue has none; ikatyang's
//     has no Go binding). HTML parses a component's <template>, <script>
//     and <style> elements; Vue's directives (v-if, @click, :prop, #slot)
//     are attribute names to it and {{ }} is text. Two rows may share a
//     grammar (tsx and typescript share a module): a row is a language,
//     with its own name, files, injection and definition queries.
var registry = []*Language{
	{Name: "bash", Extensions: []string{".sh", ".bash"},
		Aliases:      []string{"Shell", "sh", "zsh"},
		FileNames:    []string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile", "PKGBUILD"},
		Interpreters: []string{"bash", "sh", "dash", "ash", "ksh", "mksh"},
		Module:       official + "bash", grammar: bash.Language},
	{Name: "c", Extensions: []string{".c", ".h"},
		note:   "a `.h` file is C; `--lang cpp` for a C++ header",
		Module: official + "c", grammar: c.Language},
	{Name: "cpp", Extensions: []string{".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"},
		Aliases: []string{"C++"},
		Module:  official + "cpp", Private: Privacy{Words: privateWord},
		grammar: cpp.Language},
	{Name: "csharp", Extensions: []string{".cs"},
		Aliases: []string{"C#", "cs"},
		Module:  official + "c-sharp", Private: Privacy{Words: privateWord, Public: []string{"public", "protected", "internal"}, Members: true},
		grammar: csharp.Language},
	{Name: "css", Extensions: []string{".css"},
		Module: official + "css", grammar: css.Language},
	{Name: "cuda", Extensions: []string{".cu", ".cuh"},
		Module: grammars + "cuda", grammar: cuda.Language},
	{Name: "dart", Extensions: []string{".dart"},
		Interpreters: []string{"dart"},
		Module:       "github.com/UserNobody14/tree-sitter-dart", Private: Privacy{Prefix: "_"},
		grammar: dart.Language},
	{Name: "elixir", Extensions: []string{".ex", ".exs"},
		Interpreters: []string{"elixir"},
		Module:       official + "elixir", Private: Privacy{Words: []string{"defp", "defmacrop", "defguardp"}},
		grammar: elixir.Language},
	{Name: "go", Extensions: []string{".go"},
		Aliases: []string{"golang"},
		Module:  official + "go", Private: Privacy{Exported: true},
		grammar: golang.Language},
	{Name: "haskell", Extensions: []string{".hs", ".hs-boot"},
		Interpreters: []string{"runhaskell", "runghc"},
		Module:       official + "haskell", grammar: haskell.Language},
	{Name: "hcl", Extensions: []string{".tf", ".tfvars", ".hcl"},
		Aliases: []string{"HashiCorp Configuration Language", "terraform"},
		note:    "Terraform and other HashiCorp configuration",
		Module:  grammars + "hcl", grammar: hcl.Language},
	{Name: "html", Extensions: []string{".html", ".htm"},
		Module: official + "html", HTMLScanner: true, grammar: html.Language},
	{Name: "java", Extensions: []string{".java"},
		Interpreters: []string{"java"},
		Module:       official + "java", Private: Privacy{Words: privateWord},
		grammar: java.Language},
	{Name: "javascript", Extensions: []string{".js", ".mjs", ".cjs", ".jsx"},
		Aliases:      []string{"js", "node"},
		Interpreters: []string{"node", "nodejs"},
		note:         "one grammar: it parses JSX",
		Module:       official + "javascript", Private: Privacy{Prefix: "#", Words: privateWord},
		grammar: javascript.Language},
	{Name: "json", Extensions: []string{".json"},
		Module: official + "json", grammar: json.Language},
	{Name: "julia", Extensions: []string{".jl"},
		Interpreters: []string{"julia"},
		Module:       official + "julia", grammar: julia.Language},
	{Name: "kotlin", Extensions: []string{".kt", ".kts"},
		Aliases:      []string{"kt"},
		Interpreters: []string{"kotlin"},
		Module:       grammars + "kotlin", Private: Privacy{Words: privateWord},
		grammar: kotlin.Language},
	{Name: "lua", Extensions: []string{".lua"},
		Interpreters: []string{"lua", "luajit"},
		Module:       grammars + "lua", grammar: lua.Language},
	{Name: "makefile", Extensions: []string{".mk", ".mak"},
		Aliases:      []string{"bsdmake", "make", "mf"},
		FileNames:    []string{"Makefile", "makefile", "GNUmakefile"},
		Interpreters: []string{"make"},
		note:         "GNU make's grammar",
		Module:       grammars + "make", grammar: makefile.Language},
	{Name: "markdown", Extensions: []string{".md", ".markdown"},
		Aliases: []string{"md"},
		note:    "the block grammar: headings, lists, code blocks, paragraphs",
		Module:  grammars + "markdown", grammar: markdown.Language},
	{Name: "ocaml", Extensions: []string{".ml"},
		Interpreters: []string{"ocaml"},
		note:         "implementations; `.mli` interfaces need the grammar's other language and are not parsed",
		Module:       official + "ocaml", grammar: ocaml.LanguageOCaml},
	{Name: "php", Extensions: []string{".php", ".phtml"},
		Interpreters: []string{"php"},
		note:         "the grammar with HTML: a file starts in HTML until `<?php`",
		Module:       official + "php", Private: Privacy{Words: privateWord},
		grammar: php.LanguagePHP},
	{Name: "python", Extensions: []string{".py", ".pyi"},
		Aliases:      []string{"py", "python3"},
		Interpreters: []string{"python", "python2", "python3", "pypy", "pypy3"},
		Module:       official + "python", Private: Privacy{Prefix: "_"},
		grammar: python.Language},
	{Name: "r", Extensions: []string{".R", ".r"},
		Aliases:      []string{"Rscript", "splus"},
		FileNames:    []string{".Rprofile"},
		Interpreters: []string{"Rscript"},
		Module:       official + "r", grammar: r.Language},
	{Name: "ruby", Extensions: []string{".rb", ".rake", ".gemspec", ".ru"},
		Aliases:      []string{"rb"},
		FileNames:    []string{"Rakefile", "Gemfile", "Guardfile", "Vagrantfile", "Podfile", "Brewfile"},
		Interpreters: []string{"ruby", "jruby", "rake"},
		Module:       official + "ruby", Private: Privacy{Words: privateWord},
		grammar: ruby.Language},
	{Name: "rust", Extensions: []string{".rs"},
		Module: official + "rust", Private: Privacy{Public: []string{"pub"}},
		grammar: rust.Language},
	{Name: "scala", Extensions: []string{".scala", ".sc", ".sbt"},
		Interpreters: []string{"scala"},
		Module:       official + "scala", Private: Privacy{Words: privateWord},
		grammar: scala.Language},
	{Name: "starlark", Extensions: []string{".bzl", ".star", ".bazel"},
		Aliases:   []string{"bazel", "bzl"},
		FileNames: []string{"BUILD", "WORKSPACE", "BUCK", "Tiltfile"},
		note:      "Bazel and Buck files: `BUILD.bazel` and `MODULE.bazel` by their extension",
		Module:    grammars + "starlark", grammar: starlark.Language},
	{Name: "svelte", Extensions: []string{".svelte"},
		note:   "the component's markup tree, its `<script>` and `<style>` parsed as their own languages",
		Module: grammars + "svelte", HTMLScanner: true, FileKind: "component", grammar: svelte.Language},
	{Name: "swift", Extensions: []string{".swift"},
		Interpreters: []string{"swift"},
		Module:       official + "swift", Private: Privacy{Words: []string{"private", "fileprivate"}},
		grammar: swift.Language},
	{Name: "toml", Extensions: []string{".toml"},
		FileNames: []string{"Pipfile"},
		Module:    grammars + "toml", grammar: toml.Language},
	{Name: "tsx", Extensions: []string{".tsx"},
		note:   "the TSX grammar",
		Module: official + "typescript", Private: Privacy{Prefix: "#", Words: privateWord},
		grammar: typescript.LanguageTSX},
	{Name: "typescript", Extensions: []string{".ts", ".mts", ".cts"},
		Aliases:      []string{"ts"},
		Interpreters: []string{"ts-node", "deno"},
		note:         "the TypeScript grammar",
		Module:       official + "typescript", Private: Privacy{Prefix: "#", Words: privateWord},
		grammar: typescript.LanguageTypescript},
	{Name: "vue", Extensions: []string{".vue"},
		note:   "parsed with the HTML grammar, as no Vue grammar module is served: the template is HTML and its `{{ }}` expressions are text",
		Module: official + "html", HTMLScanner: true, FileKind: "component", grammar: html.Language},
	{Name: "xml", Extensions: []string{".xml", ".xsd", ".xsl", ".xslt", ".xaml", ".csproj", ".fsproj", ".vbproj", ".props", ".targets"},
		Aliases: []string{"rss", "xsd", "wsdl", "XSLT"},
		Module:  grammars + "xml", XMLScanner: true, grammar: xml.LanguageXML},
	{Name: "yaml", Extensions: []string{".yaml", ".yml"},
		Aliases: []string{"yml"},
		Module:  grammars + "yaml", grammar: yaml.Language},
	{Name: "zig", Extensions: []string{".zig"},
		Module: grammars + "zig", Private: Privacy{Public: []string{"pub"}},
		grammar: zig.Language},
}

// Markdown is the language table of docs/inputs.md: one row per language, sorted
// by name, with its extensions (and note), its file names and the code in
// other languages its files embed (Embeds).
func Markdown() string {
	var b strings.Builder
	b.WriteString("| language | extensions | file names | embedded code |\n| --- | --- | --- | --- |\n")
	for _, l := range All() {
		exts := code(l.Extensions)
		if l.note != "" {
			exts += " (" + l.note + ")"
		}
		b.WriteString("|")
		for _, cell := range []string{"`" + l.Name + "`", exts, code(l.FileNames), l.Embeds()} {
			if cell != "" {
				cell = " " + strings.ReplaceAll(cell, "|", "\\|")
			}
			b.WriteString(cell + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// code formats values as Markdown code spans separated by spaces.
func code(values []string) string {
	var parts []string
	for _, v := range values {
		parts = append(parts, "`"+v+"`")
	}
	return strings.Join(parts, " ")
}

// All returns the supported languages sorted by name.
func All() []*Language {
	out := append([]*Language(nil), registry...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns the language names, sorted.
func Names() []string {
	var names []string
	for _, l := range All() {
		names = append(names, l.Name)
	}
	return names
}

// ByName finds a language by its name; nil when unknown.
func ByName(name string) *Language {
	for _, l := range registry {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// ForPath picks the language of a file from its name alone: an exact file
// name of a row first (Rakefile, .bashrc), else its extension, the part of
// the last path element from its last dot; nil when unsupported. Both match
// case-sensitively, as the toolchains of these languages do. A path ending
// with "/" names a folder and has no language.
func ForPath(p string) *Language {
	if p == "" || strings.HasSuffix(p, "/") {
		return nil
	}
	base := path.Base(p)
	for _, l := range registry {
		for _, n := range l.FileNames {
			if n == base {
				return l
			}
		}
	}
	ext := path.Ext(base)
	if ext == "" {
		return nil
	}
	for _, l := range registry {
		for _, e := range l.Extensions {
			if e == ext {
				return l
			}
		}
	}
	return nil
}

// ForInterpreter picks the language of a script from the program its
// shebang line names, as package detect reads it ("python3", "bash",
// "node"); nil when no row names that program.
func ForInterpreter(prog string) *Language {
	if prog == "" {
		return nil
	}
	for _, l := range registry {
		for _, i := range l.Interpreters {
			if i == prog {
				return l
			}
		}
	}
	return nil
}

// Version reports the grammar module's version as linked into this binary,
// read from the build information so it can never disagree with go.mod.
func (l *Language) Version() string {
	return ModuleVersion(l.Module)
}

// Source reports the module the grammar is built from: its Module, or the
// module go.mod replaces it with (the registry says why a row's is), as
// this binary's build information says.
func (l *Language) Source() string {
	return ModuleSource(l.Module)
}

// ModuleSource returns the module a dependency linked into this binary is
// built from: the replacement's path when go.mod replaces it, else module
// itself (also when the build carries no module information).
func ModuleSource(module string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return module
	}
	for _, dep := range info.Deps {
		if dep.Path == module && dep.Replace != nil {
			return dep.Replace.Path
		}
	}
	return module
}

// ModuleVersion returns the version of a dependency linked into this binary,
// or "unknown" when the build carries no module information.
func ModuleVersion(module string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == module {
			if dep.Replace != nil {
				return dep.Replace.Version
			}
			return dep.Version
		}
	}
	return "unknown"
}
