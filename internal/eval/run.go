// Package eval measures how well a repository's chunks retrieve, per
// chunking configuration (method, budget, with or without the embedding
// text's header), with BM25 and queries built from the repository itself:
// commit messages against the lines their commit changed, and function
// bodies against the lines above them (README, "How well it retrieves").
// It chunks through package pipeline, exactly as castchunk chunk does, one
// configuration at a time; the index of one configuration serves every
// query, its documents switched on and off to match each query's tree.
package eval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	fate "github.com/castchunk/castchunk/internal/plan"
	"io"
	"path/filepath"
	"runtime/debug"
	"slices"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/tokens"
	"github.com/castchunk/castchunk/internal/walk"
)

// Config is one configuration: what `castchunk chunk --method Method
// --max-size MaxSize` writes, and with Context, what `--context
// --embed-text` adds: the index then holds each record's text (header and
// content) instead of its content; and the Retriever that ranks the
// chunks for a query.
type Config struct {
	Method  string `json:"method"`
	MaxSize int    `json:"max_size"`
	Context bool   `json:"context"`
	// Header is the header's format with Context (--embed-header); ""
	// without.
	Header    enrich.HeaderFormat `json:"header,omitempty"`
	Retriever string              `json:"retriever"`
}

// String is how reports name the configuration.
func (c Config) String() string {
	s := fmt.Sprintf("%s %d context %s", c.Method, c.MaxSize, c.contextName())
	if c.Retriever != "" {
		s += " " + c.Retriever
	}
	return s
}

// contextName is "off", "on" (the default header) or "on:FORMAT".
func (c Config) contextName() string {
	switch {
	case !c.Context:
		return "off"
	case c.Header == "" || c.Header == enrich.DefaultHeader:
		return "on"
	}
	return "on:" + string(c.Header)
}

// chunking is the configuration without its retriever: what is chunked
// and indexed once for every retriever.
func (c Config) chunking() Config { c.Retriever = ""; return c }

// Defaults is castchunk's defaults as a configuration: what `castchunk
// chunk` writes with no flag (cast, --max-size 2000, no --context),
// retrieved with BM25. The verdict's reference unless --baseline says
// what the user runs.
func Defaults() Config {
	return Config{Method: method.Default().Name, MaxSize: DefaultMaxSize, Retriever: RetrieverBM25}
}

// DefaultMaxSize is castchunk chunk's default --max-size.
const DefaultMaxSize = 2000

// Baseline says which configuration each one is compared with: Method at
// MaxSize (0: the configuration's own) with Context (nil: the
// configuration's own) and its Header ("": the configuration's own, when
// both have context), and Retriever ("": the configuration's own).
type Baseline struct {
	Method    string
	MaxSize   int
	Context   *bool
	Header    enrich.HeaderFormat
	Retriever string
}

// Of returns the baseline of c.
func (b Baseline) Of(c Config) Config { return b.of(c) }

// of returns the baseline of c.
func (b Baseline) of(c Config) Config {
	base := c
	base.Method = b.Method
	if b.Retriever != "" {
		base.Retriever = b.Retriever
	}
	if b.MaxSize > 0 {
		base.MaxSize = b.MaxSize
	}
	if b.Context != nil {
		base.Context = *b.Context
	}
	switch {
	case !base.Context:
		base.Header = ""
	case b.Header != "":
		base.Header = b.Header
	case base.Header == "":
		base.Header = enrich.DefaultHeader
	}
	return base
}

// Options are an evaluation's settings.
type Options struct {
	Repo       string // the repository's name, for the report (eval --repos-from); "" for none
	Path       string // the folder evaluated: in a git repository, or a plain folder (completion only)
	Rev        string // the commit evaluated (git)
	FromGit    int    // git queries asked for
	Completion int    // completion queries asked for
	// CompletionFallback is the completion queries drawn when Completion
	// is 0 and a shallow clone's history ends before FromGit commits.
	CompletionFallback int
	Configs            []Config
	Baseline           Baseline
	// Reference is what the user runs now, which the verdict measures
	// every configuration against (castchunk's defaults, or --baseline):
	// measured too when Configs lacks it. The zero value: castchunk's
	// defaults. ReferenceName says whose it is, for the verdict.
	Reference     Config
	ReferenceName string
	Budget        int // the context's size, in non-whitespace characters
	Seed          uint64
	Resamples     int
	MinWords      int // git: shortest commit message kept, in words
	MaxFiles      int // git: most indexed files a kept commit changes
	// Select and Walk choose the files as castchunk chunk's selection
	// flags do (--all-text, --include-generated, --max-file-size, ...;
	// --hidden, --include, --exclude, ...): Select for every file, Walk
	// for a plain folder's listing, and its Hidden, Include and Exclude
	// for a commit's tree too.
	Select fate.Policy
	Walk   walk.Options
	// Encoding and MaxTokens are chunk's --tokenizer and --max-tokens;
	// Values its method options (--overlap-lines, ...), each applied to
	// the methods that declare it.
	Encoding  *tokens.Encoding
	MaxTokens int
	Values    chunk.Values
	Jobs      int
	// Embed embeds texts for the dense and hybrid retrievers; EmbedURL
	// and EmbedModel name it in the report.
	Embed      EmbedFunc
	EmbedURL   string
	EmbedModel string
	// Progress, when set, is told how far each stage is.
	Progress func(stage string, done, total int)
	// Warn, when set, is told of a file a chunker failed on.
	Warn func(path, msg string)
}

