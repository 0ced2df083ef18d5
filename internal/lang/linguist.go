package lang

import "strings"

// ForLinguist finds the language a `linguist-language=NAME` attribute
// names, as GitHub reads NAME: case-insensitively, by a row's name or one
// of its aliases; nil when no row has that language.
func ForLinguist(name string) *Language {
	n := strings.TrimSpace(name)
	for _, l := range registry {
		if strings.EqualFold(l.Name, n) {
			return l
		}
		for _, a := range l.Aliases {
			if strings.EqualFold(a, n) {
				return l
			}
		}
	}
	return nil
}
