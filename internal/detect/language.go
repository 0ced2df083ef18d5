package detect

// The strategies of go-enry v2.9.6's GetLanguage (common.go there; go-enry
// is Apache-2.0, a port of linguist's Linguist.detect, MIT), but the last:
// modeline, file name, shebang, extension, XML header, man page extension,
// content heuristics. go-enry ends with a Bayesian classifier trained on
// linguist's samples (16 MB of token tables); castchunk does without it:
// where several languages are still candidates after the heuristics, it
// takes the one linguist has most samples of (the classifier's prior, one
// number a language: what the classifier says of a file with no words),
// the first in go-enry's order (alphabetical) among equals. detect's tests
// compare this with go-enry on every file of the repository's testdata
// and of Go's source tree.

import (
	"bufio"
	"bytes"
	"path"
	"path/filepath"
	"strings"
)

// language is go-enry's GetLanguage(filename, content) with the prior for
// its classifier: "" when nothing is recognised.
func language(filename string, content []byte) string {
	return pick(languages(filename, content))
}

// pick is the language of candidates: the one, or the most sampled.
func pick(langs []string) string {
	if len(langs) > 1 {
		return mostSampled(langs)
	}
	if len(langs) == 1 {
		return langs[0]
	}
	return ""
}

// mostSampled picks among candidates the language of most samples, the
// first of them when none has any (as go-enry, whose classifier skips a
// language it has no samples of and falls back on the candidates).
func mostSampled(candidates []string) string {
	p := priors()
	best, bestP := "", 0.0
	for _, l := range candidates {
		if lp, ok := p[l]; ok && (best == "" || lp > bestP) {
			best, bestP = l, lp
		}
	}
	if best == "" {
		return candidates[0]
	}
	return best
}

// strategy is go-enry's Strategy: the languages a file may be in, given
// the candidates the strategies before it left.
type strategy func(filename string, content []byte, candidates []string) []string

var strategies = []strategy{
	byModeline,
	byFilename,
	byShebang,
	byExtension,
	byXML,
	byManpage,
	byContent,
}

