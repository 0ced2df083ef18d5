package hftok

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Oniguruma's Unicode classes written as class items both engines read: \s
// is 9-D, 85 and Z; \d is Nd; \w is Alphabetic (L, Nl, Other_Alphabetic),
// M, Nd, Pc.
const (
	onigSpace = `\t-\r\x{85}\p{Z}`
	onigDigit = `\p{Nd}`
)

// onigWord is \w's class items, Other_Alphabetic spelled out from Go's
// table because neither engine has a \p for it.
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

// An engine is what a translation is written for.
type engine int

const (
	// goEngine is Go's regexp (RE2): linear time, leftmost-first, but no
	// lookaround, atomic group or \Z.
	goEngine engine = iota
	// backtracking is github.com/dlclark/regexp2 (a backtracking engine,
	// .NET syntax, as Oniguruma is one): lookaround, atomic groups, \Z and
	// \b written as lookarounds. Its \p{..} classes are Go's unicode tables
	// (Unicode 15.0, Oniguruma 6.9.8's); \s, \d and \w never reach it (they
	// are translated to Oniguruma's classes), so none of its options
	// (ECMAScript, RE2) changes a translated pattern's meaning.
	backtracking
)

// translateRegex rewrites an Oniguruma (Ruby syntax) regex for eng when
// that is exact, and refuses, naming the construct, what eng cannot match
// the same. Both engines then pick the leftmost-first match, as Oniguruma
// does, so the matches agree. For the backtracking engine it also refuses
// a repeated group that holds a repetition or an alternation ((a+)+,
// (a|a)*: the shapes that backtrack exponentially); a real split regex
// repeats a group with ? at most.
func translateRegex(pat string, eng engine) (string, error) {
	t := &regexTranslator{pat: pat, eng: eng, risky: []bool{false}, closed: -1}
	for i := 0; i < len(pat); i++ {
		last := t.closed
		t.closed = -1
		n, err := t.step(i, last)
		if err != nil {
			return "", err
		}
		i += n
	}
	if t.inClass {
		return "", fmt.Errorf("has an unclosed class")
	}
	if len(t.risky) != 1 {
		return "", fmt.Errorf("has an unclosed group")
	}
	return t.b.String(), nil
}

// regexTranslator is translateRegex's state while it walks a pattern.
type regexTranslator struct {
	pat     string
	eng     engine
	b       strings.Builder
	inClass bool
	// risky[k] says whether the open group k (0: the whole pattern) holds
	// a quantifier or an alternation; closed is the risk of the group that
	// just closed, if the last thing written was a group.
	risky  []bool
	closed int
}

// step translates the construct starting at pat[i], given last, the risk
// of the group closed just before it (-1 if none), and returns how many
// bytes after pat[i] it consumed too.
func (t *regexTranslator) step(i, last int) (int, error) {
	c := t.pat[i]
	switch {
	case c == '\\':
		return t.escape(i)
	case t.inClass:
		return 0, t.classByte(i)
	case c == '[':
		t.inClass = true
		t.b.WriteByte(c)
	case strings.HasPrefix(t.pat[i:], "(?i:"):
		return t.caseFoldGroup(i)
	case c == '(':
		return t.openGroup(i)
	case c == ')':
		return 0, t.closeGroup()
	case c == '|':
		t.risky[len(t.risky)-1] = true
		t.b.WriteByte(c)
	case c == '^':
		t.b.WriteString(`(?m:^)`)
	case c == '$':
		t.b.WriteString(`(?m:$)`)
	case c == '*' || c == '+' || c == '?' || c == '}':
		return 0, t.quantifier(i, last)
	case c == '{':
		return 0, t.countedRepeat(i, last)
	default:
		t.b.WriteByte(c)
	}
	return 0, nil
}

// escape translates the backslash escape at pat[i] and returns the
// length of what follows the backslash.
func (t *regexTranslator) escape(i int) (int, error) {
	if i+1 >= len(t.pat) {
		return 0, fmt.Errorf("ends with a backslash")
	}
	s, n, err := translateEscape(t.pat[i+1:], t.inClass, t.eng)
	if err != nil {
		return 0, err
	}
	t.b.WriteString(s)
	return n, nil
}

