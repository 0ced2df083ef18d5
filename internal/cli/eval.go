package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/eval"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/walk"
)

// evalOptions are the flags of `castchunk eval`.
type evalOptions struct {
	methods     []string
	sizes       []int
	contexts    []string
	baseline    string
	budget      int
	fromGit     int
	completion  int
	rev         string
	seed        uint64
	resamples   int
	minWords    int
	maxFiles    int
	selection   selectionFlags // chunk's, declared once
	chunking    chunkingFlags  // chunk's, declared once
	jobs        int
	json        bool
	definitions bool
	noProgress  bool
	retrievers  []string
	headers     []string
	embed       embedFlags
	reposFrom   string
}

// Defaults of castchunk eval.
const (
	defaultGitQueries        = 100
	defaultCompletionQueries = 100
	maxResamples             = 100000
)

// evalLong is eval's --help.
const evalLong = `Measure, on the repository at PATH (default: the current folder), how well
each chunking configuration retrieves: for every --method, --max-size,
--context (and --embed-header) asked, chunk the files in memory exactly as
'castchunk chunk' does, index the chunks for each --retriever (bm25; with
--embedder URL also dense, the cosine of embeddings from your own
OpenAI-compatible endpoint, and hybrid, their reciprocal rank fusion),
run queries built from the repository itself, fill a context of --budget
non-whitespace characters from the best ranked chunks, and measure what
the context holds. Nothing is downloaded and nothing is written but the
report, and with --embedder the vectors, kept in --cache so that a second
eval sends no request for unchanged chunks. The embedder's key, if it
needs one, is read from $CASTCHUNK_EMBED_KEY.

Queries:
  --from-git N     the last N non-merge commits that change a file castchunk
                   indexes (default 100 in a git repository): the commit
                   message against the parent commit's tree (read from git,
                   not from the work tree); gold: the lines the commit
                   removes or changes. Metrics: LineRecall, the share of the
                   gold lines in the context; FileHit, a gold file in it.
                   On a shallow clone (git clone --depth N, CI's default)
                   whose history ends first, eval says on stderr how many
                   it could not read and how to fetch them, and unless
                   --completion is given adds 100 completion queries.
  --completion N   N functions and methods drawn at random (default 0; 100
                   in a folder that is not a git repository): the 20
                   non-blank lines above the body against the tree without
                   the rest of the function's file; gold: the body. Metrics:
                   AnsLine, the share of the body's non-trivial lines the
                   context holds; IdRecall, the share of its identifiers.

The selection flags (--include, --exclude, --hidden, --all-text,
--include-generated, --include-vendored, --max-file-size) and the chunking
flags (--tokenizer, --max-tokens, the methods' own options) are chunk's:
eval measures the files and chunks chunk writes with them. In a git
repository eval reads the commits' trees, so --no-ignore and --follow
change only a plain folder's listing.

The report gives, per configuration and kind of query, each metric's mean
with its 95% bootstrap interval, and the paired difference with the
baseline (--baseline: sliding at the same size and context, with BM25),
and ends with a verdict that names the configuration to ship: the best of
those measurably better than what you run now (an interval above 0 on
some metric, below 0 on none), with its intervals, or says plainly that
nothing is. What you run now is castchunk's defaults (cast 2000 context
off, BM25; measured even when not asked for), or --baseline when given,
its parts left out taken from the defaults.
The exact definitions (tokenizer, BM25, dense, context, metrics) are in
every --json report and end the text report with --definitions: the same
repository, commit, --seed and embedder give the same numbers, and --json
the same bytes.

Exit status: 0 report printed; 1 failure (an embedder that fails too), or
no query kept; 2 usage error; 130 interrupted.`

func newEvalCmd(s Streams) *cobra.Command {
	o := &evalOptions{}
	cmd := &cobra.Command{
		Use:   "eval [PATH]",
		Short: "Measure which chunking method and size retrieve best on a repository",
		Long:  evalLong,
		Example: `  castchunk eval
  castchunk eval --from-git 200 --max-size 500,1000,2000 ~/src/app
  castchunk eval --completion 300 --from-git 0 --method cast --context on
  castchunk eval --json --seed 7 . > eval.json
  castchunk eval --embedder http://127.0.0.1:11434/v1 --embed-model nomic-embed-text .`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.reposFrom != "" {
				return runEvalRepos(cmd, o, args, s)
			}
			opt, err := o.options(cmd, args)
			if err != nil {
				return err
			}
			return runEval(cmd.Context(), o, opt, s)
		},
	}
	o.register(cmd)
	return cmd
}