// ValuesFor are the method options that m declares.
func (o *Options) ValuesFor(m *chunk.Method) chunk.Values {
	vals := chunk.Values{}
	for name, v := range o.Values {
		if m.Declares(name) {
			vals[name] = v
		}
	}
	return vals
}

// IsRepo reports whether dir lies in the work tree of a git repository
// (and git is installed).
func IsRepo(ctx context.Context, dir string) bool {
	r, _ := openRepo(ctx, dir)
	return r != nil
}

// UsageError is an error in what was asked for (a commit that is not one,
// git queries outside a repository), not in the run.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// errNoRepo is the error of asking for git queries outside a repository.
var errNoRepo = errors.New("not in a git repository: --from-git needs one (use --completion)")

// Run evaluates every configuration (and the baselines they need) and
// returns the report.
func Run(ctx context.Context, opt Options) (*Report, error) {
	if opt.Resamples < 0 || opt.Budget < 1 || len(opt.Configs) == 0 {
		return nil, errors.New("eval: bad options")
	}
	pl, done, err := planQueries(ctx, &opt)
	if err != nil {
		return nil, err
	}
	defer done()
	configs, err := settleConfigs(&opt)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(configs, func(c Config) bool { return needsVectors(c.Retriever) }) {
		// First, so that an embedder that does not answer fails the run
		// before anything is chunked.
		if err := pl.embedQueries(ctx); err != nil {
			return nil, err
		}
	}
	results := make([]*scores, len(configs))
	for i, c := range configs {
		if results[i] != nil {
			continue
		}
		var same []int // the configurations chunked as c is
		for j := i; j < len(configs); j++ {
			if configs[j].chunking() == c.chunking() {
				same = append(same, j)
			}
		}
		if err := evaluate(ctx, pl, configs, same, results); err != nil {
			return nil, err
		}
		debug.FreeOSMemory() // the index and vectors of one configuration at a time
	}
	rep := report(&opt, pl.p, configs, results)
	rep.Shallow = pl.shallowNote()
	return rep, nil
}

// planQueries builds every query: from the repository holding opt.Path,
// or from the plain folder. done releases what the plan reads from.
func planQueries(ctx context.Context, opt *Options) (pl *planner, done func(), err error) {
	repo, err := openRepo(ctx, opt.Path)
	if err != nil {
		return nil, nil, err
	}
	done = func() {}
	if repo != nil {
		if pl, err = gitPlan(ctx, opt, repo); err != nil {
			return nil, nil, err
		}
		done = pl.cat.close
	} else {
		if opt.FromGit > 0 {
			return nil, nil, &UsageError{errNoRepo}
		}
		pl = newPlanner(opt, nil, nil, "")
		if err := pl.folder(ctx); err != nil {
			return nil, nil, err
		}
	}
	if opt.Completion > 0 {
		err = pl.completion(ctx)
	}
	if err == nil {
		err = pl.finish(ctx)
	}
	if err != nil {
		done()
		return nil, nil, err
	}
	return pl, done, nil
}