// classByte writes the byte pat[i] inside a character class, noting the
// class's end and refusing nested classes and intersections.
func (t *regexTranslator) classByte(i int) error {
	c := t.pat[i]
	if c == '[' {
		return fmt.Errorf("uses a nested class or POSIX bracket, which castchunk cannot match exactly")
	}
	if c == '&' && i+1 < len(t.pat) && t.pat[i+1] == '&' {
		return fmt.Errorf("uses a class intersection (&&), which castchunk cannot match exactly")
	}
	if c == ']' && !classStart(t.pat, i) {
		t.inClass = false
	}
	t.b.WriteByte(c)
	return nil
}

// caseFoldGroup translates the whole (?i:...) group at pat[i] and
// returns how many bytes after pat[i] it took.
func (t *regexTranslator) caseFoldGroup(i int) (int, error) {
	s, n, alt, err := foldGroup(t.pat[i:], t.eng)
	if err != nil {
		return 0, err
	}
	t.b.WriteString(s)
	t.closed = 0
	if alt {
		t.closed = 1
		t.risky[len(t.risky)-1] = true
	}
	return n - 1, nil
}

// openGroup writes the opening of the group at pat[i], opens its risk
// entry and returns how many bytes after the '(' it took.
func (t *regexTranslator) openGroup(i int) (int, error) {
	open, err := checkGroup(t.pat[i:], t.eng)
	if err != nil {
		return 0, err
	}
	t.b.WriteString(open)
	t.risky = append(t.risky, false)
	if strings.HasPrefix(t.pat[i:], "(?P<") {
		return len("(?P<") - 1, nil // written as (?< for regexp2
	}
	return len(open) - 1, nil
}

// closeGroup writes a ')', passing the closed group's risk on to the
// group around it.
func (t *regexTranslator) closeGroup() error {
	if len(t.risky) == 1 {
		return fmt.Errorf("has an unmatched )")
	}
	k := len(t.risky) - 1
	t.closed = 0
	if t.risky[k] {
		t.closed = 1
		t.risky[k-1] = true
	}
	t.risky = t.risky[:k]
	t.b.WriteByte(')')
	return nil
}

// quantifier writes the quantifier (or the '}' ending one) at pat[i],
// refusing a possessive one and, for the backtracking engine, one that
// repeats a risky group (last == 1).
func (t *regexTranslator) quantifier(i, last int) error {
	c := t.pat[i]
	if i+1 < len(t.pat) && t.pat[i+1] == '+' {
		return fmt.Errorf("uses a possessive quantifier (%c+), which castchunk cannot match exactly", c)
	}
	t.risky[len(t.risky)-1] = true
	if t.eng == backtracking && last == 1 && c != '?' && c != '}' {
		return fmt.Errorf("repeats a group holding a repetition or an alternation (%c), which can backtrack exponentially; castchunk does not run it", c)
	}
	t.b.WriteByte(c)
	return nil
}

// countedRepeat writes the '{' at pat[i], refusing {,n} and, for the
// backtracking engine, a {n,m} other than {0,1} after a risky group.
func (t *regexTranslator) countedRepeat(i, last int) error {
	if i+1 < len(t.pat) && t.pat[i+1] == ',' {
		return fmt.Errorf("uses {,n}, which the engines read as text")
	}
	if t.eng == backtracking && last == 1 && !strings.HasPrefix(t.pat[i:], "{0,1}") {
		return fmt.Errorf("repeats a group holding a repetition or an alternation ({n,m}), which can backtrack exponentially; castchunk does not run it")
	}
	t.b.WriteByte('{')
	return nil
}

// classStart reports whether the ']' at i is a literal because it opens
// its class ("[]" or "[^]").
func classStart(pat string, i int) bool {
	return pat[i-1] == '[' || pat[i-1] == '^' && i >= 2 && pat[i-2] == '['
}

