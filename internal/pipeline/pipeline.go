// Package pipeline runs read → parse → chunk over many files in parallel
// and hands each file's bytes and spans back in input order (encoding them
// is the output writer's business). Each worker owns one parser and one
// chunker, reused across files; at most a small window of files is in
// flight (the sequencer), so memory is bounded by a few files, never by the
// size of the repository.
package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/inject"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/notebook"
	"github.com/castchunk/castchunk/internal/outline"
	"github.com/castchunk/castchunk/internal/parse"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/regular"
	"github.com/castchunk/castchunk/internal/supervise"
	"github.com/castchunk/castchunk/internal/walk"
)

// Job is one file to chunk: what the listing knows of it and what its
// name decided (plan.Policy.ByName). A job whose Decision is not
// plan.Chunked is not read: its result says why it was left out.
type Job struct {
	plan.File
	// Repo names the repository the file belongs to ("" when the run
	// names none): its records carry it, and it is no concern of
	// chunking (the same bytes chunk the same in any repository).
	Repo     string
	Decision plan.Decision
	OSPath   string    // path to read
	Reader   io.Reader // read this instead of OSPath (standard input)
	Size     int64     // size when listed: what the job weighs in the window
	// ID is the identity of the file listed (zero: unknown): a file
	// opened at OSPath that is another is unreadable, never read.
	ID regular.ID
	// Follow says that OSPath was a symlink when listed, followed then
	// (named as an argument, or -L): it is followed when read. Otherwise
	// a symlink found there is not followed: the file is unreadable.
	Follow bool
}

// Config is how every file is chunked.
type Config struct {
	Jobs         int         // workers; < 1 means 1, and never more than the jobs
	Setup        chunk.Setup // the method, budget and options; checked by the caller
	ParseTimeout time.Duration
	Cache        *cache.Cache // nil: no cache
	// Plan decides each file's fate from its bytes (ByContent); with
	// Plan.Text, text no grammar parses is chunked with the method when it
	// needs no tree, else with the fallback.
	Plan plan.Policy
	// Enrich asks for scope, token counts, a token budget and the
	// embedding text (--context, --tokenizer, --max-tokens, --embed-text).
	Enrich enrich.Options
	// InProcess runs the grammars in this process, not in worker
	// processes (--in-process): no isolation, for measuring what the
	// isolation costs.
	InProcess bool
	// Notice, when set, is told what concerns the whole run rather than
	// one file (that the grammars run in this process after all), once.
	Notice func(string)
}

// NewJob makes the job of a listed file, deciding what its name tells
// (plan.Policy.ByName). A file left out by its name weighs nothing in the
// window: it is never read.
func (c Config) NewJob(f plan.File, osPath string, size int64) Job {
	d := c.Plan.ByName(f)
	if d.Fate != plan.Chunked {
		size = 0
	}
	return Job{File: f, Decision: d, OSPath: osPath, Size: size}
}

// ListedJob is NewJob for a file the walk listed: it is read only if it is
// still the file listed (walk.File's ID and Link; docs/design.md, "Hostile
// input").
func (c Config) ListedJob(f plan.File, w walk.File) Job {
	j := c.NewJob(f, w.OSPath, w.Size)
	j.ID, j.Follow = w.ID, w.Link
	return j
}

