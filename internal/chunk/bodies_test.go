package chunk

import (
	"strings"
	"testing"
)

// TestBodies: the bodies of functions (not of other definitions) are
// sorted and merged, a piece that touches a body's whitespace alone
// passes, and one that holds a character of any body is named with the
// first body it holds, found by binary search past the bodies before it.
func TestBodies(t *testing.T) {
	src := []byte("def f():\n    # c\n    return 1\n\nclass A:\n    def g(self):\n        def h():\n            pass\n        return h\n")
	at := func(sub string) Piece {
		i := strings.Index(string(src), sub)
		return Piece{Start: i, End: i + len(sub)}
	}
	f, g, h, a := at("\n    # c\n    return 1"), at("\n        def h():\n            pass\n        return h"), at("\n            pass"), at("\n    def g(self):\n        def h():\n            pass\n        return h")
	defs := []Def{
		{Role: RoleFunction, Start: 0, End: f.End, Body: f},
		{Role: RoleType, Start: at("class A:").Start, End: a.End, Body: a},
		{Role: RoleFunction, Start: at("def g").Start, End: g.End, Body: g},
		{Role: RoleFunction, Start: at("def h").Start, End: h.End, Body: h},
		{Role: RoleFunction, Start: 1, End: 2}, // no body
	}
	b := Bodies(nil).AddBodies(defs, 0).Sorted()
	if len(b) != 2 || b[0] != f || b[1] != g {
		t.Fatalf("bodies %v, want %v and %v (h's merged into g's, A's not a function's)", b, f, g)
	}
	tests := []struct {
		piece Piece
		want  string
	}{
		{at("def f():"), ""},
		{at("def f():\n    "), ""}, // whitespace of the body only
		{at("    # c"), "range [9,16) holds part of the body [8,29) of a function (line 1): a declaration leaves bodies out"},
		{at("class A:\n    def g(self):"), ""},
		{at("pass"), "range [86,90) holds part of the body [56,107) of a function (line 6)"},
	}
	for _, tc := range tests {
		err := b.Check(src, []Piece{at("def f():"), tc.piece})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("piece %q: %v, want %q", src[tc.piece.Start:tc.piece.End], err, tc.want)
		}
	}
	if _, ok := Bodies(nil).Held(src, Piece{Start: 0, End: len(src)}); ok {
		t.Errorf("no bodies, yet a piece holds one")
	}
}
