package lang

import "strings"

// linguistAliases maps the names GitHub's Linguist gives languages (as
// they are written in `.gitattributes`: `linguist-language=C++`), lower
// cased, to rows whose name differs.
var linguistAliases = map[string]string{
	"c++":        "cpp",
	"c#":         "csharp",
	"shell":      "bash",
	"sh":         "bash",
	"golang":     "go",
	"js":         "javascript",
	"node":       "javascript",
	"ts":         "typescript",
	"py":         "python",
	"python3":    "python",
	"rb":         "ruby",
	"kt":         "kotlin",
	"yml":        "yaml",
	"md":         "markdown",
	"javascript": "javascript",
}

// ForLinguist finds the language a `linguist-language=NAME` attribute
// names, as GitHub reads NAME: case-insensitively, by name or alias; nil
// when no row has that language.
func ForLinguist(name string) *Language {
	n := strings.ToLower(strings.TrimSpace(name))
	if alias, ok := linguistAliases[n]; ok {
		n = alias
	}
	return ByName(n)
}