// Result is the outcome for one file, delivered in job order.
type Result struct {
	Job      Job
	Outcome  plan.Fate       // Chunked, a reason it was left out, or Failed
	Message  string          // for the user: why the file was left out, or why it fell back; "" when all went well
	Lang     *lang.Language  // the grammar it was parsed with; nil for text and for files left out
	Language string          // the language written into records: the grammar's, or a text name
	Method   *chunk.Method   // the method that made Spans: the configured one, or the fallback after a failed parse
	Src      []byte          // the file; valid until the sink returns
	Spans    []chunk.Span    // its chunks, in order
	Extras   []record.Extra  // what Config.Enrich adds to each span; nil when it asks for nothing
	Regions  []record.Region // the embedded regions (package inject) and their languages; nil when none
	// Cells are a notebook's cells; Src is then the notebook's text, which
	// the spans cut (package notebook).
	Cells           []record.NotebookCell
	notebook        *notebook.Notebook
	HasSyntaxErrors bool // the tree has syntax errors (chunked anyway)
	// FellBack says the file's grammar failed on it (its worker died or
	// ran past a limit, or the parse gave up): it was chunked with the
	// fallback method, Message says why.
	FellBack bool
	Cached   bool  // the spans (and Extras) came from the cache
	Parsed   bool  // the file was parsed in this run: never on a cache hit
	Enriched bool  // package enrich worked on the file in this run (definitions, tokens): never on a cache hit
	CacheErr error // the cache could not store the result (the run goes on)
}

// maxInFlight is the most files between being handed to a worker and being
// written. The window is sized by bytes (windowBytes); this only bounds the
// bookkeeping when files are tiny. It lets workers keep going while the
// writer waits for a big file ahead of them.
const maxInFlight = 1 << 14

// Run chunks the jobs with cfg.Jobs workers and calls sink with each result
// in job order. It stops at the first sink error or when ctx is done, and
// returns that error.
func Run(ctx context.Context, jobs []Job, cfg Config, sink func(*Result) error) error {
	if len(jobs) == 0 {
		return nil
	}
	if cfg.Notice == nil {
		cfg.Notice = func(string) {}
	}
	workers, inProcess := cfg.workers(len(jobs))
	seq := newSequencer(min(maxInFlight, len(jobs)), windowBytes, func(i int) int64 { return jobs[i].Size })
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	next := make(chan int)
	go seq.dispatch(ctx, len(jobs), next)
	// Each worker process serves callsPerWorker goroutines, whose calls it
	// takes one after another: while it works on one goroutine's file,
	// the other reads, looks up and sends the next, and hands on the last
	// answer, so that the worker never waits for the parent.
	perRemote := 1
	if !inProcess {
		perRemote = callsPerWorker
	}
	free := make(chan []byte, 2*workers*perRemote) // read buffers the writer is done with
	big := make(chan struct{}, 1)                  // held while a big file is parsed and chunked
	lane := new(sync.RWMutex)                      // a worker process's file from supervise.ExclusiveSize on runs alone
	pool := new(supervise.Pool)                    // every worker process, killed at once when the run is cancelled
	noticed := new(sync.Once)
	var wg sync.WaitGroup
	for range workers {
		var shared *remote
		if !inProcess {
			shared = &remote{setup: newWorkerSetup(cfg), lane: lane, pool: pool, users: perRemote}
		}
		for range perRemote {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := newWorker(cfg, free)
				w.ctx, w.big, w.noticed = ctx, big, noticed
				w.remote, w.owner = shared, shared
				defer w.close()
				stop := context.AfterFunc(ctx, w.parser.Cancel)
				defer stop()
				for i := range next {
					seq.put(i, w.run(jobs[i]))
				}
			}()
		}
	}
	defer func() { // stop the dispatcher first, or it may wait for credits forever
		cancel()
		// After a signal, a worker may be blocked reading standard input,
		// which nothing can interrupt: the run ends without it, but not
		// without killing every worker process.
		if parent.Err() == nil {
			wg.Wait()
		} else {
			pool.KillAll()
		}
	}()
	return deliver(ctx, jobs, seq, free, sink)
}

// deliver hands the results to sink in job order, and their read buffers
// back to the workers.
func deliver(ctx context.Context, jobs []Job, seq *sequencer, free chan []byte, sink func(*Result) error) error {
	for i := range jobs {
		// Results may be ready ahead of a cancellation (the workers ran on):
		// a cancelled run stops here all the same, never calling the sink
		// again.
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := seq.take(ctx, i)
		if err != nil {
			return err
		}
		if err := sink(r); err != nil {
			return err
		}
		if cap(r.Src) <= maxReusedBuffer {
			select { // hand the read buffer back to the workers
			case free <- r.Src[:0]:
			default:
			}
		}
		r.Src = nil
		seq.done(i)
	}
	return nil
}

