package lang

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// queries holds one definition query file per language, queries/NAME.scm:
// the language knowledge of package outline (which nodes define what), kept
// here with the rest of the language table (docs/design.md guarantee 5).
//
// A file may extend another language's query, as tree-sitter's own
// tree-sitter.json builds TypeScript's tags from TypeScript's file plus
// JavaScript's: its first line is then the directive
//
//	; extends: NAME
//
// and the language's query is its own file followed by NAME's query
// (itself composed the same way). The file's patterns come first, so where
// two patterns match one node the extending language's wins (package
// outline keeps the first pattern's definition). A line starting with
//
//	; not inherited:
//
// ends the part of a file that languages extending it get: the patterns
// below it name nodes only its own grammar has (the rest of the line says
// why). Any query file may use either directive; each at most once.
//
//go:embed queries/*.scm
var queries embed.FS

// Query file directives (see queries): comment lines, read with any
// spacing after the ";".
const (
	extendsDirective      = "; extends:"
	notInheritedDirective = "; not inherited:"
)

// directive returns the directive of a line of a query file ("extends:"
// or "not inherited:" as in the constants) and the rest of the line, or
// "" when the line is no directive.
func directive(line string) (name, rest string) {
	comment, ok := strings.CutPrefix(strings.TrimSpace(line), ";")
	if !ok {
		return "", ""
	}
	comment = strings.TrimSpace(comment)
	for _, d := range []string{extendsDirective, notInheritedDirective} {
		if r, ok := strings.CutPrefix(comment, strings.TrimPrefix(d, "; ")); ok {
			return d, strings.TrimSpace(r)
		}
	}
	return "", ""
}

// DefinitionQuery returns the language's tree-sitter query for its
// definitions, in the convention of tree-sitter's tags.scm: each pattern
// captures a definition node as @definition.KIND (KIND from outline.Kinds)
// and its name as @name; captures whose names start with "_" only serve
// predicates. Package outline documents the rest of the convention. The
// query is the language's file, queries/NAME.scm, plus the queries it
// extends (see queries).
func (l *Language) DefinitionQuery() string {
	q, err := composeQuery(queries, "queries", l.Name)
	if err != nil {
		// Every row has a query file that composes
		// (TestEveryLanguageHasAQuery): a missing or broken one is a build
		// mistake, not an input error.
		panic(fmt.Sprintf("lang: no definition query for %s: %v", l.Name, err))
	}
	return q
}

// composeQuery returns the query of the language name from the query files
// of fsys (DIR/NAME.scm: the definition queries, or the injection queries):
// its file, then the inherited part of the query it extends, and so on
// down the chain.
func composeQuery(fsys fs.FS, dir, name string) (string, error) {
	var b strings.Builder
	var chain []string
	for name != "" {
		if slices.Contains(chain, name) {
			return "", fmt.Errorf("queries extend in a cycle: %s → %s", strings.Join(chain, " → "), name)
		}
		f, err := readQueryFile(fsys, dir, name)
		if err != nil {
			return "", err
		}
		text := f.text
		if len(chain) > 0 {
			text = f.inherited
			fmt.Fprintf(&b, "\n; %s/%s.scm, which %s extends\n", dir, name, chain[len(chain)-1])
		}
		b.WriteString(text)
		if !strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
		chain = append(chain, name)
		name = f.extends
	}
	return b.String(), nil
}

// queryFile is one query file, its directives read.
type queryFile struct {
	text      string // the whole file
	inherited string // what a language extending it gets: text up to its "; not inherited:" line
	extends   string // the language named by its "; extends:" line, or ""
}

// readQueryFile reads DIR/NAME.scm and its directives.
func readQueryFile(fsys fs.FS, dir, name string) (queryFile, error) {
	path := dir + "/" + name + ".scm"
	b, err := fs.ReadFile(fsys, path)
	if err != nil {
		return queryFile{}, err
	}
	f := queryFile{text: string(b), inherited: string(b)}
	offset, cut := 0, false
	for i, line := range strings.SplitAfter(f.text, "\n") {
		switch d, base := directive(line); d {
		case extendsDirective:
			if i != 0 {
				return queryFile{}, fmt.Errorf("%s:%d: %q must be the first line", path, i+1, extendsDirective)
			}
			if base == "" || strings.ContainsAny(base, " \t") {
				return queryFile{}, fmt.Errorf("%s:1: %q names one language, not %q", path, extendsDirective, base)
			}
			f.extends = base
		case notInheritedDirective:
			if cut {
				return queryFile{}, fmt.Errorf("%s:%d: a second %q line", path, i+1, notInheritedDirective)
			}
			f.inherited, cut = f.text[:offset], true
		}
		offset += len(line)
	}
	return f, nil
}
