package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/castchunk/castchunk/internal/output"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/stats"
	"github.com/castchunk/castchunk/internal/walk"
)

// chunkRun is the state of one run of `castchunk chunk`.
type chunkRun struct {
	cfg        *chunkConfig
	s          Streams
	summary    stats.Summary
	unreadable bool // some input could not be read: exit 3
	failed     bool // a chunker broke a guarantee: exit 1
	fellBack   bool // a grammar failed on a file, chunked with the fallback: exit 4
	bar        *progressbar.ProgressBar
	listed     int                  // files listed for this run (this shard's, with --shard)
	unsharded  int                  // files listed before --shard kept its own
	records    int                  // records written
	manifest   *output.ManifestFile // --manifest; nil when not asked for
	unlisted   []manifestEntry      // inputs the listing could not read, for the manifest
	others     []manifestEntry      // files listed for the manifest alone: hidden, symlinks, FIFOs (takeOthers)

	cacheWrites int  // entries stored this run
	cacheWarned bool // a cache write failed and the user was told

	generatedSkipped, vendoredSkipped int // told once each, at the end
	generatedText                     int // of generatedSkipped, those no grammar parses: --all-text too
	binarySkipped                     int // with --all-text, binary files met while walking: told once, at the end

	// notices are the pipeline's words on the whole run (Config.Notice),
	// said from its workers' goroutines and printed by the writer's.
	noticeMu sync.Mutex
	notices  []string
}

// notice keeps what the pipeline says of the whole run until the writer
// prints it (sayNotices).
func (r *chunkRun) notice(s string) {
	r.noticeMu.Lock()
	defer r.noticeMu.Unlock()
	r.notices = append(r.notices, s)
}

// sayNotices prints the notices kept so far on stderr.
func (r *chunkRun) sayNotices() {
	r.noticeMu.Lock()
	said := r.notices
	r.notices = nil
	r.noticeMu.Unlock()
	for _, s := range said {
		if r.bar != nil {
			r.bar.Clear()
		}
		fmt.Fprintf(r.s.Err, "castchunk: %s\n", safeText(s))
	}
}

// runChunk lists the files, chunks them and writes the records.
func runChunk(ctx context.Context, cfg *chunkConfig, s Streams) error {
	r := &chunkRun{cfg: cfg, s: s}
	r.summary.Budget = cfg.pipeline.Setup.Budget
	jobs, err := r.list(ctx)
	if err != nil {
		return err
	}
	if cfg.pipeline.Cache, err = r.openCache(); err != nil {
		return err
	}
	if c := cfg.pipeline.Cache; c != nil {
		defer c.Close() // the early returns; closing twice is harmless
	}
	if err := settleTokenizer(cfg.pipeline.Enrich, cfg.pipeline.Cache); err != nil {
		return err
	}
	if jobs, err = output.DropOutput("-o", cfg.output, jobs); err != nil {
		return usageError("%v", err)
	}
	if jobs, err = output.DropOutput("--manifest", cfg.manifest, jobs); err != nil {
		return usageError("%v", err)
	}
	if cfg.output == "" || cfg.output == "-" {
		if jobs, err = output.DropStdout(s.Out, jobs); err != nil {
			return usageError("%v", err)
		}
	}
	jobs = output.DropFolder(cfg.cacheDir, jobs)
	jobs = r.dropEarlier(jobs)
	r.listed = len(jobs)
	out, err := openOutputCtx(ctx, cfg.output, s.Out)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return failure(fmt.Errorf("cannot write output: %w", err))
	}
	if r.manifest, err = openManifest(cfg.manifest); err != nil {
		out.Abort()
		return failure(fmt.Errorf("cannot write the manifest: %w", err))
	}
	defer r.manifest.Abort() // unless committed: an interrupted run leaves FILE as it was
	r.manifest.Pending(r.unlisted)
	r.manifest.Pending(r.others)
	// A file that failed (a chunker broke a guarantee, a header too long
	// for the budget) is named and left out, and the run exits 1; -o FILE
	// and the manifest are still written with every other file, as stdout
	// is: one bad file must not hold back a whole index.
	return finishOutput(ctx, out, r.write(ctx, jobs, out), r.finish)
}

// dropEarlier leaves out of the listing the earlier outputs of castchunk
// under any name (old.jsonl, changes.jsonl in the tree: exactly an
// output, package output's rules), each named on stderr and listed in the
// manifest as "output". Only a file that would be chunked is looked at
// (output.MayBeEarlier), and only one whose first bytes can start an
// output is read whole. A file named as an argument is chunked:
// the user asked for it.
func (r *chunkRun) dropEarlier(jobs []pipeline.Job) []pipeline.Job {
	kept := jobs[:0]
	for _, j := range jobs {
		if output.MayBeEarlier(j, r.cfg.pipeline.Plan.Text) {
			if k := output.Earlier(j.OSPath); k != output.None {
				note := "an earlier output of castchunk (" + k.String() + "): never an input"
				r.warn(jobName(j), note+"; left out")
				r.summary.Skip(plan.Output.String())
				r.others = append(r.others, manifestEntry{Repo: j.Repo, Path: j.Path, Status: plan.Output.String(), Note: note})
				continue
			}
		}
		kept = append(kept, j)
	}
	return kept
}

