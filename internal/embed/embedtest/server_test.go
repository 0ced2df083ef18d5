package embedtest

import (
	"encoding/json"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func post(t *testing.T, s *Server, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(s.URL+"/embeddings", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, m
}

// TestServer: Start works without a test, answers in reverse index order
// with the vectors Vector gives, counts and logs what it was asked, and
// refuses what OpenAI's API refuses.
func TestServer(t *testing.T) {
	s, err := Start(4)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	status, m := post(t, s, `{"model":"m","input":["a b","c"],"encoding_format":"float"}`)
	data, _ := m["data"].([]any)
	if status != 200 || len(data) != 2 {
		t.Fatalf("%d %v", status, m)
	}
	for j, e := range data {
		e := e.(map[string]any)
		i := int(e["index"].(float64))
		if i != 1-j {
			t.Errorf("entry %d has index %d: want reverse order", j, i)
		}
		var got []float32
		for _, x := range e["embedding"].([]any) {
			got = append(got, float32(x.(float64)))
		}
		if want := Vector([]string{"a b", "c"}[i], 4); !reflect.DeepEqual(got, want) {
			t.Errorf("index %d: %v, want %v", i, got, want)
		}
	}
	if status, _ := post(t, s, `{"model":"m","input":"one"}`); status != 200 {
		t.Errorf("a single string: %d", status)
	}
	for _, body := range []string{`{"model":"m","input":["a",""]}`, `{"input":["a"]}`, `{"model":"m","input":[]}`, `{"model":"m","input":["a"],"encoding_format":"base64"}`, `nope`} {
		if status, _ := post(t, s, body); status != 400 {
			t.Errorf("%s: %d, want 400", body, status)
		}
	}
	s.SetKey("k")
	if status, m := post(t, s, `{"model":"m","input":["a"]}`); status != 401 || !strings.Contains(m["error"].(map[string]any)["message"].(string), "API key") {
		t.Errorf("no key: %d %v", status, m)
	}
	if s.Requests() != 8 || s.Texts() != 3 || s.Log()[1].Input[0] != "one" {
		t.Errorf("%d requests, %d texts, log %+v", s.Requests(), s.Texts(), s.Log())
	}
}

// TestVector: vectors are deterministic, never zero, and texts sharing
// words are closer than texts that share none.
func TestVector(t *testing.T) {
	if !reflect.DeepEqual(Vector("func Open(dir string)", 64), Vector("func Open(dir string)", 64)) {
		t.Error("not deterministic")
	}
	for _, text := range []string{"", " ", "{}", "a a", "x"} {
		if isZero(Vector(text, 1)) || isZero(Vector(text, 64)) {
			t.Errorf("%q: a zero vector", text)
		}
	}
	cos := func(a, b string) float64 {
		u, v := Vector(a, 256), Vector(b, 256)
		var d, nu, nv float64
		for i := range u {
			d += float64(u[i] * v[i])
			nu += float64(u[i] * u[i])
			nv += float64(v[i] * v[i])
		}
		return d / math.Sqrt(nu*nv)
	}
	if near, far := cos("open the cache folder", "func openCache(folder string)"), cos("open the cache folder", "parse tokens quickly"); near <= far {
		t.Errorf("sharing words %v, sharing none %v", near, far)
	}
}
