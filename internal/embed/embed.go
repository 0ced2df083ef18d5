// Package embed turns texts into vectors through an embeddings endpoint
// the user runs: the OpenAI-compatible POST /v1/embeddings that Ollama,
// llama.cpp's server, vLLM, Hugging Face TEI and LocalAI serve. It owns
// the protocol (batching, a bound on requests in flight, retries with
// backoff, a deadline on every attempt, checks on every answer) and the
// use of the vector cache (package cache), so that castchunk eval
// --embedder gets one vector per text or one error a person can act on,
// never a hang. castchunk itself downloads nothing: the model is the
// endpoint's.
//
// # What a Client returns
//
// One vector per text, in the texts' order, every one of the same length
// and scaled to unit length (L2-normalised) by the client, so that cosine
// similarity is a dot product whatever the server does. An empty text is
// sent as one space (many servers refuse ""), so it gets the vector the
// model gives white space. A text that is not valid UTF-8 is sent with
// U+FFFD in place of its bad bytes (as encoding/json writes it) and cached
// under its own bytes. Long texts are not cut: a server that refuses one
// says so, and its message is in the error.
//
// # Errors
//
// Every failure is one *Error naming the endpoint, what went wrong (the
// HTTP status and the server's message, cut to 200 bytes) and the retries
// made. 429, 5xx but 501 (not implemented: llama.cpp without --embeddings),
// refused or dropped connections and attempts over Timeout are retried,
// Retries times, after a backoff that doubles from Backoff with jitter (a
// Retry-After is honoured), each wait capped at 64 × Backoff; other
// answers are final. An attempt that gets no complete answer within
// Timeout is abandoned, so a dead peer ends the call within
// Timeout × (Retries + 1) plus the waits; a cancelled context ends it at
// once.
//
// # The vector cache
//
// With CacheDir, vectors are looked up and stored in castchunk's cache
// (package cache: one SQLite database, cache.db, in that folder), keyed
// by the model's name and the text: a second evaluation of an unchanged
// repository sends no request. The cache only saves requests: one that
// cannot be used, or was found damaged and replaced, is a warning
// (Warnings), never a failure, and its vectors are then asked for again.
// A model whose vectors changed length under its name is an error (mixing
// lengths would make similarities meaningless).
package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/cache"
)

// KeyEnv is the environment variable the command line reads the key from:
// a flag would show the key in ps and in shell history.
const KeyEnv = "CASTCHUNK_EMBED_KEY"

// The defaults of Options.
const (
	DefaultBatch       = 64
	DefaultConcurrency = 4
	DefaultRetries     = 5
	DefaultTimeout     = 60 * time.Second
	DefaultBackoff     = 500 * time.Millisecond
)

// Bounds on what a server may send back.
const (
	// MaxDim is the longest vector accepted: embedding models give a few
	// thousand numbers (OpenAI's largest, 3,072; 12,288 the largest ever
	// served).
	MaxDim = 16384
	// perText is how many response bytes a text may take: 32 bytes for
	// each of MaxDim numbers, room for any way of writing a float32
	// (-1.2345678901234567e-38, and a comma and a space); a response may
	// take that per text plus perText, at most maxResponse. Four requests
	// of 64 texts in flight may so hold 130 MiB.
	perText     = 512 << 10
	maxResponse = 256 << 20
	// backoffCap bounds every wait, a Retry-After's included, to this
	// many times Options.Backoff (32 s by default).
	backoffCap = 64
)

// Options configure a Client. Zero values take the defaults.
type Options struct {
	// URL is the endpoint: a base such as http://127.0.0.1:11434/v1, to
	// which "/embeddings" is added, or a URL that already ends in
	// /embeddings, used as it is.
	URL string
	// Model is sent as "model"; required.
	Model string
	// Key, when not empty, is sent as "Authorization: Bearer KEY".
	Key string
	// Batch is how many texts one request holds (DefaultBatch).
	Batch int
	// Concurrency is how many requests may be in flight at once
	// (DefaultConcurrency).
	Concurrency int
	// Retries is how many times one request is retried (DefaultRetries);
	// negative: never.
	Retries int
	// Timeout bounds each attempt of a request, from sending it to
	// reading the whole answer (DefaultTimeout).
	Timeout time.Duration
	// Backoff is the wait before the first retry, doubled for each next
	// one, with jitter (DefaultBackoff).
	Backoff time.Duration
	// CacheDir is the folder of the vector cache; "" for none.
	CacheDir string
	// CacheMaxBytes, when positive, is what Close prunes the cache to
	// after a Client that stored vectors (see cache.Prune).
	CacheMaxBytes int64
	// Progress, when set, is told how many of one Embed call's texts have
	// their vector (cached ones and repeats included): one call at a
	// time, done increasing, and done == total at the end of a call that
	// succeeds.
	Progress func(done, total int)
	// OnRetry, when set, is told of each attempt that failed and will be
	// retried after wait (so that a person waiting knows why), one call
	// at a time; err is the attempt's *Error (without the retries made).
	OnRetry func(err error, wait time.Duration)
	// HTTP is the client requests go through (tests); nil for one of our
	// own, which honours the proxy environment variables. Either way
	// redirects are refused (a copy of it is used).
	HTTP *http.Client
}