// checkGroup returns how the group opening at the start of g is written
// for eng, refusing the kinds eng lacks or reads differently.
func checkGroup(g string, eng engine) (string, error) {
	if !strings.HasPrefix(g, "(?") {
		return "(", nil
	}
	look := func(open, what string) (string, error) {
		if eng == goEngine {
			return "", fmt.Errorf("uses a %s, which Go's engine lacks", what)
		}
		return open, nil
	}
	switch {
	case strings.HasPrefix(g, "(?:"):
		return "(?:", nil
	case strings.HasPrefix(g, "(?P<"):
		if eng == backtracking {
			return "(?<", nil
		}
		return "(?P<", nil
	case strings.HasPrefix(g, "(?<="):
		return look("(?<=", "lookbehind")
	case strings.HasPrefix(g, "(?<!"):
		return look("(?<!", "lookbehind")
	case strings.HasPrefix(g, "(?="):
		return look("(?=", "lookahead")
	case strings.HasPrefix(g, "(?!"):
		return look("(?!", "lookahead")
	case strings.HasPrefix(g, "(?>"):
		return look("(?>", "atomic group")
	case strings.HasPrefix(g, "(?<"):
		return "(?<", nil // a named group
	}
	return "", fmt.Errorf("uses an inline option or group %q, which castchunk cannot match exactly", g[:min(len(g), 4)])
}

// foldGroup translates the case-insensitive group (?i:...) at the start of
// g, which may hold literal ASCII text and | only: each letter becomes the
// class of its simple case folds, as Oniguruma folds it ('s' matches S and
// U+017F LONG S, 'k' matches U+212A KELVIN SIGN). Oniguruma also folds a
// sequence to one character (ss to ß, fi to U+FB01), which a class cannot
// say: such a sequence is refused. It returns the translation, the bytes of
// g it read, and whether the group holds an alternation.
func foldGroup(g string, eng engine) (string, int, bool, error) {
	refuse := func(what string) (string, int, bool, error) {
		return "", 0, false, fmt.Errorf("uses a case-insensitive group (?i:...) holding %s; castchunk translates literal ASCII text and | only", what)
	}
	var b strings.Builder
	b.WriteString("(?:")
	var branch []byte // the branch so far, lowercased
	alt := false
	for i := len("(?i:"); i < len(g); i++ {
		c := g[i]
		switch {
		case c == ')':
			b.WriteByte(')')
			return b.String(), i + 1, alt, nil
		case c == '|':
			alt, branch = true, branch[:0]
			b.WriteByte('|')
			continue
		case c >= utf8.RuneSelf:
			return refuse("a non-ASCII character")
		case c == '\\':
			if i+1 >= len(g) || !isASCIIPunct(g[i+1]) {
				return refuse("an escape other than punctuation")
			}
			i++
			c = g[i]
			b.WriteString(escapePunct(c, eng))
		case strings.IndexByte(`()[]{}*+?.^$#`, c) >= 0 || c < ' ':
			return refuse(fmt.Sprintf("%q", c))
		case 'a' <= c|0x20 && c|0x20 <= 'z':
			b.WriteByte('[')
			r := rune(c)
			for {
				if r < utf8.RuneSelf {
					b.WriteRune(r)
				} else {
					fmt.Fprintf(&b, `\x{%X}`, r)
				}
				if r = unicode.SimpleFold(r); r == rune(c) {
					break
				}
			}
			b.WriteByte(']')
			c |= 0x20
		default:
			b.WriteByte(c)
		}
		branch = append(branch, c)
		for _, seq := range []string{"ss", "st", "ff", "fi", "fl"} {
			if strings.HasSuffix(string(branch), seq) {
				return refuse(fmt.Sprintf("%q, which Oniguruma also matches to one character (multi-character case folding)", seq))
			}
		}
	}
	return "", 0, false, fmt.Errorf("has an unclosed group")
}

func isASCIIPunct(c byte) bool {
	return c > ' ' && c < utf8.RuneSelf && !unicode.IsLetter(rune(c)) && !unicode.IsDigit(rune(c))
}