// wholeFileMethods names the methods whose chunks cover the whole file,
// eval's default: function chunking (chunk.Method.Partial) leaves out the
// code outside functions, and is measured when asked for.
func wholeFileMethods() []string {
	var names []string
	for _, m := range method.All() {
		if !m.Partial {
			names = append(names, m.Name)
		}
	}
	return names
}

// register declares eval's flags: its own, then those it shares with
// chunk.
func (o *evalOptions) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.reposFrom, "repos-from", "", "measure each repository listed in `FILE` (chunk --repos-from's list: PATH, or PATH, a tab, NAME) in turn: one report each, named by its repository, each with its verdict")
	f.StringSliceVarP(&o.methods, "method", "m", wholeFileMethods(), "the chunking `METHODS` to measure, comma-separated: "+strings.Join(method.Names(), ", ")+" (by default those whose chunks cover the whole file)")
	f.IntSliceVar(&o.sizes, "max-size", []int{1000, 2000}, "the budgets to measure, in non-whitespace characters: `N,...`")
	f.StringSliceVar(&o.contexts, "context", []string{"off", "on"}, "a `LIST` of off (index each chunk's content) and on (chunk with --context --embed-text, index each chunk's text: header and content)")
	f.StringVar(&o.baseline, "baseline", "sliding", "compare each configuration with `METHOD[:SIZE[:on|off|HEADER[:RETRIEVER]]]`; a part left out is the configuration's own")
	f.StringSliceVar(&o.headers, "embed-header", []string{string(enrich.DefaultHeader)}, "with context on, the header `FORMATS` to measure, comma-separated: "+strings.Join(headerNames(), ", "))
	f.StringSliceVar(&o.retrievers, "retriever", []string{eval.RetrieverBM25}, "the `RETRIEVERS` to measure, comma-separated: "+strings.Join(eval.Retrievers(), ", ")+"; with --embedder all three unless given")
	f.IntVar(&o.budget, "budget", 4000, "the context's size: at most `N` non-whitespace characters of the best ranked chunks")
	f.IntVar(&o.fromGit, "from-git", 0, "queries from the last `N` commits (default 100 in a git repository; 0: none)")
	f.IntVar(&o.completion, "completion", 0, "queries from `N` functions drawn at random (default 0; 100 outside a git repository)")
	f.StringVar(&o.rev, "rev", "HEAD", "the `COMMIT` evaluated: its history and its tree")
	f.Uint64Var(&o.seed, "seed", 1, "the `SEED` of the random draws (completion targets, bootstrap)")
	f.IntVar(&o.resamples, "resamples", 1000, "`N` bootstrap resamples for the 95% intervals")
	f.IntVar(&o.minWords, "min-words", 3, "skip commits whose message has fewer than `N` words")
	f.IntVar(&o.maxFiles, "max-files", 10, "skip commits that change more than `N` indexed files")
	f.IntVarP(&o.jobs, "jobs", "j", runtime.NumCPU(), "chunk `N` files in parallel")
	f.BoolVar(&o.json, "json", false, "print the report as one JSON document (the definitions always in it)")
	f.BoolVar(&o.definitions, "definitions", false, "end the text report with the definitions of the measurement (tokenizer, BM25, dense, context, queries, metrics, statistics)")
	f.BoolVar(&o.noProgress, "no-progress", false, "never show the progress bar (it only shows when stderr is a terminal)")
	o.embed.register(cmd)
	o.selection.register(f)
	o.chunking.register(f)
	completeValues(cmd, "method", method.Names())
	completeValues(cmd, "retriever", eval.Retrievers())
	completeValues(cmd, "embed-header", headerNames())
	completeValues(cmd, "context", []string{"off", "on", "off,on"})
	_ = cmd.RegisterFlagCompletionFunc("tokenizer", tokenizerCompletion)
}

