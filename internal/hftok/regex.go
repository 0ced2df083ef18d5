package hftok

import (
	"fmt"
	"strings"
	"unicode"
)

// Oniguruma's Unicode classes written as Go class items: \s is 9-D, 85 and
// Z; \d is Nd; \w is Alphabetic (L, Nl, Other_Alphabetic), M, Nd, Pc.
const (
	onigSpace = `\t-\r\x{85}\p{Z}`
	onigDigit = `\p{Nd}`
)

// onigWord is \w's class items, Other_Alphabetic spelled out from Go's
// table because Go's regexp has no \p for it.
func onigWord() string {
	var b strings.Builder
	b.WriteString(`\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}`)
	for _, r := range unicode.Other_Alphabetic.R16 {
		fmt.Fprintf(&b, `\x{%X}-\x{%X}`, r.Lo, r.Hi)
	}
	for _, r := range unicode.Other_Alphabetic.R32 {
		fmt.Fprintf(&b, `\x{%X}-\x{%X}`, r.Lo, r.Hi)
	}
	return b.String()
}

// translateRegex rewrites an Oniguruma (Ruby syntax) regex for Go's regexp
// when that is exact, and refuses, naming the construct, what Go cannot
// match the same: lookaround, atomic groups, possessive quantifiers,
// backreferences, inline options, nested classes and intersections, and
// escapes whose meaning differs. Both engines then pick the leftmost-first
// match, so the matches agree.
func translateRegex(pat string) (string, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == '\\':
			if i+1 >= len(pat) {
				return "", fmt.Errorf("ends with a backslash")
			}
			i++
			s, err := translateEscape(pat[i], inClass)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		case inClass:
			if c == '[' {
				return "", fmt.Errorf("uses a nested class or POSIX bracket the Go engine cannot match exactly")
			}
			if c == '&' && i+1 < len(pat) && pat[i+1] == '&' {
				return "", fmt.Errorf("uses a class intersection (&&) the Go engine cannot match exactly")
			}
			if c == ']' && !classStart(pat, i) {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
		case c == '(':
			if err := checkGroup(pat[i:]); err != nil {
				return "", err
			}
			b.WriteByte(c)
		case c == '^':
			b.WriteString(`(?m:^)`)
		case c == '$':
			b.WriteString(`(?m:$)`)
		case c == '*' || c == '+' || c == '?' || c == '}':
			if i+1 < len(pat) && pat[i+1] == '+' {
				return "", fmt.Errorf("uses a possessive quantifier the Go engine cannot match exactly")
			}
			b.WriteByte(c)
		case c == '{' && i+1 < len(pat) && pat[i+1] == ',':
			return "", fmt.Errorf("uses {,n}, which Go reads as text")
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// classStart reports whether the ']' at i is a literal because it opens
// its class ("[]" or "[^]").
func classStart(pat string, i int) bool {
	return pat[i-1] == '[' || pat[i-1] == '^' && i >= 2 && pat[i-2] == '['
}

// checkGroup refuses the group kinds at the start of g that Go lacks or
// reads differently.
func checkGroup(g string) error {
	if !strings.HasPrefix(g, "(?") {
		return nil
	}
	switch {
	case strings.HasPrefix(g, "(?:"), strings.HasPrefix(g, "(?P<"):
		return nil
	case strings.HasPrefix(g, "(?<=") || strings.HasPrefix(g, "(?<!"):
		return fmt.Errorf("uses a lookbehind the Go engine cannot match exactly")
	case strings.HasPrefix(g, "(?="), strings.HasPrefix(g, "(?!"):
		return fmt.Errorf("uses a lookahead the Go engine cannot match exactly")
	case strings.HasPrefix(g, "(?>"):
		return fmt.Errorf("uses an atomic group the Go engine cannot match exactly")
	case strings.HasPrefix(g, "(?<"):
		return nil // a named group
	}
	return fmt.Errorf("uses an inline option or group %q the Go engine cannot match exactly", g[:min(len(g), 4)])
}

// translateEscape rewrites the escape \c.
func translateEscape(c byte, inClass bool) (string, error) {
	wrap := func(items string, neg bool) (string, error) {
		switch {
		case inClass && neg:
			return "", fmt.Errorf(`uses \%c inside a class, which Go cannot express`, c)
		case inClass:
			return items, nil
		case neg:
			return "[^" + items + "]", nil
		}
		return "[" + items + "]", nil
	}
	switch c {
	case 's', 'S':
		return wrap(onigSpace, c == 'S')
	case 'd':
		return onigDigit, nil
	case 'D':
		return `\P{Nd}`, nil
	case 'w', 'W':
		return wrap(onigWord(), c == 'W')
	case 'p', 'P', 'x', 't', 'n', 'r', 'f', 'v', 'a', 'A', 'z':
		return `\` + string(c), nil
	case 'e':
		return `\x1B`, nil
	case 'u':
		return "", fmt.Errorf(`uses \u, not translated`)
	}
	if c < 0x80 && !unicode.IsLetter(rune(c)) && !unicode.IsDigit(rune(c)) {
		return `\` + string(c), nil // an escaped punctuation character is itself
	}
	return "", fmt.Errorf(`uses \%c, whose Oniguruma meaning the Go engine does not share`, c)
}
