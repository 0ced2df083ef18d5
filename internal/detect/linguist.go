package detect

// GitHub's language data (linguist's languages.yml and heuristics.yml, as
// go-enry carries them), in files internal/gen writes from go-enry's
// tables and embeds here. Each table is read on its first use: a run that
// names no text file never parses them.

//go:generate go run ./internal/gen -o linguist

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

var (
	//go:embed linguist/alias.tsv
	aliasTSV string
	//go:embed linguist/extension.tsv
	extensionTSV string
	//go:embed linguist/filename.tsv
	filenameTSV string
	//go:embed linguist/interpreter.tsv
	interpreterTSV string
	//go:embed linguist/heuristics.tsv
	heuristicsTSV string
	//go:embed linguist/prior.tsv
	priorTSV string
)

// table reads one of gen's files: a key a line, then its values, separated
// by tabs; lines that start with # are comments. The strings are the
// embedded file's own.
func table(tsv string) map[string][]string {
	m := make(map[string][]string, strings.Count(tsv, "\n"))
	for line := range strings.Lines(tsv) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, _ := strings.Cut(line, "\t")
		m[k] = strings.Split(v, "\t")
	}
	return m
}

var (
	// languagesByAlias is go-enry's LanguageByAliasMap: lowercase aliases
	// and names, spaces as underscores, to a language.
	languagesByAlias = sync.OnceValue(func() map[string][]string { return table(aliasTSV) })
	// languagesByExtension is go-enry's LanguagesByExtension: a lowercase
	// extension (".h", ".tar.gz") to its languages.
	languagesByExtension = sync.OnceValue(func() map[string][]string { return table(extensionTSV) })
	// languagesByFilename is go-enry's LanguagesByFilename: a file's exact
	// name ("Makefile") to its languages.
	languagesByFilename = sync.OnceValue(func() map[string][]string { return table(filenameTSV) })
	// languagesByInterpreter is go-enry's LanguagesByInterpreter.
	languagesByInterpreter = sync.OnceValue(func() map[string][]string { return table(interpreterTSV) })
	// priors is go-enry's LanguagesLogProbabilities: the log of the share
	// of linguist's samples in each language, its classifier's prior.
	priors = sync.OnceValue(func() map[string]float64 {
		m := map[string]float64{}
		for k, v := range table(priorTSV) {
			p, err := strconv.ParseFloat(v[0], 64)
			if err != nil {
				panic(fmt.Sprintf("detect: linguist/prior.tsv, %s: %v", k, err))
			}
			m[k] = p
		}
		return m
	})
	// heuristicsText is each extension's rules, as JSON, unparsed.
	heuristicsText = sync.OnceValue(func() map[string][]string { return table(heuristicsTSV) })
)

// languageByAlias is go-enry's LanguageByAlias: a language's name or one
// of its aliases, in any case, to its name.
func languageByAlias(alias string) (string, bool) {
	k, _, _ := strings.Cut(alias, ",")
	k = strings.ToLower(strings.ReplaceAll(k, " ", "_"))
	v, ok := languagesByAlias()[k]
	if !ok {
		return "", false
	}
	return v[0], true
}

// A rule is one of go-enry's content heuristics (its data/rule package),
// as internal/gen writes them: "or" matches when its one argument does,
// "and" when all do, "not" when none does, "always" always; "re" is a
// pattern, and "ruby" a pattern in Ruby's syntax, which Go's regexp
// cannot compile and go-enry (built without Oniguruma, as castchunk's test
// builds it) skips: an "or" of one never matches, "and" and "not" pass it
// over.
type rule struct {
	Op    string   `json:"op"`
	Langs []string `json:"langs"` // what a top-level rule names when it matches
	Re    string   `json:"re"`
	Args  []*rule  `json:"args"`
	re    *regexp.Regexp
}

func (r *rule) match(b []byte) bool {
	switch r.Op {
	case "re":
		return r.re.Match(b)
	case "or":
		return r.Args[0].Op != "ruby" && r.Args[0].match(b)
	case "and":
		for _, a := range r.Args {
			if a.Op != "ruby" && !a.match(b) {
				return false
			}
		}
		return true
	case "not":
		for _, a := range r.Args {
			if a.Op != "ruby" && a.match(b) {
				return false
			}
		}
		return true
	case "always":
		return true
	}
	return false // "ruby": never asked, as above
}

// compile readies the patterns of r and the rules under it.
func (r *rule) compile() error {
	switch r.Op {
	case "re":
		re, err := regexp.Compile(r.Re)
		if err != nil {
			return err
		}
		r.re = re
	case "or", "and", "not", "always", "ruby":
	default:
		return fmt.Errorf("unknown rule %q", r.Op)
	}
	if r.Op == "or" && len(r.Args) != 1 {
		return fmt.Errorf("an or rule of %d arguments", len(r.Args))
	}
	for _, a := range r.Args {
		if err := a.compile(); err != nil {
			return err
		}
	}
	return nil
}

var (
	heuristicsMu   sync.Mutex
	heuristicsDone map[string][]*rule // by extension; nil where it has none
)

// heuristicsFor returns an extension's rules (lowercase, with its dot),
// each extension's parsed and compiled on its first use.
func heuristicsFor(ext string) []*rule {
	heuristicsMu.Lock()
	defer heuristicsMu.Unlock()
	if rules, ok := heuristicsDone[ext]; ok {
		return rules
	}
	var rules []*rule
	if text, ok := heuristicsText()[ext]; ok {
		if err := json.Unmarshal([]byte(text[0]), &rules); err != nil {
			panic(fmt.Sprintf("detect: linguist/heuristics.tsv, %s: %v", ext, err))
		}
		for _, r := range rules {
			if err := r.compile(); err != nil {
				panic(fmt.Sprintf("detect: linguist/heuristics.tsv, %s: %v", ext, err))
			}
		}
	}
	if heuristicsDone == nil {
		heuristicsDone = map[string][]*rule{}
	}
	heuristicsDone[ext] = rules
	return rules
}
