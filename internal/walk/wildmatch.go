package walk

import "strings"

// This file is a line-by-line port of git's wildmatch.c (the matcher behind
// .gitignore). It is ported rather than approximated because the project's
// promise is "ignores exactly what git ignores", and the corner cases of
// `**`, character classes and escapes are only defined by that code.

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
	return dowild(pattern, text, pathname) == wmMatch
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

// dowild is wildmatch.c's dowild. Indices pi and ti play the C pointers.
func dowild(p, t string, pathname bool) int {
	ti := 0
	for pi := 0; pi < len(p); pi, ti = pi+1, ti+1 {
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
			if pathname && tch == '/' {
				return wmNoMatch
			}
		case '*':
			np, nt, res, done := star(p, t, pi, ti, pathname)
			if done {
				return res
			}
			pi, ti = np, nt
		case '[':
			np, res, ok := class(p, pi, tch, pathname)
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
func star(p, t string, pi, ti int, pathname bool) (int, int, int, bool) {
	var matchSlash bool
	pi++
	if at(p, pi) == '*' {
		prev := pi - 2
		for pi++; at(p, pi) == '*'; pi++ {
		}
		c := at(p, pi)
		if !pathname {
			matchSlash = true
		} else if (prev < 0 || p[prev] == '/') &&
			(c == 0 || c == '/' || (c == '\\' && at(p, pi+1) == '/')) {
			// "**/" as a whole component: first try matching nothing.
			if c == '/' && dowild(p[pi+1:], t[ti:], pathname) == wmMatch {
				return 0, 0, wmMatch, true
			}
			matchSlash = true
		} else {
			matchSlash = false
		}
	} else {
		// Without pathname, '*' == '**'.
		matchSlash = !pathname
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
	return 0, 0, starLoop(p[pi:], t, ti, matchSlash, pathname), true
}

// starLoop tries the rest of the pattern at every text position the star
// may stop at.
func starLoop(p, t string, ti int, matchSlash, pathname bool) int {
	tch := at(t, ti)
	for tch != 0 {
		if !isGlobSpecial(p[0]) {
			// Skip ahead to the next occurrence of the literal.
			lit := p[0]
			for {
				tch = at(t, ti)
				if tch == 0 || (!matchSlash && tch == '/') || tch == lit {
					break
				}
				ti++
			}
			if tch != lit {
				return wmNoMatch
			}
		}
		m := dowild(p, t[ti:], pathname)
		if m != wmNoMatch {
			if !matchSlash || m != wmAbortToStarStar {
				return m
			}
		} else if !matchSlash && tch == '/' {
			return wmAbortToStarStar
		}
		ti++
		tch = at(t, ti)
	}
	return wmAbortAll
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