// callsPerWorker is how many goroutines share a worker process, each
// with a file in it at most (supervise.Worker takes calls from several).
const callsPerWorker = 2

// windowBytes bounds the size of the files in flight; a bigger file goes
// through alone.
const windowBytes = 32 << 20

// bigFile is the size past which a file's freed tree is handed back to the
// operating system at once (parse.ReleaseMemory).
const bigFile = 1 << 20

// maxReusedBuffer is the largest read buffer kept for reuse: the few big
// files of a repository should not pin their size in memory for the rest of
// the run.
const maxReusedBuffer = 1 << 20

// worker holds one goroutine's reusable state.
type worker struct {
	cfg             Config
	parser          *parse.Parser
	chunker         chunk.Chunker
	fallback        chunk.Setup
	fallbackChunker chunk.Chunker   // made when first needed
	sizer           chunk.Sizer     // checks cache entries
	enrich          *enrich.Worker  // nil when Config.Enrich asks for nothing
	inject          *inject.Finder  // finds embedded regions
	defs            *outline.Finder // finds the definitions a method reads (NeedsDefs); nil when it reads none
	free            chan []byte     // read buffers to reuse
	ctx             context.Context
	big             chan struct{} // one big file parsed at a time (bigParse); nil: no limit
	remote          *remote       // the worker process that runs the grammars; nil: this process
	alone           *sync.Mutex   // held to chunk here, when the goroutines of a worker lost it for good
	owner           *remote       // the remote this goroutine shares, closed by it when it ends
	noticed         *sync.Once    // the run's Config.Notice said once
}

// bigParse is the size from which a file is parsed and chunked alone, one
// such file at a time whatever --jobs is: its syntax tree takes 50 to 60
// bytes per byte of source (a 10 MiB file, about 600 MB), and the chunker
// as much again on a flat list of millions of nodes. Smaller files go on
// in parallel beside it. With the default --max-file-size, the peak stays
// near that of the biggest file alone.
const bigParse = 4 << 20

func newWorker(cfg Config, free chan []byte) *worker {
	w := &worker{
		cfg:      cfg,
		free:     free,
		parser:   parse.New(cfg.ParseTimeout),
		chunker:  cfg.Setup.New(),
		fallback: method.Fallback(cfg.Setup.Budget),
		inject:   inject.NewFinder(),
	}
	if cfg.Enrich.Any() {
		w.enrich = enrich.NewWorker(cfg.Enrich)
	}
	if readsDefs(cfg.Setup.Method) {
		w.defs = outline.NewFinder()
	}
	return w
}

func (w *worker) close() {
	if w.owner != nil {
		if w.ctx.Err() != nil {
			w.owner.kill()
		} else {
			w.owner.close()
		}
	}
	w.parser.Close()
	w.inject.Close()
	if w.defs != nil {
		w.defs.Close()
	}
	w.chunker.Close()
	if w.fallbackChunker != nil {
		w.fallbackChunker.Close()
	}
	if w.enrich != nil {
		w.enrich.Close()
	}
}

// run processes one file. Buffers are per result, so the writer may hold a
// result while this worker moves on. A panic (a bug in a chunker) fails
// this file alone: it is reported and left out, and the worker starts
// afresh with a new chunker for the next file.
func (w *worker) run(job Job) (r *Result) {
	defer func() {
		if p := recover(); p != nil {
			r = &Result{Job: job, Method: w.cfg.Setup.Method, Outcome: plan.Failed,
				Message: fmt.Sprintf("internal error, castchunk crashed on this file (a bug; please report it): %v", p)}
			w.chunker.Close()
			w.chunker = w.cfg.Setup.New()
		}
	}()
	return w.process(job)
}

