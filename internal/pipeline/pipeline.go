// Package pipeline runs read → parse → chunk → encode over many files in
// parallel and hands the results back in input order. Each worker owns one
// parser and one chunker of each kind, reused across files; at most a small
// window of files is in flight, so memory is bounded by a few files, never
// by the size of the repository.
package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/cast"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/parse"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/sliding"
	"github.com/castchunk/castchunk/internal/walk"
	"golang.org/x/sync/semaphore"
)

// Method names, as they appear in records.
const (
	MethodCast    = "cast"
	MethodSliding = "sliding"
)

// Job is one file to chunk.
type Job struct {
	Path   string // display path, written into records
	OSPath string // path to read
	Lang   *lang.Language
	Size   int64 // size when listed: what the job weighs in the window
}

// Config is how every file is chunked.
type Config struct {
	Jobs         int    // workers; < 1 means 1
	Method       string // MethodCast or MethodSliding
	Budget       int
	Sliding      sliding.Options // for MethodSliding, and the fallback when a parse fails
	ParseTimeout time.Duration
	MaxFileSize  int64        // > 0: files that grew past it since listing are skipped
	Cache        *cache.Cache // nil: no cache
}

// Skip says why a file produced no records although it was read.
type Skip int

// Reasons a file is skipped. SkipNone means the file was chunked.
const (
	SkipNone Skip = iota
	SkipBinary
	SkipEncoding
	SkipTooLarge
	SkipUnreadable
)

func (s Skip) String() string {
	return [...]string{"", "binary", "encoding", "too large", "unreadable"}[s]
}

// Result is the outcome for one file, delivered in job order.
type Result struct {
	Job      Job
	Records  []byte // the file's JSON Lines; valid until the sink returns
	Method   string // method actually used (sliding after a parse failure)
	Bytes    int    // file size
	Sizes    []int  // chunk sizes, in order
	Syntax   bool   // the tree has syntax errors (chunked anyway)
	Skip     Skip
	Warning  string // for the user: why it was skipped or fell back; "" when all went well
	Internal error  // a bug: the chunker broke a guarantee; the file is left out
	Cached   bool   // the spans came from the cache
	CacheErr error  // the cache could not store the result (the run goes on)

	src   []byte       // the file, for the writer to encode
	spans []chunk.Span // its chunks
}

// binaryProbe is how much of a file is searched for a NUL byte, as git does.
const binaryProbe = 8000

// Run chunks the jobs with cfg.Jobs workers and calls sink with each result
// in job order. It stops at the first sink error or when ctx is done, and
// returns that error.
func Run(ctx context.Context, jobs []Job, cfg Config, sink func(*Result) error) error {
	workers := max(cfg.Jobs, 1)
	// At most window files, and windowBytes of them, are in flight between
	// the dispatcher and the writer: enough that a worker keeps going while
	// the writer waits for a big file ahead of it, few enough that memory
	// stays bounded by a few files.
	window := 512 * workers
	bytes := semaphore.NewWeighted(windowBytes)
	weight := func(i int) int64 { return min(max(jobs[i].Size, 1), windowBytes) }
	ctx, cancel := context.WithCancel(ctx)

	// Job i's result goes to slot i%window: the credits make sure job i is
	// handed out only after result i-window was consumed, so a slot is free.
	slots := make([]chan *Result, window)
	for i := range slots {
		slots[i] = make(chan *Result, 1)
	}
	credits := make(chan struct{}, window)
	free := make(chan []byte, 2*workers) // read buffers the writer is done with
	next := make(chan int)
	go func() { // dispatcher: hands out job indexes while the window has room
		defer close(next)
		for i := range jobs {
			select {
			case credits <- struct{}{}:
			case <-ctx.Done():
				return
			}
			if bytes.Acquire(ctx, weight(i)) != nil {
				return
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker(cfg, free)
			defer w.close()
			stop := context.AfterFunc(ctx, w.parser.Cancel)
			defer stop()
			for i := range next {
				slots[i%window] <- w.run(jobs[i])
			}
		}()
	}
	defer func() { // stop the dispatcher first, or it may wait for credits forever
		cancel()
		wg.Wait()
	}()

	// The writer encodes the records (the workers only parse and chunk), so
	// encoding and writing overlap with the parsing of the next files.
	var enc record.Encoder
	var records []byte
	for i := range jobs {
		var r *Result
		select {
		case r = <-slots[i%window]:
		case <-ctx.Done():
			return ctx.Err()
		}
		records = encode(&enc, records[:0], r)
		if err := sink(r); err != nil {
			return err
		}
		if cap(r.src) <= maxReusedBuffer {
			select { // hand the read buffer back to the workers
			case free <- r.src[:0]:
			default:
			}
		}
		r.src, r.Records = nil, nil
		bytes.Release(weight(i))
		<-credits
	}
	return nil
}

// encode writes the records of a chunked file into dst, which becomes
// r.Records, and returns dst for reuse.
func encode(enc *record.Encoder, dst []byte, r *Result) []byte {
	if r.Skip != SkipNone || r.Internal != nil || r.src == nil {
		return dst
	}
	f := record.File{Path: r.Job.Path, Language: r.Job.Lang.Name, Method: r.Method, Src: r.src}
	out, err := enc.AppendFile(dst, f, r.spans)
	if err != nil {
		r.Internal = err
		return dst
	}
	r.Records = out
	return out
}

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
	cfg     Config
	parser  *parse.Parser
	cast    *cast.Chunker
	sliding *sliding.Chunker
	free    chan []byte // read buffers to reuse
}

