package walk

import "strings"

// Filter applies Options.Include and Options.Exclude, as List does, to
// paths listed by something else (castchunk eval's commit trees), so the
// two agree on what a pattern takes. It is not safe for concurrent use.
type Filter struct {
	include, exclude *globSet
}

// NewFilter checks and compiles the patterns: an error names the flag and
// the bad pattern, as List's does.
func NewFilter(o Options) (*Filter, error) {
	include, err := newGlobSet("--include", o.Include)
	if err != nil {
		return nil, err
	}
	exclude, err := newGlobSet("--exclude", o.Exclude)
	if err != nil {
		return nil, err
	}
	return &Filter{include: include, exclude: exclude}, nil
}

// Keep reports whether the file at rel ('/'-separated, relative to the
// root) is kept: Exclude matches neither it nor a folder above it, and
// Include is empty, matches it or matches a folder above it.
func (f *Filter) Keep(rel string) bool {
	included := !f.include.any()
	for i := strings.IndexByte(rel, '/'); i >= 0; i = nextSlash(rel, i) {
		dir := rel[:i]
		if f.exclude.any() && f.exclude.match(dir, dir, true) {
			return false
		}
		if !included && f.include.match(dir, dir, true) {
			included = true
		}
	}
	if f.exclude.any() && f.exclude.match(rel, rel, false) {
		return false
	}
	return included || f.include.match(rel, rel, false)
}

// nextSlash is the index of the '/' after the one at i; -1 when none.
func nextSlash(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}
