package eval

import (
	"slices"
	"testing"
)

// TestTermsCaseChanges: the sub-word rules, one at a time.
func TestTermsCaseChanges(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		// Upper after lower.
		{"camelCase", []string{"camel", "case"}},
		// An upper run ends before an upper letter followed by a lower one.
		{"CamelCASEWord", []string{"camel", "case", "word"}},
		{"HTTPServer", []string{"http", "server"}},
		// An upper run at the end stays whole.
		{"iOS", []string{"i", "os"}},
		{"getHTTP", []string{"get", "http"}},
		// Upper after a digit splits; digits stay with what comes before.
		{"HTTP2Server", []string{"http2", "server"}},
		{"base64Encode", []string{"base64", "encode"}},
		// A run that starts with digits is one term with its letters.
		{"2fast 42", []string{"2fast", "42"}},
		// Lower after a digit does not split.
		{"v2beta", []string{"v2beta"}},
		// Underscores split and vanish, however many.
		{"_a__b_", []string{"a", "b"}},
		{"MAX_VALUE", []string{"max", "value"}},
		// Single letters are terms.
		{"A", []string{"a"}},
		// Unicode letters and digits: case rules hold for them too.
		{"ΑβΓδ", []string{"αβ", "γδ"}},
		{"число٣Два", []string{"число٣", "два"}},
		// Separators: punctuation, operators, white space, invalid bytes.
		{"a.b->c::d\te\u00a0f\xc3g", []string{"a", "b", "c", "d", "e", "f", "g"}},
	} {
		if got := Terms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestScanTermsReusesScratch: scanTerms hands out terms in its scratch
// buffer and returns it grown, for the next call.
func TestScanTermsReusesScratch(t *testing.T) {
	var got []string
	scratch := scanTerms([]byte("longIdentifierName x"), nil, func(term []byte) { got = append(got, string(term)) })
	if !slices.Equal(got, []string{"long", "identifier", "name", "x"}) {
		t.Errorf("terms %q", got)
	}
	if cap(scratch) < len("identifier") {
		t.Errorf("scratch of capacity %d: the buffer was not kept", cap(scratch))
	}
	if again := scanTerms([]byte("ab"), scratch, func([]byte) {}); &again[:1][0] != &scratch[:1][0] {
		t.Error("a big enough scratch was not reused")
	}
}

// TestIdentifiersRules: IdRecall's identifiers are whole runs as written
// (not split, not lowercased), two characters or more, not starting with
// a digit; distinct, in order of first appearance.
func TestIdentifiersRules(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"x y _ é 7", nil},
		{"__ _x x_ éé", []string{"__", "_x", "x_", "éé"}},
		{"Foo foo FOO foo", []string{"Foo", "foo", "FOO"}},
		{"parseHTTPRequest(v2)", []string{"parseHTTPRequest", "v2"}},
		{"0x1F 9lives lives", []string{"lives"}},
		{"a.bc->de", []string{"bc", "de"}},
	} {
		if got := identifiers([]byte(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("identifiers(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// eachIdentifier keeps repeats.
	var all []string
	eachIdentifier([]byte("ab ab cd ab"), func(id []byte) { all = append(all, string(id)) })
	if !slices.Equal(all, []string{"ab", "ab", "cd", "ab"}) {
		t.Errorf("eachIdentifier = %q", all)
	}
}