// options checks the flags and the path and turns them into an evaluation.
func (o *evalOptions) options(cmd *cobra.Command, args []string) (*eval.Options, error) {
	path := "."
	if len(args) == 1 {
		path = args[0]
	}
	if info, err := os.Stat(path); err != nil || !info.IsDir() {
		return nil, usageError("%s is not a folder", quoteName(path))
	}
	opt := &eval.Options{Path: path, Rev: o.rev, Budget: o.budget, Seed: o.seed, Resamples: o.resamples,
		MinWords: o.minWords, MaxFiles: o.maxFiles, Jobs: o.jobs}
	if err := o.shared(opt); err != nil {
		return nil, err
	}
	if err := o.checkNumbers(); err != nil {
		return nil, err
	}
	if err := o.querySources(cmd, opt, eval.IsRepo(cmd.Context(), path)); err != nil {
		return nil, err
	}
	if err := o.embed.check(cmd); err != nil {
		return nil, err
	}
	if !cmd.Flags().Changed("retriever") && o.embed.url != "" {
		o.retrievers = eval.Retrievers()
	}
	var err error
	if opt.Configs, err = o.configs(); err != nil {
		return nil, err
	}
	if opt.Baseline, err = parseBaseline(o.baseline); err != nil {
		return nil, err
	}
	if !cmd.Flags().Changed("baseline") {
		opt.Baseline.Retriever = eval.RetrieverBM25 // one reference for every retriever: sliding windows with BM25
	} else {
		// The verdict's reference: what the user runs, --baseline with the
		// parts it leaves out from castchunk's defaults.
		opt.Reference, opt.ReferenceName = opt.Baseline.Of(eval.Defaults()), "your baseline (--baseline)"
	}
	if err := o.methodValues(cmd, opt); err != nil {
		return nil, err
	}
	if o.embed.url == "" {
		for _, r := range append(slices.Clone(o.retrievers), opt.Baseline.Retriever) {
			if r = strings.TrimSpace(r); r == eval.RetrieverDense || r == eval.RetrieverHybrid {
				return nil, usageError("the %s retriever needs an embedder (--embedder)", r)
			}
		}
	}
	return opt, nil
}

// checkNumbers checks eval's numeric flags.
func (o *evalOptions) checkNumbers() error {
	switch {
	case o.budget < 1:
		return usageError("--budget must be at least 1, got %d", o.budget)
	case o.fromGit < 0:
		return usageError("--from-git must not be negative, got %d", o.fromGit)
	case o.completion < 0:
		return usageError("--completion must not be negative, got %d", o.completion)
	case o.resamples < 0 || o.resamples > maxResamples:
		return usageError("--resamples must be between 0 and %d, got %d", maxResamples, o.resamples)
	case o.minWords < 0:
		return usageError("--min-words must not be negative, got %d", o.minWords)
	case o.maxFiles < 1:
		return usageError("--max-files must be at least 1, got %d", o.maxFiles)
	case o.jobs < 1 || o.jobs > maxJobs:
		return usageError("--jobs must be between 1 and %d, got %d", maxJobs, o.jobs)
	}
	return nil
}

// shared checks the flags eval shares with chunk into opt.
func (o *evalOptions) shared(opt *eval.Options) error {
	var err error
	if opt.Select, opt.Walk, err = o.selection.check(); err != nil {
		return err
	}
	if _, err := walk.NewFilter(opt.Walk); err != nil {
		return usageError("%v", err)
	}
	var budget enrich.Options
	if err := o.chunking.tokenBudget(&budget, false); err != nil {
		return err
	}
	opt.Encoding, opt.MaxTokens = budget.Encoding, budget.MaxTokens
	return nil
}

