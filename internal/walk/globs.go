package walk

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// glob is one Include or Exclude pattern.
type glob struct {
	raw     string // as given, for messages
	pat     string // raw without its trailing '/'
	dirOnly bool   // raw ended in '/': matches directories only
	base    bool   // no '/' in pat: also matched against the base name
	used    bool   // matched a file or directory during the walk
}

// globSet is the Include or the Exclude patterns of one List call. It
// remembers which patterns matched something, to report those that never
// did.
type globSet struct {
	flag   string // "--include" or "--exclude", for the report
	globs  []glob
	unused int  // patterns not used yet
	muted  bool // matches are not recorded (a hidden path, walked for ListAll only)
}

// newGlobSet checks and compiles the patterns. A bad pattern is an error up
// front, so a typo is a usage error rather than a silently empty filter.
func newGlobSet(flag string, pats []string) (*globSet, error) {
	s := &globSet{flag: flag, unused: len(pats)}
	for _, p := range pats {
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("invalid %s pattern %q: %w", strings.TrimPrefix(flag, "--"), p, doublestar.ErrBadPattern)
		}
		g := glob{raw: p, pat: p}
		if strings.HasSuffix(p, "/") {
			g.pat, g.dirOnly = strings.TrimRight(p, "/"), true
		}
		g.base = !strings.Contains(g.pat, "/")
		s.globs = append(s.globs, g)
	}
	return s, nil
}

// any reports whether the set has patterns.
func (s *globSet) any() bool { return len(s.globs) > 0 }

// match reports whether a pattern matches the file or directory: its path
// relative to the root argument, its display path or, for a pattern
// without '/', its base name. A pattern ending in '/' matches directories
// only. Once one matched, only the patterns not used yet are tried, to
// mark them.
func (s *globSet) match(rel, display string, isDir bool) bool {
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	hit := false
	for i := range s.globs {
		g := &s.globs[i]
		if (hit && g.used) || (g.dirOnly && !isDir) {
			continue
		}
		if doublestar.MatchUnvalidated(g.pat, rel) ||
			(display != rel && doublestar.MatchUnvalidated(g.pat, display)) ||
			(g.base && doublestar.MatchUnvalidated(g.pat, base)) {
			hit = true
			if !g.used && !s.muted {
				g.used = true
				s.unused--
			}
		}
	}
	return hit
}

// mark matches for the record only: the answer is already known, but a
// pattern matching the path is not one that "matches nothing".
func (s *globSet) mark(rel, display string, isDir bool) {
	if s.unused > 0 && !s.muted {
		s.match(rel, display, isDir)
	}
}

// report warns of the patterns that matched nothing.
func (s *globSet) report(w *walker) {
	for _, g := range s.globs {
		if !g.used {
			w.warn(s.flag, fmt.Sprintf("pattern %q matches nothing", g.raw), Notice)
		}
	}
}
