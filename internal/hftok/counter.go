package hftok

// A Counter counts tokens with one Tokenizer; it keeps a cache of the
// model's tokenization of pre-tokenized pieces (source code repeats the
// same words), so each goroutine needs its own.
type Counter struct {
	t      *Tokenizer
	cache  map[string][]int32 // piece -> its tokens' starts in the piece
	pieces []span
	next   []span
	toks   []token
}

// maxCached bounds the cache; past it, it starts over.
const maxCached = 1 << 16

// NewCounter returns a Counter for t.
func (t *Tokenizer) NewCounter() *Counter {
	return &Counter{t: t, cache: map[string][]int32{}}
}

// Count is the number of tokens encode(text, add_special_tokens=true)
// returns.
func (c *Counter) Count(text []byte) int {
	return c.run(text, nil) + c.t.specials
}

// AppendStarts appends the offset in text where each token that is not a
// post-processor special starts: Count(text)-Specials() offsets,
// non-decreasing, in [0, len(text)]. Where normalization rewrote the text
// an offset is that of the character the token's first byte came from.
func (c *Counter) AppendStarts(dst []int32, text []byte) []int32 {
	c.run(text, func(o int32) {
		if o > int32(len(text)) {
			o = int32(len(text))
		}
		if n := len(dst); n > 0 && o < dst[n-1] {
			o = dst[n-1]
		}
		dst = append(dst, max(o, 0))
	})
	return dst
}

// run encodes text without the post-processor, calling emit (when not
// nil) with each token's start, and returns the number of tokens.
func (c *Counter) run(text []byte, emit func(int32)) int {
	n := 0
	for _, p := range c.split(text) {
		if p.added {
			n++
			if emit != nil {
				emit(p.origin(0))
			}
			continue
		}
		starts := c.tokenize(p.text)
		n += len(starts)
		if emit != nil {
			for _, s := range starts {
				emit(p.origin(int(s)))
			}
		}
	}
	return n
}

// split is the pieces the model gets and the added tokens between them,
// in order, as AddedVocabulary::extract_and_normalize and the
// pre-tokenizer make them: added tokens matched on the text as given,
// then the rest normalized and the normalized added tokens matched, then
// what is left pre-tokenized.
func (c *Counter) split(text []byte) []span {
	t := c.t
	c.pieces = t.raw.extract(c.pieces[:0], newSpan(text))
	c.next = c.next[:0]
	for _, p := range c.pieces {
		if p.added {
			c.next = append(c.next, p)
			continue
		}
		if t.norm != nil {
			p = t.norm.normalize(p)
		}
		c.next = t.normed.extract(c.next, p)
	}
	if t.pre == nil {
		return c.next
	}
	c.pieces, c.next = c.next, c.pieces[:0]
	c.next = t.pre.split(c.next, c.pieces)
	return c.next
}

// tokenize is the model's tokenization of piece, as token starts, cached.
func (c *Counter) tokenize(piece []byte) []int32 {
	if s, ok := c.cache[string(piece)]; ok {
		return s
	}
	c.toks = c.t.model.tokenize(c.toks[:0], piece)
	starts := make([]int32, len(c.toks))
	for i, tk := range c.toks {
		starts[i] = tk.start
	}
	if len(c.cache) >= maxCached {
		clear(c.cache)
	}
	c.cache[string(piece)] = starts
	return starts
}