// process reads, parses and chunks one file.
func (w *worker) process(job Job) *Result {
	r := &Result{Job: job, Method: w.cfg.Setup.Method, Outcome: job.Decision.Fate, Message: job.Decision.Message}
	if r.Outcome != plan.Chunked {
		return r
	}
	src, c := w.read(job)
	if c.Fate == plan.Chunked {
		d := job.Decision
		if d.Lang == nil {
			d.Lang = c.Lang // the head's shebang, when it was read first
		}
		c = w.cfg.Plan.ByContent(job.File, d, src)
	}
	r.Src = src // handed back for reuse even when the file is left out
	r.Outcome, r.Message, r.Lang, r.Language = c.Fate, c.Message, c.Lang, c.Language
	if r.Outcome == plan.Chunked && c.Notebook {
		src = w.openNotebook(r, src)
	}
	if r.Outcome != plan.Chunked {
		return r
	}
	spans, err := w.cachedChunk(r, src)
	if err != nil {
		r.Outcome, r.Message = plan.Failed, err.Error()
		return r
	}
	r.Spans = ownSpans(spans)
	return r
}

// ownSpans copies spans, and their pieces, out of the chunker's buffers,
// which its next call may reuse (chunk.Chunker); the pieces of all spans
// share one new array.
func ownSpans(spans []chunk.Span) []chunk.Span {
	out := append([]chunk.Span(nil), spans...)
	n := 0
	for _, s := range spans {
		n += len(s.Pieces)
	}
	if n == 0 {
		return out
	}
	pieces := make([]chunk.Piece, 0, n)
	for i := range out {
		if out[i].Pieces != nil {
			from := len(pieces)
			pieces = append(pieces, out[i].Pieces...)
			out[i].Pieces = pieces[from:len(pieces):len(pieces)]
		}
	}
	return out
}

// checkPieces refuses spans of several pieces (chunk.Span.Pieces) from a
// method that does not declare it makes them (chunk.Method.Pieces): their
// records would have no ranges to say what they hold.
func checkPieces(m *chunk.Method, spans []chunk.Span) error {
	if m.Pieces {
		return nil
	}
	for i, s := range spans {
		if s.Pieces != nil {
			return fmt.Errorf("chunk %d is made of %d pieces, and method %s does not declare Pieces", i, len(s.Pieces), m.Name)
		}
	}
	return nil
}

// read reads the job's file (or its Reader), opened once, into a reused
// buffer. When only a shebang can give the file a grammar, its head is read
// first, and the rest only when the head names one (the Content then
// holds that grammar). A file that cannot be read, or is left out by its
// head, is returned with its fate.
func (w *worker) read(job Job) ([]byte, plan.Content) {
	var buf []byte
	select {
	case buf = <-w.free:
	default:
	}
	limit := w.cfg.Plan.MaxFileSize
	r, size := job.Reader, int64(-1)
	if r == nil {
		// The type is checked on the opened descriptor, and a FIFO put
		// where a file was listed cannot hang the run (package regular);
		// a symlink put there is not followed, and a file that is not
		// the one listed is not read (regular.OpenListed).
		testSwap(job.OSPath)
		f, info, err := regular.OpenListed(job.OSPath, job.ID, job.Follow)
		if err != nil {
			return nil, plan.ReadFailure(err)
		}
		defer f.Close()
		r, size = f, info.Size()
	}
	var byHead plan.Content
	if w.cfg.Plan.HeadDecides(job.Decision) {
		var err error
		if buf, err = readHead(buf, r); err != nil {
			return nil, plan.ReadFailure(err)
		}
		var ok bool
		if byHead, ok = w.cfg.Plan.ByHead(job.File, buf); !ok {
			return nil, byHead // no grammar: unsupported, whatever its size
		}
	}
	if size >= 0 {
		if limit > 0 && size > limit {
			return nil, plan.ReadFailure(regular.TooLargeError{Size: size, Limit: limit})
		}
		buf = regular.Grow(buf, size)
	}
	src, err := regular.ReadAll(buf, r, limit)
	if err != nil {
		return nil, plan.ReadFailure(err)
	}
	return src, byHead
}

