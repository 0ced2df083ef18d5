package hftok

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A Tokenizer is a loaded tokenizer.json; it is immutable and shared by
// all jobs (each goroutine counts with its own Counter).
type Tokenizer struct {
	name, sum string
	norm      normalizer   // nil: none
	pre       preTokenizer // nil: the normalized piece as it is
	model     model
	raw       addedSet // added tokens matched on the text as given
	normed    addedSet // added tokens matched on the normalized text
	specials  int
}

// maxFileSize bounds what Load reads: the largest tokenizer.json files
// (Gemma's, 33 MB) are far below it.
const maxFileSize = 1 << 30

// Load reads a tokenizer.json, or the one in a folder, and refuses it
// before any work if any part of it is not implemented exactly.
func Load(path string) (*Tokenizer, error) {
	file, data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return fromData(path, file, data, newModel)
}

// FromData builds the Tokenizer of a tokenizer.json's bytes, read by
// ReadFile; name is the path it was read from, for messages. A worker
// process gets the bytes its parent read, so that every process of a run
// counts with the same file even if it changes meanwhile.
func FromData(name string, data []byte) (*Tokenizer, error) {
	return fromData(name, name, data, newModel)
}

// ReadFile reads the tokenizer.json at path, or in the folder path, as
// Load does: the file it read, and its bytes.
func ReadFile(path string) (file string, data []byte, err error) {
	file = path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		file = filepath.Join(path, "tokenizer.json")
		if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("the folder %s holds no tokenizer.json", path)
		}
	}
	if st, err := os.Stat(file); err != nil {
		return "", nil, err
	} else if !st.Mode().IsRegular() {
		return "", nil, fmt.Errorf("%s is not a regular file", file)
	} else if st.Size() > maxFileSize {
		return "", nil, fmt.Errorf("%s is %d bytes, more than any tokenizer.json (%d)", file, st.Size(), int64(maxFileSize))
	}
	data, err = os.ReadFile(file)
	return file, data, err
}

// loadPath is Load with the model constructor given (tests pass a fake).
func loadPath(path string, mk func(json.RawMessage) (model, error)) (*Tokenizer, error) {
	file, data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return fromData(path, file, data, mk)
}

// fromData parses data, read from file, as the tokenizer named name.
func fromData(name, file string, data []byte, mk func(json.RawMessage) (model, error)) (*Tokenizer, error) {
	t, err := parse(data, mk)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	sum := sha256.Sum256(data)
	t.name, t.sum = name, hex.EncodeToString(sum[:])
	return t, nil
}

