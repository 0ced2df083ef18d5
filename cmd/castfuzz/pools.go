// Token pools: what castfuzz builds its random inputs from, per language.
//
// A language's pool is the punctuation every grammar sees (brackets,
// quotes, operators), the delimiters that open and close its comments,
// strings, heredocs and templates (where scanners keep state and grammars
// backtrack), pairs of openers and closers to nest, and the keywords and
// identifiers of its seed files, split on non-word characters. The
// delimiter lists are written by hand below; the words come from
// testdata/corpus/<name>/.
package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"unicode"
	"unicode/utf8"
)

// pool is what one language's inputs are made of.
type pool struct {
	punct  []string    // punctuation, operators and delimiters
	pairs  [][2]string // an opener and its closer, for nesting
	words  []string    // keywords and identifiers of the seed files
	seeds  [][]byte    // the seed files themselves, for mutations
	names  []string    // the seed files' names, beside seeds
	indent bool        // indentation matters to the grammar (layout)
}

// common is punctuation every language's pool holds.
var common = []string{
	"(", ")", "[", "]", "{", "}", "<", ">", "\"", "'", "`", ";", ",", ".", ":",
	"=", "+", "-", "*", "/", "%", "!", "?", "&", "|", "^", "~", "#", "@", "$",
	"\\", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "->", "=>", "::", "...",
	"0", "1", "42", "0x1F", "3.14", "1e10", "-1",
}

// commonPairs are brackets every grammar knows.
var commonPairs = [][2]string{{"(", ")"}, {"[", "]"}, {"{", "}"}}

var (
	cComments  = []string{"/*", "*/", "//", "/**", "///"}
	cPre       = []string{"#define ", "#include <", "#include \"", "#if ", "#ifdef X\n", "#ifndef ", "#else\n", "#elif ", "#endif\n", "#pragma ", "\\\n", "'\\''", "'\\n'", "L\"", "u8\""}
	jsLike     = []string{"`", "${", "}`", "=>", "/re/g", "/[/]/", "?.", "??", "??=", "...", "#!", "<div>", "</div>", "<>", "</>", "{/*", "*/}", "<!--", "-->", "@dec", "async", "await", "yield", "function*", "class", "static {", "get ", "set ", "#priv", "import(", "export default", "\\u{", "\\u00", "'\\", "\"\\"}
	tsExtra    = []string{"<T>", "<T extends", "as", "satisfies", "enum", "interface", "type", "declare", "abstract", "namespace", "keyof", "infer", "readonly", ": ", "?: ", "!: ", "<const T>", "asserts", "is", "unique symbol", "abstract new ("}
	htmlLike   = []string{"<", ">", "</", "/>", "<!--", "-->", "<script>", "</script>", "<style>", "</style>", "<div>", "</div>", "<p>", "<li>", "<td>", "<tr>", "<table>", "<textarea>", "</textarea>", "<pre>", "<br>", "<img src=", "<![CDATA[", "]]>", "<!DOCTYPE html>", "&amp;", "&#x41;", "&", "=\"", "='", "<a href=\"", "</a>", "<template>", "</template>", "<svg>", "<math>", "<title>", "</title>", "<plaintext>", "<noscript>", "<iframe>", "<script type=\"module\">"}
	htmlPairs  = [][2]string{{"<div>", "</div>"}, {"<p>", "</p>"}, {"<span>", "</span>"}, {"<ul><li>", "</li></ul>"}, {"<table><tr><td>", "</td></tr></table>"}, {"<section>", "</section>"}, {"<b>", "</b>"}, {"<!--", "-->"}}
	pythonLike = []string{"#", "\"\"\"", "'''", "f\"", "f'{", "}'", "r\"", "b'", "rb'", "\\\n", ":", "    ", "\t", "lambda", "->", "**", "//", "@", ":=", "...", "def ", "class ", "if ", "elif ", "else:", "for ", "while ", "try:", "except ", "finally:", "with ", "return", "yield", "match ", "case ", "async def ", "await ", "global ", "nonlocal ", "pass", "import ", "from ", "f\"{", "!r}", ":>10}"}
)

