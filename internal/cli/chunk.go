package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/castchunk/castchunk/internal/bytesize"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/output"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/walk"
)

// chunkOptions are the flags of `castchunk chunk`.
type chunkOptions struct {
	method       string
	maxSize      int
	chunking     chunkingFlags // the methods' own options, --tokenizer, --max-tokens
	selection    selectionFlags
	lang         string
	stdinPath    string
	filesFrom    string
	null         bool
	jobs         int
	output       string
	manifest     string
	format       string
	stats        bool
	parseTimeout time.Duration
	inProcess    bool
	noProgress   bool
	shard        string
	cacheDir     string
	cacheMax     string
	context      bool
	embedText    bool
	embedHeader  string
	root         string
	repo         string
	reposFrom    string
	allowEmpty   bool
}

func newChunkCmd(s Streams) *cobra.Command {
	o := &chunkOptions{}
	cmd := &cobra.Command{
		Use:   "chunk [PATH...]",
		Short: "Chunk files and folders into JSON Lines on stdout",
		Long: `Chunk every supported file under the given files and folders (default: the
current folder) and print one JSON object per chunk, files in path order (by
repository, then path, when the run names repositories: --repo, --repos-from,
or paths in several git repositories).
A PATH of - reads one file from standard input (give --lang, or a
--stdin-path with a known extension; .ipynb reads a notebook).

Folders are walked as git sees them: .gitignore files (nested ones too),
.git/info/exclude and the global excludes file are honoured, files git tracks
are kept even when a pattern matches them, hidden files and folders are
skipped. Files named on the command line are chunked even when ignored or
hidden; --include, --exclude and --max-file-size still apply to them.
Symbolic links in folders are skipped unless -L; a link named is followed.
Paths that name one file or folder (sr and a link to it) are chunked once,
under the name without the link.

castchunk's outputs are never inputs: -o's and --manifest's files, the file
stdout is redirected to, the --cache folder, and any file that is exactly
an earlier output (every line a record, a manifest entry or a diff's
change; recognised by content, whatever its name: one line on stderr,
"output" in the manifest). A file -o or --manifest would replace that is
not exactly an earlier output (a source) is refused, status 2.

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
	o.chunking.register(f)
	o.selection.register(f)
	f.StringVar(&o.lang, "lang", "", "parse the named files (or stdin) as `LANGUAGE` ("+strings.Join(lang.Names(), ", ")+"), whatever their extension")
	f.StringVar(&o.stdinPath, "stdin-path", "", "with PATH -, the `NAME` written as the records' path (default <stdin>)")
	f.StringVar(&o.filesFrom, "files-from", "", "read the paths to chunk from `FILE`, one per line (- for stdin)")
	f.BoolVarP(&o.null, "null", "0", false, "with --files-from, paths are separated by NUL bytes")
	f.IntVarP(&o.jobs, "jobs", "j", runtime.NumCPU(), "chunk `N` files in parallel")
	f.StringVarP(&o.output, "output", "o", "", "write the records to `FILE` (atomically) instead of stdout")
	f.StringVar(&o.manifest, "manifest", "", "write one JSON object per file met to `FILE` (atomically): its path, status (chunked, or why it was left out), language, chunks, syntax errors")
	f.StringVar(&o.format, "format", record.FormatNames()[0], "output `FORMAT`: "+strings.Join(record.FormatNames(), ", "))
	f.BoolVar(&o.stats, "stats", false, "print a summary to stderr when done")
	f.BoolVar(&o.allowEmpty, "allow-empty", false, "a run that writes no record exits 0 (without it, nothing chunked is an error, exit 1: most often an empty checkout; a wrong path is status 3 either way)")
	f.BoolVar(&o.inProcess, "in-process", false, "run the grammars in this process instead of worker processes: no isolation from a grammar that crashes or runs away; for measuring what the isolation costs")
	f.DurationVar(&o.parseTimeout, "parse-timeout", 0, "give up parsing a file after `DURATION` and chunk it with sliding windows (0: no limit; a timeout makes output depend on the machine's load)")
	f.BoolVar(&o.noProgress, "no-progress", false, "never show the progress bar (it shows only when stderr is a terminal and the records go elsewhere)")
	f.StringVar(&o.cacheDir, "cache", os.Getenv(cacheEnv), "remember chunks in `DIR` and reuse them for unchanged files (default $"+cacheEnv+")")
	f.StringVar(&o.cacheMax, "cache-max-size", "256MiB", "prune the cache to `SIZE` after a run, least recently used entries first")
	f.StringVar(&o.shard, "shard", "", "chunk only shard `K/N` (1 <= K <= N): the files whose path hashes to it (with --repos-from or several repositories as arguments, whose repository's name does)")
	f.BoolVar(&o.context, "context", false, "add each chunk's scope (the definitions around its start) and the definitions it holds")
	f.StringVar(&o.repo, "repo", "", "name the repository chunked `NAME`: every record carries it in repo, and its id covers it (several repositories as arguments are named by their top folders' names)")
	f.StringVar(&o.reposFrom, "repos-from", "", "chunk the repositories listed in `FILE` (- for stdin), one path a line, or PATH, a tab, NAME; each record carries its repository's name, its path relative to the repository's top")
	f.StringVar(&o.root, "root", "", "write paths relative to `DIR` (default: the top of the git repository holding the paths; outside git, the one folder argument, else the current folder)")
	f.BoolVar(&o.embedText, "embed-text", false, "add each chunk's text to embed: a header (path, scope) then the content; the budgets cover it")
	f.StringVar(&o.embedHeader, "embed-header", string(enrich.DefaultHeader), "with --embed-text, the header's `FORMAT`: "+strings.Join(headerNames(), ", "))
	completeValues(cmd, "method", method.Names())
	completeValues(cmd, "lang", lang.Names())
	completeValues(cmd, "format", record.FormatNames())
	_ = cmd.RegisterFlagCompletionFunc("tokenizer", tokenizerCompletion)
	completeValues(cmd, "embed-header", headerNames())
	_ = cmd.RegisterFlagCompletionFunc("cache", dirCompletion)
	_ = cmd.RegisterFlagCompletionFunc("root", dirCompletion)
	return cmd
}

// optionUsage is a method option's help with its value named N, the
// placeholder --help shows after the flag (pflag's backquotes): "this
// many" in the help becomes N ("fixed windows of N lines"), and a help
// that does not say it starts with N ("N lines shared by consecutive
// windows").
func optionUsage(help string) string {
	if strings.Contains(help, "this many") {
		return strings.Replace(help, "this many", "`N`", 1)
	}
	return "`N` " + help
}

// methodSummaries lists the methods for --help: "cast (…), sliding (…) or …".
func methodSummaries() string {
	var parts []string
	for _, m := range method.All() {
		parts = append(parts, fmt.Sprintf("%s (%s)", m.Name, m.Summary))
	}
	return orList(parts)
}

// orList joins choices as a sentence says them: "a", "a or b", "a, b or c".
func orList(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
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
	roots    []string       // paths to walk, of every source; nil when there is nothing to walk
	sources  []source       // what each listing walks: one per repository, or one for the run
	repos    bool           // the run names repositories: records carry repo (--repo, --repos-from, several repositories)
	missing  []missingRepo  // the repositories listed that cannot be read
	same     []walk.Warning // the arguments distinct renamed or dropped, said on stderr
	stdin    *pipeline.Job  // PATH -: one job read from stdin
	output   string
	manifest string // --manifest FILE; "" when not asked for
	stats    bool
	progress bool
	// allowEmpty: --allow-empty; a run that writes no record is not an error
	allowEmpty bool
	cacheDir   string
	cacheMax   int64
	rootSet    bool           // --root given: a file outside it is worth a warning
	schema     *record.Schema // the fields written: the required ones and those the flags ask for
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
	policy, walkOpts, err := o.selection.check()
	if err != nil {
		return nil, err
	}
	cfg := &chunkConfig{
		output: o.output, manifest: o.manifest, stats: o.stats,
		progress: !o.noProgress, cacheDir: o.cacheDir, allowEmpty: o.allowEmpty,
	}
	switch {
	case o.manifest == "-":
		return nil, usageError("--manifest needs a file: stdout holds the records")
	case o.manifest != "" && o.output != "" && o.output != "-" && output.Same(o.manifest, o.output):
		return nil, usageError("--manifest %s and -o %s are one file: give each its own", quoteName(o.manifest), quoteName(o.output))
	case o.manifest != "" && (o.output == "" || o.output == "-") && sameAsStream(o.manifest, cmd.OutOrStdout()):
		return nil, usageError("--manifest %s is stdout, which holds the records: give it a file of its own", quoteName(o.manifest))
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
	policy.Lang = lang.ByName(o.lang)
	cfg.pipeline = pipeline.Config{Jobs: o.jobs, Setup: setup, ParseTimeout: o.parseTimeout, InProcess: o.inProcess, Plan: policy}
	if cfg.pipeline.Enrich, err = o.embed(); err != nil {
		return nil, err
	}
	cfg.walk = walkOpts
	cfg.walk.Ignored = &walk.IgnoreTally{}
	if err := o.paths(cmd, cfg, args, stdin); err != nil {
		return nil, err
	}
	cfg.shard.byRepo = cfg.repos && o.repo == ""
	cfg.schema, err = record.Select(record.OptionalFor(func(flag string) bool { return flag == "repo" && cfg.repos || given(cmd, flag) })...)
	return cfg, err
}

// paths turns the path arguments, --files-from, --repos-from, --repo and
// --root into what the run reads: standard input, or the sources to list.
func (o *chunkOptions) paths(cmd *cobra.Command, cfg *chunkConfig, args []string, stdin io.Reader) error {
	if err := o.checkRepoFlags(args); err != nil {
		return err
	}
	cfg.repos = o.repo != "" || o.reposFrom != ""
	var err error
	if slices.Contains(args, "-") {
		if cfg.stdin, err = o.stdinJob(args, stdin, cfg.pipeline); err == nil {
			cfg.stdin.Repo = o.repo
		}
		return err
	}
	if o.stdinPath != "" {
		return usageError("--stdin-path needs the path argument - (standard input)")
	}
	if o.reposFrom != "" {
		return o.listedRepos(cmd, cfg, stdin)
	}
	if cfg.roots, err = o.roots(cmd.Context(), args, stdin); err != nil {
		return err
	}
	cfg.roots, args, cfg.same = distinct(cfg.roots, args)
	cfg.rootSet = o.root != ""
	if o.root == "" && (o.repo != "" || o.filesFrom == "") && severalRepos(cfg.roots) {
		// A --files-from list of several repositories' files stays one tree
		// (relative to the current folder's), as it always was.
		if o.repo != "" {
			return usageError("--repo names one repository, and the paths lie in several: chunk each with its own --repo, or list them with --repos-from")
		}
		if err := allInGit(cfg.roots); err != nil {
			return err
		}
		cfg.repos = true
		cfg.sources, cfg.missing, err = groupRepos(entriesOf(cfg.roots))
		return err
	}
	src := source{repo: o.repo, roots: cfg.roots, args: args}
	src.rebase, err = o.rebase(args)
	cfg.sources = []source{src}
	return err
}

// checkRepoFlags refuses what cannot go together with --repo and
// --repos-from.
func (o *chunkOptions) checkRepoFlags(args []string) error {
	if o.repo != "" {
		if err := record.CheckRepo(o.repo); err != nil {
			return usageError("--repo: %v", err)
		}
		if o.reposFrom != "" {
			return usageError("--repo and --repos-from: give names in the list (PATH, a tab, NAME)")
		}
	}
	if o.reposFrom == "" {
		return nil
	}
	switch {
	case len(args) > 0:
		return usageError("--repos-from lists the repositories: give no path arguments")
	case o.filesFrom != "":
		return usageError("--repos-from and --files-from: give one list")
	case o.root != "":
		return usageError("--repos-from and --root: each repository's paths are relative to its own top")
	}
	return nil
}

// listedRepos reads --repos-from into the run's sources.
func (o *chunkOptions) listedRepos(cmd *cobra.Command, cfg *chunkConfig, stdin io.Reader) error {
	var err error
	if cfg.sources, cfg.missing, err = loadRepos(cmd.Context(), o.reposFrom, stdin); err != nil {
		return err
	}
	for _, s := range cfg.sources {
		cfg.roots = append(cfg.roots, s.roots...)
	}
	return nil
}

// entriesOf is the paths as a list of repositories, each named by its
// top folder.
func entriesOf(paths []string) []repoEntry {
	es := make([]repoEntry, len(paths))
	for i, p := range paths {
		es[i] = repoEntry{path: p}
	}
	return es
}

// rebase finds the root the records' paths are relative to: --root, or
// walk.DefaultRoot's (the top of the git repository holding the path
// arguments, with --files-from the current folder's; outside git the one
// folder argument; else the current folder).
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

// embed checks --context, --tokenizer, --max-tokens, --embed-text and
// --embed-header.
func (o *chunkOptions) embed() (enrich.Options, error) {
	opt := enrich.Options{Context: o.context, Text: o.embedText}
	header, err := enrich.ParseHeader(o.embedHeader)
	if err != nil {
		return opt, usageError("--embed-header: %v", err)
	}
	if o.embedText {
		opt.Header = header
	} else if o.embedHeader != string(enrich.DefaultHeader) {
		return opt, usageError("--embed-header needs --embed-text")
	}
	err = o.chunking.tokenBudget(&opt, o.cacheDir != "")
	return opt, err
}

// minMaxTokens is the smallest --max-tokens: room for a character of four
// tokens and a little text around it.
const minMaxTokens = 8

// given reports whether a flag was given a value that asks for something:
// not "" nor false.
func given(cmd *cobra.Command, flag string) bool {
	v := cmd.Flags().Lookup(flag).Value.String()
	return v != "" && v != "false"
}

// setup picks the method and its options. A method's own flag given with
// another method is a mistake worth saying.
func (o *chunkOptions) setup(cmd *cobra.Command) (chunk.Setup, error) {
	m := method.ByName(o.method)
	if m == nil {
		return chunk.Setup{}, usageError("unknown method %q: want %s", o.method, orList(method.Names()))
	}
	setup := chunk.Setup{Method: m, Budget: o.maxSize}
	var err error
	if setup.Values, err = o.chunking.values(cmd.Flags(), []*chunk.Method{m}); err != nil {
		return setup, err
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
	if job.Decision.Lang == nil && !job.Decision.Notebook { // a notebook's kernel names the language
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

// distinct keeps one name for each file or folder that several paths to
// walk name through symbolic links (walk.Distinct): roots are the paths
// to walk, args first, and args the path arguments. It returns both,
// renamed or dropped, and the notes that say so.
func distinct(roots, args []string) ([]string, []string, []walk.Warning) {
	out, same := walk.Distinct(roots)
	var notes []walk.Warning
	for _, s := range same {
		what := "file"
		if s.Dir {
			what = "folder"
		}
		as := quoteName(path.Clean(filepath.ToSlash(s.As)))
		reason := fmt.Sprintf("the %s %s (through a symbolic link); chunked once, as %s", what, as, as)
		if s.Dropped {
			reason = fmt.Sprintf("the same %s as %s (through a symbolic link); chunked once, as %s", what, as, as)
		}
		notes = append(notes, walk.Warning{Path: path.Clean(filepath.ToSlash(roots[s.Index])), Reason: reason, Kind: walk.Notice})
	}
	var newArgs []string
	if len(args) > 0 && len(roots) >= len(args) {
		newArgs = compact(out[:len(args)])
	}
	return compact(out), newArgs, notes
}

// compact is names without the empty ones.
func compact(names []string) []string {
	var out []string
	for _, n := range names {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
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
