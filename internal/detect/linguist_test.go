package detect

// The port of go-enry (generated.go, language.go and the tables in
// linguist/) against go-enry itself, which only these tests and
// internal/gen import: the tables must be go-enry's, and Generated and
// TextName must give go-enry's answers on every input, but where go-enry
// asks its classifier (language.go).

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/go-enry/go-enry/v2"
	"github.com/go-enry/go-enry/v2/data"
	enryrule "github.com/go-enry/go-enry/v2/data/rule"
	"github.com/rogpeppe/go-internal/txtar"
)

func TestTablesAreGoEnrys(t *testing.T) {
	aliases := map[string][]string{}
	for k, v := range data.LanguageByAliasMap {
		aliases[k] = []string{v}
	}
	for _, tc := range []struct {
		file      string
		got, want map[string][]string
	}{
		{"alias.tsv", languagesByAlias(), aliases},
		{"extension.tsv", languagesByExtension(), data.LanguagesByExtension},
		{"filename.tsv", languagesByFilename(), data.LanguagesByFilename},
		{"interpreter.tsv", languagesByInterpreter(), data.LanguagesByInterpreter},
	} {
		if !maps.EqualFunc(tc.got, tc.want, slices.Equal) {
			t.Errorf("linguist/%s is not go-enry's table (%d keys, go-enry %d): run go generate ./internal/detect/", tc.file, len(tc.got), len(tc.want))
		}
	}
	if !maps.Equal(priors(), data.LanguagesLogProbabilities) {
		t.Errorf("linguist/prior.tsv is not go-enry's LanguagesLogProbabilities: run go generate ./internal/detect/")
	}
	if !strings.Contains(aliasTSV, data.LinguistCommit) {
		t.Errorf("linguist/alias.tsv does not name linguist commit %s", data.LinguistCommit)
	}
}

// TestHeuristicsAreGoEnrys compares every extension's rules with go-enry's
// data.ContentHeuristics, read through reflection: the same rules in the
// same order, the same languages and the same patterns.
func TestHeuristicsAreGoEnrys(t *testing.T) {
	exts := slices.Sorted(maps.Keys(heuristicsText()))
	if want := slices.Sorted(maps.Keys(data.ContentHeuristics)); !slices.Equal(exts, want) {
		t.Fatalf("linguist/heuristics.tsv has %d extensions, go-enry %d: run go generate ./internal/detect/", len(exts), len(want))
	}
	for _, ext := range exts {
		ours := heuristicsFor(ext)
		theirs := *data.ContentHeuristics[ext]
		if len(ours) != len(theirs) {
			t.Errorf("%s: %d rules, go-enry %d", ext, len(ours), len(theirs))
			continue
		}
		for i := range ours {
			want := enryRule(reflect.ValueOf(theirs[i]), true)
			if got := describe(ours[i], true); got != want {
				t.Errorf("%s rule %d:\n  ours    %s\n  go-enry %s", ext, i, got, want)
			}
		}
	}
}

// describe writes a rule as enryRule writes go-enry's.
func describe(r *rule, top bool) string {
	switch r.Op {
	case "re":
		return "re(" + strconv.Quote(r.Re) + ")"
	case "ruby":
		return "ruby"
	}
	var b strings.Builder
	b.WriteString(r.Op)
	if top {
		fmt.Fprintf(&b, "%q", r.Langs)
	}
	for _, a := range r.Args {
		b.WriteString(" " + describe(a, false))
	}
	return "(" + b.String() + ")"
}

// enryRule describes one of go-enry's rule values (unexported structs of
// package rule) or patterns, the languages of a top-level one resolved as
// go-enry's Heuristics.Match resolves them.
func enryRule(v reflect.Value, top bool) string {
	if v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	if v.Type() == reflect.TypeFor[*regexp.Regexp]() {
		if v.IsNil() { // regex.MustCompileRuby
			return "ruby"
		}
		return "re(" + strconv.Quote((*regexp.Regexp)(unsafe.Pointer(v.Pointer())).String()) + ")"
	}
	op := v.Type().Name()
	var b strings.Builder
	b.WriteString(op)
	if top {
		var langs []string
		l := v.FieldByName("languages").FieldByName("langs")
		for i := range l.Len() {
			if name, ok := data.LanguageByAlias(l.Index(i).String()); ok {
				langs = append(langs, name)
			}
		}
		fmt.Fprintf(&b, "%q", langs)
	}
	var args []reflect.Value
	switch op {
	case "or":
		args = []reflect.Value{v.FieldByName("pattern")}
	case "and":
		p := v.FieldByName("patterns")
		for i := range p.Len() {
			args = append(args, p.Index(i))
		}
	case "not":
		p := v.FieldByName("Patterns")
		for i := range p.Len() {
			args = append(args, p.Index(i))
		}
	}
	for _, a := range args {
		b.WriteString(" " + enryRule(a, false))
	}
	return "(" + b.String() + ")"
}