// extras are the delimiters and openers of each language, by name.
var extras = map[string][]string{
	"bash":       {"<<EOF\n", "<<-EOF\n", "EOF\n", "<<'EOF'\n", "<<<", "$(", "${", "$((", "))", "[[", "]]", ";;", ";&", "case ", " in\n", "esac", "fi", "then", "do", "done", "elif", "|&", "&>", ">&2", "2>&1", "$'", "$\"", "${x:-", "${x#", "${!", "@(", "function ", "() {", "\\\n", "#!/bin/bash\n", "`", "<(", ">(", "((", "=~", "$@", "$#", "$?"},
	"c":          append(append([]string{}, cComments...), cPre...),
	"cpp":        append(append(append([]string{}, cComments...), cPre...), "R\"(", ")\"", "R\"x(", ")x\"", "template<", "template <typename T>", "::", "->*", ".*", "<=>", "operator", "co_await", "requires", "concept", "[[nodiscard]]", "[](", "decltype(", "constexpr", "noexcept", "typename", "'", "1'000"),
	"cuda":       append(append(append([]string{}, cComments...), cPre...), "<<<", ">>>", "__global__", "__device__", "__shared__", "__host__", "template<", "::", "R\"(", ")\""),
	"csharp":     {"/*", "*/", "//", "///", "@\"", "$\"", "$@\"", "@$\"", "\"\"\"", "$\"\"\"", "{{", "}}", "#region", "#endregion", "#if", "#endif", "#nullable", "??", "?.", "??=", "?[", "=>", "<T>", "where", "async", "await", "record", "init", "with", "switch", "when", "is not", "and", "or", "'\\u0041'", "[Attr]", "global::", "delegate*<", "stackalloc", "u8"},
	"css":        {"/*", "*/", "{", "}", ":", ";", "@media", "@import", "@supports", "@keyframes", "@font-face", "@layer", "url(", "!important", "--var", "var(--", "calc(", "::before", ":not(", ":is(", ">", "+", "~", "#id", ".cls", "[attr=", "]", "\\", "\\\"", "&", "@container", "@property", "%", "em", "px", "rgba(", "attr("},
	"dart":       {"/*", "*/", "//", "///", "'''", "\"\"\"", "r'", "r\"", "${", "$", "=>", "??", "?.", "..", "?..", "...", "...?", "<T>", "async", "await", "yield", "sync*", "async*", "late", "required", "factory", "extension", "mixin", "sealed", "switch", "case", "when", "@override", "#sym", "part of", "library"},
	"elixir":     {"#", "\"\"\"", "'''", "~s(", "~r/", "~w[", "~S\"\"\"", "~H\"\"\"", "#{", "do", "end", "fn", "->", "|>", "<<", ">>", "%{", "%Struct{", ":", "::", ":atom", "@", "&", "&1", "?a", "when", "<-", "\\\\", "defmodule ", "def ", "defp ", "quote do", "unquote(", "case ", "cond do", "with ", "rescue", "catch", "after", "else", "~D[", "0b1", "1_000", "?\\s", "do:", "\"#{"},
	"go":         {"/*", "*/", "//", "`", ":=", "<-", "...", "func(", "func ", "chan ", "map[", "[]", "interface{", "struct{", "go ", "defer ", "select {", "case ", "default:", "'\\''", "'\\x00'", "//go:build ", "//go:embed ", "[T any]", "~int", "goto ", "fallthrough", "package ", "import (", "\"\\\""},
	"haskell":    {"{-", "-}", "--", "{-#", "#-}", "\\", "->", "<-", "=>", "::", "where", "let", "in", "do", "of", "case ", "if ", "then", "else", "[|", "|]", "[e|", "`", "'", "''", "$", "\n  ", "\n    ", "\n", "data ", "newtype ", "class ", "instance ", "deriving", "module ", "import qualified ", "forall", "@", "!", "~", "#", "(#", "#)", "$(", "\\case", "mdo", "proc", "-<", "{", "}", ";", "|"},
	"hcl":        {"#", "//", "/*", "*/", "<<EOF\n", "<<-EOT\n", "EOF\n", "EOT\n", "${", "%{", "~}", "%{ if ", "%{ endif }", "%{ for ", "%{ endfor }", "=", "{", "}", "[", "]", "=>", "...", "resource \"", "variable \"", "locals {", "for ", " in ", ": ", "? ", "null", "true", "\"\\\""},
	"html":       htmlLike,
	"java":       {"/*", "*/", "//", "/**", "\"\"\"", "@", "@interface", "->", "::", "<", ">", ">>>", "'\\u0000'", "\\u000a", "<T extends", "<?>", "record ", "sealed ", "permits ", "switch (", "case ", "yield ", "var ", "instanceof ", "module ", "requires ", "non-sealed", "default ->", "synchronized", "throws", "try (", "catch (", "finally"},
	"javascript": jsLike,
	"json":       {"{", "}", "[", "]", "\"", ":", ",", "true", "false", "null", "-0.5e+10", "\\u", "\"\\\"", "\\\\", "//", "/*", "*/", "\"key\": ", "1E400", "0", "-"},
	"julia":      {"#", "#=", "=#", "\"\"\"", "\\\"", "$(", "$", "r\"", "```", "end", "begin", "function ", "->", "::", "<:", ".+", ".*", "'", "[", "]", ";", ";;", "...", "@", ":(", "quote", "macro ", "struct ", "mutable struct ", "abstract type ", "where ", "do ", "let ", "for ", "if ", "elseif ", "try", "catch", "=#=", "#==#", "x'", "√", "∈", "÷", "|>", "∘"},
	"kotlin":     {"/*", "*/", "//", "\"\"\"", "${", "$", "->", "::", "?.", "?:", "!!", "<", ">", "@", "..", "..<", "`", "fun ", "val ", "var ", "when (", "object ", "companion object", "data class ", "sealed ", "suspend ", "inline ", "reified ", "in ", "out ", "is ", "as? ", "by ", "init {", "constructor(", "@file:", "$$\"\"\""},
	"lua":        {"--", "--[[", "]]", "[[", "[==[", "]==]", "--[==[", "..", "...", "~=", "::", "::label::", "goto ", "end", "function ", "then", "do", "local ", "repeat", "until ", "elseif ", "return", "#", "//", "<const>", "<close>", "\\z", "\\x41", "\\u{41}", "0x1p4"},
	"makefile":   {"#", ":", "::", ":=", "::=", "?=", "+=", "!=", "$(", "${", "$$", "\t", "\\\n", "define ", "endef\n", "ifeq (", "ifneq (", "ifdef ", "else\n", "endif\n", ".PHONY:", "%", "%.o: %.c", "@", "$@", "$<", "$^", "$(shell ", "$(foreach ", "$(call ", "include ", "-include ", "export ", "override ", "vpath ", "|", ";", "\n\t", ".SUFFIXES:", "$(eval "},
	"markdown":   {"#", "##", "######", ">", "> ", "-", "*", "+", "1.", "1)", "```", "~~~", "````", "    ", "\t", "|", "---", "***", "___", "===", "[", "](", "<", "<!--", "-->", "<div>", "</div>", "_", "**", "\\", "[^1]:", "- [ ] ", "- [x] ", "[ref]: ", "<http://", "`", "``", "&nbsp;", "<pre>", "<script>", "+++", "\n\n", "\n", "  \n", "<details>", "<!DOCTYPE"},
	"ocaml":      {"(*", "*)", "{|", "|}", "{x|", "|x}", "\"", "'", "->", "|", ";;", "let ", "let rec ", " in ", "match ", " with ", "begin", "end", "struct", "sig", "[|", "|]", "[@", "[@@", "[@@@", "[%", "[%%", "{%", "%}", "~", "?", "::", "'a", "fun ", "function ", "object", "module ", "module type ", "functor", "type ", "and ", "of ", "val ", "external ", "exception ", "try ", "when ", "if ", "then ", "else ", "<-", ":=", "#", "`Tag", ".(", ".[", ".{", "let*", "let+", "'\\''", "'\"'", "\"\\\"", "{<", ">}", "#1 \"x.ml\"\n", "method ", "inherit ", "class "},
	"php":        {"<?php", "?>", "<?=", "<<<EOT\n", "<<<'EOT'\n", "EOT;\n", "/*", "*/", "//", "#", "#[", "$", "->", "?->", "=>", "::", "${", "{$", "<html>", "</html>", "<script>", "function ", "fn(", "match (", "enum ", "readonly ", "namespace ", "use ", "\\", "__halt_compiler();", "`", "@", "...", "??=", "<=>", "$$", "<?xml", "<% ", " %>"},
	"python":     pythonLike,
	"r":          {"#", "<-", "->", "<<-", "->>", "%>%", "|>", "%in%", "r\"(", ")\"", "R\"[", "]\"", "r\"---(", ")---\"", "function(", "\\(", "{", "}", "[[", "]]", "$", "@", "::", ":::", "~", "...", "..1", "'", "\"", "`", "if (", "else ", "for (", "while (", "repeat ", "NULL", "NA", "Inf", "TRUE", "0x1L", "1i", "#'", "\\"},
	"ruby":       {"#", "=begin\n", "=end\n", "<<~EOS\n", "<<-EOS\n", "<<EOS\n", "EOS\n", "<<~'EOS'\n", "#{", "%w[", "%q(", "%Q{", "%r{", "%i[", "%(", "/", ":sym", ":\"", "::", "=>", "->", "|", "do", "end", "def ", "class ", "module ", "?a", "__END__\n", "$", "@", "@@", "unless ", "until ", "begin", "rescue", "ensure", "yield", "&.", "**", "<=>", "===", "=~", "`", "?\\n", "case ", "in ", "then", "elsif ", "&block", "*args", "...", "'", "\\\n", "<<A + <<B\n"},
	"rust":       {"/*", "*/", "//", "///", "//!", "r#\"", "\"#", "r##\"", "\"##", "'a", "b'", "b\"", "br#\"", "::", "->", "=>", "#[", "#![", "!", "macro_rules!", "<", ">", "'", "?", "..=", "..", "|", "fn ", "let ", "mut ", "impl ", "trait ", "where ", "dyn ", "async ", "move ", "unsafe ", "match ", "'static", "$x:expr", "$(", ")*", "r#type", "c\"", "&'a", "::<", "union ", "'\\u{1F600}'"},
	"scala":      {"/*", "*/", "//", "\"\"\"", "s\"", "f\"", "raw\"", "${", "$", "=>", "<-", ":", "[", "]", "implicit ", "given ", "using ", "end", "then", "case ", " match", "extension ", "\n  ", "\n    ", "def ", "val ", "var ", "object ", "trait ", "class ", "enum ", "with ", "yield", "for ", "do", "if ", "else ", "'sym", "`", "@", "<:", ">:", "=>>", "?=>", "*", "_", "inline ", "opaque type ", "export ", "import ", "package ", "sealed ", "derives "},
	"starlark":   pythonLike,
	"svelte":     append(append([]string{}, htmlLike...), "{#if ", "{/if}", "{:else}", "{:else if ", "{#each ", " as ", "{/each}", "{@html ", "{@const ", "{@debug ", "{#await ", "{:then ", "{:catch ", "{/await}", "{#key ", "{/key}", "{#snippet ", "{/snippet}", "{@render ", "{", "}", "<script lang=\"ts\">", "on:click={", "bind:value={", "$:", "$state(", "<svelte:head>", "</svelte:head>"),
	"swift":      {"/*", "*/", "//", "\"\"\"", "#\"", "\"#", "##\"", "\"##", "\\(", "->", "?", "!", "??", "...", "..<", "@", "#if ", "#else", "#endif", "<", ">", "$0", "#selector(", "^", "/regex/", "#/", "/#", "prefix ", "postfix ", "infix ", "operator ", ".", "&", "func ", "let ", "var ", "guard ", "else ", "if let ", "case ", "switch ", "where ", "protocol ", "extension ", "struct ", "enum ", "class ", "actor ", "some ", "any ", "inout ", "throws ", "async ", "await ", "try? ", "try! ", "@escaping ", "@MainActor ", "\\.", "#available(", "init(", "deinit", "subscript(", "willSet", "didSet", "get ", "set ", "{ $0 }", "[weak self]", "associatedtype ", "typealias ", "borrowing ", "consuming ", "#warning(", "`", ":", "=", "{", "}", "(", ")", ","},
	"toml":       {"#", "[", "]", "[[", "]]", "=", "\"\"\"", "'''", "'", "\"", "{", "}", ".", "1979-05-27T07:32:00Z", "07:32:00", "inf", "nan", "-inf", "0x1f", "0o7", "0b1", "1_000", "+1.5e3", "true", "false", "\\u0041", "\\\n", "key = ", "a.b.c = ", "\"quoted key\" = "},
	"tsx":        append(append([]string{}, jsLike...), tsExtra...),
	"typescript": append(append([]string{}, jsLike...), tsExtra...),
	"vue":        append(append([]string{}, htmlLike...), "{{", "}}", "v-if=\"", "v-for=\"", "v-else", "@click=\"", ":prop=\"", "#slot", "v-slot:", "<script setup lang=\"ts\">", "<script setup>", "<style scoped>", "<template #header>", "v-bind=\"", "v-model=\""),
	"xml":        {"<?xml version=\"1.0\"?>", "<", ">", "</", "/>", "<!--", "-->", "<![CDATA[", "]]>", "<!DOCTYPE ", "<!ENTITY ", "<!ELEMENT ", "<!ATTLIST ", "&amp;", "&#x41;", "&ent;", "%ent;", "=\"", "='", "<?pi ", "?>", "<a>", "</a>", "xmlns:", "xml:lang=", "[", "]>", "SYSTEM \"", "PUBLIC \"", "#PCDATA", "(#PCDATA)*", "<x:y>", "</x:y>"},
	"yaml":       {"---", "...", "- ", "? ", ": ", "|", ">", "|-", ">+", "|2", "&anchor ", "*anchor", "!!str ", "!tag ", "!<tag:x>", "#", "[", "]", "{", "}", "\"", "'", "%YAML 1.2\n", "%TAG ! tag:x,2000:\n", "<<: ", "  ", "\n", "\n  ", "\n- ", "key: ", "- - ", "? - ", "\\", "\"\\x", "''", "null", "~", "0o14", ".inf", "\t"},
	"zig":        {"//", "///", "//!", "\\\\", "\"", "'", "@import(", ".{", "=>", "|", "||", "orelse", "catch", "comptime ", "try ", ".*", ".?", "[*]", "[]", "[*:0]", "!", "?", "**", "++", "{", "}", "fn ", "const ", "var ", "pub ", "struct {", "enum {", "union(enum) {", "switch (", "while (", "for (", "defer ", "errdefer ", "inline ", "extern ", "export ", "test \"", "asm volatile (", "@\"", "'\\u{1F600}'", "0x1p4", "..."},
}

