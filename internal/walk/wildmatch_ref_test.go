package walk

import "strings"

// This file keeps the plain port of git's wildmatch.c that wildmatch.go
// was before it was memoised, as the reference the memoised matcher is
// checked against (wildmatch_test.go). Its only changes: the functions are
// methods of refSearch, which counts their steps as wildMatcher counts its
// own (dowild calls, text positions the loop after a star looks at) and
// stops the search at a limit, so a test can show the blow-up without
// waiting for it.

// refSearch is one reference search: its steps, and the limit at which it
// stops (0: none).
type refSearch struct {
	steps, limit int
	over         bool
}

func (r *refSearch) step() bool {
	r.steps++
	if r.limit > 0 && r.steps >= r.limit {
		r.over = true
	}
	return r.over
}

// wildmatch is the old wildmatch: it reports whether text matches the git
// glob pattern. With pathname set (git's WM_PATHNAME), '*' and '?' do not
// match '/', and "**" matches across directories only as a whole path
// component.
func (r *refSearch) wildmatch(pattern, text string, pathname bool) bool {
	return r.dowild(pattern, text, pathname) == wmMatch
}

// dowild is wildmatch.c's dowild. Indices pi and ti play the C pointers.
func (r *refSearch) dowild(p, t string, pathname bool) int {
	if r.step() {
		return wmAbortAll
	}
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
			np, nt, res, done := r.star(p, t, pi, ti, pathname)
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
func (r *refSearch) star(p, t string, pi, ti int, pathname bool) (int, int, int, bool) {
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
			if c == '/' && r.dowild(p[pi+1:], t[ti:], pathname) == wmMatch {
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
	return 0, 0, r.starLoop(p[pi:], t, ti, matchSlash, pathname), true
}

// starLoop tries the rest of the pattern at every text position the star
// may stop at.
func (r *refSearch) starLoop(p, t string, ti int, matchSlash, pathname bool) int {
	tch := at(t, ti)
	for tch != 0 {
		if r.step() {
			return wmAbortAll
		}
		if !isGlobSpecial(p[0]) {
			// Skip ahead to the next occurrence of the literal.
			lit := p[0]
			for {
				tch = at(t, ti)
				if tch == 0 || (!matchSlash && tch == '/') || tch == lit {
					break
				}
				ti++
				if r.step() {
					return wmAbortAll
				}
			}
			if tch != lit {
				return wmNoMatch
			}
		}
		m := r.dowild(p, t[ti:], pathname)
		if r.over {
			return wmAbortAll
		}
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