// readHead reads up to plan.HeadSize bytes of f into buf.
func readHead(buf []byte, f io.Reader) ([]byte, error) {
	if cap(buf) < plan.HeadSize {
		buf = make([]byte, 0, plan.HeadSize)
	}
	n, err := io.ReadFull(f, buf[:plan.HeadSize])
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return buf[:n], err
}

// setup is how the file of r is chunked: with the configured method (a
// notebook's cells too, chunkNotebook), or, for text no grammar parses
// (Config.Plan.Text), with the fallback when the method needs a tree,
// which text has not.
func (w *worker) setup(r *Result) (chunk.Setup, chunk.Chunker) {
	if r.Lang == nil && r.notebook == nil && w.cfg.Setup.Method.NeedsTree {
		return w.fallback, w.fallbackChunk()
	}
	return w.cfg.Setup, w.chunker
}

// cachedChunk answers from the cache when it can, and stores what it had to
// compute: the spans and, with Config.Enrich, what it adds to each, so that
// a hit neither parses nor tokenizes. Results of a failed parse are not
// stored: a timeout depends on the machine's load, not on the file.
func (w *worker) cachedChunk(r *Result, src []byte) ([]chunk.Span, error) {
	c := w.cfg.Cache
	if c == nil {
		spans, _, err := w.compute(r, src)
		return spans, err
	}
	name := r.Language
	if r.notebook != nil {
		name += "\x00merged\x00" + r.notebook.Kernel // chunked as one document (entries of per-cell chunks are not), the language of its code cells, and where they are
		for _, c := range r.notebook.Cells {
			name += fmt.Sprintf("\x00%s %d", c.Kind, c.Start)
		}
	}
	if w.cfg.Enrich.Text || w.cfg.Enrich.NeedsDefs() && fileKind(r.Language) {
		// The header holds the path: it takes room, and is stored; a
		// component's definition is named by it (outline.FileDef).
		name += "\x00" + r.Job.Path
	}
	key := c.Key(name, src)
	setup, _ := w.setup(r)
	if e, ok := c.Get(key); ok {
		if w.valid(setup, e, r.Job.Path, src) {
			r.Method, r.HasSyntaxErrors, r.Extras, r.Regions, r.Cached = setup.Method, e.Syntax, e.Extras, e.Regions, true
			return e.Spans, nil
		}
		c.Remove(key) // its checksum held, but it is wrong for this file
	}
	spans, parsed, err := w.compute(r, src)
	if err == nil && parsed && r.Method == setup.Method {
		r.CacheErr = c.Put(key, cache.Entry{Method: r.Method.Name, Syntax: r.HasSyntaxErrors, Spans: spans, Extras: r.Extras, Regions: r.Regions})
	}
	return spans, err
}

// valid double-checks a cache entry against the file at path before
// trusting it: the spans must be in order, within the file, of the sizes
// they claim and within the budget, and tile it unless the method
// overlaps; what they carry must be what Config.Enrich asks for, and agree
// with the spans, the path and the budgets as far as can be told without a
// parse or a tokenizer (enrich.Options.Check). An entry that fails is
// recomputed, so the output is that of an uncached run unless an entry
// whose checksum holds lies where only a parse or a tokenizer would tell.
func (w *worker) valid(s chunk.Setup, e cache.Entry, path string, src []byte) bool {
	if e.Method != s.Method.Name || checkPieces(s.Method, e.Spans) != nil {
		return false
	}
	w.sizer.Reset(src)
	defer w.sizer.Release()
	if !s.Overlapping() {
		if chunk.CheckWith(s.Method.CheckSpans, &w.sizer, e.Spans, s.Budget) != nil {
			return false
		}
	} else if !w.validWindows(s, e.Spans, src) {
		return false
	}
	return validRegions(e.Regions, len(src)) && w.cfg.Enrich.Check(path, src, e.Spans, e.Extras, s.Budget) == nil
}

