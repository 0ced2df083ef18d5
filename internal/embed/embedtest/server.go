// Package embedtest serves a fake OpenAI-compatible embeddings endpoint on
// loopback, for the tests of package embed, of eval and of the command
// line: deterministic vectors, a count of what it was asked, and faults on
// demand. It downloads nothing and needs no model.
//
// Its vectors hash words: each word of a text (a run of letters and
// digits, lowercased) adds ±1 to one of the Dim numbers, the number and
// the sign from SHA-256 of the word, and SHA-256 of the whole text adds
// 0.5 to one more, so no vector is all zeros. Texts that share words thus
// get similar vectors, and dense retrieval over them finds something. The
// vectors are not of unit length (clients must scale them), and the
// entries of an answer come in reverse index order, as the protocol
// allows, so a client that trusts the order fails.
package embedtest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Path is where the server answers; Server.URL is the base before
// "/embeddings".
const Path = "/v1/embeddings"

// Server is a fake endpoint. Its methods are safe for concurrent use.
type Server struct {
	// URL is the endpoint's base, http://127.0.0.1:PORT/v1, as a user
	// would give it to castchunk eval --embedder.
	URL string
	// Dim is the length of the vectors it gives.
	Dim int

	srv *http.Server

	mu    sync.Mutex
	key   string
	fault Fault
	log   []Request
	texts int
}

// Request is what the server was asked.
type Request struct {
	N      int    // 1 for the first request the server got, 2 for the next, ...
	Model  string // "model"
	Input  []string
	Format string // "encoding_format"
	Auth   string // the Authorization header
}

// Fault, when set, sees each request before the server answers it: it may
// answer it itself (and return true), or return false to let the server
// answer. It runs on the request's goroutine: it may block (until
// r.Context() is done, say), hijack the connection, or write a body of any
// size.
type Fault func(w http.ResponseWriter, r *http.Request, req Request) bool

// TB is the part of testing.TB that NewServer uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// NewServer starts a server giving vectors of dim numbers, closed when the
// test ends.
func NewServer(t TB, dim int) *Server {
	t.Helper()
	s, err := Start(dim)
	if err != nil {
		t.Fatalf("embedtest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts a server giving vectors of dim numbers, on a port of
// 127.0.0.1 of the system's choosing. Close stops it.
func Start(dim int) (*Server, error) {
	if dim < 1 {
		return nil, fmt.Errorf("vectors of %d numbers", dim)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String() + "/v1", Dim: dim}
	s.srv = &http.Server{Handler: s}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server and closes its connections, which ends the
// requests a Fault holds.
func (s *Server) Close() { s.srv.Close() }

// SetKey makes the server refuse (401) a request without "Authorization:
// Bearer KEY"; "" accepts any.
func (s *Server) SetKey(key string) {
	s.mu.Lock()
	s.key = key
	s.mu.Unlock()
}

// SetFault sets the fault (nil: none).
func (s *Server) SetFault(f Fault) {
	s.mu.Lock()
	s.fault = f
	s.mu.Unlock()
}

// Requests returns how many requests the server got at Path, answered or
// not.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.log)
}

// Texts returns how many texts the server embedded.
func (s *Server) Texts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.texts
}

// Log returns the requests the server got, in the order they came.
func (s *Server) Log() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// openAIError writes an error as OpenAI's API does.
func openAIError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != Path {
		openAIError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
		return
	}
	if r.Method != http.MethodPost {
		openAIError(w, http.StatusMethodNotAllowed, "POST only")
		return
	}
	var body struct {
		Model  string          `json:"model"`
		Input  json.RawMessage `json:"input"`
		Format string          `json:"encoding_format"`
	}
	bad := ""
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<20)).Decode(&body); err != nil {
		bad = "the body is not JSON: " + err.Error()
	}
	var input []string
	if bad == "" && json.Unmarshal(body.Input, &input) != nil {
		var one string
		if err := json.Unmarshal(body.Input, &one); err != nil {
			bad = "'input' must be a string or an array of strings"
		}
		input = []string{one}
	}
	s.mu.Lock()
	req := Request{N: len(s.log) + 1, Model: body.Model, Input: input, Format: body.Format, Auth: r.Header.Get("Authorization")}
	s.log = append(s.log, req)
	fault := s.fault
	s.mu.Unlock()
	if fault != nil && fault(w, r, req) {
		return
	}
	if bad != "" {
		openAIError(w, http.StatusBadRequest, bad)
		return
	}
	s.Answer(w, req)
}

// Answer answers req as the server does: an error when the key is wrong,
// the model or the input empty, or a text "" (as OpenAI's API refuses
// it), else the vectors. A Fault may call it, and do more after.
func (s *Server) Answer(w http.ResponseWriter, req Request) {
	s.mu.Lock()
	key := s.key
	s.mu.Unlock()
	switch {
	case key != "" && req.Auth != "Bearer "+key:
		openAIError(w, http.StatusUnauthorized, "Incorrect API key provided.")
		return
	case req.Model == "":
		openAIError(w, http.StatusBadRequest, "you must provide a model parameter")
		return
	case len(req.Input) == 0:
		openAIError(w, http.StatusBadRequest, "'input' is empty")
		return
	case req.Format != "" && req.Format != "float":
		openAIError(w, http.StatusBadRequest, "encoding_format "+req.Format+" is not served")
		return
	}
	for _, t := range req.Input {
		if t == "" {
			openAIError(w, http.StatusBadRequest, "'$.input' is invalid: an input is empty")
			return
		}
	}
	type entry struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	n := len(req.Input)
	data := make([]entry, n)
	for i, t := range req.Input {
		data[n-1-i] = entry{"embedding", i, Vector(t, s.Dim)}
	}
	s.mu.Lock()
	s.texts += n
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": n, "total_tokens": n}})
}

// Vector is the vector the server gives text, before a client scales it
// (see the package comment).
func Vector(text string, dim int) []float32 {
	v := make([]float32, dim)
	add := func(h [sha256.Size]byte, w float32) {
		i := binary.LittleEndian.Uint64(h[:8]) % uint64(dim)
		if h[8]&1 == 1 {
			w = -w
		}
		v[i] += w
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, w := range words {
		add(sha256.Sum256([]byte(w)), 1)
	}
	h := sha256.Sum256([]byte(text))
	h[8] &^= 1 // positive: it cannot cancel a word
	add(h, 0.5)
	if isZero(v) { // words cancelled each other and the text's 0.5 out
		v[0] = 1
	}
	return v
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// Hang is a Fault that holds every request until its client gives up (or
// the server closes): a peer that accepts and never answers.
func Hang(w http.ResponseWriter, r *http.Request, req Request) bool {
	<-r.Context().Done()
	return true
}

// Status returns a Fault that answers the first n requests with status
// and an OpenAI error of msg (with a Retry-After of retryAfter when not
// ""), then lets the server answer.
func Status(n, status int, retryAfter, msg string) Fault {
	return func(w http.ResponseWriter, r *http.Request, req Request) bool {
		if req.N > n {
			return false
		}
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		openAIError(w, status, msg)
		return true
	}
}

// Drop answers with the start of a response whose Content-Length promises
// more, then closes the connection: a peer that dies mid-answer.
func Drop(w http.ResponseWriter, r *http.Request, req Request) bool {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic("embedtest: " + err.Error())
	}
	defer conn.Close()
	buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"data\":[{\"index\":0,\"embedding\":[0.1,")
	buf.Flush()
	return true
}
