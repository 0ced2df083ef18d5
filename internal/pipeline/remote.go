package pipeline

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/notebook"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/supervise"
	"github.com/castchunk/castchunk/internal/tokens"
)

// The grammars' C code runs in worker processes (package supervise): the
// parent reads, decides, caches and writes; a worker parses, chunks and
// describes one file at a time with the engine of this package (the
// worker type's chunk), and a worker that dies or runs away costs the file
// it held, which the parent then chunks with the fallback, without a tree.

// Service is the name of the chunking service of a worker process
// (supervise.Serve): cmd/castchunk and the tests that run pipelines serve
// it with Serve.
const Service = "chunk"

// workerSetup is Config as a worker needs it: what chunk reads, by name.
type workerSetup struct {
	Method       string
	Budget       int
	Values       chunk.Values
	ParseTimeout time.Duration
	Context      bool
	Encoding     string // "": no token counts; a name or a tokenizer.json's path (the worker's folder is the parent's)
	EncodingKey  string // the Encoding's Key, which the worker's must equal
	EncodingFile []byte // a tokenizer.json's bytes, as the parent read them
	NoSpecials   bool   // --no-special-tokens
	MaxTokens    int
	Text         bool
	Header       string
}

func newWorkerSetup(cfg Config) workerSetup {
	s := workerSetup{Method: cfg.Setup.Method.Name, Budget: cfg.Setup.Budget, Values: cfg.Setup.Values,
		ParseTimeout: cfg.ParseTimeout, Context: cfg.Enrich.Context, MaxTokens: cfg.Enrich.MaxTokens,
		Text: cfg.Enrich.Text, Header: string(cfg.Enrich.Header)}
	if e := cfg.Enrich.Encoding; e != nil {
		s.Encoding, s.EncodingKey, s.NoSpecials, s.EncodingFile = e.Name(), e.Key(), !e.CountsSpecials(), e.FileData()
	}
	return s
}

func (s workerSetup) config() (Config, error) {
	m := method.ByName(s.Method)
	if m == nil {
		return Config{}, fmt.Errorf("no method %q", s.Method)
	}
	cfg := Config{Setup: chunk.Setup{Method: m, Budget: s.Budget, Values: s.Values}, ParseTimeout: s.ParseTimeout,
		Enrich: enrich.Options{Context: s.Context, MaxTokens: s.MaxTokens, Text: s.Text, Header: enrich.HeaderFormat(s.Header)}}
	if s.Encoding != "" {
		load := func() (*tokens.Encoding, error) { return tokens.Load(s.Encoding) }
		if s.EncodingFile != nil { // a tokenizer.json: the bytes the parent read
			load = func() (*tokens.Encoding, error) { return tokens.FromFileData(s.Encoding, s.EncodingFile) }
		}
		e, err := load()
		if err != nil {
			return Config{}, err
		}
		if s.NoSpecials {
			e = e.WithoutSpecials()
		}
		if e.Key() != s.EncodingKey { // the tokenizer.json changed since the run began
			return Config{}, fmt.Errorf("--tokenizer %s changed during the run (%s, was %s)", s.Encoding, e.Key(), s.EncodingKey)
		}
		cfg.Enrich.Encoding = e
	}
	return cfg, nil
}

// workRequest is one file for a worker.
type workRequest struct {
	Path     string
	Lang     string // the grammar's name; "" for text
	Language string
	Src      []byte
	Notebook *notebook.Notebook
	// Fallback, when set, says why the file's grammar failed: the worker
	// chunks it without a tree (worker.chunkWithoutTree), as the parent
	// would but under a worker's limits, for the work a tokenizer.json
	// drives (token counts and caps) is no more to be trusted than a
	// grammar.
	Fallback string
}

// workReply is what the worker's chunk set on the Result, and returned.
type workReply struct {
	Spans           []chunk.Span
	Cacheable       bool   // chunk's parsed: the result depends on the file alone
	Err             string // chunk's error, for the file's message
	Method          string
	Message         string
	Parsed          bool
	FellBack        bool
	Enriched        bool
	HasSyntaxErrors bool
	Regions         []record.Region
	Extras          []record.Extra
	// gob sends an empty slice as none: these say which were empty, not nil.
	EmptyRegions, EmptyExtras bool
}

// Serve is the worker's side of the chunking service: it chunks the files
// the parent sends, one at a time, with one engine for all of them. A
// panic is not recovered: like a grammar's crash, it ends the worker, and
// the parent reports it and chunks the file without a tree.
func Serve(c *supervise.Conn) error { return serve(c, func(string) {}) }

// serve is Serve with fault, called with each file's path before its
// work: the tests' hook (TestServices).
func serve(c *supervise.Conn, fault func(path string)) error {
	var s workerSetup
	if err := c.Init(&s); err != nil {
		return err
	}
	cfg, err := s.config()
	if err != nil {
		return err
	}
	s.EncodingFile = nil // parsed: not held for the worker's life
	if e := cfg.Enrich.Encoding; e != nil {
		// Its vocabulary is built on the first count: built here, it is
		// part of the set-up (its own deadline, memory the worker holds
		// for good), not of whichever file comes first, whose fate would
		// then depend on its neighbours.
		e.NewCounter().Count([]byte("castchunk"))
	}
	if err := c.Settled(); err != nil {
		return err
	}
	w := newWorker(cfg, nil)
	w.ctx = context.Background()
	w.oneOff(c.Exempt)
	defer w.close()
	for {
		var req workRequest
		if err := c.Next(&req); err != nil {
			return err
		}
		r := &Result{Job: Job{File: plan.File{Path: req.Path}}, Lang: lang.ByName(req.Lang), Language: req.Language, notebook: req.Notebook}
		var spans []chunk.Span
		var ok bool
		var err error
		if req.Fallback != "" {
			spans, err = w.chunkWithoutTree(r, req.Src, req.Fallback)
		} else {
			fault(req.Path)
			spans, ok, err = w.chunk(r, req.Src)
		}
		rep := workReply{Spans: spans, Cacheable: ok, Method: r.Method.Name, Message: r.Message, Parsed: r.Parsed, FellBack: r.FellBack,
			Enriched: r.Enriched, HasSyntaxErrors: r.HasSyntaxErrors, Regions: r.Regions, Extras: r.Extras}
		rep.EmptyRegions = r.Regions != nil && len(r.Regions) == 0
		rep.EmptyExtras = r.Extras != nil && len(r.Extras) == 0
		if err != nil {
			rep.Err = err.Error()
		}
		if err := c.Reply(&rep); err != nil {
			return err
		}
	}
}