// escapePunct writes an escaped ASCII punctuation character for eng:
// regexp2 refuses some (\_), so there it is its code point.
func escapePunct(c byte, eng engine) string {
	if eng == backtracking {
		return fmt.Sprintf(`\x{%X}`, c)
	}
	return `\` + string(c)
}

// translateEscape rewrites the escape at the start of rest (after the
// backslash), returning its translation and the bytes of rest it used.
func translateEscape(rest string, inClass bool, eng engine) (string, int, error) {
	c := rest[0]
	wrap := func(items string, neg bool) (string, int, error) {
		switch {
		case inClass && neg:
			return "", 0, fmt.Errorf(`uses \%c inside a class, which castchunk cannot translate`, c)
		case inClass:
			return items, 1, nil
		case neg:
			return "[^" + items + "]", 1, nil
		}
		return "[" + items + "]", 1, nil
	}
	switch c {
	case 's', 'S':
		return wrap(onigSpace, c == 'S')
	case 'd':
		return onigDigit, 1, nil
	case 'D':
		return `\P{Nd}`, 1, nil
	case 'w', 'W':
		return wrap(onigWord(), c == 'W')
	case 'p', 'P':
		return translateProperty(rest)
	case 'x':
		return translateHex(rest)
	case 't', 'n', 'r', 'f', 'v', 'a':
		return `\` + string(c), 1, nil
	case 'A', 'z':
		if inClass {
			break
		}
		return `\` + string(c), 1, nil
	case 'Z':
		if inClass || eng == goEngine {
			break
		}
		return `\Z`, 1, nil
	case 'b', 'B':
		if inClass || eng == goEngine {
			break
		}
		// Oniguruma's word boundary is its \w's, not regexp2's: written
		// with lookarounds on the translated class.
		w := "[" + onigWord() + "]"
		if c == 'b' {
			return "(?:(?<=" + w + ")(?!" + w + ")|(?<!" + w + ")(?=" + w + "))", 1, nil
		}
		return "(?:(?<=" + w + ")(?=" + w + ")|(?<!" + w + ")(?!" + w + "))", 1, nil
	case 'e':
		return `\x1B`, 1, nil
	case 'u':
		return "", 0, fmt.Errorf(`uses \u, not translated`)
	}
	if isASCIIPunct(c) {
		return escapePunct(c, eng), 1, nil // an escaped punctuation character is itself
	}
	if eng == goEngine {
		return "", 0, fmt.Errorf(`uses \%c, which Go's engine lacks`, c)
	}
	return "", 0, fmt.Errorf(`uses \%c, whose Oniguruma meaning castchunk does not translate`, c)
}

// translateProperty translates \p{Name}, \P{Name} and Oniguruma's
// negation \p{^Name} at the start of rest, for a General_Category value or
// a script, the names that mean the same in Go's tables, regexp2's and
// Oniguruma's; another name is refused.
func translateProperty(rest string) (string, int, error) {
	neg := rest[0] == 'P'
	end := strings.IndexByte(rest, '}')
	if len(rest) < 2 || rest[1] != '{' || end < 0 {
		return "", 0, fmt.Errorf(`uses \%c without {name}, which castchunk does not translate`, rest[0])
	}
	name := rest[2:end]
	if strings.HasPrefix(name, "^") {
		neg, name = !neg, name[1:]
	}
	_, cat := unicode.Categories[name]
	_, script := unicode.Scripts[name]
	if !cat && !script {
		return "", 0, fmt.Errorf(`uses \p{%s}, a property castchunk does not translate (General_Category values and scripts only)`, name)
	}
	if neg {
		return `\P{` + name + `}`, end + 1, nil
	}
	return `\p{` + name + `}`, end + 1, nil
}

// translateHex reads \xHH or \x{H...} at the start of rest (after the
// backslash) and writes it as \x{H...}, which both engines read.
func translateHex(rest string) (string, int, error) {
	hex, n := "", 1
	if strings.HasPrefix(rest, "x{") {
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return "", 0, fmt.Errorf(`has an unclosed \x{`)
		}
		hex, n = rest[2:end], end+1
	} else {
		for n < len(rest) && n < 3 && strings.IndexByte("0123456789abcdefABCDEF", rest[n]) >= 0 {
			n++
		}
		hex = rest[1:n]
	}
	var r rune
	if _, err := fmt.Sscanf(hex, "%x", &r); err != nil || hex == "" || strings.Trim(hex, "0123456789abcdefABCDEF") != "" || r > unicode.MaxRune {
		return "", 0, fmt.Errorf(`uses \x%s, not a code point castchunk reads`, rest[1:n])
	}
	if !strings.HasPrefix(rest, "x{") && r >= utf8.RuneSelf {
		return "", 0, fmt.Errorf(`uses \x%s, a byte of UTF-8 to Oniguruma, not a character`, rest[1:n])
	}
	return fmt.Sprintf(`\x{%X}`, r), n, nil
}
