package lang

import (
	"bytes"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Privacy is how a language marks a definition or a member private: what
// declaration chunking leaves out, keeping a file's public interface
// (docs/design.md, "Chunking methods"). The zero value keeps everything.
type Privacy struct {
	// Prefix: a name that starts with it is private ("_" in Python and
	// Dart, "#" in JavaScript); with "_", a name that also ends with "__"
	// (Python's __init__) is not.
	Prefix string
	// Exported: a name that does not start with an upper-case letter is
	// private (Go).
	Exported bool
	// Words: one of these among the words before the name makes it private
	// (Java's private, Elixir's defp).
	Words []string
	// Public: without one of these words before the name, a definition is
	// private (Rust's pub); with Members, only a member of a type is (C#:
	// a class's member with no access modifier). Members of an interface,
	// a trait, an enum or an impl of a trait ("Trait for Type") are public
	// whatever their words.
	Public  []string
	Members bool
}

// Decl is what a privacy rule reads of one definition or member.
type Decl struct {
	// Name is the declared name as written; for a member that is no
	// definition (a field), empty: Hides takes the last word before its
	// value or type.
	Name []byte
	// Lead is the text before the name (modifiers, keywords), or a
	// field's whole text.
	Lead []byte
	// Owner is the kind and name of the type it is a member of (outline's
	// kinds); empty at the top level.
	OwnerKind, OwnerName string
}

// Hides reports whether d is private by the rule.
func (p Privacy) Hides(d Decl) bool {
	lead, name := d.Lead, d.Name
	if name == nil {
		lead, name = fieldParts(d.Lead)
	}
	words := leadWords(lead)
	switch {
	case p.Prefix != "" && bytes.HasPrefix(name, []byte(p.Prefix)):
		if p.Prefix != "_" || !bytes.HasSuffix(name, []byte("__")) || len(name) < 5 {
			return true
		}
	case p.Exported && len(name) > 0:
		r, _ := utf8.DecodeRune(name)
		if !unicode.IsUpper(r) {
			return true
		}
	}
	for _, w := range words {
		if slices.Contains(p.Words, w) {
			return true
		}
	}
	if len(p.Public) == 0 || p.Members && d.OwnerKind == "" || publicMembers(d.OwnerKind, d.OwnerName) {
		return false
	}
	for _, w := range words {
		if slices.Contains(p.Public, w) {
			return false
		}
	}
	return true
}

// publicMembers reports whether the members of a type of this kind and
// name are public whatever their words.
func publicMembers(kind, name string) bool {
	switch kind {
	case "interface", "trait", "enum":
		return true
	case "impl":
		return bytes.Contains([]byte(name), []byte(" for "))
	}
	return false
}

// fieldParts splits a field's text into what comes before its name and
// the name: the name is the last word before the first '=', ':', ';',
// '(' or '{' (`private int x = 5`, `_cache: dict = {}`, `pub x: i32`).
func fieldParts(text []byte) (lead, name []byte) {
	if i := bytes.IndexAny(text, "=:;({"); i >= 0 {
		text = text[:i]
	}
	text = bytes.TrimRight(text, " \t\r\n")
	i := len(text)
	for i > 0 {
		r, w := utf8.DecodeLastRune(text[:i])
		if !wordRune(r) {
			break
		}
		i -= w
	}
	return text[:i], text[i:]
}

// leadWords returns the words of text: runs of letters, digits, '_',
// '$' and '#'.
func leadWords(text []byte) []string {
	var words []string
	for i := 0; i < len(text); {
		r, w := utf8.DecodeRune(text[i:])
		if !wordRune(r) {
			i += w
			continue
		}
		j := i
		for j < len(text) {
			r, w := utf8.DecodeRune(text[j:])
			if !wordRune(r) {
				break
			}
			j += w
		}
		words = append(words, string(text[i:j]))
		i = j
	}
	return words
}

func wordRune(r rune) bool {
	return r == '_' || r == '$' || r == '#' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
