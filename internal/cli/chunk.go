package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/castchunk/castchunk/internal/bytesize"
	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/stats"
	"github.com/castchunk/castchunk/internal/tokens"
	"github.com/castchunk/castchunk/internal/walk"
)

// chunkOptions are the flags of `castchunk chunk`.
type chunkOptions struct {
	method       string
	maxSize      int
	methodFlags  map[string]*int // every method's own options, by flag name
	lang         string
	stdinPath    string
	filesFrom    string
	null         bool
	hidden       bool
	noIgnore     bool
	follow       bool
	include      []string
	exclude      []string
	maxFileSize  string
	jobs         int
	output       string
	format       string
	stats        bool
	parseTimeout time.Duration
	noProgress   bool
	shard        string
	cacheDir     string
	cacheMax     string
	allText      bool
	generated    bool
	vendored     bool
	context      bool
	tokenizer    string
	maxTokens    int
	embedText    bool
	root         string
}

func newChunkCmd(s Streams) *cobra.Command {
	o := &chunkOptions{methodFlags: map[string]*int{}}
	cmd := &cobra.Command{
		Use:   "chunk [PATH...]",
		Short: "Chunk files and folders into JSON Lines on stdout",
		Long: `Chunk every supported file under the given files and folders (default: the
current folder) and print one JSON object per chunk, files in path order.
A PATH of - reads one file from standard input (give --lang, or a
--stdin-path with a known extension).

Folders are walked as git sees them: .gitignore files (nested ones too),
.git/info/exclude and the global excludes file are honoured, files git tracks
are kept even when a pattern matches them, hidden files and folders are
skipped. Files named on the command line are chunked even when ignored or
hidden; --include, --exclude and --max-file-size still apply to them.

The record format and the exit statuses: see 'castchunk --help'.`,
		Example: `  castchunk chunk . | jq -r .path | uniq -c
  castchunk chunk --method sliding --max-size 1000 src/ > chunks.jsonl
  git ls-files | castchunk chunk --files-from - -o chunks.jsonl
  cat app.py | castchunk chunk --lang python --stdin-path src/app.py -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := o.config(cmd, args, s.In)
			if err != nil {
				return err
			}
			return runChunk(cmd.Context(), cfg, s)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.method, "method", "m", method.Default().Name, "chunking `METHOD`: "+methodSummaries())
	f.IntVar(&o.maxSize, "max-size", 2000, "the budget: at most `N` non-whitespace characters in a chunk")
	for _, m := range method.All() {
		for _, opt := range m.Options {
			if f.Lookup(opt.Name) == nil {
				o.methodFlags[opt.Name] = f.Int(opt.Name, opt.Default, m.Name+": "+opt.Help+" (`N`)")
			}
		}
	}
	f.StringVar(&o.lang, "lang", "", "parse the named files (or stdin) as `LANGUAGE` ("+strings.Join(lang.Names(), ", ")+"), whatever their extension")
	f.StringVar(&o.stdinPath, "stdin-path", "", "with PATH -, the `NAME` written as the records' path (default <stdin>)")
	f.StringVar(&o.filesFrom, "files-from", "", "read the paths to chunk from `FILE`, one per line (- for stdin)")
	f.BoolVarP(&o.null, "null", "0", false, "with --files-from, paths are separated by NUL bytes")
	f.BoolVar(&o.hidden, "hidden", false, "include hidden files and folders (.git is always skipped)")
	f.BoolVar(&o.noIgnore, "no-ignore", false, "do not honour .gitignore, .git/info/exclude or the global excludes file")
	f.BoolVarP(&o.follow, "follow", "L", false, "follow symbolic links")
	f.StringArrayVar(&o.include, "include", nil, "only chunk paths matching `GLOB` (gitignore-like: ** allowed, dir/ for folders; repeatable)")
	f.StringArrayVar(&o.exclude, "exclude", nil, "skip paths matching `GLOB` (gitignore-like: ** allowed, dir/ for folders; repeatable)")
	f.StringVar(&o.maxFileSize, "max-file-size", "10MiB", "skip files larger than `SIZE` (bytes, or with a unit: 512KiB, 64MiB; 0: no limit)")
	f.IntVarP(&o.jobs, "jobs", "j", runtime.NumCPU(), "chunk `N` files in parallel")
	f.StringVarP(&o.output, "output", "o", "", "write the records to `FILE` (atomically) instead of stdout")
	f.StringVar(&o.format, "format", record.FormatNames()[0], "output `FORMAT`: "+strings.Join(record.FormatNames(), ", "))
	f.BoolVar(&o.stats, "stats", false, "print a summary to stderr when done")
	f.DurationVar(&o.parseTimeout, "parse-timeout", 0, "give up parsing a file after `DURATION` and chunk it with sliding windows (0: no limit; a timeout makes output depend on the machine's load)")
	f.BoolVar(&o.noProgress, "no-progress", false, "never show the progress bar (it only shows when stderr is a terminal)")
	f.StringVar(&o.cacheDir, "cache", os.Getenv(cacheEnv), "remember chunks in `DIR` and reuse them for unchanged files (default $"+cacheEnv+")")
	f.StringVar(&o.cacheMax, "cache-max-size", "256MiB", "prune the cache to `SIZE` after a run, least recently used entries first")
	f.StringVar(&o.shard, "shard", "", "chunk only shard `K/N` (1 <= K <= N): the files whose path hashes to it")
	f.BoolVar(&o.allText, "all-text", false, "also chunk text files no grammar parses (.txt, .rst, Dockerfile, ...) with sliding windows")
	f.BoolVar(&o.generated, "include-generated", false, "also chunk generated files (lock files, minified bundles, \"DO NOT EDIT\" output)")
	f.BoolVar(&o.vendored, "include-vendored", false, "also chunk vendored files (vendor/, node_modules/, third_party/, ...)")
	f.BoolVar(&o.context, "context", false, "add each chunk's scope (the definitions around its start) and the definitions it holds")
	f.StringVar(&o.tokenizer, "tokenizer", "", "add each chunk's token count for `NAME`: "+strings.Join(tokens.Names(), ", "))
	f.IntVar(&o.maxTokens, "max-tokens", 0, "with --tokenizer, at most `N` tokens in a chunk (or in its text), besides --max-size (0: no limit)")
	f.StringVar(&o.root, "root", "", "write paths relative to `DIR` (default: the top of the git repository holding the paths, else the current folder)")
	f.BoolVar(&o.embedText, "embed-text", false, "add each chunk's text to embed: a header (path, scope) then the content; the budgets cover it")
	completeValues(cmd, "method", method.Names())
	completeValues(cmd, "lang", lang.Names())
	completeValues(cmd, "format", record.FormatNames())
	completeValues(cmd, "tokenizer", tokens.Names())
	_ = cmd.RegisterFlagCompletionFunc("cache", dirCompletion)
	_ = cmd.RegisterFlagCompletionFunc("root", dirCompletion)
	return cmd
}

// methodSummaries lists the methods for --help: "cast (…) or sliding (…)".
func methodSummaries() string {
	var parts []string
	for _, m := range method.All() {
		parts = append(parts, fmt.Sprintf("%s (%s)", m.Name, m.Summary))
	}
	return strings.Join(parts, " or ")
}

// maxJobs is the most workers a run may ask for: each holds a parser and
// buffers, and parsing is CPU-bound, so more than a few per core only costs
// memory.
const maxJobs = 1024

// chunkConfig is a checked command line: everything a run needs, and
// nothing it must still validate.
type chunkConfig struct {
	pipeline pipeline.Config
	walk     walk.Options
	format   *record.Format
	shard    shard
	roots    []string      // paths to walk; nil when there is nothing to walk
	args     []string      // the path arguments as given, to tell named files
	stdin    *pipeline.Job // PATH -: one job read from stdin
	output   string
	stats    bool
	progress bool
	cacheDir string
	cacheMax int64
	rebase   *walk.Rebase   // writes paths relative to the root (--root)
	rootSet  bool           // --root given: a file outside it is worth a warning
	schema   *record.Schema // the fields written: the required ones and those the flags ask for
}

// config checks the flags and arguments and turns them into a run.
func (o *chunkOptions) config(cmd *cobra.Command, args []string, stdin io.Reader) (*chunkConfig, error) {
	setup, err := o.setup(cmd)
	if err != nil {
		return nil, err
	}
	if o.lang != "" && lang.ByName(o.lang) == nil {
		return nil, usageError("unknown language %q: want one of %s", o.lang, strings.Join(lang.Names(), ", "))
	}
	if o.jobs < 1 || o.jobs > maxJobs {
		return nil, usageError("--jobs must be between 1 and %d, got %d", maxJobs, o.jobs)
	}
	if o.parseTimeout < 0 {
		return nil, usageError("--parse-timeout must not be negative")
	}
	limit, err := bytesize.Parse(o.maxFileSize)
	if err != nil {
		return nil, usageError("--max-file-size: %v", err)
	}
	cfg := &chunkConfig{
		args: args, output: o.output, stats: o.stats,
		progress: !o.noProgress, cacheDir: o.cacheDir,
	}
	if cfg.format = record.FormatByName(o.format); cfg.format == nil {
		return nil, usageError("unknown --format %q: want one of %s", o.format, strings.Join(record.FormatNames(), ", "))
	}
	if cfg.format.Binary && (o.output == "" || o.output == "-") && isTerminal(cmd.OutOrStdout()) {
		return nil, usageError("--format %s writes binary data: give -o FILE, or redirect stdout", cfg.format.Name)
	}
	if cfg.shard, err = parseShard(o.shard); err != nil {
		return nil, usageError("%v", err)
	}
	if o.cacheDir != "" {
		if cfg.cacheMax, err = bytesize.Parse(o.cacheMax); err != nil {
			return nil, usageError("--cache-max-size: %v", err)
		}
	}
	cfg.pipeline = pipeline.Config{Jobs: o.jobs, Setup: setup, ParseTimeout: o.parseTimeout, Plan: plan.Policy{
		Lang: lang.ByName(o.lang), Text: o.allText, KeepGenerated: o.generated, KeepVendored: o.vendored, MaxFileSize: limit,
	}}
	if cfg.pipeline.Enrich, err = o.embed(); err != nil {
		return nil, err
	}
	if cfg.schema, err = record.Select(optionalFields(cfg.pipeline.Enrich)...); err != nil {
		return nil, err
	}
	cfg.walk = walk.Options{
		Hidden: o.hidden, NoIgnore: o.noIgnore, Follow: o.follow,
		Include: o.include, Exclude: o.exclude,
	}
	if slices.Contains(args, "-") {
		cfg.stdin, err = o.stdinJob(args, stdin, cfg.pipeline)
		return cfg, err
	}
	if o.stdinPath != "" {
		return nil, usageError("--stdin-path needs the path argument - (standard input)")
	}
	if cfg.roots, err = o.roots(cmd.Context(), args, stdin); err != nil {
		return nil, err
	}
	cfg.rebase, err = o.rebase(args)
	cfg.rootSet = o.root != ""
	return cfg, err
}

// rebase finds the root the records' paths are relative to: --root, or
// the top of the git repository holding the path arguments (with
// --files-from, the current folder's), else the current folder.
func (o *chunkOptions) rebase(args []string) (*walk.Rebase, error) {
	root := o.root
	if root == "" {
		if o.filesFrom != "" {
			args = nil
		}
		var err error
		if root, err = walk.DefaultRoot(args); err != nil {
			return nil, failure(fmt.Errorf("cannot find the root: %w", err))
		}
	}
	b, err := walk.NewRebase(root)
	if err != nil {
		return nil, usageError("--root: %v", err)
	}
	return b, nil
}

// embed checks --context, --tokenizer, --max-tokens and --embed-text.
func (o *chunkOptions) embed() (enrich.Options, error) {
	opt := enrich.Options{Context: o.context, MaxTokens: o.maxTokens, Text: o.embedText}
	if o.tokenizer != "" {
		e, err := tokens.Load(o.tokenizer)
		if err != nil {
			return opt, usageError("--tokenizer: %v", err)
		}
		opt.Encoding = e
	}
	switch {
	case o.maxTokens < 0:
		return opt, usageError("--max-tokens must not be negative, got %d", o.maxTokens)
	case o.maxTokens > 0 && opt.Encoding == nil:
		return opt, usageError("--max-tokens needs --tokenizer (%s): tokens are counted with it", strings.Join(tokens.Names(), ", "))
	case o.maxTokens > 0 && o.maxTokens < minMaxTokens:
		return opt, usageError("--max-tokens must be at least %d (one character can take 4 tokens), got %d", minMaxTokens, o.maxTokens)
	}
	return opt, nil
}

// minMaxTokens is the smallest --max-tokens: room for a character of four
// tokens and a little text around it.
const minMaxTokens = 8

// optionalFields names the optional record fields the embed options ask
// for.
func optionalFields(opt enrich.Options) []string {
	var names []string
	if opt.Context {
		names = append(names, "scope", "defines")
	}
	if opt.Encoding != nil {
		names = append(names, "tokens")
	}
	if opt.Text {
		names = append(names, "text")
	}
	return names
}

// setup picks the method and its options. A method's own flag given with
// another method is a mistake worth saying.
func (o *chunkOptions) setup(cmd *cobra.Command) (chunk.Setup, error) {
	m := method.ByName(o.method)
	if m == nil {
		return chunk.Setup{}, usageError("unknown method %q: want %s", o.method, strings.Join(method.Names(), " or "))
	}
	setup := chunk.Setup{Method: m, Budget: o.maxSize, Values: chunk.Values{}}
	for _, other := range method.All() {
		for _, opt := range other.Options {
			if !cmd.Flags().Changed(opt.Name) {
				continue
			}
			if !m.Declares(opt.Name) {
				return setup, usageError("--%s needs --method %s", opt.Name, other.Name)
			}
			setup.Values[opt.Name] = *o.methodFlags[opt.Name]
		}
	}
	if err := setup.Check(); err != nil {
		return setup, usageError("%v", err)
	}
	return setup, nil
}

// stdinJob is the job of PATH -: standard input, as one file named on the
// command line.
func (o *chunkOptions) stdinJob(args []string, stdin io.Reader, pc pipeline.Config) (*pipeline.Job, error) {
	if len(args) != 1 || o.filesFrom != "" {
		return nil, usageError("- (standard input) must be the only path, without --files-from")
	}
	name := o.stdinPath
	if name == "" {
		name = "<stdin>"
	}
	job := pc.NewJob(plan.File{Path: name, Named: true}, "-", 0)
	if job.Decision.Lang == nil {
		return nil, usageError("reading standard input needs --lang (%s), or a --stdin-path with a known extension", strings.Join(lang.Names(), ", "))
	}
	job.Reader = stdin
	return &job, nil
}

// roots are the paths to walk: the arguments and the --files-from list;
// "." when there are neither.
func (o *chunkOptions) roots(ctx context.Context, args []string, stdin io.Reader) ([]string, error) {
	roots := append([]string(nil), args...)
	if o.filesFrom != "" {
		var list []string
		err := interruptible(ctx, func() (err error) {
			list, err = o.readFilesFrom(stdin)
			return err
		})
		if err != nil {
			return nil, err
		}
		roots = append(roots, list...)
		if len(roots) == 0 {
			return nil, nil // an empty list chunks nothing, not the current folder
		}
	} else if o.null {
		return nil, usageError("-0/--null needs --files-from")
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	if o.lang != "" {
		for _, r := range roots {
			if info, err := os.Stat(r); err == nil && info.IsDir() {
				return nil, usageError("--lang applies to files, and %s is a directory: name the files, or drop --lang to pick languages by extension", quoteName(r))
			}
		}
	}
	return roots, nil
}

func (o *chunkOptions) readFilesFrom(stdin io.Reader) ([]string, error) {
	var r io.Reader = stdin
	if o.filesFrom != "-" {
		f, err := os.Open(o.filesFrom)
		if err != nil {
			return nil, usageError("--files-from: %v", err)
		}
		defer f.Close()
		r = f
	}
	list, err := walk.ReadList(r, o.null)
	if err != nil {
		return nil, usageError("--files-from: %v", err)
	}
	return list, nil
}

// chunkRun is the state of one run of `castchunk chunk`.
type chunkRun struct {
	cfg        *chunkConfig
	s          Streams
	summary    stats.Summary
	unreadable bool // some input could not be read: exit 3
	failed     bool // a chunker broke a guarantee: exit 1
	bar        *progressbar.ProgressBar

	cacheWrites int  // entries stored this run
	cacheWarned bool // a cache write failed and the user was told

	generatedSkipped, vendoredSkipped int // told once each, at the end
}

// runChunk lists the files, chunks them and writes the records.
func runChunk(ctx context.Context, cfg *chunkConfig, s Streams) error {
	r := &chunkRun{cfg: cfg, s: s}
	r.summary.Budget = cfg.pipeline.Setup.Budget
	jobs, err := r.list()
	if err != nil {
		return err
	}
	if cfg.pipeline.Cache, err = openCache(cfg); err != nil {
		return err
	}
	if c := cfg.pipeline.Cache; c != nil {
		defer c.Close() // the early returns; closing twice is harmless
	}
	if jobs, err = outputAmongInputs(cfg.output, jobs); err != nil {
		return err
	}
	out, err := openOutputCtx(ctx, cfg.output, s.Out)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return failure(fmt.Errorf("cannot write output: %w", err))
	}
	err = r.write(ctx, jobs, out)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil && closedPipe(err):
		return nil // the reader went away (| head): stop quietly
	case err != nil:
		return failure(fmt.Errorf("write output: %w", err))
	}
	r.pruneCache()
	cacheLine := r.closeCache()
	r.tellSkipped()
	if cfg.stats {
		if err := r.summary.Report().WriteText(s.Err); err != nil {
			return failure(err)
		}
		if _, err := io.WriteString(s.Err, cacheLine); err != nil {
			return failure(err)
		}
	}
	switch {
	case r.failed:
		return &exitError{code: ExitFailure}
	case r.unreadable:
		return &exitError{code: ExitUnreadable}
	}
	return nil
}

// list walks the roots and returns the jobs of this shard, warning about
// what the walk could not take.
func (r *chunkRun) list() ([]pipeline.Job, error) {
	cfg := r.cfg
	if cfg.stdin != nil {
		return cfg.shard.filter([]pipeline.Job{*cfg.stdin}), nil
	}
	if len(cfg.roots) == 0 { // an empty --files-from list chunks nothing
		return nil, nil
	}
	files, warnings, err := walk.List(cfg.roots, cfg.walk)
	if err != nil {
		return nil, usageError("%v", err)
	}
	for _, w := range warnings {
		switch w.Kind {
		case walk.Unreadable:
			r.unreadable = true
		}
		r.warn(w.Path, w.Reason)
	}
	jobs, err := r.jobs(files)
	if err != nil {
		return nil, err
	}
	return cfg.shard.filter(jobs), nil
}

// jobs makes the files' jobs, each with what its name decides (package
// plan): its language, or vendored. A file named as an argument is never
// vendored or generated; one that cannot be chunked is named in a warning
// and makes the exit status 3.
func (r *chunkRun) jobs(files []walk.File) ([]pipeline.Job, error) {
	named := map[string]bool{}
	for _, a := range r.cfg.args {
		named[path.Clean(strings.ReplaceAll(a, string(os.PathSeparator), "/"))] = true
	}
	jobs := make([]pipeline.Job, 0, len(files))
	for _, f := range files {
		pf := plan.File{Path: f.Path, Rel: plan.RelativeTo(f.Path, r.cfg.roots), Attrs: f.Attrs, Named: f.Explicit && named[f.Path]}
		jobs = append(jobs, r.cfg.pipeline.NewJob(pf, f.OSPath, f.Size))
	}
	return r.rooted(jobs), nil
}

// rooted writes the jobs' paths relative to the root, in path order, each
// path once (two arguments may reach one file). A path outside the root
// stays as reached from its argument; when the user chose the root, they
// are told once.
func (r *chunkRun) rooted(jobs []pipeline.Job) []pipeline.Job {
	if r.cfg.rebase == nil {
		return jobs
	}
	outside := 0
	for i := range jobs {
		p, ok := r.cfg.rebase.Path(jobs[i].Path)
		if !ok {
			outside++
		}
		jobs[i].Path = p
	}
	slices.SortStableFunc(jobs, func(a, b pipeline.Job) int { return strings.Compare(a.Path, b.Path) })
	jobs = slices.CompactFunc(jobs, func(a, b pipeline.Job) bool { return a.Path == b.Path })
	if outside > 0 && r.cfg.rootSet {
		r.warn(r.cfg.rebase.Root(), fmt.Sprintf("%d files lie outside this root: their paths are written as reached from the arguments; give --root to choose another", outside))
	}
	return jobs
}

// write runs the pipeline into the output format. Only a run that went
// through replaces -o FILE: not an interrupted one, nor one where a chunker
// failed. Stdout or a device gets the records written so far, flushed
// whole: never a line cut in half.
func (r *chunkRun) write(ctx context.Context, jobs []pipeline.Job, out *output) error {
	w, err := r.cfg.format.New(out, r.cfg.schema)
	if err == nil {
		r.startProgress(len(jobs))
		err = pipeline.Run(ctx, jobs, r.cfg.pipeline, func(res *pipeline.Result) error { return r.emit(w, res) })
		r.stopProgress()
		if err == nil {
			err = w.Close()
		}
	}
	if out.temp == "" || err == nil && ctx.Err() == nil && !r.failed {
		if cerr := out.commit(); err == nil {
			err = cerr
		}
	} else {
		out.abort()
	}
	return err
}

// emit writes one file's records and accounts for it.
func (r *chunkRun) emit(w record.Writer, res *pipeline.Result) error {
	if r.bar != nil {
		r.bar.Add(1)
	}
	if res.Outcome != plan.Chunked {
		r.leftOut(res)
		return nil
	}
	if res.Message != "" {
		r.warn(res.Job.Path, res.Message)
	}
	r.noteCache(res)
	if res.Lang != nil && res.Method != r.cfg.pipeline.Setup.Method {
		r.summary.Fallback()
	}
	if res.HasSyntaxErrors {
		r.summary.SyntaxErrors()
	}
	if len(res.Spans) == 0 {
		r.summary.Empty()
		return nil
	}
	f := record.File{Path: res.Job.Path, Language: res.Language, Method: res.Method.Name, Src: res.Src, Extras: res.Extras}
	err := w.WriteFile(f, res.Spans)
	var bad *record.EncodeError
	if errors.As(err, &bad) {
		r.fail(res.Job.Path, bad.Error())
		return nil
	}
	name := res.Language
	r.summary.AddFile(name, len(res.Src))
	for _, s := range res.Spans {
		r.summary.AddChunk(name, s.Size)
	}
	return err
}

// leftOut accounts for a file that is not written: counted by its reason,
// warned about when the reason comes with a message (generated and
// vendored files are summed up at the end instead). An unreadable file,
// or a file named as an argument, makes the exit status 3.
func (r *chunkRun) leftOut(res *pipeline.Result) {
	switch res.Outcome {
	case plan.Failed:
		r.fail(res.Job.Path, res.Message)
		return
	case plan.Unsupported:
		r.summary.Unsupported(res.Job.Path)
	case plan.Generated:
		r.generatedSkipped++
		r.summary.Skip(res.Outcome.String())
	case plan.Vendored:
		r.vendoredSkipped++
		r.summary.Skip(res.Outcome.String())
	default:
		r.summary.Skip(res.Outcome.String())
	}
	if res.Outcome == plan.Unreadable || res.Job.Named {
		r.unreadable = true
	}
	if res.Message != "" {
		r.warn(res.Job.Path, res.Message)
	}
}

// tellSkipped says, once per reason, how many files were left out on
// purpose and how to bring them back.
func (r *chunkRun) tellSkipped() {
	for _, n := range []struct {
		count      int
		what, flag string
	}{{r.generatedSkipped, "generated", "--include-generated"}, {r.vendoredSkipped, "vendored", "--include-vendored"}} {
		if n.count > 0 {
			fmt.Fprintf(r.s.Err, "castchunk: skipped %d %s %s (%s to chunk %s)\n", n.count, n.what, plural(n.count, "file", "files"), n.flag, plural(n.count, "it", "them"))
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// fail reports a file a chunker got wrong: it is left out, and the run
// exits 1.
func (r *chunkRun) fail(path, msg string) {
	r.failed = true
	r.summary.Skip(plan.Failed.String())
	r.warn(path, strings.TrimPrefix(msg, path+": "))
}

// warn prints one line on stderr: "castchunk: PATH: reason", the path
// quoted when it would not print safely on one line.
func (r *chunkRun) warn(path, reason string) {
	if r.bar != nil {
		r.bar.Clear()
	}
	fmt.Fprintf(r.s.Err, "castchunk: %s: %s\n", quoteName(path), safeText(reason))
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// startProgress shows a progress bar when stderr is a terminal.
func (r *chunkRun) startProgress(total int) {
	f, ok := r.s.Err.(*os.File)
	if !r.cfg.progress || !ok || !isTerminal(f) || total < 2 {
		return
	}
	r.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription("chunking"),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

func (r *chunkRun) stopProgress() {
	if r.bar != nil {
		r.bar.Finish()
		r.bar = nil
	}
}

// cacheEnv names the cache directory when --cache is not given, so CI can
// turn the cache on for every run.
const cacheEnv = "CASTCHUNK_CACHE"

// openCache opens the cache when one is asked for. Its salt holds
// everything besides a file's content and language that decides its
// chunks: castchunk's build (for a development build, a hash of the binary
// itself) and the method setup, whose key names every option.
func openCache(cfg *chunkConfig) (*cache.Cache, error) {
	if cfg.cacheDir == "" {
		return nil, nil
	}
	c, err := cache.Open(cfg.cacheDir, buildID()+"|"+cfg.pipeline.Setup.Key()+"|"+cfg.pipeline.Enrich.Key())
	if errors.Is(err, cache.ErrNotCache) {
		return nil, usageError("--cache: %v", err)
	}
	if err != nil {
		return nil, failure(err)
	}
	return c, nil
}

// pruneCache keeps the cache under --cache-max-size after a run that
// stored entries.
func (r *chunkRun) pruneCache() {
	if r.cacheWrites == 0 {
		return
	}
	if err := r.cfg.pipeline.Cache.Prune(r.cfg.cacheMax); err != nil {
		r.warn(r.cfg.cacheDir, fmt.Sprintf("cannot prune the cache: %v", err))
	}
}

// closeCache reports a cache database that had to be replaced, closes the
// cache (writing its last entries), and returns the --stats line on it
// ("" without a cache).
func (r *chunkRun) closeCache() string {
	c := r.cfg.pipeline.Cache
	if c == nil {
		return ""
	}
	if err := c.Repaired(); err != nil {
		r.warn(r.cfg.cacheDir, err.Error())
	}
	st := c.Stats() // before Close
	if err := c.Close(); err != nil && !r.cacheWarned {
		r.cacheWarned = true
		r.warn(r.cfg.cacheDir, fmt.Sprintf("cannot write to the cache: %v", err))
	}
	return fmt.Sprintf("cache: %d hits, %d misses, %d stored; %d entries, %.1f MiB on disk\n",
		st.Hits, st.Misses, st.Writes, st.Entries, float64(st.Bytes)/(1<<20))
}

// noteCache counts cache writes and reports the first failed one.
func (r *chunkRun) noteCache(res *pipeline.Result) {
	switch {
	case res.CacheErr != nil && !r.cacheWarned:
		r.cacheWarned = true
		r.warn(r.cfg.cacheDir, fmt.Sprintf("cannot write to the cache, going on without storing: %v", res.CacheErr))
	case r.cfg.cacheDir != "" && res.CacheErr == nil && !res.Cached:
		r.cacheWrites++
	}
}
