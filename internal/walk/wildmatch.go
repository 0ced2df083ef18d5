package walk

import "strings"

// This file is a port of git's wildmatch.c (the matcher behind .gitignore
// and .gitattributes). It is ported rather than approximated because the
// project's promise is "ignores exactly what git ignores", and the corner
// cases of `**`, character classes and escapes are only defined by that
// code.
//
// git's dowild backtracks: after a star it tries the rest of the pattern at
// every position the star may stop at, and its two abort results cut that
// search short only when the text runs out or a '/' stops a single star.
// When the literal after a star is simply not found (`*a*a*a*a*ab` against
// a name of a's ending in some other letter) nothing cuts it, and the
// search is exponential in the number of stars: git itself takes 5 s for
// five stars against a 121-character name, a minute for six. castchunk
// reads .gitignore and .gitattributes files it did not write, so the port
// is memoised: dowild's result depends only on where it starts in the
// pattern and in the text (the C pointers), and so does the loop after a
// star, so each (pattern, text) position is worked out once. The result is
// the same function, computed in O(stars × text) steps instead of
// O(text^stars).
//
// The memo is only built when it pays: wildmatch first runs the plain
// search with a budget of steps linear in the text, which every ordinary
// pattern fits without allocating, and starts again memoised when it runs
// out.

// Results of dowild, as in wildmatch.c. The two abort values let a caller
// higher up the recursion stop trying further positions early.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch reports whether text matches the git glob pattern. With pathname
// set (git's WM_PATHNAME), '*' and '?' do not match '/', and "**" matches
// across directories only as a whole path component.
func wildmatch(pattern, text string, pathname bool) bool {
	m := wildMatcher{p: pattern, t: text, pathname: pathname}
	return m.match() == wmMatch
}

// wildMatcher is one wildmatch call: the pattern and the text, whose
// indices play the C pointers, and the search's bookkeeping.
type wildMatcher struct {
	p, t     string
	pathname bool

	// steps counts the search's work: dowild calls and the text positions
	// the loop after a star looks at. The search stops (over) when steps
	// reach stopAt (0: never): the plain search's budget, or limit, which
	// caps a whole match (tests only; 0: no cap).
	steps, stopAt, limit int
	over                 bool

	// memo holds dowild's results and loops the results of the loop after
	// the star that ends at a pattern index (starLoop), each by pattern
	// index then text index, stored plus one (0: not known yet). nil in
	// the plain search; a row is made for a pattern index when first
	// needed, so a long pattern costs only the positions the search
	// reaches.
	memo, loops map[int][]int8
}

// plainBudget is how many steps the plain search may take before match
// starts again memoised. A search that does not backtrack takes about two
// steps per text position (a star's loop looks at each once, and each
// star that is tried consumes text; a chain of "**/" aside, which the
// memo handles as well), so only a pattern that makes the search
// backtrack in earnest runs out and pays for the memo. (A variable: the
// tests make every search memoised.)
var plainBudget = func(text string) int { return 256 + 8*len(text) }

// match is wildmatch: the plain search and, if it ran out of its budget,
// the memoised one. It returns dowild's result (wmAbortAll, meaningless,
// when limit stopped it).
func (m *wildMatcher) match() int {
	m.stopAt = plainBudget(m.t)
	if m.limit > 0 && (m.stopAt <= 0 || m.limit < m.stopAt) {
		m.stopAt = m.limit
	}
	r := m.dowild(0, 0)
	if !m.over || (m.limit > 0 && m.steps >= m.limit) {
		return r
	}
	m.over, m.stopAt = false, m.limit
	m.memo, m.loops = map[int][]int8{}, map[int][]int8{}
	return m.dowild(0, 0)
}

// step counts n steps and reports whether the search must stop.
func (m *wildMatcher) step(n int) bool {
	m.steps += n
	if m.stopAt > 0 && m.steps >= m.stopAt {
		m.over = true
	}
	return m.over
}

// recall returns a remembered result, or -1.
func recall(rows map[int][]int8, pi, ti int) int {
	if rows == nil { // the plain search
		return -1
	}
	row := rows[pi]
	if row == nil {
		return -1
	}
	return int(row[ti]) - 1
}

// remember stores r for the text positions from to through (inclusive).
func (m *wildMatcher) remember(rows map[int][]int8, pi, from, through, r int) {
	if rows == nil || m.over || from > through {
		return
	}
	row := rows[pi]
	if row == nil {
		row = make([]int8, len(m.t)+1)
		rows[pi] = row
	}
	for ti := from; ti <= through; ti++ {
		row[ti] = int8(r + 1)
	}
}

