package lang

import (
	"embed"
	"fmt"
)

// queries holds one definition query per language, queries/NAME.scm: the
// language knowledge of package outline (which nodes define what), kept
// here with the rest of the language table (docs/design.md guarantee 5).
//
//go:embed queries/*.scm
var queries embed.FS

// DefinitionQuery returns the language's tree-sitter query for its
// definitions, in the convention of tree-sitter's tags.scm: each pattern
// captures a definition node as @definition.KIND (KIND from outline.Kinds)
// and its name as @name; captures whose names start with "_" only serve
// predicates. Package outline documents the rest of the convention.
func (l *Language) DefinitionQuery() string {
	b, err := queries.ReadFile("queries/" + l.Name + ".scm")
	if err != nil {
		// Every row has a query file (TestEveryLanguageHasAQuery): a
		// missing one is a build mistake, not an input error.
		panic(fmt.Sprintf("lang: no definition query for %s: %v", l.Name, err))
	}
	return string(b)
}
