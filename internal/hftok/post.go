package hftok

import (
	"encoding/json"
	"fmt"
)

// specialsOf reads the file's "post_processor" and returns how many tokens
// it adds to a single sequence with add_special_tokens: the count is all
// that matters, since the tokens it adds never depend on the text. known
// tells whether a token is in the vocabulary (model or added tokens): a
// special token that is not would be an id the model does not have.
func specialsOf(raw json.RawMessage, known func(string) bool) (int, error) {
	typ, f, err := component("post_processor", raw)
	if err != nil {
		return 0, err
	}
	n := 0
	switch typ {
	case "TemplateProcessing":
		n, err = templateSpecials(f, known)
	case "BertProcessing", "RobertaProcessing":
		f.ignore("trim_offsets", "add_prefix_space")
		for _, name := range []string{"cls", "sep"} {
			var pair [2]any // ["[CLS]", 101]
			if !f.get(name, &pair) {
				return 0, f.errorf(name, "missing")
			}
			if tok, _ := pair[0].(string); !known(tok) {
				return 0, f.errorf(name, "token %q is not in the vocabulary", pair[0])
			}
		}
		n = 2
	case "ByteLevel":
		f.ignore("add_prefix_space", "trim_offsets", "use_regex")
	case "Sequence":
		var list []json.RawMessage
		if !f.get("processors", &list) {
			return 0, f.errorf("processors", "missing")
		}
		for _, p := range list {
			k, err := specialsOf(p, known)
			if err != nil {
				return 0, err
			}
			n += k
		}
	default:
		return 0, fmt.Errorf("post_processor %s is not implemented", typ)
	}
	if err != nil {
		return 0, err
	}
	return n, f.done()
}

// templateSpecials counts the special tokens of the single template: each
// SpecialToken piece adds the ids its special_tokens entry lists.
func templateSpecials(f *fields, known func(string) bool) (int, error) {
	var single []struct {
		SpecialToken *struct{ ID string } `json:"SpecialToken"`
		Sequence     *struct{ ID string } `json:"Sequence"`
	}
	var specials map[string]struct {
		ID     string
		IDs    []int64
		Tokens []string
	}
	f.ignore("pair")
	if !f.get("single", &single) {
		return 0, f.errorf("single", "missing")
	}
	f.get("special_tokens", &specials)
	if f.err != nil {
		return 0, f.err
	}
	n, seqs := 0, 0
	for _, p := range single {
		switch {
		case p.SpecialToken != nil:
			s, ok := specials[p.SpecialToken.ID]
			if !ok {
				return 0, f.errorf("special_tokens", "no entry for the template's %q", p.SpecialToken.ID)
			}
			for _, t := range s.Tokens {
				if !known(t) {
					return 0, f.errorf("special_tokens", "token %q is not in the vocabulary", t)
				}
			}
			n += len(s.IDs)
		case p.Sequence != nil:
			seqs++
		default:
			return 0, f.errorf("single", "a piece neither SpecialToken nor Sequence")
		}
	}
	if seqs != 1 {
		return 0, f.errorf("single", "the template must hold the sequence once, holds it %d times", seqs)
	}
	return n, nil
}