// Stats is what a Client did.
type Stats struct {
	Requests int // attempts sent to the endpoint, retries included
	Retried  int // of those, retries
	Texts    int // texts the endpoint embedded (a text repeated in one call, once)
	Cached   int // texts whose vector came from the cache
}

// Client embeds texts through one endpoint and model. Its methods are safe
// for concurrent use.
type Client struct {
	endpoint string // the URL requests go to
	shown    string // the endpoint as messages show it: no credentials, no query
	model    string
	key      string
	batch    int
	conc     int
	retries  int
	timeout  time.Duration
	backoff  time.Duration
	progress func(done, total int)
	onRetry  func(err error, wait time.Duration)
	retryMu  sync.Mutex // one OnRetry call at a time
	http     *http.Client
	cacheDir string
	cacheMax int64
	// sleep waits d or until ctx is done (a variable for tests, which
	// record the waits instead of taking them).
	sleep func(ctx context.Context, d time.Duration) error

	cache *cache.Cache // nil: none

	mu       sync.Mutex
	dim      int    // the vectors' length, once known
	dimFrom  string // where dim was learnt, for the error when it changes
	warnings []error
	putWarn  bool // a failed store was reported
	stored   bool // some vector was stored
	closed   bool
	// lengthCached: the cache holds the model's length (see lengthKey).
	lengthCached bool

	requests, retried, texts, cached atomic.Int64
}

// New checks opt and returns a Client. It fails on an unusable URL, model
// or key, and when CacheDir is a folder castchunk may not use as a cache
// (an error wrapping cache.ErrNotCache); a cache that cannot be opened for
// another reason is a warning, and the Client goes on without it.
func New(opt Options) (*Client, error) {
	endpoint, shown, err := endpointOf(opt.URL)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(opt.Model) == "" {
		return nil, fmt.Errorf("embedder %s: no model named (the endpoint serves a model by its name)", shown)
	}
	if strings.ContainsFunc(opt.Model, isControl) {
		return nil, fmt.Errorf("embedder %s: the model's name %q holds a control character", shown, opt.Model)
	}
	if strings.ContainsFunc(opt.Key, isControl) {
		return nil, fmt.Errorf("embedder %s: the key (%s) holds a control character or a line break", shown, KeyEnv)
	}
	c := &Client{
		endpoint: endpoint,
		shown:    shown,
		model:    opt.Model,
		key:      opt.Key,
		batch:    orDefault(opt.Batch, DefaultBatch),
		conc:     orDefault(opt.Concurrency, DefaultConcurrency),
		retries:  orDefault(opt.Retries, DefaultRetries),
		timeout:  orDefault(opt.Timeout, DefaultTimeout),
		backoff:  orDefault(opt.Backoff, DefaultBackoff),
		progress: opt.Progress,
		onRetry:  opt.OnRetry,
		http:     opt.HTTP,
		cacheDir: opt.CacheDir,
		cacheMax: opt.CacheMaxBytes,
		sleep:    sleep,
	}
	switch {
	case c.batch < 0:
		return nil, fmt.Errorf("embedder %s: a batch of %d texts", shown, c.batch)
	case c.conc < 0:
		return nil, fmt.Errorf("embedder %s: %d requests at once", shown, c.conc)
	case c.timeout < 0 || c.backoff < 0:
		return nil, fmt.Errorf("embedder %s: a negative timeout or backoff", shown)
	}
	c.retries = max(c.retries, 0)
	if c.http == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = c.conc
		c.http = &http.Client{Transport: t}
	} else {
		hc := *c.http // the caller's, whose redirects are refused too
		c.http = &hc
	}
	c.http.CheckRedirect = refuseRedirect
	if opt.CacheDir != "" {
		vc, err := cache.Open(opt.CacheDir, "")
		switch {
		case errors.Is(err, cache.ErrNotCache):
			return nil, fmt.Errorf("vector cache: %w", err)
		case err != nil:
			c.warn(fmt.Errorf("vector cache %s: cannot use it, going on without it: %w", opt.CacheDir, err))
		default:
			c.cache = vc
			if err := vc.Repaired(); err != nil {
				c.warn(fmt.Errorf("vector cache: %w", err))
			}
			if v, ok := vc.GetVector(c.lengthKey()); ok && len(v) == 1 && v[0] >= 1 && v[0] <= MaxDim && v[0] == float32(int(v[0])) {
				c.dim, c.dimFrom, c.lengthCached = int(v[0]), fromCache, true
			}
		}
	}
	return c, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// lengthKey is where the cache keeps the length of the model's vectors,
