package detect

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on first use, so that no
// pattern of this package costs a run that does not need it: a
// package-level `var x = &lazyRegexp{expr: ...}` is laid out by the
// compiler, not by package init.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// get is the compiled expression.
func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(l.compile)
	return l.re
}

func (l *lazyRegexp) compile() { l.re = regexp.MustCompile(l.expr) }

func (l *lazyRegexp) Match(b []byte) bool { return l.get().Match(b) }

func (l *lazyRegexp) MatchString(s string) bool { return l.get().MatchString(s) }