// finish ends a run whose records are written: the cache pruned and
// closed, what was left out summed up, --stats, and the exit status.
func (r *chunkRun) finish() error {
	if err := r.manifest.Commit(); err != nil {
		return failure(err)
	}
	r.pruneCache()
	cacheLine := r.closeCache()
	r.tellSkipped()
	if r.cfg.stats {
		if err := r.summary.Report().WriteText(r.s.Err); err != nil {
			return failure(err)
		}
		if _, err := io.WriteString(r.s.Err, cacheLine); err != nil {
			return failure(err)
		}
	}
	switch {
	case r.failed:
		return &exitError{code: ExitFailure}
	case r.unreadable:
		return &exitError{code: ExitUnreadable}
	}
	if err := r.nothingChunked(); err != nil {
		return err
	}
	if r.fellBack {
		return &exitError{code: ExitFellBack}
	}
	return nil
}

// list walks the roots and returns the jobs of this shard, warning about
// what the walk could not take. Each repository is listed alone, and its
// files follow those of the repositories whose names sort before it.
func (r *chunkRun) list(ctx context.Context) ([]pipeline.Job, error) {
	cfg := r.cfg
	if cfg.stdin != nil {
		r.unsharded = 1
		return r.sharded([]pipeline.Job{*cfg.stdin}), nil
	}
	for _, w := range cfg.same {
		r.warn(w.Path, w.Reason)
	}
	for _, m := range cfg.missing {
		r.unreadable = true
		if e := m.entry(); cfg.shard.has(e.Repo, e.Path) {
			r.unlisted = append(r.unlisted, e)
		}
		r.warn(m.path, m.reason)
	}
	var jobs []pipeline.Job
	for i := range cfg.sources {
		js, err := r.listSource(ctx, &cfg.sources[i])
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, js...)
	}
	r.unsharded = len(jobs)
	return r.sharded(jobs), nil
}

// listSource walks one source's roots and returns its jobs, in path order.
func (r *chunkRun) listSource(ctx context.Context, src *source) ([]pipeline.Job, error) {
	if len(src.roots) == 0 { // an empty --files-from list chunks nothing
		return nil, nil
	}
	opts := r.cfg.walk
	opts.ListAll = r.cfg.manifest != "" // the manifest accounts for every path met; cheap, but only then
	files, warnings, err := walk.ListContext(ctx, src.roots, opts)
	if ctx.Err() != nil {
		return nil, ctx.Err() // one signal stops the run, wherever the walk is
	}
	if err != nil {
		return nil, usageError("%v", err)
	}
	for _, w := range warnings {
		p, _ := src.rebased(w.Path)
		if w.Kind == walk.Unreadable {
			r.unreadable = true
			if r.cfg.shard.has(src.repo, p) {
				r.unlisted = append(r.unlisted, manifestEntry{Repo: src.repo, Path: p, Status: plan.Unreadable.String(), Note: w.Reason})
			}
		}
		if src.repo == "" {
			p = w.Path // as reached, as it always was
		}
		r.warn(src.name(p), w.Reason)
	}
	if src.repo != "" && len(files) == 0 && len(warnings) == 0 {
		r.emptyRepo(src)
	}
	return r.jobs(src, r.takeOthers(src, files))
}

// emptyRepo says that a repository of the run holds no file at all: a
// failed or emptied checkout, most likely, whose chunks a diff would
// delete from the index. The run goes on with the others (status 3).
func (r *chunkRun) emptyRepo(src *source) {
	const note = "no file in the repository: an empty checkout?"
	r.unreadable = true
	if r.cfg.shard.has(src.repo, "") {
		r.unlisted = append(r.unlisted, manifestEntry{Repo: src.repo, Path: ".", Status: plan.Unreadable.String(), Note: note})
	}
	r.warn(src.rebase.Root(), note)
}

// sharded keeps this shard's jobs, counting them.
func (r *chunkRun) sharded(jobs []pipeline.Job) []pipeline.Job {
	jobs = r.cfg.shard.filter(jobs)
	r.listed = len(jobs)
	return jobs
}

