package cache

import (
	"reflect"
	"testing"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/record"
)

// piecesEntry holds spans of several pieces (a declaration chunk: a
// class's header and its methods' signatures), a whole span between them
// and extras, as a method with chunk.Method.Pieces makes them.
var piecesEntry = Entry{Method: "declaration", Spans: []chunk.Span{
	{Start: 3, End: 90, Size: 40, Pieces: []chunk.Piece{{Start: 3, End: 20}, {Start: 41, End: 60}, {Start: 70, End: 90}}},
	{Start: 100, End: 120, Size: 15},
	{Start: 130, End: 300, Size: 20, Pieces: []chunk.Piece{{Start: 130, End: 131}, {Start: 299, End: 300}}},
}, Extras: []record.Extra{{Tokens: 9}, {Tokens: 4}, {Tokens: 5}}}

// TestPiecesRoundTrip: an entry's spans of pieces are stored and restored
// exactly, through the layout and through the database.
func TestPiecesRoundTrip(t *testing.T) {
	var k Key
	got, err := decode(encode(piecesEntry, k), k)
	if err != nil || !reflect.DeepEqual(got, piecesEntry) {
		t.Fatalf("decode(encode(%+v)) = %+v, %v", piecesEntry, got, err)
	}
	c := openCache(t)
	key := c.Key("python", []byte("class A: ..."))
	if err := c.Put(key, piecesEntry); err != nil {
		t.Fatal(err)
	}
	if e, ok := c.Get(key); !ok || !reflect.DeepEqual(e, piecesEntry) {
		t.Errorf("Get = %+v, %v; want %+v", e, ok, piecesEntry)
	}
}

// TestPiecesCorrupt: an entry whose pieces are not a span's (one piece,
// pieces that touch, or past the span's end), though its checksum holds,
// is a corrupt entry, never spans that break chunk.Span's promise.
func TestPiecesCorrupt(t *testing.T) {
	var k Key
	for name, s := range map[string]chunk.Span{
		"one piece": {Start: 0, End: 10, Size: 3, Pieces: []chunk.Piece{{Start: 0, End: 10}}},
		"touching":  {Start: 0, End: 10, Size: 3, Pieces: []chunk.Piece{{Start: 0, End: 5}, {Start: 5, End: 10}}},
		"past end":  {Start: 0, End: 10, Size: 3, Pieces: []chunk.Piece{{Start: 0, End: 5}, {Start: 7, End: 12}}},
	} {
		e := Entry{Method: "declaration", Spans: []chunk.Span{s}}
		if got, err := decode(encode(e, k), k); err == nil {
			t.Errorf("%s: decoded as %+v", name, got)
		}
	}
}