// languages is go-enry's GetLanguages without the classifier: the first
// strategy's answer that names one language, else the candidates the last
// strategy to name several left.
func languages(filename string, content []byte) []string {
	if isBinary(content) {
		return nil
	}
	var langs []string
	for _, s := range strategies {
		candidates := s(filename, content, langs)
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

// isBinary is go-enry's IsBinary: a NUL in the first 8000 bytes, as git.
func isBinary(content []byte) bool {
	return bytes.IndexByte(content[:min(len(content), 8000)], 0) >= 0
}

// byModeline reads an Emacs or Vim modeline in the first or last five
// lines.
func byModeline(_ string, content []byte, _ []string) []string {
	headFoot := headerAndFooter(content)
	if l := byEmacsModeline(headFoot); l != nil {
		return l
	}
	return byVimModeline(headFoot)
}

// headerAndFooter is go-enry's getHeaderAndFooter: the whole content when
// it has fewer than ten newlines, else its first five lines (without the
// fifth newline) followed by its last five.
func headerAndFooter(content []byte) []byte {
	const scope = 5
	if len(content) == 0 || bytes.Count(content, []byte("\n")) < 2*scope {
		return content
	}
	header, rest := 0, content
	for range scope {
		eol := bytes.IndexByte(rest, '\n')
		rest = rest[eol+1:]
		header += eol
	}
	header += scope - 1
	footer, rest := 0, content
	for range scope {
		footer = bytes.LastIndexByte(rest, '\n')
		rest = rest[:footer]
	}
	footer++
	out := make([]byte, 0, header+len(content)-footer)
	out = append(out, content[:header]...)
	return append(out, content[footer:]...)
}

var (
	emacsModeline = &lazyRegexp{expr: `.*-\*-\s*(.+?)\s*-\*-.*(?m:$)`}
	emacsLang     = &lazyRegexp{expr: `.*(?i:mode)\s*:\s*([^\s;]+)\s*;*.*`}
	vimModeline   = &lazyRegexp{expr: `(?:(?m:\s|^)vi(?:m[<=>]?\d+|m)?|[\t\x20]*ex)\s*[:]\s*(.*)(?m:$)`}
	vimLang       = &lazyRegexp{expr: `(?i:filetype|ft|syntax)\s*=(\w+)(?:\s|:|$)`}
)

// byEmacsModeline reads the last "-*- ... -*-" line: its mode, else all
// of it, as a language's name or alias.
func byEmacsModeline(content []byte) []string {
	matched := emacsModeline.get().FindAllSubmatch(content, -1)
	if matched == nil {
		return nil
	}
	last := matched[len(matched)-1][1]
	alias := string(last)
	if m := emacsLang.get().FindSubmatch(last); m != nil {
		alias = string(m[1])
	}
	if l, ok := languageByAlias(alias); ok {
		return []string{l}
	}
	return nil
}

// byVimModeline reads the last "vim: ..." line's filetype, ft or syntax
// (when it gives several, they must agree).
func byVimModeline(content []byte) []string {
	matched := vimModeline.get().FindAllSubmatch(content, -1)
	if matched == nil {
		return nil
	}
	last := matched[len(matched)-1][1]
	aliases := vimLang.get().FindAllSubmatch(last, -1)
	if aliases == nil {
		return nil
	}
	alias := string(aliases[0][1])
	for _, m := range aliases[1:] {
		if string(m[1]) != alias {
			return nil
		}
	}
	if l, ok := languageByAlias(alias); ok {
		return []string{l}
	}
	return nil
}

// byFilename looks up the file's exact name.
func byFilename(filename string, _ []byte, _ []string) []string {
	if filename == "" {
		return nil
	}
	return languagesByFilename()[filepath.Base(filename)]
}

// byShebang looks up the interpreter a shebang names.
func byShebang(_ string, content []byte, _ []string) []string {
	return languagesByInterpreter()[shebangInterpreter(content)]
}

var (
	shebangExecHack = &lazyRegexp{expr: `exec (\w+).+\$0.+\$@`}
	pythonVersion   = &lazyRegexp{expr: `python\d\.\d+`}
	envOptArgs      = &lazyRegexp{expr: `-[i0uCSv]*|--\S+`}
	envVarArgs      = &lazyRegexp{expr: `\S+=\S+`}
)

// shebangInterpreter is go-enry's getInterpreter. It differs from
// Interpreter, which castchunk uses to choose a grammar: it keeps env's
// options when they are all there is, reads `exec prog "$0" "$@"` in the
// first lines of a sh script, and drops a -l osascript.
func shebangInterpreter(content []byte) string {
	line := firstLines(content, 1)
	if !bytes.HasPrefix(line, []byte("#!")) {
		return ""
	}
	line = bytes.TrimSpace(line[2:])
	fields := bytes.Fields(line)
	if len(fields) == 0 {
		return ""
	}
	interpreter := path.Base(string(fields[0]))
	if interpreter == "env" {
		if len(fields) == 1 {
			return ""
		}
		for len(fields) > 2 {
			if envOptArgs.Match(fields[1]) || envVarArgs.Match(fields[1]) {
				fields = append(fields[:1], fields[2:]...)
				continue
			}
			break
		}
		interpreter = path.Base(string(fields[1]))
	}
	if interpreter == "sh" {
		interpreter = multilineExec(content)
	}
	if pythonVersion.MatchString(interpreter) {
		interpreter = interpreter[:strings.Index(interpreter, ".")]
	}
	// osascript -l runs another language (linguist's shebang.rb).
	if interpreter == "osascript" && bytes.Contains(line, []byte("-l")) {
		interpreter = ""
	}
	return interpreter
}

// multilineExec is go-enry's lookForMultilineExec: the program a sh
// script's first five lines exec with "$0" and "$@", else "sh".
func multilineExec(content []byte) string {
	s := bufio.NewScanner(bytes.NewReader(content))
	for i := 0; i < 5 && s.Scan(); i++ {
		if m := shebangExecHack.get().FindSubmatch(s.Bytes()); m != nil {
			return string(m[1])
		}
	}
	return "sh"
}

// firstLines is go-enry's getFirstLines: the first count lines, without
// the last newline; all of content when it has fewer.
func firstLines(content []byte, count int) []byte {
	nl := -1
	for ; count > 0; count-- {
		i := bytes.IndexByte(content[nl+1:], '\n')
		if i < 0 {
			return content
		}
		nl += i + 1
	}
	return content[:nl]
}

// byExtension looks up the name's extensions, the longest first
// (".tar.gz" before ".gz"), in any case.
func byExtension(filename string, _ []byte, _ []string) []string {
	if !strings.Contains(filename, ".") {
		return nil
	}
	filename = strings.ToLower(filename)
	exts := languagesByExtension()
	for i, c := range filename {
		if c == '.' {
			if langs, ok := exts[filename[i:]]; ok {
				return langs
			}
		}
	}
	return nil
}

// byXML keeps the candidates there are, else finds an XML declaration in
// the first two lines. go-enry's pattern, `<?xml version=`, is a regular
// expression whose `<` is optional: it finds "xml version=" anywhere.
func byXML(_ string, content []byte, candidates []string) []string {
	if len(candidates) > 0 {
		return candidates
	}
	if bytes.Contains(firstLines(content, 2), []byte("xml version=")) {
		return []string{"XML"}
	}
	return nil
}

var manpageExtension = &lazyRegexp{expr: `\.(?:[1-9](?:[a-z_]+[a-z_0-9]*)?|0p|n|man|mdoc)(?:\.in)?$`}

// byManpage: the extensions of Roff man pages.
func byManpage(filename string, _ []byte, _ []string) []string {
	if manpageExtension.MatchString(strings.ToLower(filename)) {
		return []string{"Roff Manpage", "Roff"}
	}
	return nil
}

// byContent applies the heuristics of the name's extension: the languages
// of the first rule that matches.
func byContent(filename string, content []byte, _ []string) []string {
	if filename == "" {
		return nil
	}
	for _, r := range heuristicsFor(strings.ToLower(filepath.Ext(filename))) {
		if r.match(content) {
			return r.Langs
		}
	}
	return nil
}