// The top level of tokenizer.json. truncation and padding are ignored on
// purpose: they are the embedder's batch settings, not part of a text's
// tokens; castchunk caps chunks so that truncation never bites, and a
// chunk's count is the unpadded one. The decoder plays no part in
// encoding.
type file struct {
	Version       string          `json:"version"`
	Truncation    json.RawMessage `json:"truncation"`
	Padding       json.RawMessage `json:"padding"`
	AddedTokens   []addedToken    `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Decoder       json.RawMessage `json:"decoder"`
	Model         json.RawMessage `json:"model"`
}

// readTop splits the file's top-level object into its fields, refusing
// one it does not know, in one pass: the model's value (nearly all of the
// file, 33 MB for Gemma's) is handed on as it is, to be read once by the
// model's own scanner; encoding/json would validate the whole file once
// per Unmarshal first, and that took most of the load.
func readTop(data []byte) (file, error) {
	var f file
	fields := map[string]*json.RawMessage{"version": nil, "truncation": &f.Truncation, "padding": &f.Padding,
		"normalizer": &f.Normalizer, "pre_tokenizer": &f.PreTokenizer, "post_processor": &f.PostProcessor,
		"decoder": &f.Decoder, "model": &f.Model, "added_tokens": nil}
	raw, err := topFields(data)
	if err != nil {
		return f, fmt.Errorf("not a tokenizer.json: %v", err)
	}
	if _, ok := raw["model"]; !ok {
		return f, fmt.Errorf("not a tokenizer.json: it has no \"model\" (tokenizer_config.json and vocab files sit beside the tokenizer.json a model's repository ships)")
	}
	for k, v := range raw {
		dst, known := fields[k]
		switch {
		case !known:
			return f, fmt.Errorf("field %q is not implemented", k)
		case dst != nil:
			*dst = v
		}
	}
	if v, ok := raw["version"]; ok {
		if err := json.Unmarshal(v, &f.Version); err != nil {
			return f, fmt.Errorf("not a tokenizer.json: version: %v", err)
		}
	}
	if v, ok := raw["added_tokens"]; ok {
		if err := json.Unmarshal(v, &f.AddedTokens); err != nil {
			return f, fmt.Errorf("not a tokenizer.json: added_tokens: %v", err)
		}
	}
	return f, nil
}

// parse builds a Tokenizer from the file's bytes.
func parse(data []byte, mk func(json.RawMessage) (model, error)) (*Tokenizer, error) {
	f, err := readTop(data)
	if err != nil {
		return nil, err
	}
	if isNull(f.Model) {
		return nil, fmt.Errorf("no model")
	}
	t := &Tokenizer{}
	if t.model, err = mk(f.Model); err != nil {
		return nil, err
	}
	if !isNull(f.Normalizer) {
		if t.norm, err = newNormalizer(f.Normalizer); err != nil {
			return nil, err
		}
	}
	if !isNull(f.PreTokenizer) {
		if t.pre, err = newPreTokenizer(f.PreTokenizer); err != nil {
			return nil, err
		}
	}
	contents, err := t.addTokens(f.AddedTokens)
	if err != nil {
		return nil, err
	}
	if !isNull(f.PostProcessor) {
		knownTok := func(s string) bool {
			_, ok := t.model.tokenID(s)
			return ok || contents[s]
		}
		if t.specials, err = specialsOf(f.PostProcessor, knownTok); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// addTokens files each added token in the set it is matched in (a
// normalized one under its normalized content, as the crate does) and
// returns the set of contents. What the normalizer makes of the
// normalized tokens together is bounded (addedBudget): the load runs in
// every process of a run, before any limit, and a normalizer that expands
// text a millionfold made an 8 KB file need 20 GB.
func (t *Tokenizer) addTokens(list []addedToken) (map[string]bool, error) {
	contents := map[string]bool{}
	raw := 0
	for _, tok := range list {
		if tok.Normalized {
			raw += len(tok.Content)
		}
	}
	budget := addedBudget(raw)
	for _, tok := range list {
		contents[tok.Content] = true
		if !tok.Normalized {
			t.raw.add(tok, []byte(tok.Content))
			continue
		}
		pattern := []byte(tok.Content)
		if t.norm != nil {
			s, ok := normalizeWithin(t.norm, newSpan(pattern), budget)
			if !ok {
				return nil, fmt.Errorf("added token %q: the normalizer makes more than %d bytes of the %d bytes of normalized added tokens (at most 8 times as many and 1 MiB more are loaded)",
					clipString(tok.Content, 40), addedBudget(raw), raw)
			}
			pattern = s.text
			budget -= len(pattern)
		}
		t.normed.add(tok, pattern)
	}
	t.raw.finish()
	t.normed.finish()
	return contents, nil
}

// addedBudget is how many bytes the normalizer may make of raw bytes of
// normalized added tokens: 8 times as many and 1 MiB more, far above
// what lowercasing, Unicode forms or a Metaspace replacement make of a
// real file's (Gemma 3's 6,415 added tokens are under 1 MB).
func addedBudget(raw int) int { return 8*raw + 1<<20 }

// normalizeWithin normalizes s with n unless that makes more than limit
// bytes; a Replace or a Prepend is sized before it runs, so that the
// refusal comes before the work, and a Sequence is checked step by step.
func normalizeWithin(n normalizer, s span, limit int) (span, bool) {
	switch n := n.(type) {
	case normalizerSequence:
		for _, step := range n {
			var ok bool
			if s, ok = normalizeWithin(step, s, limit); !ok {
				return s, false
			}
		}
		return s, true
	case replace:
		size := len(s.text)
		for _, m := range n.pattern.find(nil, s.text) {
			if size += len(n.content) - (m[1] - m[0]); size > limit {
				return s, false
			}
		}
	case prepend:
		if len(s.text)+len(n.s) > limit {
			return s, false
		}
	}
	s = n.normalize(s)
	return s, len(s.text) <= limit
}

// clipString is s cut to about n bytes, for a message.
func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Name is the path Load was given.
func (t *Tokenizer) Name() string { return t.name }

// SHA256 is the hex SHA-256 of the file's bytes, which names the
// tokenizer in the cache key.
func (t *Tokenizer) SHA256() string { return t.sum }

// Specials is how many tokens the post-processor adds to one sequence
// ([CLS] and [SEP]: 2; a <bos>: 1).
func (t *Tokenizer) Specials() int { return t.specials }