func newWorker(cfg Config, free chan []byte) *worker {
	return &worker{
		cfg:     cfg,
		free:    free,
		parser:  parse.New(cfg.ParseTimeout),
		cast:    cast.New(cfg.Budget),
		sliding: sliding.New(cfg.Sliding),
	}
}

func (w *worker) close() {
	w.parser.Close()
	w.cast.Close()
}

// run processes one file. Buffers are per result, so the writer may hold a
// result while this worker moves on.
func (w *worker) run(job Job) *Result {
	r := &Result{Job: job, Method: w.cfg.Method}
	if !utf8.ValidString(job.Path) {
		// A record holds its path as JSON text; this one cannot be written
		// exactly, and castchunk never writes a replaced character.
		r.Skip, r.Warning = SkipEncoding, "file name is not valid UTF-8; skipped"
		return r
	}
	var buf []byte
	select {
	case buf = <-w.free:
	default:
	}
	src, err := readFile(buf, job.OSPath, w.cfg.MaxFileSize)
	if err != nil {
		r.Skip, r.Warning = classify(err)
		return r
	}
	r.src, r.Bytes = src, len(src)
	if r.Skip, r.Warning = checkText(src); r.Skip != SkipNone {
		return r
	}
	spans, err := w.cachedChunk(r, src)
	if err != nil {
		r.Internal = err
		return r
	}
	r.spans = append([]chunk.Span(nil), spans...) // the chunker reuses its slice
	for _, s := range spans {
		r.Sizes = append(r.Sizes, s.Size)
	}
	return r
}

// cachedChunk answers from the cache when it can, and stores what it had to
// compute. Results of a failed parse are not stored: a timeout depends on
// the machine's load, not on the file.
func (w *worker) cachedChunk(r *Result, src []byte) ([]chunk.Span, error) {
	c := w.cfg.Cache
	if c == nil {
		return w.chunk(r, src)
	}
	key := c.Key(r.Job.Lang.Name, src)
	if e, ok := c.Get(key); ok && w.valid(e, src) {
		r.Method, r.Syntax, r.Cached = e.Method, e.Syntax, true
		return e.Spans, nil
	}
	spans, err := w.chunk(r, src)
	if err == nil && r.Method == w.cfg.Method {
		r.CacheErr = c.Put(key, cache.Entry{Method: r.Method, Syntax: r.Syntax, Spans: spans})
	}
	return spans, err
}