// extraPairs are each language's own openers and closers, by name.
var extraPairs = map[string][][2]string{
	"bash":       {{"$(", ")"}, {"${", "}"}, {"\"$(", ")\""}, {"$((", "))"}, {"`", "`"}, {"if true; then ", " fi"}, {"case x in a) ", ";; esac"}},
	"c":          {{"/*", "*/"}, {"#if X\n", "#endif\n"}},
	"cpp":        {{"<", ">"}, {"#if X\n", "#endif\n"}, {"[](){", "}"}},
	"cuda":       {{"<", ">"}, {"<<<", ">>>"}},
	"csharp":     {{"$\"{", "}\""}, {"<", ">"}},
	"css":        {{":is(", ")"}, {"@media screen{", "}"}, {"a{", "}"}},
	"dart":       {{"'${", "}'"}, {"<", ">"}},
	"elixir":     {{"do ", " end"}, {"\"#{", "}\""}, {"fn -> ", " end"}, {"<<", ">>"}, {"%{", "}"}},
	"go":         {{"func(){", "}"}, {"[]int{", "}"}},
	"haskell":    {{"{-", "-}"}, {"do\n", "\n"}, {"let x = ", " in x"}, {"[|", "|]"}},
	"hcl":        {{"${", "}"}, {"a {", "}"}, {"%{ if x }", "%{ endif }"}},
	"html":       htmlPairs,
	"java":       {{"<", ">"}, {"new Object(){", "}"}},
	"javascript": {{"`${", "}`"}, {"<a>", "</a>"}, {"<>", "</>"}, {"/*", "*/"}, {"{", "}"}},
	"json":       {{"{\"a\":", "}"}, {"[", "]"}},
	"julia":      {{"#=", "=#"}, {"begin ", " end"}, {"\"$(", ")\""}, {":(", ")"}},
	"kotlin":     {{"\"${", "}\""}, {"<", ">"}, {"/*", "*/"}},
	"lua":        {{"function() ", " end"}, {"do ", " end"}, {"[[", "]]"}, {"{", "}"}},
	"makefile":   {{"$(", ")"}, {"${", "}"}, {"ifeq (a,b)\n", "endif\n"}, {"define x\n", "endef\n"}},
	"markdown":   {{"> ", ""}, {"- ", ""}, {"1. ", ""}, {"* ", ""}, {"<div>", "</div>"}, {"[", "]"}, {"**", "**"}, {"_", "_"}, {"`", "`"}},
	"ocaml":      {{"(*", "*)"}, {"begin ", " end"}, {"struct ", " end"}, {"[|", "|]"}, {"{|", "|}"}, {"let x = ", " in x"}, {"[@a ", "]"}, {"match x with _ -> ", ""}},
	"php":        {{"<?php ", " ?>"}, {"\"{$", "}\""}, {"<div>", "</div>"}},
	"python":     {{"f\"{", "}\""}, {"(lambda: ", ")"}, {"[x for x in ", "]"}},
	"r":          {{"function() {", "}"}, {"[[", "]]"}, {"r\"(", ")\""}},
	"ruby":       {{"\"#{", "}\""}, {"begin ", " end"}, {"do ", " end"}, {"%w[", "]"}, {"->{", "}"}},
	"rust":       {{"<", ">"}, {"/*", "*/"}, {"#[a(", ")]"}, {"|x| {", "}"}},
	"scala":      {{"s\"${", "}\""}, {"[", "]"}, {"(x => ", ")"}},
	"starlark":   {{"f(", ")"}, {"[x for x in ", "]"}},
	"svelte":     {{"{#if x}", "{/if}"}, {"{#each a as b}", "{/each}"}, {"<div>", "</div>"}, {"{", "}"}},
	"swift":      {{"\"\\(", ")\""}, {"<", ">"}, {"/*", "*/"}, {"{ ", " }"}, {"#if X\n", "#endif\n"}, {"[", "]"}, {"f(", ")"}},
	"toml":       {{"[", "]"}, {"{a=", "}"}},
	"tsx":        {{"`${", "}`"}, {"<a>", "</a>"}, {"<T>", ""}, {"Array<", ">"}},
	"typescript": {{"`${", "}`"}, {"Array<", ">"}, {"<T extends ", ">"}, {"/*", "*/"}},
	"vue":        append(append([][2]string{}, htmlPairs...), [2]string{"{{", "}}"}, [2]string{"<template>", "</template>"}),
	"xml":        {{"<a>", "</a>"}, {"<x:y z=\"1\">", "</x:y>"}, {"<!--", "-->"}, {"<![CDATA[", "]]>"}},
	"yaml":       {{"- ", ""}, {"[", "]"}, {"{a: ", "}"}, {"? ", ""}, {"a:\n  ", ""}, {"- [", "]"}},
	"zig":        {{".{", "}"}, {"(", ")"}, {"struct {", "}"}, {"\\\\", "\n"}},
}

