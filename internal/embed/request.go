package embed

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"
)

// Error is a failure of the endpoint, for people: "embedder URL: what
// (after N retries)".
type Error struct {
	URL     string // the endpoint, without credentials or query
	Status  int    // the HTTP status of the last answer; 0 when there was none
	Msg     string // what went wrong, the server's message included
	Retries int    // retries made before giving up
	Err     error  // the cause, when there is one (a connection's error)
}

func (e *Error) Error() string {
	s := "embedder " + e.URL + ": " + e.Msg
	switch e.Retries {
	case 0:
	case 1:
		s += " (after 1 retry)"
	default:
		s += fmt.Sprintf(" (after %d retries)", e.Retries)
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// maxMessage is how much of a server's message an error quotes; maxErrBody
// how much of an error's body is read to find it.
const (
	maxMessage = 200
	maxErrBody = 64 << 10
)

// failure is what one attempt ran into.
type failure struct {
	status int
	msg    string
	err    error
	retry  bool
	after  time.Duration // the server's Retry-After; -1 when none
}

// request embeds one batch, retrying what may succeed later.
func (c *Client) request(ctx context.Context, input []string) ([][]float32, error) {
	sent := make([]string, len(input))
	for i, t := range input {
		if t == "" {
			t = " " // see the package comment
		}
		sent[i] = t
	}
	body, err := json.Marshal(struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		EncodingFormat string   `json:"encoding_format"`
	}{c.model, sent, "float"})
	if err != nil {
		return nil, &Error{URL: c.shown, Msg: err.Error()}
	}
	for attempt := 0; ; attempt++ {
		c.requests.Add(1)
		if attempt > 0 {
			c.retried.Add(1)
		}
		vecs, f := c.attempt(ctx, body, input)
		if f == nil {
			return vecs, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("embedder %s: %w", c.shown, err)
		}
		e := &Error{URL: c.shown, Status: f.status, Msg: f.msg, Retries: attempt, Err: f.err}
		if !f.retry || attempt >= c.retries {
			return nil, e
		}
		wait := c.wait(attempt, f.after)
		if c.onRetry != nil {
			this := *e
			this.Retries = 0 // this attempt's failure alone
			c.retryMu.Lock()
			c.onRetry(&this, wait)
			c.retryMu.Unlock()
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("embedder %s: %w", c.shown, err)
		}
	}
}

// wait is how long to wait before retry attempt+1: the server's
// Retry-After when it sent one, else Backoff doubled per retry, with equal
// jitter (half of it fixed, half drawn), so that concurrent requests
// refused together do not come back together; capped at backoffCap ×
// Backoff either way.
func (c *Client) wait(attempt int, after time.Duration) time.Duration {
	ceiling := backoffCap * c.backoff
	if after >= 0 {
		return min(after, ceiling)
	}
	d := ceiling
	if attempt < 30 {
		d = min(c.backoff<<attempt, ceiling)
	}
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// attempt sends one request and reads its answer, within c.timeout.
func (c *Client) attempt(ctx context.Context, body []byte, input []string) ([][]float32, *failure) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &failure{msg: err.Error(), err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "castchunk")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.netFailure(ctx, err, false)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, c.statusFailure(ctx, resp, input)
	}
	limit := int64(min(perText*len(input)+perText, maxResponse))
	data, err := readBody(resp, limit)
	if err != nil {
		return nil, c.netFailure(ctx, err, true)
	}
	if int64(len(data)) > limit {
		return nil, &failure{status: resp.StatusCode, msg: fmt.Sprintf("the response to %s is larger than %s (512 KiB per text, and 512 KiB): refused", ntexts(len(input)), mib(limit))}
	}
	vecs, msg := parse(data, len(input))
	if msg != "" {
		return nil, &failure{status: resp.StatusCode, msg: msg}
	}
	return vecs, nil
}

// readBody reads at most limit+1 bytes of the answer, into a buffer of
// the size its Content-Length announces when that is within the limit
// (io.ReadAll would double its buffer on the way, holding up to twice the
// answer).
func readBody(resp *http.Response, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	if n := resp.ContentLength; n > 0 && n <= limit {
		buf.Grow(int(n) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1))
	return buf.Bytes(), err
}