// fileKind reports whether the language's files are a definition named by
// their path (lang.Language.FileKind).
func fileKind(language string) bool {
	l := lang.ByName(language)
	return l != nil && l.FileKind != ""
}

// validRegions checks a cache entry's regions: in order, apart, within the
// file of n bytes, each in a language castchunk knows.
func validRegions(regions []record.Region, n int) bool {
	prev := 0
	for _, g := range regions {
		if g.From < prev || g.Start < g.From || g.End <= g.Start || g.To < g.End || g.To > n || lang.ByName(g.Language) == nil {
			return false
		}
		prev = g.To
	}
	return true
}

// validWindows checks overlapping windows: starts and ends in order, sizes
// true and within the budget, the file covered from its first byte to its
// last (no window for an empty file).
func (w *worker) validWindows(s chunk.Setup, spans []chunk.Span, src []byte) bool {
	prev := 0
	for _, sp := range spans {
		if sp.Start < prev || sp.End <= sp.Start || sp.End > len(src) || sp.Size > s.Budget || w.sizer.Size(sp.Start, sp.End) != sp.Size {
			return false
		}
		prev = sp.Start
	}
	if len(spans) == 0 {
		return len(src) == 0
	}
	return spans[0].Start == 0 && spans[len(spans)-1].End == len(src)
}

// compute chunks r's file with the grammars in a worker process (or, with
// Config.InProcess, here). A worker lost on the file (it crashed, or ran
// past its deadline or its memory) costs the file its tree: it is chunked
// without one, as a failed parse is, and the message says why. That is
// done here when it is bounded by construction (sliding windows, linear
// in the file); when a tokenizer.json drives it (token counts and caps),
// it is done in a fresh worker, under the same limits, and a file that
// fails there too fails alone. A worker that the limits on processes or
// open files let no one start leaves the work to this process.
func (w *worker) compute(r *Result, src []byte) ([]chunk.Span, bool, error) {
	if w.remote == nil {
		if w.alone != nil {
			w.alone.Lock()
			defer w.alone.Unlock()
		}
		return w.chunk(r, src)
	}
	spans, parsed, err := w.remote.chunk(w.ctx, r, src, "")
	var lost *supervise.Failure
	if !errors.As(err, &lost) {
		return spans, parsed, err
	}
	if supervise.Unstartable(lost) {
		w.notice(fmt.Sprintf("%v: the grammars run in castchunk's own process from here on, without isolation", lost))
		// The goroutines that shared the worker take turns: one file at
		// a time, as the worker did.
		w.alone, w.remote = &w.remote.alone, nil
		return w.compute(r, src)
	}
	*r = Result{Job: r.Job, Outcome: r.Outcome, Lang: r.Lang, Language: r.Language, Src: r.Src, Cells: r.Cells, notebook: r.notebook}
	if w.cfg.Enrich.Encoding == nil {
		spans, err = w.chunkWithoutTree(r, src, lost.Error())
		return spans, false, err
	}
	fell := *r
	spans, _, err = w.remote.chunk(w.ctx, &fell, src, lost.Error())
	var again *supervise.Failure
	if errors.As(err, &again) {
		return nil, false, fmt.Errorf("%v; chunked without a tree in another, it failed too: %s", lost, again.Reason)
	}
	*r = fell
	return spans, false, err
}