// querySources settles how many queries of each kind are asked for: by
// default git's in a repository (and completion's on a shallow clone
// whose history runs out first), completion's outside one.
func (o *evalOptions) querySources(cmd *cobra.Command, opt *eval.Options, inRepo bool) error {
	opt.FromGit, opt.Completion = o.fromGit, o.completion
	if !cmd.Flags().Changed("completion") {
		opt.CompletionFallback = defaultCompletionQueries
	}
	if !cmd.Flags().Changed("from-git") && !cmd.Flags().Changed("completion") {
		if inRepo {
			opt.FromGit = defaultGitQueries
		} else {
			opt.Completion = defaultCompletionQueries
		}
	}
	switch {
	case opt.FromGit == 0 && opt.Completion == 0:
		return usageError("nothing to measure: --from-git and --completion are both 0")
	case opt.FromGit > 0 && !inRepo:
		return usageError("%s is not in a git repository: --from-git needs one (use --completion)", quoteName(opt.Path))
	case cmd.Flags().Changed("rev") && !inRepo:
		return usageError("--rev needs a git repository")
	}
	return nil
}

// configs are every combination of --method, --max-size and --context.
func (o *evalOptions) configs() ([]eval.Config, error) {
	var ctxs []bool
	for _, c := range dedupe(o.contexts) {
		on, err := parseOnOff(c)
		if err != nil {
			return nil, usageError("--context: %v", err)
		}
		ctxs = append(ctxs, on)
	}
	for _, r := range o.retrievers {
		if !slices.Contains(eval.Retrievers(), strings.TrimSpace(r)) {
			return nil, usageError("--retriever: unknown retriever %q: want %s", r, strings.Join(eval.Retrievers(), ", "))
		}
	}
	var headers []enrich.HeaderFormat
	for _, h := range dedupe(o.headers) {
		f, err := enrich.ParseHeader(strings.TrimSpace(h))
		if err != nil {
			return nil, usageError("--embed-header: %v", err)
		}
		headers = append(headers, f)
	}
	if len(headers) == 0 {
		headers = []enrich.HeaderFormat{""} // eval's default
	}
	var cs []eval.Config
	for _, name := range dedupe(o.methods) {
		m := method.ByName(name)
		if m == nil {
			return nil, usageError("unknown method %q: want %s", name, orList(method.Names()))
		}
		for _, size := range dedupe(o.sizes) {
			if err := (chunk.Setup{Method: m, Budget: size, Values: chunk.Values{}}).Check(); err != nil {
				return nil, usageError("%v", err)
			}
			for _, c := range ctxs {
				hs := headers
				if !c {
					hs = []enrich.HeaderFormat{""}
				}
				for _, h := range hs {
					for _, r := range dedupe(o.retrievers) {
						cs = append(cs, eval.Config{Method: name, MaxSize: size, Context: c, Header: h, Retriever: strings.TrimSpace(r)})
					}
				}
			}
		}
	}
	if len(cs) == 0 {
		return nil, usageError("no configuration to measure: --method, --max-size, --context and --retriever need a value each")
	}
	return cs, nil
}

// methodValues checks the methods' own options (chunk's --overlap-lines,
// ...) against the methods measured, baselines included, into opt.
func (o *evalOptions) methodValues(cmd *cobra.Command, opt *eval.Options) error {
	ms := []*chunk.Method{method.ByName(opt.Baseline.Method)}
	for _, c := range opt.Configs {
		ms = append(ms, method.ByName(c.Method))
	}
	var err error
	if opt.Values, err = o.chunking.values(cmd.Flags(), ms); err != nil {
		return err
	}
	for _, c := range opt.Configs {
		m := method.ByName(c.Method)
		if err := (chunk.Setup{Method: m, Budget: c.MaxSize, Values: opt.ValuesFor(m)}).Check(); err != nil {
			return usageError("%v", err)
		}
	}
	return nil
}