// valid double-checks a cache entry against the file before trusting it.
func (w *worker) valid(e cache.Entry, src []byte) bool {
	if e.Method != w.cfg.Method {
		return false
	}
	if e.Method == MethodSliding && w.cfg.Sliding.Overlapping() {
		return len(e.Spans) > 0 && e.Spans[len(e.Spans)-1].End == len(src)
	}
	return chunk.CheckTiling(e.Spans, len(src), w.cfg.Budget) == nil
}

// chunk runs the configured method, falling back to sliding windows when the
// file cannot be parsed in time, and checks the guarantees before anything
// is written: tiling and budget here, sizes in the record encoder, which
// counts them as it escapes the content.
func (w *worker) chunk(r *Result, src []byte) ([]chunk.Span, error) {
	var spans []chunk.Span
	if r.Method == MethodCast {
		tree, err := w.parser.Parse(src, r.Job.Lang)
		switch {
		case err == nil:
			r.Syntax = tree.RootNode().HasError()
			spans = w.cast.Chunk(src, tree)
			tree.Close()
			if len(src) > bigFile {
				parse.ReleaseMemory()
			}
		case errors.Is(err, parse.ErrTimeout):
			r.Method = MethodSliding
			r.Warning = fmt.Sprintf("parse timed out after %v; chunked with the sliding method", w.cfg.ParseTimeout)
		default:
			r.Method = MethodSliding
			r.Warning = fmt.Sprintf("%v; chunked with the sliding method", err)
		}
	}
	if r.Method == MethodSliding {
		spans = w.sliding.Chunk(src)
	}
	if r.Method == MethodCast || !w.cfg.Sliding.Overlapping() {
		budget := w.cfg.Budget
		if r.Method == MethodSliding {
			budget = w.cfg.Sliding.Budget
		}
		if err := chunk.CheckTiling(spans, len(src), budget); err != nil {
			return nil, fmt.Errorf("internal error, %s chunker broke a guarantee: %v", r.Method, err)
		}
	}
	return spans, nil
}

// readFile reads a whole file into buf, refusing to read more than limit
// bytes.
func readFile(buf []byte, name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if limit > 0 && info.Size() > limit {
		return nil, walk.TooLargeError{Size: info.Size(), Limit: limit}
	}
	// Read to EOF rather than trusting the size: the file may change.
	if need := int(info.Size()) + 1; cap(buf) < need {
		buf = make([]byte, 0, need)
	}
	for {
		if limit > 0 && int64(len(buf)) > limit {
			return nil, walk.TooLargeError{Size: int64(len(buf)), Limit: limit}
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// classify turns a read error into a skip reason and a message for people.
func classify(err error) (Skip, string) {
	var large walk.TooLargeError
	if errors.As(err, &large) {
		return SkipTooLarge, large.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return SkipUnreadable, "no such file or directory (did it vanish while castchunk ran?)"
	case errors.Is(err, fs.ErrPermission):
		return SkipUnreadable, "permission denied"
	}
	return SkipUnreadable, err.Error()
}

// checkText says why src cannot be chunked as text (SkipNone when it can).
// The policy (README, "Encodings"): UTF-8 only, with or without a BOM; files
// in other encodings are skipped with a warning, never transcoded or
// emitted with replaced characters.
func checkText(src []byte) (Skip, string) {
	if isUTF16(src) {
		return SkipEncoding, "UTF-16 text is not supported, only UTF-8; skipped"
	}
	if bytes.IndexByte(src[:min(len(src), binaryProbe)], 0) >= 0 {
		return SkipBinary, "binary file (NUL byte); skipped"
	}
	body := bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(body) {
		return SkipEncoding, fmt.Sprintf("not valid UTF-8 (bad byte at offset %d); skipped", len(src)-len(body)+chunk.FirstInvalid(body))
	}
	return SkipNone, ""
}

func isUTF16(src []byte) bool {
	return bytes.HasPrefix(src, []byte{0xff, 0xfe}) || bytes.HasPrefix(src, []byte{0xfe, 0xff})
}