// count is n and the word for one or for many.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func ntexts(n int) string { return count(n, "text", "texts") }

func mib(n int64) string { return strconv.FormatInt(n>>20, 10) + " MiB" }

// netFailure describes a request that got no (whole) answer. body: the
// headers had come.
func (c *Client) netFailure(ctx context.Context, err error, body bool) *failure {
	var (
		ue  *url.Error
		re  *redirectError
		dns *net.DNSError
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		ci  x509.CertificateInvalidError
		cv  *tls.CertificateVerificationError
		rh  tls.RecordHeaderError
	)
	cause := err
	if errors.As(err, &ue) {
		cause = ue.Err
	}
	f := &failure{msg: cause.Error(), err: err, retry: true, after: -1}
	switch {
	case errors.As(err, &re):
		f.status, f.retry = re.status, false
	case ctx.Err() == context.DeadlineExceeded || errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		f.msg = fmt.Sprintf("no answer within %v", c.timeout)
		if body {
			f.msg = fmt.Sprintf("the answer did not end within %v", c.timeout)
		}
	case errors.Is(err, syscall.ECONNREFUSED):
		f.msg = "connection refused"
	case errors.As(err, &dns):
		f.msg = fmt.Sprintf("cannot find host %q: %s", dns.Name, dns.Err)
		f.retry = dns.IsTemporary || dns.IsTimeout
	case errors.As(err, &ua), errors.As(err, &he), errors.As(err, &ci), errors.As(err, &cv):
		f.retry = false
	case errors.As(err, &rh), strings.Contains(f.msg, "server gave HTTP response to HTTPS client"):
		f.msg = "the server speaks HTTP, not HTTPS: use an http:// URL"
		f.retry = false
	case strings.Contains(f.msg, "malformed HTTP"):
		_, after, _ := strings.Cut(f.msg, "malformed HTTP")
		f.msg = "not an HTTP server: malformed HTTP" + after
		f.retry = false
	case body && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF)):
		f.msg = "the connection closed before the answer ended"
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET):
		f.msg = "the server closed the connection without answering"
	}
	return f
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// redirectError is a redirect the endpoint answered, refused.
type redirectError struct {
	status int    // the redirect's HTTP status
	to     string // where it leads, as messages show a URL
}

func (e *redirectError) Error() string {
	return statusText(e.status) + " to " + e.to + ": redirects are refused, so that the request and its key go nowhere else (give that URL, if it is the endpoint)"
}

// statusText is an HTTP status for messages: "HTTP 404 Not Found".
func statusText(code int) string {
	s := "HTTP " + strconv.Itoa(code)
	if t := http.StatusText(code); t != "" {
		s += " " + t
	}
	return s
}

// refuseRedirect is the http.Client's CheckRedirect: a redirect is not
// followed, as Go's client sends the Authorization header on to another
// port of the same host (and the texts wherever the redirect points).
func refuseRedirect(req *http.Request, _ []*http.Request) error {
	e := &redirectError{to: shownURL(*req.URL)}
	if req.Response != nil {
		e.status = req.Response.StatusCode
	}
	return e
}

// statusFailure describes an answer other than 2xx, with the server's
// message and what to check.
func (c *Client) statusFailure(ctx context.Context, resp *http.Response, input []string) *failure {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxErrBody))
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		return c.netFailure(ctx, err, true)
	}
	code := resp.StatusCode
	f := &failure{status: code, msg: statusText(code), after: -1}
	if m := message(data); m != "" {
		f.msg += ": " + strconv.Quote(m)
	}
	switch {
	case code == http.StatusTooManyRequests || code >= 500 && code != http.StatusNotImplemented:
		f.retry = true
		f.after = retryAfter(resp.Header.Get("Retry-After"))
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		if c.key == "" {
			f.msg += fmt.Sprintf(" (no key was sent: set %s)", KeyEnv)
		} else {
			f.msg += fmt.Sprintf(" (check the key in %s)", KeyEnv)
		}
	case code == http.StatusNotFound:
		f.msg += fmt.Sprintf(" (check the URL, the API's base such as http://127.0.0.1:11434/v1 or its /embeddings, and the model %q)", c.model)
	case code == http.StatusRequestEntityTooLarge || code == http.StatusBadRequest:
		longest := 0
		for _, t := range input {
			longest = max(longest, len(t))
		}
		f.msg += fmt.Sprintf(" (the request held %s, the longest %d bytes)", ntexts(len(input)), longest)
	}
	return f
}