// gitPlan starts the plan of a repository: the git queries, and on a
// shallow clone whose history ends before they are all found, the
// completion queries of opt.CompletionFallback when none were asked for.
func gitPlan(ctx context.Context, opt *Options, repo *gitRepo) (*planner, error) {
	commit, err := repo.resolve(ctx, opt.Rev)
	if err != nil {
		return nil, &UsageError{err}
	}
	cat, err := repo.catFile(ctx)
	if err != nil {
		return nil, err
	}
	pl := newPlanner(opt, repo, cat, commit)
	if pl.filter, err = walk.NewFilter(opt.Walk); err != nil {
		cat.close()
		return nil, &UsageError{err}
	}
	if opt.FromGit == 0 {
		return pl, nil
	}
	if pl.shallow, err = repo.shallowCommits(ctx); err == nil {
		err = pl.history(ctx)
	}
	if err != nil {
		cat.close()
		return nil, err
	}
	if pl.shallow != nil && pl.cutShort && opt.Completion == 0 {
		opt.Completion = opt.CompletionFallback
		pl.fallback = opt.CompletionFallback
	}
	return pl, nil
}

// shallowNote says what a shallow clone cost the git queries; nil when it
// cost none.
func (pl *planner) shallowNote() *Shallow {
	if pl.shallow == nil || !pl.cutShort {
		return nil
	}
	c := pl.p.counts[SourceGit]
	return &Shallow{Commits: pl.seen, Missing: c.Asked - c.Candidates, Fallback: pl.fallback}
}

// settleConfigs fills in the configurations' defaults (BM25, the default
// header with context) and returns them with the baselines they need.
func settleConfigs(opt *Options) ([]Config, error) {
	opt.Configs = slices.Clone(opt.Configs)
	if opt.Reference == (Config{}) {
		opt.Reference, opt.ReferenceName = Defaults(), "castchunk's defaults"
	}
	settle := func(c *Config) {
		if c.Retriever == "" {
			c.Retriever = RetrieverBM25
		}
		switch {
		case !c.Context:
			c.Header = ""
		case c.Header == "":
			c.Header = enrich.DefaultHeader
		}
	}
	settle(&opt.Reference)
	for i := range opt.Configs {
		settle(&opt.Configs[i])
	}
	measured := opt.Configs
	if !slices.Contains(measured, opt.Reference) {
		measured = append(slices.Clone(measured), opt.Reference)
	}
	configs := withBaselines(measured, opt.Baseline)
	for _, c := range configs {
		if needsVectors(c.Retriever) && opt.Embed == nil {
			return nil, &UsageError{fmt.Errorf("the %s retriever needs an embedder (--embedder)", c.Retriever)}
		}
	}
	return configs, nil
}

// withBaselines returns the configurations, each baseline one of them needs
// added, ordered by size, then context, then method (the registry's order).
func withBaselines(cs []Config, b Baseline) []Config {
	var all []Config
	seen := map[Config]bool{}
	for _, c := range cs {
		for _, x := range []Config{c, b.of(c)} {
			if !seen[x] {
				seen[x] = true
				all = append(all, x)
			}
		}
	}
	rank := map[string]int{}
	for i, n := range method.Names() {
		rank[n] = i
	}
	ctx := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(all, func(a, b Config) int {
		if a.MaxSize != b.MaxSize {
			return a.MaxSize - b.MaxSize
		}
		if a.Context != b.Context {
			return ctx(a.Context) - ctx(b.Context)
		}
		if a.Header != b.Header {
			return headerRank(a.Header) - headerRank(b.Header)
		}
		if a.Method != b.Method {
			return rank[a.Method] - rank[b.Method]
		}
		return slices.Index(Retrievers(), a.Retriever) - slices.Index(Retrievers(), b.Retriever)
	})
	return all
}

// headerRank orders header formats as enrich lists them.
func headerRank(f enrich.HeaderFormat) int {
	for i, h := range enrich.HeaderFormats() {
		if h.Name == f {
			return i
		}
	}
	return -1
}

// folder makes the base tree of a plain folder: its files as castchunk
// chunk lists them (git's ignore rules, hidden files left out), each as its
// name and attributes decide (package plan).
func (pl *planner) folder(ctx context.Context) error {
	files, _, err := walk.ListContext(ctx, []string{pl.opt.Path}, pl.opt.Walk)
	if err != nil {
		return err
	}
	rb, err := walk.NewRebase(pl.opt.Path)
	if err != nil {
		return err
	}
	for _, f := range files {
		p, ok := rb.Path(f.Path)
		if !ok {
			continue
		}
		e := &entry{Path: p, Rel: p, Cut: -1, Size: f.Size, Attrs: f.Attrs}
		d := pl.policy().ByName(e.file())
		if d.Fate != fate.Chunked {
			continue
		}
		e.Lang = d.Lang
		abs, err := filepath.Abs(f.OSPath)
		if err != nil {
			return err
		}
		e.OSPath, e.ID, e.Link = abs, f.ID, f.Link
		pl.set(p, pl.intern(e))
	}
	return nil
}