// as a vector of one number, so that a model whose vectors changed length
// is caught even when no text of a call is cached: under the "model"
// "\x00length", which no user can name (New refuses control characters).
func (c *Client) lengthKey() cache.Key { return cache.VectorKey("\x00length", c.model) }

// orDefault is v, or def when v is zero.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// endpointOf checks a URL and returns where requests go, and how messages
// show it.
func endpointOf(raw string) (endpoint, shown string, err error) {
	notHTTP := fmt.Errorf("embedder %q: not an http:// or https:// URL (such as http://127.0.0.1:11434/v1)", raw)
	if !strings.Contains(raw, "://") {
		return "", "", notHTTP
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", fmt.Errorf("embedder %q: not a URL: %v", raw, errors.Unwrap(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
		return "", "", notHTTP
	}
	u.Fragment, u.RawFragment = "", ""
	if !strings.HasSuffix(u.Path, "/embeddings") {
		u = u.JoinPath("embeddings")
	}
	return u.String(), shownURL(*u), nil
}

// shownURL is u as messages show it: without credentials, query or
// fragment, which may hold secrets.
func shownURL(u url.URL) string {
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// Embed returns the vectors of texts: one per text, in order, each of unit
// length, all of one length. A text repeated is sent once; a text in the
// cache is not sent. On failure it returns no vectors and one error (an
// *Error, or one wrapping ctx's error when ctx is done).
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	first := make(map[string]int, len(texts)) // a text's first index
	copies := make([]int, len(texts))         // at a first index: the text's count
	var todo, hits []int                      // first indexes to send, and found
	for i, t := range texts {
		if j, ok := first[t]; ok {
			copies[j]++
			continue
		}
		first[t] = i
		copies[i] = 1
		if v, ok := c.lookup(t); ok {
			if err := c.checkDim(len(v), fromCache); err != nil {
				return nil, err
			}
			out[i] = v
			hits = append(hits, i)
			continue
		}
		todo = append(todo, i)
	}
	c.cached.Add(int64(len(hits)))
	var (
		progMu sync.Mutex
		done   int
	)
	report := func(idx []int) {
		if c.progress == nil {
			return
		}
		progMu.Lock()
		defer progMu.Unlock()
		for _, i := range idx {
			done += copies[i]
		}
		c.progress(done, len(texts))
	}
	if len(hits) > 0 || len(todo) == 0 {
		report(hits)
	}
	if err := c.send(ctx, texts, todo, out, report); err != nil {
		return nil, err
	}
	for i, t := range texts {
		if j := first[t]; j != i {
			out[i] = slices.Clone(out[j])
		}
	}
	return out, nil
}