// chunkWithoutTree chunks r's file as its grammar's failure (why) leaves
// it: with the fallback, or with the method when it needs no tree; no
// definitions, no embedded regions. r is marked fallen back.
func (w *worker) chunkWithoutTree(r *Result, src []byte, why string) (spans []chunk.Span, err error) {
	if r.notebook != nil {
		spans, _, err = w.chunkCells(r, true)
	} else {
		l := r.Lang
		r.Lang = nil // no parse: the fallback, or the method without a tree
		spans, _, err = w.chunk(r, src)
		r.Lang = l
	}
	r.Parsed, r.FellBack = true, true
	r.Message = fmt.Sprintf("%s; chunked with the %s method", why, r.Method.Name)
	return spans, err
}

// oneOff has run run the worker's one-time work, its queries'
// compilation (supervise.Conn.Exempt in a worker process).
func (w *worker) oneOff(run func(func())) {
	w.inject.OneOff = run
	if w.defs != nil {
		w.defs.OneOff = run
	}
	if w.enrich != nil {
		w.enrich.OneOff(run)
	}
}

// notice says something of the whole run, once (Config.Notice).
func (w *worker) notice(s string) {
	if w.noticed != nil {
		w.noticed.Do(func() { w.cfg.Notice(s) })
	}
}

// chunk runs the configured method, falling back to sliding windows when the
// method needs a tree and the file cannot be parsed in time, and checks the
// guarantees before anything is written: tiling and budget here, sizes in
// the record encoder, which counts them as it escapes the content. With
// Config.Enrich it also describes each chunk, and keeps the budgets true of
// the embedding text. It reports whether every parse it needed succeeded:
// only then does the result depend on the file alone, and may be cached.
func (w *worker) chunk(r *Result, src []byte) (spans []chunk.Span, parsed bool, err error) {
	if r.notebook != nil {
		return w.chunkNotebook(r)
	}
	setup, chunker := w.setup(r)
	var tree *sitter.Tree
	needTree := setup.Method.NeedsTree
	parsed = true
	if needTree || inject.Has(r.Lang) || w.enrich != nil && w.cfg.Enrich.NeedsDefs() && r.Lang != nil {
		r.Parsed = true
		release, werr := w.bigFile(len(src))
		if werr != nil {
			return nil, false, werr
		}
		defer release()
		tree, err = w.parser.Parse(src, r.Lang)
		if err != nil {
			parsed = false // without a tree, the file has no definitions either
			if needTree {
				err = parseError(err, w.cfg.ParseTimeout)
				setup, chunker = w.fallback, w.fallbackChunk()
				r.FellBack = true
				r.Message = fmt.Sprintf("%v; chunked with the %s method", err, setup.Method.Name)
			}
			err = nil
		}
	}
	defer w.closeTree(tree, len(src))
	var regions []inject.Region
	if tree != nil {
		if regions, err = w.inject.Regions(w.parser, r.Lang, src, tree); err != nil {
			return nil, false, err
		}
		defer inject.Close(regions)
		r.Regions = inject.Records(regions)
		for _, g := range regions {
			if g.Err != nil && r.Message == "" {
				// Said, and not cached: a timeout depends on the machine.
				parsed, r.FellBack = false, true
				r.Message = fmt.Sprintf("embedded %s at line %d: %v; chunked as %s text", g.Lang.Name, 1+bytes.Count(src[:g.Start], []byte{'\n'}), g.Err, r.Lang.Name)
			}
		}
	}
	r.Method = setup.Method
	if tree != nil && setup.Method.NeedsTree {
		r.HasSyntaxErrors = tree.RootNode().HasError()
	}
	budget := chunk.Budget{Size: setup.Budget}
	in := chunk.Input{Src: src, Tree: tree, Budget: budget, Embedded: inject.ForChunker(regions)}
	if w.enrich != nil {
		r.Enriched = true
		budget.Tokens = w.cfg.Enrich.MaxTokens
		if in, err = w.enrich.Begin(r.Job.Path, r.Lang, src, tree, regions, budget); err != nil {
			return nil, false, err
		}
	}
	if !setup.Method.NeedsTree {
		in.Tree, in.Embedded = nil, nil // the method is the same with or without a tree
	}
	if readsDefs(setup.Method) && tree != nil {
		if in.Defs, in.Member, err = w.methodDefs(r.Lang, src, tree, regions); err != nil {
			return nil, false, err
		}
	}
	spans = chunker.Chunk(in)
	if w.enrich != nil {
		if spans, r.Extras, err = w.enrich.Finish(spans, budget, setup.Overlapping()); err != nil {
			return nil, false, err
		}
	}
	var bodies chunk.Bodies
	if setup.Method.Pieces {
		bodies = bodies.AddBodies(in.Defs, 0).Sorted()
	}
	if err := checkSpans(setup, spans, src, bodies); err != nil {
		return nil, false, fmt.Errorf("internal error, %s chunker broke a guarantee: %v", setup.Method.Name, err)
	}
	return spans, parsed, nil
}