// layout are the languages whose grammar reads indentation.
var layout = map[string]bool{"python": true, "starlark": true, "haskell": true, "yaml": true, "scala": true, "markdown": true, "makefile": true}

// maxWords bounds the words kept from one language's seeds.
const maxWords = 2000

// loadPool builds the pool of language name from the seed files under
// dir (testdata/corpus/<name>/, walked recursively; a missing folder
// gives a pool without seeds).
func loadPool(name, dir string) (*pool, error) {
	p := &pool{indent: layout[name]}
	p.punct = append(append(p.punct, common...), extras[name]...)
	p.pairs = append(append(p.pairs, commonPairs...), extraPairs[name]...)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && path == dir {
				return filepath.SkipDir
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if len(b) > 0 && len(b) <= 1<<20 {
			p.seeds = append(p.seeds, b)
			p.names = append(p.names, filepath.Base(path))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	p.words = seedWords(p.seeds)
	return p, nil
}

// seedWords splits the seeds on non-word characters and returns the
// distinct words, most frequent first, at most maxWords.
func seedWords(seeds [][]byte) []string {
	count := map[string]int{}
	for _, s := range seeds {
		start := -1
		for i := 0; i <= len(s); {
			r, size := rune(-1), 1
			if i < len(s) {
				r, size = utf8.DecodeRune(s[i:])
			}
			word := r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
			if word && start < 0 {
				start = i
			}
			if !word && start >= 0 {
				if w := string(s[start:i]); len(w) <= 40 {
					count[w]++
				}
				start = -1
			}
			i += size
		}
	}
	words := make([]string, 0, len(count))
	for w := range count {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if count[words[i]] != count[words[j]] {
			return count[words[i]] > count[words[j]]
		}
		return words[i] < words[j]
	})
	if len(words) > maxWords {
		words = words[:maxWords]
	}
	return words
}