func dedupe[T comparable](xs []T) []T {
	var out []T
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func parseOnOff(s string) (bool, error) {
	switch strings.TrimSpace(s) {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, fmt.Errorf("want on or off, got %q", s)
}

// parseBaseline reads --baseline METHOD[:SIZE[:CONTEXT[:RETRIEVER]]],
// CONTEXT one of off, on or a header format (on with that header).
func parseBaseline(s string) (eval.Baseline, error) {
	parts := strings.Split(s, ":")
	var b eval.Baseline
	if len(parts) > 4 || method.ByName(parts[0]) == nil {
		return b, usageError("--baseline %q: want METHOD[:SIZE[:CONTEXT[:RETRIEVER]]], METHOD one of %s", s, strings.Join(method.Names(), ", "))
	}
	b.Method = parts[0]
	if len(parts) > 1 && parts[1] != "" { // "": the configuration's own
		n, err := strconv.Atoi(parts[1])
		if err != nil || n < 1 {
			return b, usageError("--baseline %q: the size must be a whole number of at least 1", s)
		}
		b.MaxSize = n
	}
	if len(parts) > 2 {
		on, err := parseOnOff(parts[2])
		if err != nil {
			f, herr := enrich.ParseHeader(parts[2])
			if herr != nil {
				return b, usageError("--baseline %q: the context: want on, off or a header format (%s), got %q", s, strings.Join(headerNames(), ", "), parts[2])
			}
			on, b.Header = true, f
		}
		b.Context = &on
	}
	if len(parts) > 3 {
		if !slices.Contains(eval.Retrievers(), parts[3]) {
			return b, usageError("--baseline %q: the retriever must be one of %s", s, strings.Join(eval.Retrievers(), ", "))
		}
		b.Retriever = parts[3]
	}
	return b, nil
}

// runEval runs the evaluation and prints the report.
func runEval(ctx context.Context, o *evalOptions, opt *eval.Options, s Streams) error {
	p := &evalProgress{show: !o.noProgress}
	if f, ok := s.Err.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		p.show = false
	} else {
		p.out = f
	}
	opt.Progress = p.update
	opt.Warn = func(path, msg string) {
		p.clear()
		fmt.Fprintf(s.Err, "castchunk: %s: %s\n", quoteName(path), safeText(msg))
	}
	embedder, err := o.embed.client(opt, func(err error, wait time.Duration) {
		p.clear()
		fmt.Fprintf(s.Err, "castchunk: %s; retrying in %s\n", safeText(err.Error()), wait.Round(100*time.Millisecond))
	}, func(msg string) {
		fmt.Fprintf(s.Err, "castchunk: %s\n", safeText(msg))
	})
	if err != nil {
		return err
	}
	rep, err := eval.Run(ctx, *opt)
	p.finish()
	if embedder != nil {
		_ = embedder.Close() // its problems are warnings
		for _, w := range embedder.Warnings() {
			fmt.Fprintf(s.Err, "castchunk: %s\n", safeText(w.Error()))
		}
		st := embedder.Stats()
		fmt.Fprintf(s.Err, "castchunk: embedder: %d texts embedded in %d requests (%d retried), %d vectors from the cache\n",
			st.Texts, st.Requests, st.Retried, st.Cached)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ue *eval.UsageError
		if errors.As(err, &ue) {
			return usageError("%v", ue.Err)
		}
		return failure(err)
	}
	if rep.Shallow != nil {
		fmt.Fprintf(s.Err, "castchunk: %s is %s\n", quoteName(opt.Path), rep.Shallow.Hint())
	}
	if o.json {
		err = rep.WriteJSON(s.Out)
	} else {
		if !o.definitions {
			rep.Definitions = nil // the verdict ends the report; one line says where they are
		}
		err = rep.WriteText(s.Out)
	}
	if err != nil {
		if closedPipe(err) {
			return nil
		}
		return failure(fmt.Errorf("write output: %w", err))
	}
	for _, src := range rep.Sources {
		if src.Queries.Kept > 0 {
			return nil
		}
	}
	return failure(errors.New("no query kept: nothing was measured (see the counts in the report)"))
}

// evalProgress shows one progress bar per stage of the evaluation, on a
// terminal only.
type evalProgress struct {
	show  bool
	out   *os.File
	stage string
	bar   *progressbar.ProgressBar
}

func (p *evalProgress) update(stage string, done, total int) {
	if !p.show || total < 2 {
		return
	}
	if stage != p.stage {
		p.finish()
		p.stage = stage
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.out),
			progressbar.OptionSetDescription(stage),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	_ = p.bar.Set(done)
}

func (p *evalProgress) clear() {
	if p.bar != nil {
		_ = p.bar.Clear()
	}
}

func (p *evalProgress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
	p.stage = ""
}
