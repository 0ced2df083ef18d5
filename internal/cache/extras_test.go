package cache

import (
	"crypto/sha256"
	"reflect"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/record"
)

// withExtras is entry with what the embedding flags add: definitions
// shared between chunks, headers sharing the path, an empty name.
func withExtras() Entry {
	app := record.Def{Kind: "class", Name: "App", Line: 3}
	handle := record.Def{Kind: "method", Name: "handle", Line: 4}
	odd := record.Def{Kind: "function", Name: "", Line: 9}
	e := entry
	e.Spans = append([]chunk.Span(nil), entry.Spans...)
	e.Extras = []record.Extra{
		{Defines: []record.Def{app, handle}, Tokens: 7, Header: "src/app.py\n"},
		{Scope: []record.Def{app, handle}, Defines: []record.Def{odd}, Tokens: 12, Header: "src/app.py\nclass App > method handle\n"},
		{Scope: []record.Def{app}, Tokens: 1, Header: "src/app.py\nclass App\n"},
	}
	return e
}

// TestEncodeRoundTripsExtras: extras come back as they went in, whatever
// the options asked for: none, counts only, scope only, everything; and an
// empty file's entry keeps its (empty) extras apart from none.
func TestEncodeRoundTripsExtras(t *testing.T) {
	var k Key
	full := withExtras()
	counts, scopes := withExtras(), withExtras()
	for i := range counts.Extras {
		counts.Extras[i] = record.Extra{Tokens: counts.Extras[i].Tokens}
		scopes.Extras[i].Tokens, scopes.Extras[i].Header = 0, ""
	}
	empty := Entry{Method: "cast", Spans: []chunk.Span{}, Extras: []record.Extra{}}
	for _, e := range []Entry{full, counts, scopes, empty} {
		got, err := decode(encode(e, k), k)
		if err != nil || !reflect.DeepEqual(got, e) {
			t.Errorf("decode(encode(%+v)) = %+v, %v", e, got, err)
		}
	}
	if got, _ := decode(encode(entry, k), k); got.Extras != nil {
		t.Errorf("an entry without extras came back with %v", got.Extras)
	}
}

// TestExtrasStoreThePathOnce: the headers of a file all start with its
// path; the entry holds it about once, not once per chunk.
func TestExtrasStoreThePathOnce(t *testing.T) {
	path := strings.Repeat("deep/", 20) + "App.java"
	e := Entry{Method: "cast"}
	start := 0
	for i := range 50 {
		e.Spans = append(e.Spans, chunk.Span{Start: start, End: start + 100, Size: 80})
		start += 100
		scope := []record.Def{{Kind: "class", Name: "App", Line: 1}}
		header := path + "\nclass App\n"
		if i%2 == 1 {
			header = path + "\n"
			scope = nil
		}
		e.Extras = append(e.Extras, record.Extra{Scope: scope, Tokens: 30, Header: header})
	}
	var k Key
	if n := len(encode(e, k)); n > 2*len(path)+50*10+sha256.Size {
		t.Errorf("an entry of 50 chunks under a %d-byte path takes %d bytes", len(path), n)
	}
}

// TestDamagedExtrasNeverPanic: an entry damaged and then given a right
// checksum (a forge: the checksum is not a secret) decodes to an error or
// to some entry, never to a panic or a huge allocation; what it decodes
// to is the pipeline's business to check (enrich.Options.Check).
func TestDamagedExtrasNeverPanic(t *testing.T) {
	var k Key
	good := encode(withExtras(), k)
	body := good[:len(good)-sha256.Size]
	reseal := func(b []byte) []byte {
		sum := checksum(b, k)
		return append(b, sum[:]...)
	}
	for i := range body {
		for _, v := range []byte{0, 1, 0x7f, 0x80, 0xff} {
			b := append([]byte(nil), body...)
			b[i] = v
			decode(reseal(b), k)
		}
		decode(reseal(append([]byte(nil), body[:i]...)), k)
	}
	if _, err := decode(reseal(append(append([]byte(nil), body...), 0)), k); err == nil {
		t.Error("an entry with a byte after its extras decoded")
	}
}