// at returns s[i], or 0 past the end: C strings end in NUL, and the port
// keeps the original's "read the terminator" logic that way.
func at(s string, i int) byte {
	if i >= 0 && i < len(s) {
		return s[i]
	}
	return 0
}

func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// dowild is wildmatch.c's dowild for the pattern from p[pi] and the text
// from t[ti]. Its result depends on nothing else: the one place where the
// C code looks before its own start ("is the '**' at the start of the
// pattern?") agrees with looking before it in the whole pattern, as a
// dowild call starts at a '*' only at the very start or just after the
// '/' of a "**/".
func (m *wildMatcher) dowild(pi, ti int) int {
	if m.step(1) {
		return wmAbortAll
	}
	if r := recall(m.memo, pi, ti); r >= 0 {
		return r
	}
	r := m.dowildAt(pi, ti)
	m.remember(m.memo, pi, ti, ti, r)
	return r
}

// dowildAt is dowild's body. Indices pi and ti play the C pointers.
func (m *wildMatcher) dowildAt(pi, ti int) int {
	p, t := m.p, m.t
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pch := p[pi]
		tch := at(t, ti)
		if tch == 0 && pch != '*' {
			return wmAbortAll
		}
		switch pch {
		case '\\':
			// Literal match with the following character.
			pi++
			if tch != at(p, pi) {
				return wmNoMatch
			}
		default:
			if tch != pch {
				return wmNoMatch
			}
		case '?':
			if m.pathname && tch == '/' {
				return wmNoMatch
			}
		case '*':
			np, nt, res, done := m.star(pi, ti)
			if done {
				return res
			}
			pi, ti = np, nt
		case '[':
			np, res, ok := class(p, pi, tch, m.pathname)
			if !ok {
				return res
			}
			pi = np
		}
	}
	if ti < len(t) {
		return wmNoMatch
	}
	return wmMatch
}

// star handles a '*' or '**' at p[pi]. It either decides the whole match
// (done) or, for "*/" under pathname, returns the positions of the slash in
// pattern and text so the main loop consumes it.
func (m *wildMatcher) star(pi, ti int) (int, int, int, bool) {
	p, t := m.p, m.t
	var matchSlash bool
	pi++
	if at(p, pi) == '*' {
		prev := pi - 2
		for pi++; at(p, pi) == '*'; pi++ {
		}
		c := at(p, pi)
		if !m.pathname {
			matchSlash = true
		} else if (prev < 0 || p[prev] == '/') &&
			(c == 0 || c == '/' || (c == '\\' && at(p, pi+1) == '/')) {
			// "**/" as a whole component: first try matching nothing.
			if c == '/' {
				if r := m.dowild(pi+1, ti); r == wmMatch || m.over {
					return 0, 0, r, true
				}
			}
			matchSlash = true
		} else {
			matchSlash = false
		}
	} else {
		// Without pathname, '*' == '**'.
		matchSlash = !m.pathname
	}
	if pi >= len(p) {
		// Trailing "**" matches everything; trailing "*" only when no
		// slash is left.
		if !matchSlash && strings.IndexByte(t[ti:], '/') >= 0 {
			return 0, 0, wmNoMatch, true
		}
		return 0, 0, wmMatch, true
	}
	if !matchSlash && p[pi] == '/' {
		// One '*' followed by '/' matches up to the next directory.
		slash := strings.IndexByte(t[ti:], '/')
		if slash < 0 {
			return 0, 0, wmNoMatch, true
		}
		return pi, ti + slash, 0, false
	}
	return 0, 0, m.starLoop(pi, ti, matchSlash), true
}

// starLoop tries the rest of the pattern, from p[pi] (not a '*'), at every
// text position from t[ti] the star before it may stop at. matchSlash is
// decided by that star, so the result depends on pi and ti alone; and
// every position the loop looks at on its way (the one it starts at, those
// it skips looking for a literal, those where the rest did not match)
// would have led to the same result, the end of the text excepted (where
// the loop is not entered at all), so memoised they all get it.
func (m *wildMatcher) starLoop(pi, ti int, matchSlash bool) int {
	from := ti
	r, last := m.starScan(pi, ti, matchSlash)
	if at(m.t, last) == 0 { // the end, or a NUL, which ends a C string
		last--
	}
	m.remember(m.loops, pi, from, last, r)
	return r
}