// remote is a parent's handle on one worker process, started when first
// needed and again after one is lost, and shared by the goroutines that
// send it their files (callsPerWorker).
type remote struct {
	setup workerSetup
	lane  *sync.RWMutex // files from supervise.ExclusiveSize on run alone
	pool  *supervise.Pool
	alone sync.Mutex // held by a goroutine that chunks in this process, the worker lost for good (worker.alone)

	mu     sync.Mutex
	worker *supervise.Worker
	users  int // goroutines that have not closed it yet: the last closes the worker
}

// current is the worker to call, started if there is none.
func (e *remote) current(ctx context.Context) (*supervise.Worker, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.worker == nil || e.worker.Retired() {
		w, err := e.pool.Start(ctx, Service, e.setup)
		if err != nil {
			return nil, err
		}
		e.worker = w
	}
	return e.worker, nil
}

// chunk has the worker chunk r's file (src, or r's notebook), setting on r
// what the in-process chunk sets; with fallback, without a tree
// (workRequest.Fallback). The error is a *supervise.Failure when the
// worker was lost on the file, or could not be started.
func (e *remote) chunk(ctx context.Context, r *Result, src []byte, fallback string) ([]chunk.Span, bool, error) {
	size := len(src)
	if r.notebook != nil {
		size = len(r.notebook.Text)
	}
	if size >= supervise.ExclusiveSize {
		e.lane.Lock()
		defer e.lane.Unlock()
		// No call is in flight: the idle workers give back what they
		// hold, so that the file has its ceiling within the run's 1 GB.
		e.mu.Lock()
		keep := e.worker
		e.mu.Unlock()
		e.pool.CloseIdle(keep, supervise.IdleMemory)
	} else {
		e.lane.RLock()
		defer e.lane.RUnlock()
	}
	req := workRequest{Path: r.Job.Path, Language: r.Language, Src: src, Notebook: r.notebook, Fallback: fallback}
	if r.notebook != nil {
		req.Src = nil // the notebook holds its text
	}
	if r.Lang != nil {
		req.Lang = r.Lang.Name
	}
	lim := supervise.ForFile(size)
	var rep workReply
	var err error
	for {
		// A worker lost before it took the file (another file's failure,
		// its retirement) leaves the file to the next.
		var w *supervise.Worker
		if w, err = e.current(ctx); err != nil {
			return nil, false, err
		}
		rep = workReply{}
		if err = w.Call(ctx, lim, &req, &rep); !errors.Is(err, supervise.ErrNotServed) {
			break
		}
	}
	var lost *supervise.Failure
	if errors.As(err, &lost) && lost.Memory && lost.Served > 0 {
		// Its ceiling held what earlier files left mapped: the file gets
		// a fresh worker of its own, so that its fate depends on it
		// alone; the worker then serves the others.
		fresh, serr := e.pool.Start(ctx, Service, e.setup)
		if serr != nil {
			return nil, false, serr
		}
		rep = workReply{}
		err = fresh.Call(ctx, lim, &req, &rep)
		e.mu.Lock()
		if e.worker == nil || e.worker.Retired() {
			e.worker, fresh = fresh, nil
		}
		e.mu.Unlock()
		if fresh != nil {
			fresh.Close()
		}
	}
	if err != nil {
		return nil, false, err
	}
	r.Method = method.ByName(rep.Method)
	r.Message, r.Parsed, r.FellBack, r.Enriched, r.HasSyntaxErrors = rep.Message, rep.Parsed, rep.FellBack, rep.Enriched, rep.HasSyntaxErrors
	r.Regions, r.Extras = rep.Regions, rep.Extras
	if rep.EmptyRegions {
		r.Regions = []record.Region{}
	}
	if rep.EmptyExtras {
		r.Extras = []record.Extra{}
	}
	if rep.Err != "" {
		return nil, false, errors.New(rep.Err)
	}
	return rep.Spans, rep.Cacheable, nil
}

// close is a goroutine's farewell: the last one ends the worker.
func (e *remote) close() {
	e.mu.Lock()
	e.users--
	w := e.worker
	last := e.users <= 0
	e.mu.Unlock()
	if last && w != nil {
		w.Close()
	}
}

// kill ends the worker at once (the run was interrupted).
func (e *remote) kill() {
	e.mu.Lock()
	w := e.worker
	e.mu.Unlock()
	if w != nil {
		w.Kill()
	}
}

// Services is the service of this package's worker processes, for
// supervise.ServeIfWorker.
func Services() map[string]supervise.Service {
	return map[string]supervise.Service{Service: Serve}
}

// TestServices is Services with the tests' hook (envFault): only test
// binaries serve it, so no user's environment can make castchunk's own
// workers fail.
func TestServices() map[string]supervise.Service {
	return map[string]supervise.Service{Service: func(c *supervise.Conn) error { return serve(c, testFault) }}
}
