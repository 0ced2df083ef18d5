package lang

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"sync"
)

// injections holds the injection queries: injections/HOST.scm finds the
// regions of a HOST file written in another language, in the convention of
// tree-sitter's injections.scm. Its first line says what it finds
// ("; embeds: …", for docs/inputs.md). Each pattern captures a region's node as
// @injection.content and names its language by a capture,
// @injection.language (the text of a node: a Markdown fence's info
// string), or by a property, (#set! injection.language "css"); an empty
// name leaves the region as it is. @injection.region may capture the
// construct around the code (a fence with its ``` lines, a <script>
// element with its tags): a chunk that lies inside it is in the region's
// language. Captures whose names start with "_" only serve predicates. A
// file may extend another host's, as definition queries do (queries.go):
// its first line is then "; extends: HOST", and its patterns come before
// HOST's, so that the first pattern that matches a region decides.
//
//go:embed injections/*.scm
var injections embed.FS

// InjectionQuery returns the query that finds the regions of the
// language's files written in another language, "" when it has none.
func (l *Language) InjectionQuery() string { return injectionQueries()[l.Name] }

// injectionQueries are the injection queries by host language, composed
// once: every parsed file asks whether its language has one.
var injectionQueries = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	entries, _ := fs.ReadDir(injections, "injections")
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".scm")
		q, err := composeQuery(injections, "injections", name)
		if err != nil {
			// TestInjectionFilesSayWhatTheyEmbed composes every file: a
			// broken one is a build mistake, not an input error.
			panic(fmt.Sprintf("lang: injection query of %s: %v", name, err))
		}
		out[name] = q
	}
	return out
})

// embedsDirective starts the line of an injection query file that says
// what a reader of the language table of docs/inputs.md is told the host embeds:
// its first line, or its second after an "; extends:" line.
const embedsDirective = "; embeds: "

// Embeds says, for the language table of docs/inputs.md, what code in other
// languages the language's files hold that castchunk parses as such (the
// "; embeds:" line of its injection query); "" when none.
func (l *Language) Embeds() string {
	q := l.InjectionQuery()
	for range 2 {
		line, rest, _ := strings.Cut(q, "\n")
		if s, ok := strings.CutPrefix(line, embedsDirective); ok {
			return s
		}
		q = rest
	}
	return ""
}

// ForInfoString finds the language an embedded region is said to be in:
// a Markdown fence's info string (```rust, ```py title="x", ```{r}
// echo=FALSE, ```c++) or an injection query's language name. Its first
// word, without braces or a leading dot, names a row by its name or a
// Linguist alias, case-insensitively, or by one of its extensions (`py`,
// `rs`, `sh`, `yml`); nil when none does.
func ForInfoString(info string) *Language {
	word, _, _ := strings.Cut(strings.TrimSpace(info), " ")
	word = strings.Trim(word, "{}")
	word, _, _ = strings.Cut(word, ",") // ```{r, echo=FALSE}
	word = strings.TrimPrefix(word, ".")
	if word == "" {
		return nil
	}
	if l := ForLinguist(word); l != nil {
		return l
	}
	ext := "." + strings.ToLower(word)
	for _, l := range registry {
		for _, e := range l.Extensions {
			if e == ext {
				return l
			}
		}
	}
	if l, ok := infoNames[strings.ToLower(word)]; ok {
		return ByName(l)
	}
	return nil
}

// infoNames are the names fences commonly give languages that neither a
// row's name, its aliases nor its extensions say.
var infoNames = map[string]string{
	"c++": "cpp", "cxx": "cpp", "golang": "go", "jsonc": "json", "json5": "json",
	"python3": "python", "py3": "python", "node": "javascript", "javascriptreact": "javascript",
	"typescriptreact": "tsx", "html5": "html", "xhtml": "html", "yml": "yaml",
}
