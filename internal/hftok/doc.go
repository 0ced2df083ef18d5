// Package hftok counts tokens exactly as a Hugging Face tokenizer.json
// says its model counts them: the tokenizer a self-hosted embedder (TEI,
// Ollama, vLLM, llama.cpp) runs for Qwen3-Embedding, EmbeddingGemma, bge,
// e5, gte, nomic-embed, jina or all-MiniLM. It owns reading the file, the
// pipeline the file describes (normalizer, pre-tokenizer, model, added
// tokens, post-processor) and the refusal, before any work, of a component
// it does not implement exactly: a count is never approximate.
//
// The reference is the Rust tokenizers crate's encode(text, add_special_tokens
// = true); counts include the special tokens the post-processor adds
// ([CLS] and [SEP], a <bos>), which is what the embedder feeds the model.
package hftok

// token is one token of a piece: its id and its byte range in the piece
// the model was given.
type token struct {
	id         int32
	start, end int32
}

// A model turns one normalized, pre-tokenized piece into tokens
// (WordPiece, BPE, Unigram: models.go builds them from the file's "model"
// object, refusing an option it does not implement).
type model interface {
	// tokenize appends the tokens of piece to dst.
	tokenize(dst []token, piece []byte) []token
	// tokenID returns the id of a token of the vocabulary, for added
	// tokens and the post-processor's special tokens.
	tokenID(tok string) (int32, bool)
}