// An input is a path (relative, as Generated sees it) and its content.
type input struct {
	path    string
	content []byte
}

// comparison counts what TestAgreesWithGoEnry found.
type comparison struct {
	strategies                           bool // compare each strategy too
	inputs, generated                    int
	classifier, classifierAgrees, differ int
	differByExt                          map[string]int
	examples                             []string
}

// compare checks one input on everything go-enry and the port share, and
// fails t where they differ but where go-enry asks its classifier;
// c.strategies, each strategy on its own too.
func (c *comparison) compare(t *testing.T, in input) {
	t.Helper()
	c.inputs++
	name, content := path.Base(in.path), in.content
	if got, want := linguistGenerated(in.path, content), enry.IsGenerated(in.path, content); got != want {
		t.Errorf("generated %q (%d bytes): %v, go-enry %v", in.path, len(content), got, want)
	} else if got {
		c.generated++
	}
	for _, s := range []struct {
		name       string
		ours, enry strategy
	}{
		{"modeline", byModeline, enry.GetLanguagesByModeline},
		{"filename", byFilename, enry.GetLanguagesByFilename},
		{"shebang", byShebang, enry.GetLanguagesByShebang},
		{"extension", byExtension, enry.GetLanguagesByExtension},
		{"xml", byXML, enry.GetLanguagesByXML},
		{"manpage", byManpage, enry.GetLanguagesByManpage},
		{"content", byContent, enry.GetLanguagesByContent},
	} {
		if !c.strategies {
			break
		}
		if got, want := s.ours(name, content, nil), s.enry(name, content, nil); !sameLanguages(got, want) {
			t.Errorf("%s %q (%d bytes): %q, go-enry %q", s.name, in.path, len(content), got, want)
		}
	}
	candidates, ours := enryCandidates(name, content), languages(name, content)
	if !sameLanguages(ours, candidates) {
		t.Errorf("languages %q (%d bytes): %q, go-enry %q", in.path, len(content), ours, candidates)
	}
	got, want := pick(ours), enry.GetLanguage(name, content)
	if len(candidates) > 1 {
		c.classifier++
		if got == want {
			c.classifierAgrees++
		}
	}
	if got == want {
		return
	}
	c.differ++
	if c.differByExt == nil {
		c.differByExt = map[string]int{}
	}
	c.differByExt[strings.ToLower(path.Ext(name))]++
	if len(candidates) < 2 {
		t.Errorf("language %q (%d bytes): %q, go-enry %q without its classifier", in.path, len(content), got, want)
		return
	}
	if len(c.examples) < 6 {
		c.examples = append(c.examples, fmt.Sprintf("%s: %s, classifier %s among %q", in.path, got, want, candidates))
	}
}

func sameLanguages(a, b []string) bool { return len(a) == 0 && len(b) == 0 || slices.Equal(a, b) }

// enryCandidates is go-enry's GetLanguages without its last strategy, the
// classifier: what language() decides from.
func enryCandidates(name string, content []byte) []string {
	if enry.IsBinary(content) {
		return nil
	}
	var langs []string
	for _, s := range enry.DefaultStrategies[:len(enry.DefaultStrategies)-1] {
		candidates := s(name, content, langs)
		if len(candidates) == 0 {
			continue
		}
		if len(candidates) == 1 {
			return candidates
		}
		langs = candidates
	}
	return langs
}

func TestDefaultStrategiesEndWithTheClassifier(t *testing.T) {
	s := enry.DefaultStrategies
	if reflect.ValueOf(s[len(s)-1]).Pointer() != reflect.ValueOf(enry.GetLanguagesByClassifier).Pointer() || len(s) != len(strategies)+1 {
		t.Fatalf("go-enry's strategies are not ours and its classifier: port language.go anew")
	}
}