// checkSpans checks the guarantees of the setup's method on spans over a
// file src: pieces only from a method of pieces, and none of their pieces
// holding a character of the bodies (chunk.Bodies: those of the file's
// functions, as verify checks them); and, when its chunks never overlap,
// their places and budget (chunk.Method.CheckSpans).
func checkSpans(setup chunk.Setup, spans []chunk.Span, src []byte, bodies chunk.Bodies) error {
	if err := checkPieces(setup.Method, spans); err != nil {
		return err
	}
	if setup.Method.Pieces {
		for i, s := range spans {
			if err := bodies.Check(src, s.Ranges()); err != nil {
				return fmt.Errorf("chunk %d: %w", i, err)
			}
		}
	}
	if setup.Overlapping() {
		return nil
	}
	return setup.Method.CheckSpans(spans, len(src), setup.Budget)
}

// readsDefs reports whether the worker finds the definitions of a file for
// method m: when its chunkers read them (NeedsDefs), and for a method of
// pieces, whose pieces checkSpans checks against the bodies of the file's
// functions, as verify does.
func readsDefs(m *chunk.Method) bool { return m.NeedsDefs || m.Pieces }

// methodDefs returns the definitions of src for a method that reads them
// (chunk.Method.NeedsDefs), its tree's and its embedded regions', and the
// rule for the members of its types (outline.Finder.ForChunker).
func (w *worker) methodDefs(l *lang.Language, src []byte, tree *sitter.Tree, regions []inject.Region) ([]chunk.Def, func(n *sitter.Node, owner int) bool, error) {
	if l == nil || tree == nil {
		return nil, nil, nil
	}
	trees := []outline.Tree{{Lang: l, Tree: tree, End: len(src)}}
	for _, g := range regions {
		trees = append(trees, outline.Tree{Lang: g.Lang, Tree: g.Tree, Start: g.Start, End: g.End})
	}
	return w.defs.ForChunker(src, trees)
}

// bigFile waits, for a file of size bytes from bigParse on, until no other
// big file is being parsed or chunked, and returns what ends its turn (run
// it once the tree is freed).
func (w *worker) bigFile(size int) (func(), error) {
	if size < bigParse || w.big == nil {
		return func() {}, nil
	}
	select {
	case w.big <- struct{}{}:
		return func() { <-w.big }, nil
	case <-w.ctx.Done():
		return nil, w.ctx.Err()
	}
}

// closeTree frees a file's syntax tree, and gives the memory of a big one
// back to the operating system at once.
func (w *worker) closeTree(tree *sitter.Tree, size int) {
	if tree == nil {
		return
	}
	tree.Close()
	if size > bigFile {
		parse.ReleaseMemory()
	}
}

// fallbackChunk returns the worker's fallback chunker, made on first use.
func (w *worker) fallbackChunk() chunk.Chunker {
	if w.fallbackChunker == nil {
		w.fallbackChunker = w.fallback.New()
	}
	return w.fallbackChunker
}
