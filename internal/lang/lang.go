// Package lang is the language registry: the one place that knows which file
// extensions map to which tree-sitter grammar. Nothing else in castchunk holds
// language knowledge (docs/design.md guarantee 5).
package lang

import (
	"path"
	"runtime/debug"
	"sort"
	"strings"
	"unsafe"

	sitter "github.com/tree-sitter/go-tree-sitter"
	csharp "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	java "github.com/tree-sitter/tree-sitter-java/bindings/go"
	python "github.com/tree-sitter/tree-sitter-python/bindings/go"
	typescript "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// Language is one supported language and its grammar.
type Language struct {
	Name       string   // name used in records and for --lang
	Extensions []string // file name suffixes, with the dot
	Module     string   // Go module of the grammar
	grammar    func() unsafe.Pointer
}

// Grammar returns the tree-sitter language. Grammar values are static C data,
// so creating them on demand costs nothing and needs no Close.
func (l *Language) Grammar() *sitter.Language {
	return sitter.NewLanguage(l.grammar())
}

// registry is immutable after package initialisation.
var registry = []*Language{
	{Name: "csharp", Extensions: []string{".cs"}, Module: "github.com/tree-sitter/tree-sitter-c-sharp", grammar: csharp.Language},
	{Name: "java", Extensions: []string{".java"}, Module: "github.com/tree-sitter/tree-sitter-java", grammar: java.Language},
	{Name: "python", Extensions: []string{".py", ".pyi"}, Module: "github.com/tree-sitter/tree-sitter-python", grammar: python.Language},
	{Name: "tsx", Extensions: []string{".tsx"}, Module: "github.com/tree-sitter/tree-sitter-typescript", grammar: typescript.LanguageTSX},
	{Name: "typescript", Extensions: []string{".ts", ".mts", ".cts"}, Module: "github.com/tree-sitter/tree-sitter-typescript", grammar: typescript.LanguageTypescript},
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

// ForPath picks the language of a file from its extension; nil when unsupported.
// Extensions match case-sensitively, as the toolchains of these languages do.
func ForPath(p string) *Language {
	ext := path.Ext(p)
	if ext == "" || strings.HasSuffix(p, "/") {
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

// Version reports the grammar module's version as linked into this binary,
// read from the build information so it can never disagree with go.mod.
func (l *Language) Version() string {
	return ModuleVersion(l.Module)
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