func (c *comparison) report(t *testing.T, what string) {
	t.Logf("%s: %d inputs (%d generated); %d left to go-enry's classifier, of which castchunk's prior picks the same language in %d; %d differ from go-enry, all of them classifier cases",
		what, c.inputs, c.generated, c.classifier, c.classifierAgrees, c.differ)
	if c.differ > 0 {
		exts := slices.SortedFunc(maps.Keys(c.differByExt), func(a, b string) int { return c.differByExt[b] - c.differByExt[a] })
		var by []string
		for _, e := range exts[:min(len(exts), 12)] {
			by = append(by, fmt.Sprintf("%s %d", e, c.differByExt[e]))
		}
		t.Logf("  differing, by extension: %s", strings.Join(by, ", "))
	}
	for _, e := range c.examples {
		t.Logf("  %s", e)
	}
}

// TestAgreesWithGoEnry compares Generated's rules and TextName's languages
// with go-enry's on made-up names and contents (those of detect_test.go,
// go-enry's own tests and samples made from every content heuristic's
// patterns), every file of the repository's testdata and of go-enry's, and
// every file of Go's source tree.
func TestAgreesWithGoEnry(t *testing.T) {
	made := comparison{strategies: true}
	for _, in := range madeUpInputs(t) {
		made.compare(t, in)
	}
	made.report(t, "made-up names and contents")

	var files comparison
	walk(t, "../../testdata", func(t *testing.T, in input) {
		files.compare(t, in)
		if path.Ext(in.path) == ".txtar" { // and the files of a script test
			for _, f := range txtar.Parse(in.content).Files {
				files.compare(t, input{f.Name, f.Data})
			}
		}
	})
	if dir := enryDir(t); dir != "" {
		walk(t, filepath.Join(dir, "_testdata"), files.compare)
	}
	files.report(t, "testdata/ (with the files of its txtar archives) and go-enry's _testdata/")

	if testing.Short() {
		t.Skip("-short: Go's source tree left out")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	var gosrc comparison
	walk(t, filepath.Join(strings.TrimSpace(string(goroot)), "src"), gosrc.compare)
	gosrc.report(t, "GOROOT/src")
	if gosrc.inputs < 1000 {
		t.Errorf("GOROOT/src: %d files only", gosrc.inputs)
	}
}

// walk calls f for every regular file under root, by its path from root.
func walk(t *testing.T, root string, f func(*testing.T, input)) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		content, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		f(t, input{filepath.ToSlash(rel), content})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// enryDir is go-enry's module folder, "" when the go command cannot say.
func enryDir(t *testing.T) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/go-enry/go-enry/v2").Output()
	if err != nil {
		t.Logf("go list go-enry: %v; its tests and samples left out", err)
		return ""
	}
	return strings.TrimSpace(string(out))
}