// send embeds the texts of todo (indexes into texts) into out, in batches,
// at most c.conc requests at once; the first failure cancels the others.
func (c *Client) send(ctx context.Context, texts []string, todo []int, out [][]float32, report func([]int)) error {
	if len(todo) == 0 {
		return nil
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		errMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		errMu.Unlock()
		cancel()
	}
	sem := make(chan struct{}, c.conc)
	all := true // every batch was sent
dispatch:
	for start := 0; start < len(todo); start += c.batch {
		idx := todo[start:min(start+c.batch, len(todo))]
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			all = false
			break dispatch
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			input := make([]string, len(idx))
			for j, i := range idx {
				input[j] = texts[i]
			}
			vecs, err := c.request(ctx, input)
			if err == nil {
				err = c.accept(vecs, input, idx)
			}
			if err != nil {
				fail(err)
				return
			}
			for j, i := range idx {
				out[i] = vecs[j]
			}
			c.texts.Add(int64(len(idx)))
			report(idx)
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if !all { // cancelled before every batch was sent
		return fmt.Errorf("embedder %s: %w", c.shown, parent.Err())
	}
	return nil
}

// accept checks one response's vectors against the length known so far,
// scales them to unit length and stores them in the cache.
func (c *Client) accept(vecs [][]float32, input []string, idx []int) error {
	if err := c.checkDim(len(vecs[0]), fromEndpoint); err != nil {
		return err
	}
	c.mu.Lock()
	newLength := !c.lengthCached
	c.lengthCached = true
	c.mu.Unlock()
	if newLength {
		c.storeKey(c.lengthKey(), []float32{float32(len(vecs[0]))})
	}
	for j, v := range vecs {
		if !normalize(v) {
			return &Error{URL: c.shown, Msg: fmt.Sprintf("the vector of text %d (%s) is all zeros, which has no direction: it cannot be scaled to unit length", idx[j], preview(input[j]))}
		}
		c.store(input[j], v)
	}
	return nil
}

// Where a length was learnt, for checkDim's message.
const (
	fromCache    = "the vector cache"
	fromEndpoint = "the endpoint"
)

// checkDim checks that vectors of n numbers, from where, have the length
// of those seen before.
func (c *Client) checkDim(n int, from string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dim == 0 {
		c.dim, c.dimFrom = n, from
		return nil
	}
	if n == c.dim {
		return nil
	}
	var msg string
	switch {
	case from == fromEndpoint && c.dimFrom == fromEndpoint:
		return &Error{URL: c.shown, Msg: fmt.Sprintf("the endpoint gave vectors of %d and of %d numbers for model %q", c.dim, n, c.model)}
	case from == fromCache && c.dimFrom == fromCache:
		msg = fmt.Sprintf("the vector cache holds vectors of %d and of %d numbers for model %q", c.dim, n, c.model)
	case from == fromEndpoint:
		msg = fmt.Sprintf("model %q now gives vectors of %d numbers, but the vector cache holds vectors of %d for it", c.model, n, c.dim)
	default:
		msg = fmt.Sprintf("model %q now gives vectors of %d numbers, but the vector cache holds vectors of %d for it", c.model, c.dim, n)
	}
	return &Error{URL: c.shown, Msg: msg + fmt.Sprintf(": if the model changed under its name, use a new cache folder (or delete %s) to embed everything again", c.cacheDir)}
}

// normalize scales v to unit length, summing in float64; it reports false
// for a vector of zeros (or one whose length is not finite).
func normalize(v []float32) bool {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	norm := math.Sqrt(s)
	if norm == 0 || math.IsInf(norm, 0) || math.IsNaN(norm) {
		return false
	}
	for i, x := range v {
		v[i] = float32(float64(x) / norm)
	}
	return true
}

// preview is the start of a text, quoted, for a message.
func preview(t string) string {
	const n = 40
	if len(t) <= n {
		return fmt.Sprintf("%q", t)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(t[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…", t[:cut])
}

// lookup finds a text's vector in the cache.
func (c *Client) lookup(text string) ([]float32, bool) {
	if c.cache == nil {
		return nil, false
	}
	v, ok := c.cache.GetVector(cache.VectorKey(c.model, text))
	if ok && len(v) > MaxDim {
		return nil, false
	}
	return v, ok
}

// store puts a text's vector in the cache.
func (c *Client) store(text string, v []float32) { c.storeKey(cache.VectorKey(c.model, text), v) }

func (c *Client) storeKey(k cache.Key, v []float32) {
	if c.cache == nil {
		return
	}
	if err := c.cache.PutVector(k, v); err != nil {
		c.warnStore(err)
		return
	}
	c.mu.Lock()
	c.stored = true
	c.mu.Unlock()
}

// warnStore reports the first failure to store vectors; storing after
// Close is no failure.
func (c *Client) warnStore(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.putWarn || c.closed && errors.Is(err, cache.ErrClosed) {
		return
	}
	c.putWarn = true
	c.warnings = append(c.warnings, fmt.Errorf("vector cache %s: cannot store vectors, going on without storing: %w", c.cacheDir, err))
}

func (c *Client) warn(err error) {
	c.mu.Lock()
	c.warnings = append(c.warnings, err)
	c.mu.Unlock()
}

// Warnings returns what went wrong with the vector cache, each problem
// once: it was damaged and replaced, could not be opened, written or
// pruned. None failed a call; print them after Close, which adds its own.
func (c *Client) Warnings() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.warnings)
}

// Endpoint is the endpoint as messages and reports show it: without the
// credentials or the query its URL may hold.
func (c *Client) Endpoint() string { return c.shown }

// Stats returns what the Client did.
func (c *Client) Stats() Stats {
	return Stats{
		Requests: int(c.requests.Load()),
		Retried:  int(c.retried.Load()),
		Texts:    int(c.texts.Load()),
		Cached:   int(c.cached.Load()),
	}
}

// Close writes the cache's last vectors, prunes it (with CacheMaxBytes,
// after a Client that stored vectors) and closes it. It returns nil: the
// cache's problems are warnings (see Warnings), since the vectors were
// returned already. A closed Client still embeds, without the cache.
func (c *Client) Close() error {
	c.mu.Lock()
	closed, stored := c.closed, c.stored
	c.closed = true
	c.mu.Unlock()
	if c.cache == nil || closed {
		return nil
	}
	if stored && c.cacheMax > 0 {
		if err := c.cache.Prune(c.cacheMax); err != nil {
			c.warn(fmt.Errorf("vector cache: cannot prune it: %w", err))
		}
	}
	if err := c.cache.Close(); err != nil {
		c.warnStore(err)
	}
	return nil
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