// jobs makes the files' jobs, each with what its name decides (package
// plan): its language, or vendored. A file named as an argument is never
// vendored or generated; one that cannot be chunked is named in a warning
// and makes the exit status 3.
func (r *chunkRun) jobs(src *source, files []walk.File) ([]pipeline.Job, error) {
	named := map[string]bool{}
	for _, a := range src.args {
		named[path.Clean(strings.ReplaceAll(a, string(os.PathSeparator), "/"))] = true
	}
	jobs := make([]pipeline.Job, 0, len(files))
	for _, f := range files {
		pf := plan.File{Path: f.Path, Rel: plan.RelativeTo(f.Path, src.roots), Attrs: f.Attrs, Named: f.Explicit && named[f.Path]}
		j := r.cfg.pipeline.ListedJob(pf, f)
		j.Repo = src.repo
		jobs = append(jobs, j)
	}
	return r.rooted(src, jobs)
}

// rooted writes the jobs' paths relative to the root, in path order, each
// path once (two arguments may reach one file). A path outside the root
// stays as reached from its argument; when the user chose the root, they
// are told once.
func (r *chunkRun) rooted(src *source, jobs []pipeline.Job) ([]pipeline.Job, error) {
	outside := 0
	reached := make([]string, len(jobs)) // the paths as reached, for messages
	for i := range jobs {
		p, ok := src.rebased(jobs[i].Path)
		if !ok {
			outside++
		}
		reached[i], jobs[i].Path = jobs[i].Path, p
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(jobs[a].Path, jobs[b].Path) })
	kept := make([]pipeline.Job, 0, len(jobs))
	for n, i := range order {
		if n > 0 && jobs[i].Path == kept[len(kept)-1].Path {
			prev := order[n-1]
			if !sameFile(jobs[prev].OSPath, jobs[i].OSPath) {
				return nil, usageError("%s and %s would both be written as %s: give --root a folder that holds both, or chunk them apart",
					quoteName(reached[prev]), quoteName(reached[i]), quoteName(src.name(jobs[i].Path)))
			}
			continue // two arguments reached one file
		}
		kept = append(kept, jobs[i])
	}
	if outside > 0 && r.cfg.rootSet {
		r.warn(src.rebase.Root(), fmt.Sprintf("%d files lie outside this root: their paths are written as reached from the arguments; give --root to choose another", outside))
	}
	return kept, nil
}

// rebased is p relative to the source's root (false when it lies outside
// it and keeps the path it was reached by).
func (s *source) rebased(p string) (string, bool) {
	if s.rebase == nil {
		return p, true
	}
	return s.rebase.Path(p)
}

// sameFile reports whether two paths name one file (or cannot be told
// apart: then the second is the same as far as castchunk can know).
func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	x, errA := os.Stat(a)
	y, errB := os.Stat(b)
	return errA != nil || errB != nil || os.SameFile(x, y)
}

// write runs the pipeline into the output format; finishOutput (or abort)
// then decides what becomes of the output.
func (r *chunkRun) write(ctx context.Context, jobs []pipeline.Job, out *output.File) error {
	w, err := r.cfg.format.New(out, r.cfg.schema)
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	r.startProgress(len(jobs))
	cfg := r.cfg.pipeline
	cfg.Notice = r.notice
	err = pipeline.Run(ctx, jobs, cfg, func(res *pipeline.Result) error { r.sayNotices(); return r.emit(w, res) })
	r.stopProgress()
	r.sayNotices()
	if err == nil {
		err = w.Close()
	}
	var me *output.ManifestError
	if err != nil && ctx.Err() == nil && !closedPipe(err) && !errors.As(err, &me) {
		err = fmt.Errorf("write output: %w", err)
	}
	return err
}

// emit writes one file's records and accounts for it.
func (r *chunkRun) emit(w record.Writer, res *pipeline.Result) error {
	if r.bar != nil {
		r.bar.Add(1)
	}
	if res.Outcome != plan.Chunked {
		return r.leftOut(res)
	}
	if res.Message != "" {
		r.warn(jobName(res.Job), res.Message)
	}
	r.noteCache(res)
	if res.FellBack {
		r.fellBack = true
		r.summary.Fallback()
	}
	if res.HasSyntaxErrors {
		r.summary.SyntaxErrors()
	}
	if len(res.Spans) == 0 {
		r.summary.Empty()
		return r.addManifest(res)
	}
	f := record.File{Repo: res.Job.Repo, Path: res.Job.Path, Language: res.Language, Method: res.Method.Name, Pieces: res.Method.Pieces, Src: res.Src, Extras: res.Extras, Regions: res.Regions, Cells: res.Cells}
	err := w.WriteFile(f, res.Spans)
	var bad *record.EncodeError
	if errors.As(err, &bad) { // nothing of the file was written: it failed
		res.Outcome, res.Message = plan.Failed, bad.Error()
		return r.leftOut(res)
	}
	if err != nil {
		return err
	}
	r.records += len(res.Spans)
	name := res.Language
	r.summary.AddFile(name, len(res.Src))
	if res.Job.Repo != "" {
		r.summary.AddRepo(res.Job.Repo, len(res.Spans))
	}
	for _, s := range res.Spans {
		r.summary.AddChunk(name, s.Size)
	}
	return r.addManifest(res)
}