// namesAndContents are names whose language depends on the content (most
// of them ambiguous extensions) and contents that decide it.
var (
	testNames = []string{
		"Dockerfile", "Makefile", "api/v1/service.proto", "docs/index.rst", "setup.cfg", "docs/notes.txt",
		"no-idea.zzz", "README", "script", "LICENSE", "CMakeLists.txt", "Jenkinsfile", "BUILD", "go.mod",
		"a.m", "a.pl", "a.pm", "a.sql", "a.h", "a.inc", "a.v", "a.t", "a.cls", "a.ms", "a.md", "a.rs",
		"a.pro", "a.mod", "a.fs", "a.r", "a.cs", "a.ts", "a.l", "a.asc", "a.d", "a.ecl", "a.es", "a.f",
		"a.for", "a.gs", "a.hh", "a.ice", "a.lisp", "a.ls", "a.n", "a.ncl", "a.nl", "a.php", "a.pp",
		"a.props", "a.q", "a.rpy", "a.s", "a.sc", "a.sol", "a.srt", "a.st", "a.toc", "a.tsx", "a.url",
		"a.w", "a.x", "a.yy", "a.1", "ls.1", "a.3pm", "foo.man", "a.mdoc", "a.8.in", "A.H", "a.tar.gz",
		"a.cfg", "a.json", "a.xml", "a.html", "a.js", "a.css", "x.js.map", "ppport.h", "a.ps", "a.go",
	}
	testContents = []string{
		"", "FROM debian\n", "syntax = \"proto3\";\n", "Title\n=====\n", "[metadata]\nname = x\n", "hello\n",
		"#import <Foundation/Foundation.h>\n@interface Foo : NSObject\n@end\n",
		"function y = f(x)\n  y = x + 1;\nend\n", ":- module foo.\n:- interface.\n", ":- module",
		"use strict;\nmy $x = 1;\n", ":- initialization(main).\nmain :- write(hi).\n", "use v6;\nsay 'hi';\n",
		"CREATE TABLE x (id int);\n", "CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END; $$ LANGUAGE plpgsql;\n",
		"SELECT TOP 10 * FROM x\nGO\n", "CREATE OR REPLACE PACKAGE BODY x AS\nEND;\n/\n",
		"int f(void);\n", "#include <vector>\nclass A {};\n", "<?php echo 1; ?>\n", "#declare X = 1;\n",
		"module top(input a);\nendmodule\n", "Theorem x : True.\nProof. trivial. Qed.\n", "fn main() {\n\tprintln('hi')\n}\n",
		"use Test::More;\nok(1);\n", "use v6;\nuse Test;\n", "put \"hi\"\n", "terra f() return 1 end\n",
		"# -*- mode: python -*-\nx = 1\n", "# vim: set ft=ruby:\n", "vim: syntax=perl\n", "/* -*- C++ -*- */\n",
		"# vim: ft=python ft=ruby\n", "// -*- mode: fundamental -*-\n",
		"#!/usr/bin/env python3\nprint(1)\n", "#!/bin/sh\nexec ruby \"$0\" \"$@\"\n", "#!/usr/bin/env -S node --x\n",
		"#!/usr/bin/osascript -l JavaScript\n", "#!/usr/bin/python3.11\n", "#!/usr/bin/env FOO=1 perl -w\n",
		"#!/bin/bash\necho hi\n", "#!\n", "#!/usr/bin/env\n",
		"<?xml version=\"1.0\"?>\n<a/>\n", "hello\n<?xml version=\"1.0\"?>\n", "a\nb\nxml version=1\n",
		".TH LS 1\n.SH NAME\nls\n", ".Dd $Mdocdate$\n.Dt LS 1\n.Sh NAME\n", ".so other.1\n",
		"\x00\x01\x02", "use \n#include", "#include", "BEAMS ROWS - TotalWeight",
		"(function() {\n  var _i, _len, _ref, __bind;\n\n}).call(this);\n",
		"// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage x\n",
		"# Generated by the protocol buffer compiler.  DO NOT EDIT!\n# source: a.proto\n\n",
		"/* DO NOT EDIT THIS FILE - it is machine generated */\n#include <jni.h>\n",
		"%!PS-Adobe-3.0\n%%Creator: dvips 5.9\n%%Title: x\n",
		"{\"version\":3,\"sources\":[]}\n", "x\n//# sourceMappingURL=a.js.map\n",
		strings.Repeat("a;", 200) + "\n",
		strings.Repeat("line\n", 12) + "# vim: set filetype=lua:\n",
		"# -*- mode: ruby -*-\n" + strings.Repeat("line\n", 12),
	}
)

// madeUpInputs is every test name with every test content; the names and
// contents of go-enry's tests; and for every extension with heuristics,
// samples made from its patterns.
func madeUpInputs(t *testing.T) []input {
	var ins []input
	for _, n := range testNames {
		for _, c := range testContents {
			ins = append(ins, input{n, []byte(c)})
		}
	}
	if dir := enryDir(t); dir != "" {
		names, contents := literals(t, filepath.Join(dir, "common_test.go"), filepath.Join(dir, "utils_test.go"))
		for _, n := range names {
			ins = append(ins, input{n, nil})
			if b, err := os.ReadFile(filepath.Join(dir, "_testdata", n)); err == nil {
				ins = append(ins, input{n, b})
			}
		}
		for _, c := range contents {
			for _, n := range testNames {
				ins = append(ins, input{n, []byte(c)})
			}
		}
	}
	for ext := range heuristicsText() {
		name := "sample" + ext
		var all []byte
		for _, r := range heuristicsFor(ext) {
			var both []byte
			for _, s := range samples(r) {
				ins = append(ins, input{name, []byte(s)})
				both = append(both, s+"\n"...)
			}
			ins = append(ins, input{name, both})
			all = append(all, both...)
		}
		ins = append(ins, input{name, nil}, input{name, all})
	}
	for _, n := range slices.Sorted(maps.Keys(languagesByExtension())) {
		ins = append(ins, input{"x" + n, nil})
	}
	for _, n := range slices.Sorted(maps.Keys(languagesByFilename())) {
		ins = append(ins, input{n, nil})
	}
	for _, n := range slices.Sorted(maps.Keys(languagesByInterpreter())) {
		ins = append(ins, input{"script", []byte("#!/usr/bin/env " + n + "\n")}, input{"script", []byte("#!/usr/bin/" + n + " -x\n")})
	}
	for _, n := range slices.Sorted(maps.Keys(languagesByAlias())) {
		ins = append(ins, input{"notes", []byte("# -*- mode: " + n + " -*-\n")}, input{"notes", []byte("# vim: set ft=" + n + ":\n")})
	}
	return ins
}