// docInfo is one indexed chunk.
type docInfo struct {
	entry       int32
	start, end  int32 // bytes of the entry
	first, last int32 // lines
	header      int32 // in headers; -1: none
	// pieces and npieces: a chunk of several pieces' (npieces > 0), in
	// the configuration's pieces (piecesOf)
	pieces, npieces int32
}

// scores are one configuration's results.
type scores struct {
	values  [][2]float64 // by query: its two metrics
	top     []lineSpan   // by query: the best ranked chunk (Path "" when none)
	live    []int        // by query: the chunks its index held
	chunked int          // entries chunked
	skipped map[string]int
}

// evaluate chunks every entry as configs[same[0]] says (every one of same
// is chunked alike), then scores every query with each one's retriever,
// into results.
func evaluate(ctx context.Context, pl *planner, configs []Config, same []int, results []*scores) error {
	c := configs[same[0]].chunking()
	m := method.ByName(c.Method)
	if m == nil {
		return fmt.Errorf("unknown method %q", c.Method)
	}
	setup := chunk.Setup{Method: m, Budget: c.MaxSize, Values: pl.opt.ValuesFor(m)}
	if err := setup.Check(); err != nil {
		return err
	}
	cfg := pipeline.Config{Jobs: pl.opt.Jobs, Setup: setup, Plan: pl.policy(),
		Enrich: enrich.Options{Context: c.Context, Text: c.Context, Header: c.Header, Encoding: pl.opt.Encoding, MaxTokens: pl.opt.MaxTokens}}
	jobs := pl.jobs(cfg)
	in := &indexer{x: NewIndex(), spans: make([][2]int32, len(jobs)), s: &scores{skipped: map[string]int{}}, warn: pl.opt.Warn}
	name := c.String()
	stage := "chunking " + name
	err := pipeline.Run(ctx, jobs, cfg, func(r *pipeline.Result) error {
		in.add(r)
		if pl.opt.Progress != nil {
			pl.opt.Progress(stage, in.n, len(jobs))
		}
		return nil
	})
	if err != nil {
		return err
	}
	sc := &scorer{pl: pl, x: in.x, docs: in.docs, pieces: in.pieces, headers: in.headers, cache: map[int32][]byte{}}
	for _, i := range same {
		if needsVectors(configs[i].Retriever) && sc.vecs == nil {
			if sc.vecs, err = sc.embedDocs(ctx, "embedding "+name); err != nil {
				return err
			}
			if err := pl.embedQueries(ctx); err != nil {
				return err
			}
			if q, d := pl.qvecs.dim, sc.vecs.dim; q != d && q > 0 && d > 0 {
				return fmt.Errorf("the embedder returned vectors of %d numbers for the queries and of %d for the chunks", q, d)
			}
		}
	}
	retrievers := make([]string, len(same))
	out := make([]*scores, len(same))
	for k, i := range same {
		s := *in.s
		results[i], out[k], retrievers[k] = &s, &s, configs[i].Retriever
	}
	return pl.scoreAll(ctx, in, sc, retrievers, out, "scoring "+name)
}

// jobs are the pipeline's jobs of every entry, in order; an entry read
// from git, or cut short, is read through a lazyReader.
func (pl *planner) jobs(cfg pipeline.Config) []pipeline.Job {
	jobs := make([]pipeline.Job, len(pl.p.entries))
	for i, e := range pl.p.entries {
		jobs[i] = cfg.NewJob(e.file(), e.OSPath, e.Size)
		jobs[i].ID, jobs[i].Follow = e.ID, e.Link
		if e.Blob != "" || e.Cut >= 0 {
			jobs[i].OSPath = e.Path
			jobs[i].Reader = &lazyReader{pl: pl, e: e}
		}
	}
	return jobs
}

// indexer indexes the chunks of one configuration, entry after entry, as
// the pipeline delivers them.
type indexer struct {
	x       *Index
	docs    []docInfo
	pieces  []docPiece // of the documents of several pieces
	headers []string
	spans   [][2]int32 // by entry: its documents
	s       *scores
	n       int // entries seen
	warn    func(path, msg string)
}