// starScan is starLoop's loop. It also returns the last text position it
// looked at.
func (m *wildMatcher) starScan(pi, ti int, matchSlash bool) (int, int) {
	p, t := m.p, m.t
	tch := at(t, ti)
	for tch != 0 {
		if m.step(1) {
			return wmAbortAll, ti
		}
		if r := recall(m.loops, pi, ti); r >= 0 {
			return r, ti
		}
		if !isGlobSpecial(p[pi]) {
			// Skip ahead to the next occurrence of the literal.
			lit, from := p[pi], ti
			for {
				tch = at(t, ti)
				if tch == 0 || (!matchSlash && tch == '/') || tch == lit {
					break
				}
				ti++
			}
			if m.step(ti - from) {
				return wmAbortAll, ti
			}
			if tch != lit {
				return wmNoMatch, ti
			}
		}
		r := m.dowild(pi, ti)
		if m.over {
			return wmAbortAll, ti
		}
		if r != wmNoMatch {
			if !matchSlash || r != wmAbortToStarStar {
				return r, ti
			}
		} else if !matchSlash && tch == '/' {
			return wmAbortToStarStar, ti
		}
		ti++
		tch = at(t, ti)
	}
	return wmAbortAll, ti
}

// class matches the bracket expression starting at p[pi] ('[') against tch.
// It returns the index of the closing ']' and ok, or a result to return.
func class(p string, pi int, tch byte, pathname bool) (int, int, bool) {
	pi++
	pch := at(p, pi)
	if pch == '^' {
		pch = '!'
	}
	negated := pch == '!'
	if negated {
		pi++
		pch = at(p, pi)
	}
	var prev byte
	matched := false
	for {
		if pch == 0 {
			return 0, wmAbortAll, false
		}
		switch {
		case pch == '\\':
			pi++
			pch = at(p, pi)
			if pch == 0 {
				return 0, wmAbortAll, false
			}
			if tch == pch {
				matched = true
			}
		case pch == '-' && prev != 0 && at(p, pi+1) != 0 && at(p, pi+1) != ']':
			pi++
			pch = at(p, pi)
			if pch == '\\' {
				pi++
				pch = at(p, pi)
				if pch == 0 {
					return 0, wmAbortAll, false
				}
			}
			if tch <= pch && tch >= prev {
				matched = true
			}
			pch = 0 // so that prev becomes 0: no range may follow a range
		case pch == '[' && at(p, pi+1) == ':':
			np, npch, m, ok := namedClass(p, pi, tch)
			if !ok {
				return 0, wmAbortAll, false
			}
			pi, pch = np, npch
			matched = matched || m
		default:
			if tch == pch {
				matched = true
			}
		}
		prev = pch
		pi++
		pch = at(p, pi)
		if pch == ']' {
			break
		}
	}
	if matched == negated || (pathname && tch == '/') {
		return 0, wmNoMatch, false
	}
	return pi, 0, true
}

// namedClass handles "[:name:]" inside a bracket expression at p[pi] ('[').
// When no ":]" closes it, the '[' is an ordinary member, as in git.
func namedClass(p string, pi int, tch byte) (int, byte, bool, bool) {
	s := pi + 2
	end := s
	for end < len(p) && p[end] != ']' {
		end++
	}
	if end >= len(p) {
		return 0, 0, false, false
	}
	n := end - s - 1
	if n < 0 || p[end-1] != ':' {
		return pi, '[', tch == '[', true
	}
	in, known := inClass(p[s:s+n], tch)
	if !known {
		return 0, 0, false, false // malformed [:class:]
	}
	return end, 0, in, true
}

// inClass implements the POSIX classes with git's ASCII-only ctype.
func inClass(name string, c byte) (in, known bool) {
	lower := c >= 'a' && c <= 'z'
	upper := c >= 'A' && c <= 'Z'
	digit := c >= '0' && c <= '9'
	space := c == ' ' || c == '\t' || c == '\n' || c == '\r'
	print := c >= 0x20 && c <= 0x7e
	switch name {
	case "alnum":
		return lower || upper || digit, true
	case "alpha":
		return lower || upper, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return print && !space, true
	case "lower":
		return lower, true
	case "print":
		return print, true
	case "punct":
		return print && !space && !lower && !upper && !digit, true
	case "space":
		return space, true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