// literals reads go-enry's test files: the strings they give as file names
// (the first or "filename" string of a composite literal, without
// newlines) and as contents ([]byte("...")).
func literals(t *testing.T, files ...string) (names, contents []string) {
	for _, file := range files {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Logf("%s: %v", file, err)
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if a, ok := n.Fun.(*ast.ArrayType); ok && len(n.Args) == 1 {
					if id, ok := a.Elt.(*ast.Ident); ok && id.Name == "byte" {
						if s, ok := stringLit(n.Args[0]); ok {
							contents = append(contents, s)
						}
					}
				}
			case *ast.CompositeLit:
				for i, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok && (k.Name == "filename" || k.Name == "file") {
							if s, ok := stringLit(kv.Value); ok && !strings.Contains(s, "\n") {
								names = append(names, s)
							}
						}
					} else if i == 0 {
						if s, ok := stringLit(e); ok && !strings.Contains(s, "\n") && len(n.Elts) > 1 {
							names = append(names, s)
						}
					}
				}
			}
			return true
		})
	}
	return names, contents
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// samples makes, for each pattern under r, texts its alternatives match
// (roughly: anchors and lookarounds are not minded), each on its own line.
func samples(r *rule) []string {
	var out []string
	if r.Op == "re" {
		re, err := syntax.Parse(r.Re, syntax.Perl)
		if err != nil {
			return nil
		}
		for choice := range 6 {
			var b strings.Builder
			example(&b, re.Simplify(), choice)
			out = append(out, b.String())
		}
	}
	for _, a := range r.Args {
		out = append(out, samples(a)...)
	}
	return out
}

// example writes a text re matches, taking alternative choice (modulo
// their number) at every alternation.
func example(b *strings.Builder, re *syntax.Regexp, choice int) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) > 0 {
			r := re.Rune[0]
			if len(re.Rune) > 2 && r < ' ' {
				r = re.Rune[2]
			}
			b.WriteRune(r)
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('x')
	case syntax.OpBeginLine, syntax.OpBeginText:
		if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	case syntax.OpCapture, syntax.OpPlus:
		example(b, re.Sub[0], choice)
	case syntax.OpRepeat:
		for range max(re.Min, 0) {
			example(b, re.Sub[0], choice)
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			example(b, s, choice)
		}
	case syntax.OpAlternate:
		example(b, re.Sub[choice%len(re.Sub)], choice)
	}
}

// TestNothingLoadedAtInit runs this test binary again with
// GODEBUG=inittrace=1: package detect's initialisation must allocate
// next to nothing (go-enry's took 16 MB), and in the fresh process no
// table has been parsed and no pattern compiled before first use.
func TestNothingLoadedAtInit(t *testing.T) {
	if os.Getenv("DETECT_INIT_CHILD") == "1" {
		t.Skip("in the child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInitChild$", "-test.v")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "DETECT_INIT_CHILD=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s%s", err, stdout.Bytes(), stderr.Bytes())
	}
	if !strings.Contains(stdout.String(), "--- PASS: TestInitChild") {
		t.Fatalf("child ran no TestInitChild:\n%s", stdout.Bytes())
	}
	// init github.com/castchunk/castchunk/internal/detect @0.5 ms, 0.01 ms clock, 0 bytes, 0 allocs
	line := regexp.MustCompile(`(?m)^init github\.com/castchunk/castchunk/internal/detect @.*, (\d+) bytes, (\d+) allocs$`)
	m := line.FindStringSubmatch(stderr.String())
	if m == nil {
		t.Logf("no init line for internal/detect (no init work at all):\n%s", stderr.Bytes())
		return
	}
	if n, _ := strconv.Atoi(m[1]); n > 100<<10 {
		t.Errorf("detect's init allocates %s bytes in %s allocations, want under 100 KB: %s", m[1], m[2], m[0])
	}
	t.Log(m[0])
}