// add indexes one entry's chunks, each with its header (--context), and
// counts the entries left out by their reason.
func (in *indexer) add(r *pipeline.Result) {
	e := in.n
	in.n++
	in.spans[e][0] = int32(len(in.docs))
	defer func() { in.spans[e][1] = int32(len(in.docs)) }()
	switch r.Outcome {
	case fate.Chunked:
		in.s.chunked++
	case fate.Failed:
		in.s.skipped[r.Outcome.String()]++
		if in.warn != nil {
			in.warn(r.Job.Path, r.Message)
		}
		return
	default:
		in.s.skipped[r.Outcome.String()]++
		return
	}
	line, pos := int32(1), 0
	for i, sp := range r.Spans {
		line += int32(bytes.Count(r.Src[pos:sp.Start], []byte{'\n'}))
		pos = sp.Start
		var d docInfo
		d, in.pieces = newDoc(int32(e), r.Src, sp, line, in.pieces)
		var h []byte
		if r.Extras != nil && r.Extras[i].Header != "" {
			if len(in.headers) == 0 || in.headers[len(in.headers)-1] != r.Extras[i].Header {
				in.headers = append(in.headers, r.Extras[i].Header)
			}
			d.header = int32(len(in.headers) - 1)
			h = []byte(r.Extras[i].Header)
		}
		in.x.Add(h, sp.Text(r.Src))
		in.docs = append(in.docs, d)
	}
}

// scoreAll scores every query against the index with each retriever,
// into out (one scores per retriever), switching on and off the documents
// of the entries each query's tree adds and removes: one pass over the
// queries, since each query's switches are relative to the one before.
func (pl *planner) scoreAll(ctx context.Context, in *indexer, sc *scorer, retrievers []string, out []*scores, stage string) error {
	queries := pl.p.queries
	for _, s := range out {
		s.values = make([][2]float64, len(queries))
		s.live = make([]int, len(queries))
		s.top = make([]lineSpan, len(queries))
	}
	for qi, q := range queries {
		if err := ctx.Err(); err != nil {
			return err
		}
		in.setLive(q.Off, false)
		in.setLive(q.On, true)
		rank := sc.rankings(retrievers, qi)
		for k, s := range out {
			s.live[qi] = in.x.Live()
			v, top, err := sc.score(q, rank[k])
			if err != nil {
				return err
			}
			s.values[qi], s.top[qi] = v, top
		}
		if pl.opt.Progress != nil {
			pl.opt.Progress(stage, qi+1, len(queries))
		}
	}
	return nil
}

// setLive switches the documents of the entries on or off.
func (in *indexer) setLive(entries []int32, live bool) {
	for _, id := range entries {
		for d := in.spans[id][0]; d < in.spans[id][1]; d++ {
			in.x.SetLive(int(d), live)
		}
	}
}

// lazyReader reads an entry's bytes when the pipeline first reads it.
type lazyReader struct {
	pl   *planner
	e    *entry
	data []byte
	read bool
}

