package hftok

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// TestModelsAgainstReference compares the models with cases written by
// transformers.js (@lenml/tokenizers): lines of {"file": a tokenizer.json,
// "piece": a pre-tokenized piece, "ids": the reference model's ids}. It
// runs only when HFTOK_MODEL_CASES names such a file, so that the tests
// need no download.
func TestModelsAgainstReference(t *testing.T) {
	path := os.Getenv("HFTOK_MODEL_CASES")
	if path == "" {
		t.Skip("HFTOK_MODEL_CASES not set")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	models := map[string]model{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	cases, diffs := 0, 0
	for sc.Scan() {
		var c struct {
			File  string
			Piece string
			IDs   []int32
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		m, ok := models[c.File]
		if !ok {
			m = loadModelFile(t, c.File)
			models[c.File] = m
		}
		cases++
		var got []int32
		for _, tk := range m.tokenize(nil, []byte(c.Piece)) {
			got = append(got, tk.id)
		}
		if !equalIDs(got, c.IDs) {
			diffs++
			if diffs <= 10 {
				t.Errorf("%s: %q: got %v, reference %v", c.File, c.Piece, got, c.IDs)
			}
		}
	}
	t.Logf("%d pieces compared, %d differ", cases, diffs)
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// loadModelFile builds the model of a tokenizer.json file.
func loadModelFile(t testing.TB, path string) model {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Model json.RawMessage }
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	return mustModel(t, string(file.Model))
}