// leftOut accounts for a file that is not written: in the manifest,
// counted by its reason, warned about when the reason comes with a message
// (generated and vendored files, and with --all-text binary ones met
// while walking, are summed up at the end instead). A
// failed file makes the exit status 1; an unreadable file, or a file named
// as an argument, 3.
func (r *chunkRun) leftOut(res *pipeline.Result) error {
	if err := r.addManifest(res); err != nil {
		return err
	}
	switch res.Outcome {
	case plan.Failed:
		r.fail(res.Job, res.Message)
		return nil
	case plan.Unsupported:
		r.summary.Unsupported(res.Job.Path)
	case plan.Generated:
		r.generatedSkipped++
		if res.Language == "" { // no grammar (uv.lock): --include-generated alone would not chunk it
			r.generatedText++
		}
		r.summary.Skip(res.Outcome.String())
	case plan.Vendored:
		r.vendoredSkipped++
		r.summary.Skip(res.Outcome.String())
	case plan.Binary:
		r.summary.Skip(res.Outcome.String())
		if r.cfg.pipeline.Plan.Text && !res.Job.Named {
			// --all-text reads every file: images, archives and fonts
			// would take a line each.
			r.binarySkipped++
			return nil
		}
	default:
		r.summary.Skip(res.Outcome.String())
	}
	if res.Outcome == plan.Unreadable || res.Job.Named {
		r.unreadable = true
	}
	if res.Message != "" {
		r.warn(jobName(res.Job), res.Message)
	}
	return nil
}

// tellSkipped says, once per reason, how many files were left out on
// purpose and how to bring them back.
//
// A generated file no grammar parses (a lock file: uv.lock, Cargo.lock)
// is told in the generated line too, with the --all-text it also needs.
func (r *chunkRun) tellSkipped() {
	gen, text := r.generatedSkipped, r.generatedText
	switch {
	case gen == 0:
	case text == 0:
		fmt.Fprintf(r.s.Err, "castchunk: skipped %d generated %s (--include-generated to chunk %s)\n", gen, plural(gen, "file", "files"), plural(gen, "it", "them"))
	case text == gen:
		fmt.Fprintf(r.s.Err, "castchunk: skipped %d generated %s (--include-generated --all-text to chunk %s)\n", gen, plural(gen, "file", "files"), plural(gen, "it", "them"))
	default:
		fmt.Fprintf(r.s.Err, "castchunk: skipped %d generated files (--include-generated to chunk them; --all-text too for the %d no grammar parses)\n", gen, text)
	}
	if n := r.vendoredSkipped; n > 0 {
		fmt.Fprintf(r.s.Err, "castchunk: skipped %d vendored %s (--include-vendored to chunk %s)\n", n, plural(n, "file", "files"), plural(n, "it", "them"))
	}
	if n := r.binarySkipped; n > 0 {
		lists := "--manifest FILE lists " + plural(n, "it", "them")
		if r.cfg.manifest != "" {
			lists = quoteName(r.cfg.manifest) + " lists " + plural(n, "it", "them")
		}
		fmt.Fprintf(r.s.Err, "castchunk: skipped %d binary %s (%s)\n", n, plural(n, "file", "files"), lists)
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
func (r *chunkRun) fail(j pipeline.Job, msg string) {
	r.failed = true
	r.summary.Skip(plan.Failed.String())
	r.warn(jobName(j), strings.TrimPrefix(msg, j.Path+": "))
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

// startProgress shows a progress bar when stderr is a terminal and the
// records go elsewhere: drawn on the terminal that shows the records, the
// bar would mix into them.
func (r *chunkRun) startProgress(total int) {
	f, ok := r.s.Err.(*os.File)
	if !r.cfg.progress || !ok || !isTerminal(f) || total < 2 {
		return
	}
	if r.recordsMayShow(f) {
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

// recordsMayShow reports whether the records may reach the terminal the
// progress bar would be drawn on: stdout is a terminal, or -o names
// stderr's file (-o /dev/stdout, /dev/stderr) or a character device other
// than /dev/null (-o /dev/tty).
func (r *chunkRun) recordsMayShow(stderr *os.File) bool {
	out := r.cfg.output
	if out == "" || out == "-" {
		return isTerminal(r.s.Out)
	}
	if sameAsStream(out, stderr) {
		return true
	}
	info, err := os.Stat(out)
	return err == nil && info.Mode()&os.ModeCharDevice != 0 && out != os.DevNull
}

func (r *chunkRun) stopProgress() {
	if r.bar != nil {
		r.bar.Finish()
		r.bar = nil
	}
}
