package hftok

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mustModel builds a model from a "model" object written in the test.
func mustModel(t testing.TB, js string) model {
	t.Helper()
	m, err := newModel(json.RawMessage(js))
	if err != nil {
		t.Fatalf("newModel: %v", err)
	}
	return m
}

// tok is a token in tests: id and byte offsets.
func tok(id, start, end int32) token { return token{id: id, start: start, end: end} }

type modelCase struct {
	piece string
	want  []token
}

func checkCases(t *testing.T, m model, cases []modelCase) {
	t.Helper()
	for _, c := range cases {
		got := m.tokenize(nil, []byte(c.piece))
		if diff := cmp.Diff(c.want, got, cmp.AllowUnexported(token{})); diff != "" {
			t.Errorf("tokenize(%q) (-want +got):\n%s", c.piece, diff)
		}
		// A second call is served by the cache and must be the same,
		// appended after what dst already holds.
		again := m.tokenize([]token{tok(-7, 0, 0)}, []byte(c.piece))
		if diff := cmp.Diff(append([]token{tok(-7, 0, 0)}, c.want...), again, cmp.AllowUnexported(token{})); diff != "" {
			t.Errorf("tokenize(%q) again (-want +got):\n%s", c.piece, diff)
		}
	}
}

func TestNewModelRefuses(t *testing.T) {
	for _, c := range []struct{ js, want string }{
		{`{"type":"WordLevel","vocab":{}}`, `model WordLevel is not supported`},
		{`{"vocab":{}}`, `no "type"`},
		{`{"type":"BPE","vocab":{"a":0},"merges":[],"dropout":0.1}`, `model BPE: "dropout": 0.1 is not supported`},
		{`{"type":"BPE","vocab":{"a":0},"merges":[],"frobnicate":true}`, `model BPE: option "frobnicate" is not supported`},
		{`{"type":"BPE","vocab":{"a":0},"merges":[],"unk_token":"<unk>"}`, `model BPE: unk_token "<unk>" is not in the vocab`},
		{`{"type":"BPE","vocab":{"a":0,"b":1},"merges":["a b"]}`, `merge 1: "ab" is not in the vocab`},
		{`{"type":"BPE","vocab":{"a":0,"ab":1},"merges":[["a","b"]]}`, `merge 1: "b" is not in the vocab`},
		{`{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b", "a  b"]}`, `merge 2: "a  b" is not two tokens`},
		{`{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b", ["a","b"]]}`, `merge 2: mixes the two formats`},
		{`{"type":"BPE","vocab":{"a":0}}`, `model BPE: no "merges"`},
		{`{"type":"BPE","vocab":{"a":-1},"merges":[]}`, `-1 is not a token id`},
		{`{"type":"WordPiece","vocab":{"a":0}}`, `model WordPiece: unk_token "[UNK]" is not in the vocab`},
		{`{"type":"WordPiece","vocab":{"a":0},"unk_token":"a","dropout":null}`, `option "dropout" is not supported`},
		{`{"type":"Unigram","vocab":[["a",0]],"unk_id":null}`, `"unk_id": null is not supported`},
		{`{"type":"Unigram","vocab":[["a",0]],"unk_id":1}`, `unk_id 1 is not in the vocab of 1 tokens`},
		{`{"type":"Unigram","vocab":[["a","x"]],"unk_id":0}`, `expected a number`},
		{`{"type":"Unigram","vocab":[["\ud800",0]],"unk_id":0}`, `lone surrogate`},
	} {
		_, err := newModel(json.RawMessage(c.js))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("newModel(%s) = %v, want an error containing %q", c.js, err, c.want)
		}
	}
}

func TestTokenID(t *testing.T) {
	for _, js := range []string{
		`{"type":"WordPiece","unk_token":"[UNK]","vocab":{"[UNK]":0,"[CLS]":7,"\u00e9t\u00e9":3}}`,
		`{"type":"BPE","vocab":{"[UNK]":0,"[CLS]":7,"été":3},"merges":[]}`,
		`{"type":"Unigram","unk_id":0,"vocab":[["[UNK]",0],["x",0],["y",0],["été",-1],["z",0],["q",0],["r",0],["[CLS]",0]]}`,
	} {
		m := mustModel(t, js)
		for tokStr, want := range map[string]int32{"[CLS]": 7, "été": 3, "[UNK]": 0} {
			if id, ok := m.tokenID(tokStr); !ok || id != want {
				t.Errorf("%s: tokenID(%q) = %d, %v; want %d", js, tokStr, id, ok, want)
			}
		}
		if _, ok := m.tokenID("[SEP]"); ok {
			t.Errorf("%s: tokenID([SEP]) found", js)
		}
	}
}

func TestStrTableDuplicatesLastWins(t *testing.T) {
	m := mustModel(t, `{"type":"BPE","vocab":{"a":0,"b":1,"a":5},"merges":[]}`)
	if id, _ := m.tokenID("a"); id != 5 {
		t.Errorf("duplicate key: id %d, want the last, 5", id)
	}
}

func TestJSONStrings(t *testing.T) {
	// Escapes, surrogate pairs and raw UTF-8 in vocab keys.
	m := mustModel(t, `{"type":"BPE","vocab":{"\"\\\/\b\f\n\r\t":1,"\u00e9\ud83d\ude00":2,"Ġ":3},"merges":[]}`)
	for s, want := range map[string]int32{"\"\\/\b\f\n\r\t": 1, "é😀": 2, "Ġ": 3} {
		if id, ok := m.tokenID(s); !ok || id != want {
			t.Errorf("tokenID(%q) = %d, %v; want %d", s, id, ok, want)
		}
	}
}

// bigVocab is a synthetic vocabulary of n tokens, in JSON.
func bigVocab(n int) []string {
	toks := make([]string, 0, n)
	for i := 0; len(toks) < n; i++ {
		toks = append(toks, fmt.Sprintf("tok%x_%c", i, 'a'+rune(i%26)))
	}
	return toks
}