func (r *lazyReader) Read(p []byte) (int, error) {
	if !r.read {
		r.read = true
		data, err := r.pl.read(r.e)
		if err != nil {
			return 0, err
		}
		r.data = data
	}
	if len(r.data) == 0 {
		r.data = nil
		return 0, io.EOF
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// scorer scores queries against one configuration's index.
type scorer struct {
	pl      *planner
	x       *Index
	docs    []docInfo
	pieces  []docPiece // of the documents of several pieces
	headers []string
	cache   map[int32][]byte // entries' bytes, recently read
	cached  int
	vecs    *vectors // by document, for the dense and hybrid retrievers
	hits    hitHeap  // denseSearch's array, reused from query to query
}

// maxCached bounds the bytes of entries the scorer keeps between queries.
const maxCached = 64 << 20

func (sc *scorer) content(id int32) ([]byte, error) {
	if b, ok := sc.cache[id]; ok {
		return b, nil
	}
	b, err := sc.pl.read(sc.pl.p.entries[id])
	if err != nil {
		return nil, err
	}
	if sc.cached+len(b) > maxCached {
		clear(sc.cache)
		sc.cached = 0
	}
	sc.cache[id] = b
	sc.cached += len(b)
	return b, nil
}

// rankings ranks the live chunks for the qi-th query with each retriever,
// in order: BM25 and the dense ranking are computed once each, whoever
// asks for them (hybrid fuses their best).
func (sc *scorer) rankings(retrievers []string, qi int) []*Ranking {
	q := sc.pl.p.queries[qi]
	need := func(r string) bool { return slices.Contains(retrievers, r) }
	hybrid := need(RetrieverHybrid)
	var bm25, bm25Top, dense, denseTop *Ranking
	if slices.ContainsFunc(retrievers, func(r string) bool { return r != RetrieverDense }) { // BM25's ("" too) or hybrid's
		bm25 = sc.x.Search(q.Text)
		if hybrid {
			bm25Top, bm25 = bm25.split(rrfDepth)
		}
	}
	if need(RetrieverDense) || hybrid {
		dense = denseSearch(sc.x, sc.vecs, sc.pl.qvecs.at(qi), sc.hits)
		sc.hits = dense.h
		if hybrid {
			denseTop, dense = dense.split(rrfDepth)
		}
	}
	out := make([]*Ranking, len(retrievers))
	for k, r := range retrievers {
		switch r {
		case RetrieverDense:
			out[k] = dense
		case RetrieverHybrid:
			out[k] = fuse(bm25Top, denseTop)
		default:
			out[k] = bm25
		}
	}
	return out
}

// text is what the index holds of document d: its header, if any, then
// its content.
func (sc *scorer) text(d docInfo) ([]byte, int, error) {
	src, err := sc.content(d.entry)
	if err != nil {
		return nil, 0, err
	}
	if int(d.end) > len(src) {
		return nil, 0, fmt.Errorf("%s changed while castchunk eval ran", sc.pl.p.entries[d.entry].Path)
	}
	var text []byte
	if d.header >= 0 {
		text = append(text, sc.headers[d.header]...)
	}
	hl := len(text)
	return appendContent(text, src, d, piecesOf(d, sc.pieces)), hl, nil
}

// embedDocs embeds the text of every document, live or not.
func (sc *scorer) embedDocs(ctx context.Context, stage string) (*vectors, error) {
	return embedAll(ctx, sc.pl.opt.Embed, len(sc.docs), func(i int) (string, error) {
		t, _, err := sc.text(sc.docs[i])
		return string(t), err
	}, sc.progress(stage))
}

// embedQueries embeds every query's text, once for every configuration.
func (pl *planner) embedQueries(ctx context.Context) error {
	if pl.qvecs != nil {
		return nil
	}
	var err error
	var progress func(done, total int)
	if pl.opt.Progress != nil {
		progress = func(done, total int) { pl.opt.Progress("embedding the queries", done, total) }
	}
	pl.qvecs, err = embedAll(ctx, pl.opt.Embed, len(pl.p.queries), func(i int) (string, error) {
		return pl.p.queries[i].Text, nil
	}, progress)
	return err
}

func (sc *scorer) progress(stage string) func(done, total int) {
	if sc.pl.opt.Progress == nil {
		return nil
	}
	return func(done, total int) { sc.pl.opt.Progress(stage, done, total) }
}

// score assembles the context for q from the ranking and measures it.
func (sc *scorer) score(q *query, rank *Ranking) (v [2]float64, top lineSpan, err error) {
	type piece struct {
		doc    docInfo
		text   []byte
		header int
	}
	var pieces []piece
	var failed error
	kept := Assemble(sc.pl.opt.Budget, func() ([]byte, bool) {
		h, ok := rank.Next()
		if !ok {
			return nil, false
		}
		d := sc.docs[h.Doc]
		text, hl, err := sc.text(d)
		if err != nil {
			failed = err
			return nil, false
		}
		pieces = append(pieces, piece{doc: d, text: text, header: hl})
		return text, true
	})
	if failed != nil {
		return v, top, failed
	}
	if len(pieces) > 0 {
		d := pieces[0].doc
		top = lineSpan{Path: sc.pl.p.entries[d.entry].Path, First: int(d.first), Last: int(d.last)}
	}
	var ctxText []byte
	var covered []lineSpan
	for i, k := range kept {
		p := pieces[i]
		for _, l := range keptLines(p.doc, piecesOf(p.doc, sc.pieces), p.text[p.header:], k-p.header) {
			covered = append(covered, lineSpan{Path: sc.pl.p.entries[p.doc.entry].Path, First: l[0], Last: l[1]})
		}
		if len(ctxText) > 0 && ctxText[len(ctxText)-1] != '\n' {
			ctxText = append(ctxText, '\n')
		}
		ctxText = append(ctxText, p.text[:k]...)
	}
	switch q.Source {
	case SourceGit:
		v[0], v[1] = lineRecall(q.Gold, covered)
	case SourceCompletion:
		v[0], v[1] = ansLine(q.GoldLines, ctxText), idRecall(q.GoldIDs, ctxText)
	}
	return v, top, nil
}