// TestInitChild is TestNothingLoadedAtInit's child: it checks, before
// anything in its process used package detect, that nothing was loaded.
func TestInitChild(t *testing.T) {
	if os.Getenv("DETECT_INIT_CHILD") != "1" {
		t.Skip("run by TestNothingLoadedAtInit")
	}
	if heuristicsDone != nil {
		t.Error("heuristics parsed before first use")
	}
	lazy := []*lazyRegexp{minorVersion, generatedMark, generatedName, vendoredPath, sourceMapReference,
		pegJavaScriptGenerated, postScriptType1And42, dartGenerated, gameMakerStudioFirstLine,
		gameMakerStudioThirdLine, doxygenMark, htmlMeta, htmlMetaContent, orgModeMeta,
		emacsModeline, emacsLang, vimModeline, vimLang, shebangExecHack, pythonVersion, envOptArgs,
		envVarArgs, manpageExtension}
	lazy = append(lazy, generatedNamePatterns...)
	lazy = append(lazy, sourceMapFirstLines...)
	lazy = append(lazy, postScriptCreators...)
	lazy = append(lazy, gimpDumps...)
	for _, l := range lazy {
		if l.re != nil {
			t.Errorf("%q compiled before first use", l.expr)
		}
	}
	// First uses, from several goroutines at once (the workers of a run;
	// go test -race checks the loading).
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, tc := range []struct{ path, content, want string }{
				{"setup.cfg", "[metadata]\n", "ini"},
				{"a.h", "#include <vector>\n", "c++"},
				{"notes", "# vim: set ft=ruby:\n", "ruby"},
				{"run", "#!/usr/bin/env python3\n", "python"},
			} {
				if got := TextName(tc.path, []byte(tc.content)); got != tc.want {
					t.Errorf("TextName(%q) = %q, want %q", tc.path, got, tc.want)
				}
			}
			if !Generated("package-lock.json", nil, nil) || Generated("a.go", []byte("package a\n"), nil) {
				t.Error("Generated is wrong on first use")
			}
		})
	}
	wg.Wait()
	if heuristicsDone == nil || vimModeline.re == nil {
		t.Error("TextName loaded nothing")
	}
}

// TestCastchunkDoesNotLinkGoEnry: go-enry is for tests and internal/gen.
func TestCastchunkDoesNotLinkGoEnry(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/castchunk/castchunk/cmd/castchunk").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/go-enry/") {
			t.Errorf("castchunk links %s", p)
		}
	}
}

// rule is go-enry's heuristics engine too: TestRuleEngine checks its
// treatment of patterns RE2 cannot compile, which go-enry's data reaches.
func TestRuleEngine(t *testing.T) {
	re := func(s string) *rule { return &rule{Op: "re", re: regexp.MustCompile(s)} }
	ruby := &rule{Op: "ruby"}
	for _, tc := range []struct {
		name string
		ours *rule
		enry enryrule.Heuristic
	}{
		{"or ruby", &rule{Op: "or", Args: []*rule{ruby}}, enryrule.Or(enryrule.MatchingLanguages("X"), (*regexp.Regexp)(nil))},
		{"and ruby a", &rule{Op: "and", Args: []*rule{ruby, re("a")}}, enryrule.And(enryrule.MatchingLanguages("X"), (*regexp.Regexp)(nil), regexp.MustCompile("a"))},
		{"not ruby b", &rule{Op: "not", Args: []*rule{ruby, re("b")}}, enryrule.Not(enryrule.MatchingLanguages("X"), (*regexp.Regexp)(nil), regexp.MustCompile("b"))},
		{"and or-ruby", &rule{Op: "and", Args: []*rule{{Op: "or", Args: []*rule{ruby}}}}, enryrule.And(enryrule.MatchingLanguages("X"), enryrule.Or(enryrule.MatchingLanguages(""), (*regexp.Regexp)(nil)))},
		{"always", &rule{Op: "always"}, enryrule.Always(enryrule.MatchingLanguages("X"))},
	} {
		for _, s := range []string{"", "a", "b", "ab"} {
			if got, want := tc.ours.match([]byte(s)), tc.enry.Match([]byte(s)); got != want {
				t.Errorf("%s on %q: %v, go-enry %v", tc.name, s, got, want)
			}
		}
	}
}