// message is what a server's error body says: the message of an OpenAI
// error ({"error":{"message":...}}) or of the other usual shapes, else the
// body itself; on one line, printable, at most maxMessage bytes.
func message(data []byte) string {
	var m struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	s := string(data)
	if json.Unmarshal(data, &m) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var str string
		switch {
		case json.Unmarshal(m.Error, &inner) == nil && inner.Message != "":
			s = inner.Message
		case json.Unmarshal(m.Error, &str) == nil && str != "":
			s = str
		case m.Message != "":
			s = m.Message
		case json.Unmarshal(m.Detail, &str) == nil && str != "":
			s = str
		case len(m.Detail) > 0:
			s = string(m.Detail)
		}
	}
	return clip(s, maxMessage)
}

// clip puts s on one line of printable characters, spaces collapsed, and
// cuts it to n bytes at a character's start.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, " "))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date; -1 when
// there is none that can be read.
func retryAfter(h string) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return -1
	}
	if n, err := strconv.ParseInt(h, 10, 64); err == nil {
		if n < 0 {
			return -1
		}
		return time.Duration(min(n, int64(math.MaxInt64/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0)
	}
	return -1
}

// parse reads an embeddings response to n texts: one entry per text, each
// index 0 to n-1 once, vectors of one length, 1 to MaxDim numbers, all
// finite. It returns the vectors in index order, or what is wrong.
func parse(data []byte, n int) ([][]float32, string) {
	var r struct {
		Data *[]struct {
			Index     *int      `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) || !json.Valid(data) {
			return nil, fmt.Sprintf("the answer is not JSON (%v): %s", err, strconv.Quote(clip(string(data), 60)))
		}
		return nil, fmt.Sprintf("the answer is not an embeddings response: %s", clip(err.Error(), maxMessage))
	}
	if r.Data == nil {
		if len(r.Error) > 0 {
			return nil, "the server answered an error: " + strconv.Quote(message(data))
		}
		return nil, "the answer is not an embeddings response: it has no \"data\""
	}
	data2 := *r.Data
	if len(data2) != n {
		return nil, fmt.Sprintf("the answer holds %s for %s", count(len(data2), "vector", "vectors"), ntexts(n))
	}
	out := make([][]float32, n)
	dim := -1
	for j, e := range data2 {
		switch {
		case e.Index == nil:
			return nil, fmt.Sprintf("entry %d of the answer has no index", j)
		case *e.Index < 0 || *e.Index >= n:
			return nil, fmt.Sprintf("the answer has index %d, for %s", *e.Index, ntexts(n))
		case out[*e.Index] != nil:
			return nil, fmt.Sprintf("the answer has index %d twice (and lacks another)", *e.Index)
		case len(e.Embedding) == 0:
			return nil, fmt.Sprintf("the vector of index %d is empty", *e.Index)
		case len(e.Embedding) > MaxDim:
			return nil, fmt.Sprintf("the vector of index %d holds %d numbers, over the limit of %d", *e.Index, len(e.Embedding), MaxDim)
		case dim >= 0 && len(e.Embedding) != dim:
			return nil, fmt.Sprintf("the answer holds vectors of %d and of %d numbers (index %d)", dim, len(e.Embedding), *e.Index)
		}
		for _, x := range e.Embedding {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Sprintf("the vector of index %d holds %v", *e.Index, x)
			}
		}
		dim = len(e.Embedding)
		out[*e.Index] = e.Embedding
	}
	return out, ""
}
