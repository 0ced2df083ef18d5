package outline

import "bytes"

// maxHeading is how much of a heading's text plainHeading reads: a name is
// at most MaxName bytes, and markup rarely takes four times the words.
const maxHeading = 4 * MaxName

// plainHeading returns the words of a Markdown heading's inline text (a
// @name.markdown capture), as a reader sees them rendered: a link or an
// image gives its text (`[1.2.3](https://…)` is 1.2.3, a reference
// `[text][ref]` text), a code span its code, emphasis and strike-through
// lose their delimiters (an underscore inside a word stays), an autolink
// gives its address, an HTML tag and a trailing attribute block (`{#id}`)
// are dropped, a backslash escape gives its character. It reads at most
// maxHeading bytes, in time linear in them.
func plainHeading(b []byte) []byte {
	b = b[:min(len(b), maxHeading)]
	h := heading{text: b, closing: closers(b), nextGT: nextGreater(b), noCloser: map[int]bool{}}
	h.walk(0, len(b))
	out := bytes.TrimSpace(h.out)
	if i := bytes.LastIndex(out, []byte("{#")); i >= 0 && bytes.HasSuffix(out, []byte("}")) {
		out = bytes.TrimSpace(out[:i])
	}
	return out
}

// heading is plainHeading's state: the text, where each bracket closes and
// where the next '>' is (computed once, so that no byte is scanned twice),
// the backtick run lengths known to have no closer, and the words so far.
type heading struct {
	text     []byte
	closing  []int // for '[' and '(': the index of the bracket that closes it; -1 none
	nextGT   []int // the index of the first '>' at or after each byte; -1 none
	noCloser map[int]bool
	out      []byte
}

// walk appends the words of text[lo:hi].
func (h *heading) walk(lo, hi int) {
	b := h.text
	for i := lo; i < hi; i++ {
		c := b[i]
		switch {
		case c == '\\' && i+1 < hi && isPunct(b[i+1]):
			h.out = append(h.out, b[i+1])
			i++
		case c == '`':
			i = h.codeSpan(i, hi)
		case c == '!' && i+1 < hi && b[i+1] == '[' && h.closes(i+1, hi):
			// An image: its alt text, as a link's text below.
		case c == '[' && h.closes(i, hi):
			end := h.closing[i]
			h.walk(i+1, end)
			i = end
			if end+1 < hi && (b[end+1] == '(' || b[end+1] == '[') && h.closes(end+1, hi) {
				i = h.closing[end+1] // the destination or the reference
			}
		case c == '<' && i+1 < hi && (isWordByte(b[i+1]) || b[i+1] == '/' || b[i+1] == '!') && h.nextGT[i] >= 0 && h.nextGT[i] < hi:
			end := h.nextGT[i]
			if inner := b[i+1 : end]; bytes.Contains(inner, []byte("://")) || bytes.HasPrefix(inner, []byte("mailto:")) {
				h.out = append(h.out, inner...) // an autolink; else an HTML tag, dropped
			}
			i = end
		case c == '*' || c == '~':
			if i > lo && i+1 < hi && b[i-1] == ' ' && b[i+1] == ' ' {
				h.out = append(h.out, c) // `2 * 3`: no delimiter
			}
		case c == '_':
			if i > lo && i+1 < hi && isWordByte(b[i-1]) && isWordByte(b[i+1]) {
				h.out = append(h.out, c) // snake_case
			}
		default:
			h.out = append(h.out, c)
		}
	}
}

// closes reports whether the bracket at i closes before hi.
func (h *heading) closes(i, hi int) bool { return h.closing[i] >= 0 && h.closing[i] < hi }

// codeSpan appends the code of the span that opens with the backtick run
// at i (closed by the next run of as many backticks before hi) and returns
// the index of its last byte; a run without a closer is kept as text.
func (h *heading) codeSpan(i, hi int) int {
	b := h.text
	n := 1
	for i+n < hi && b[i+n] == '`' {
		n++
	}
	if !h.noCloser[n] {
		for j := i + n; j < hi; {
			if b[j] != '`' {
				j++
				continue
			}
			m := 1
			for j+m < hi && b[j+m] == '`' {
				m++
			}
			if m == n {
				h.out = append(h.out, bytes.TrimSpace(b[i+n:j])...)
				return j + m - 1
			}
			j += m
		}
		h.noCloser[n] = true // no later run of n backticks closes either
	}
	h.out = append(h.out, b[i:i+n]...)
	return i + n - 1
}

// closers matches brackets: for each '[' and '(' the index of the ']' or
// ')' that closes it at the same depth, -1 when none does. A backslash
// escapes the byte after it.
func closers(b []byte) []int {
	closing := make([]int, len(b))
	var square, round []int
	for i := 0; i < len(b); i++ {
		closing[i] = -1
		switch b[i] {
		case '\\':
			if i+1 < len(b) {
				i++
				closing[i] = -1
			}
		case '[':
			square = append(square, i)
		case '(':
			round = append(round, i)
		case ']':
			if n := len(square); n > 0 {
				closing[square[n-1]] = i
				square = square[:n-1]
			}
		case ')':
			if n := len(round); n > 0 {
				closing[round[n-1]] = i
				round = round[:n-1]
			}
		}
	}
	return closing
}

// nextGreater returns, for each byte, the index of the first '>' at or
// after it, -1 when there is none.
func nextGreater(b []byte) []int {
	next := make([]int, len(b))
	at := -1
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '>' {
			at = i
		}
		next[i] = at
	}
	return next
}

// isPunct reports whether c is ASCII punctuation, which a backslash escapes
// in Markdown.
func isPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// isWordByte reports whether c is a letter, a digit or any byte of a
// multi-byte character.
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
