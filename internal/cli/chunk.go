package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/castchunk/castchunk/internal/bytesize"
	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/sliding"
	"github.com/castchunk/castchunk/internal/stats"
	"github.com/castchunk/castchunk/internal/walk"
)

// chunkOptions are the flags of `castchunk chunk`.
type chunkOptions struct {
	method       string
	maxSize      int
	overlapLines int
	windowLines  int
	stride       int
	lang         string
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
	stats        bool
	parseTimeout time.Duration
	noProgress   bool
	shard        string
	cacheDir     string
	cacheMax     string
}

func newChunkCmd(s Streams) *cobra.Command {
	o := &chunkOptions{}
	cmd := &cobra.Command{
		Use:   "chunk [PATH...]",
		Short: "Chunk files and folders into JSON Lines on stdout",
		Long: `Chunk every supported file under the given files and folders (default: the
current folder) and print one JSON object per chunk, files in path order.

Folders are walked as git sees them: .gitignore files (nested ones too),
.git/info/exclude and the global excludes file are honoured, files git tracks
are kept even when a pattern matches them, hidden files and folders are
skipped. Files named on the command line are chunked even when ignored or
hidden; --include, --exclude and --max-file-size still apply to them.

Records and exit statuses: see 'castchunk --help'.`,
		Example: `  castchunk chunk . | jq -r .path | uniq -c
  castchunk chunk --method sliding --max-size 1000 src/ > chunks.jsonl
  git ls-files | castchunk chunk --files-from - -o chunks.jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runChunk(cmd.Context(), o, args, s)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.method, "method", "m", pipeline.MethodCast, "chunking method: cast or sliding")
	f.IntVar(&o.maxSize, "max-size", 2000, "budget: the most non-whitespace characters in a chunk")
	f.IntVar(&o.overlapLines, "overlap-lines", 0, "sliding: lines shared by consecutive windows")
	f.IntVar(&o.windowLines, "window-lines", 0, "sliding: fixed windows of this many lines (0: fill windows up to the budget)")
	f.IntVar(&o.stride, "stride", 0, "sliding: with --window-lines, start a window every this many lines (default: the window)")
	f.StringVar(&o.lang, "lang", "", "parse the named files as this language ("+strings.Join(lang.Names(), ", ")+"), whatever their extension")
	f.StringVar(&o.filesFrom, "files-from", "", "read the paths to chunk from FILE, one per line (- for stdin)")
	f.BoolVarP(&o.null, "null", "0", false, "with --files-from, paths are separated by NUL bytes")
	f.BoolVar(&o.hidden, "hidden", false, "include hidden files and folders (.git is always skipped)")
	f.BoolVar(&o.noIgnore, "no-ignore", false, "do not honour .gitignore, .git/info/exclude or the global excludes file")
	f.BoolVarP(&o.follow, "follow", "L", false, "follow symbolic links")
	f.StringArrayVar(&o.include, "include", nil, "only chunk paths matching this glob (** allowed; repeatable)")
	f.StringArrayVar(&o.exclude, "exclude", nil, "skip paths matching this glob (** allowed; repeatable)")
	f.StringVar(&o.maxFileSize, "max-file-size", "10MiB", "skip files larger than this (bytes, or with a unit: 512KiB, 64MiB)")
	f.IntVarP(&o.jobs, "jobs", "j", runtime.NumCPU(), "files chunked in parallel")
	f.StringVarP(&o.output, "output", "o", "", "write the records to FILE (atomically) instead of stdout")
	f.BoolVar(&o.stats, "stats", false, "print a summary to stderr when done")
	f.DurationVar(&o.parseTimeout, "parse-timeout", 20*time.Second, "give up parsing a file after this long and chunk it with sliding windows (0: no limit)")
	f.BoolVar(&o.noProgress, "no-progress", false, "never show the progress bar (it only shows when stderr is a terminal)")
	f.StringVar(&o.cacheDir, "cache", os.Getenv(cacheEnv), "remember chunks in DIR and reuse them for unchanged files (default $"+cacheEnv+")")
	f.StringVar(&o.cacheMax, "cache-max-size", "256MiB", "prune the cache to this size after a run, least recently used entries first")
	f.StringVar(&o.shard, "shard", "", "chunk only shard K of N (K/N, 1 <= K <= N): the files whose path hashes to it")
	return cmd
}

// chunkRun is the state of one run of `castchunk chunk`.
type chunkRun struct {
	opts       *chunkOptions
	s          Streams
	summary    stats.Summary
	unreadable bool // some input could not be read: exit 3
	internal   bool // a chunker broke a guarantee: exit 1
	bar        *progressbar.ProgressBar

	cacheWrites int  // entries stored this run
	cacheWarned bool // a cache write failed and the user was told
}

func runChunk(ctx context.Context, o *chunkOptions, args []string, s Streams) error {
	cfg, walkOpts, err := o.config()
	if err != nil {
		return err
	}
	part, err := parseShard(o.shard)
	if err != nil {
		return usageError("%v", err)
	}
	roots, err := o.roots(args, s.In)
	if err != nil {
		return err
	}
	forced := lang.ByName(o.lang)
	var files []walk.File
	var warnings []walk.Warning
	if len(roots) > 0 { // none: an empty --files-from list, which chunks nothing
		if files, warnings, err = walk.List(roots, walkOpts); err != nil {
			return usageError("%v", err)
		}
	}
	r := &chunkRun{opts: o, s: s}
	r.summary.Budget = o.maxSize
	for _, w := range warnings {
		r.warn(w.Path, w.Reason)
		switch w.Kind {
		case walk.Unreadable:
			r.unreadable = true
		case walk.SkipTooLarge:
			r.summary.Skip("too large")
		}
	}
	jobs, err := r.jobs(files, forced, args)
	if err != nil {
		return err
	}
	jobs = part.filter(jobs)

	if cfg.Cache, err = o.openCache(cfg); err != nil {
		return err
	}
	out, err := openOutput(o.output, s.Out)
	if err != nil {
		return failure(fmt.Errorf("cannot write output: %w", err))
	}
	r.startProgress(len(jobs))
	err = pipeline.Run(ctx, jobs, cfg, func(res *pipeline.Result) error { return r.emit(out, res) })
	r.stopProgress()
	// Only a run that went through replaces -o FILE: not an interrupted
	// one, nor one where a chunker failed. Stdout or a device gets the
	// records written so far, flushed whole: never a line cut in half.
	if out.temp == "" || err == nil && ctx.Err() == nil && !r.internal {
		if cerr := out.commit(); err == nil {
			err = cerr
		}
	} else {
		out.abort()
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil && closedPipe(err):
		return nil // the reader went away (| head): stop quietly
	case err != nil:
		return failure(fmt.Errorf("write output: %w", err))
	}
	if r.cacheWrites > 0 {
		limit, _ := bytesize.Parse(o.cacheMax) // checked in openCache
		if err := cfg.Cache.Prune(limit); err != nil {
			r.warn(o.cacheDir, fmt.Sprintf("cannot prune the cache: %v", err))
		}
	}
	if o.stats {
		if err := r.summary.Report().WriteText(s.Err); err != nil {
			return failure(err)
		}
	}
	switch {
	case r.internal:
		return &exitError{code: ExitFailure}
	case r.unreadable:
		return &exitError{code: ExitUnreadable}
	}
	return nil
}

// config checks the flags and turns them into pipeline and walk settings.
func (o *chunkOptions) config() (pipeline.Config, walk.Options, error) {
	var cfg pipeline.Config
	var wo walk.Options
	if o.method != pipeline.MethodCast && o.method != pipeline.MethodSliding {
		return cfg, wo, usageError("unknown method %q: want cast or sliding", o.method)
	}
	if o.maxSize < 1 {
		return cfg, wo, usageError("--max-size must be at least 1, got %d", o.maxSize)
	}
	if o.method == pipeline.MethodCast && (o.overlapLines != 0 || o.windowLines != 0 || o.stride != 0) {
		return cfg, wo, usageError("--overlap-lines, --window-lines and --stride need --method sliding")
	}
	if o.stride != 0 && o.windowLines == 0 {
		return cfg, wo, usageError("--stride needs --window-lines")
	}
	sl := sliding.Options{Budget: o.maxSize, OverlapLines: o.overlapLines, WindowLines: o.windowLines, Stride: o.stride}
	if sl.WindowLines > 0 && sl.Stride == 0 {
		sl.Stride = sl.WindowLines
	}
	if o.method == pipeline.MethodCast {
		sl = sliding.Options{Budget: o.maxSize} // the fallback for files that cannot be parsed
	}
	if err := sl.Validate(); err != nil {
		return cfg, wo, usageError("%v", err)
	}
	if o.lang != "" && lang.ByName(o.lang) == nil {
		return cfg, wo, usageError("unknown language %q: want one of %s", o.lang, strings.Join(lang.Names(), ", "))
	}
	if o.jobs < 1 {
		return cfg, wo, usageError("--jobs must be at least 1, got %d", o.jobs)
	}
	if o.parseTimeout < 0 {
		return cfg, wo, usageError("--parse-timeout must not be negative")
	}
	limit, err := bytesize.Parse(o.maxFileSize)
	if err != nil {
		return cfg, wo, usageError("--max-file-size: %v", err)
	}
	cfg = pipeline.Config{
		Jobs: o.jobs, Method: o.method, Budget: o.maxSize, Sliding: sl,
		ParseTimeout: o.parseTimeout, MaxFileSize: limit,
	}
	wo = walk.Options{
		Hidden: o.hidden, NoIgnore: o.noIgnore, Follow: o.follow,
		Include: o.include, Exclude: o.exclude, MaxFileSize: limit,
		Accept: func(p string) bool { return lang.ForPath(p) != nil },
	}
	return cfg, wo, nil
}

// roots are the paths to walk: the arguments and the --files-from list;
// "." when there are neither.
func (o *chunkOptions) roots(args []string, stdin io.Reader) ([]string, error) {
	roots := append([]string(nil), args...)
	if o.filesFrom != "" {
		list, err := o.readFilesFrom(stdin)
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
				return nil, usageError("--lang applies to files, and %s is a directory: name the files, or drop --lang to pick languages by extension", r)
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

// jobs picks each file's language. A file named as an argument with no
// known extension is a usage error; one from --files-from is skipped
// silently, so `git ls-files | castchunk chunk --files-from -` just works.
func (r *chunkRun) jobs(files []walk.File, forced *lang.Language, args []string) ([]pipeline.Job, error) {
	named := map[string]bool{}
	for _, a := range args {
		named[path.Clean(strings.ReplaceAll(a, string(os.PathSeparator), "/"))] = true
	}
	jobs := make([]pipeline.Job, 0, len(files))
	for _, f := range files {
		l := forced
		if l == nil {
			l = lang.ForPath(f.Path)
		}
		if l == nil {
			if f.Explicit && named[f.Path] {
				return nil, usageError("%s: unsupported file type; name a language with --lang (%s)", f.Path, strings.Join(lang.Names(), ", "))
			}
			continue
		}
		jobs = append(jobs, pipeline.Job{Path: f.Path, OSPath: f.OSPath, Lang: l, Size: f.Size})
	}
	return jobs, nil
}

// emit writes one file's records and accounts for it.
func (r *chunkRun) emit(out *output, res *pipeline.Result) error {
	if r.bar != nil {
		r.bar.Add(1)
	}
	switch {
	case res.Internal != nil:
		r.internal = true
		r.warn(res.Job.Path, strings.TrimPrefix(res.Internal.Error(), res.Job.Path+": "))
		return nil
	case res.Skip != pipeline.SkipNone:
		r.summary.Skip(res.Skip.String())
		if res.Skip == pipeline.SkipUnreadable {
			r.unreadable = true
		}
		r.warn(res.Job.Path, res.Warning)
		return nil
	}
	if res.Warning != "" {
		r.warn(res.Job.Path, res.Warning)
	}
	r.noteCache(res)
	if res.Method != r.opts.method {
		r.summary.Fallback()
	}
	if res.Syntax {
		r.summary.SyntaxErrors()
	}
	name := res.Job.Lang.Name
	if len(res.Sizes) == 0 {
		r.summary.Empty()
		return nil
	}
	r.summary.AddFile(name, res.Bytes)
	for _, size := range res.Sizes {
		r.summary.AddChunk(name, size)
	}
	_, err := out.Write(res.Records)
	return err
}

// warn prints one line on stderr: "castchunk: PATH: reason".
func (r *chunkRun) warn(path, reason string) {
	if r.bar != nil {
		r.bar.Clear()
	}
	fmt.Fprintf(r.s.Err, "castchunk: %s: %s\n", path, reason)
}

// startProgress shows a progress bar when stderr is a terminal.
func (r *chunkRun) startProgress(total int) {
	f, ok := r.s.Err.(*os.File)
	if r.opts.noProgress || !ok || !term.IsTerminal(int(f.Fd())) || total < 2 {
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
// everything besides a file's content that decides its chunks: castchunk's
// version (for a development build, a hash of the binary itself) and the
// chunking options.
func (o *chunkOptions) openCache(cfg pipeline.Config) (*cache.Cache, error) {
	if o.cacheDir == "" {
		return nil, nil
	}
	if _, err := bytesize.Parse(o.cacheMax); err != nil {
		return nil, usageError("--cache-max-size: %v", err)
	}
	salt := fmt.Sprintf("%s|%s|%d|%+v", buildID(), cfg.Method, cfg.Budget, cfg.Sliding)
	c, err := cache.Open(o.cacheDir, salt)
	if err != nil {
		return nil, failure(err)
	}
	return c, nil
}

// noteCache counts cache writes and reports the first failed one.
func (r *chunkRun) noteCache(res *pipeline.Result) {
	switch {
	case res.CacheErr != nil && !r.cacheWarned:
		r.cacheWarned = true
		r.warn(r.opts.cacheDir, fmt.Sprintf("cannot write to the cache, going on without storing: %v", res.CacheErr))
	case r.opts.cacheDir != "" && res.CacheErr == nil && !res.Cached:
		r.cacheWrites++
	}
}
