package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/castchunk/castchunk/internal/output"
	"github.com/castchunk/castchunk/internal/stream"
)

// diffOptions are the flags of `castchunk diff`.
type diffOptions struct {
	output          string
	manifest        string // NEW's manifest, for the guard
	reposFrom       string // the checkouts of an index's repositories, for the guard
	maxDeleteSet    bool   // --max-delete given: it applies in git too
	stats           bool
	allowMassDelete bool
	maxDelete       string
}

// diffLong is diff's --help.
const diffLong = `Compare two outputs of castchunk chunk (JSON Lines, in path order; - reads
one of them from stdin) chunk by chunk and print one JSON object per change:

  {"op":"add",...}     a chunk of NEW that OLD lacks: its whole record,
                       with "op" first
  {"op":"add","reason":"language",...}
                       a chunk both have (the same id) whose language,
                       host_language or languages changed: its whole
                       record again, so that an index keyed by id
                       replaces the old labels (its text, hence its
                       embedding, is the same)
  {"op":"delete","id":"…","path":"…"}
                       a chunk of OLD that NEW lacks ("repo":"…" before
                       "path" when the records name repositories)

Nothing is printed for unchanged chunks. A chunk is unchanged when its id,
language, host_language and languages are: the id sums up the path and the
content, so a chunk whose text moved down the file keeps it, and an edited
one gets a new one. Changes come file by file in path order (by repository,
then path, when the records name repositories), deletions first.
Memory is bounded by the largest file's records, not by the outputs.

The mass-delete guard: diff refuses to print any change (nothing on stdout,
-o FILE left as it was, status 5) when NEW's run did not cover the tree. It
knows why each file of OLD that NEW lacks left, from git, asked in the
checkout diff runs in (run it there, as a CI step does):

  - a file git no longer lists (deleted from the commit that was chunked,
    or from the working tree) is a deletion, whatever the share: a jump
    between two releases passes;
  - a file the repository still has is not: outside a sparse checkout,
    outside NEW's arguments or --include/--exclude, a shard missing from
    the merge. The diff is refused however few they are, naming them;
  - unless NEW's run left it out on purpose: NEW's manifest says so
    (--manifest FILE: binary, generated, too large, ...), or without it
    castchunk's default rules do (no grammar, binary, generated,
    vendored, white space only).

This evidence applies when most of NEW's files are listed by git there.
Outside git (or for outputs of another tree, or NEW empty) the guard is a
plain backstop: it refuses when NEW has no records and OLD has some, or
when diff would delete more than --max-delete of OLD's chunks (given
explicitly, --max-delete applies in git too). A deliberate rebuild or
removal: --allow-mass-delete.

An index of many repositories (records with repo): --repos-from FILE, the
list chunk read, has git asked in each repository's checkout; a repository
the list no longer names has left the index (its chunks are deletions, up
to --max-delete of OLD's), and one it still names of which NEW has no
record (an empty or failed checkout), or which NEW's manifest says could
not be read, refuses the diff. Without the list, the checkout diff runs in
speaks only for the records of the repository named as its top folder is,
and a repository lost whole refuses the diff too.

To decide before printing, diff reads both inputs twice (a counting pass,
then the changes); an input that is not a regular file (-, a FIFO, <(…))
is copied to a temporary file as the first pass reads it, unlinked at once.

Exit status: 0 when the inputs were read through (whatever the changes);
1 when an input holds a line that is not a record, or is not in path
order, or git fails; 2 usage error; 3 an input cannot be opened; 5 refused
by the mass-delete guard; 130 interrupted.`

func newDiffCmd(s Streams) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Stream the chunks added and deleted between two outputs of chunk",
		Long:  diffLong,
		Example: `  castchunk chunk -o new.jsonl . && castchunk diff old.jsonl new.jsonl > changes.jsonl
  castchunk diff --stats old.jsonl new.jsonl | jq -r 'select(.op == "delete") | .id'
  castchunk diff --manifest files.jsonl old.jsonl new.jsonl   # NEW's manifest: files left out on purpose
  castchunk diff --allow-mass-delete old.jsonl rebuilt.jsonl > changes.jsonl   # a deliberate rebuild`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.maxDeleteSet = cmd.Flags().Changed("max-delete")
			return runDiff(cmd.Context(), o, args, s)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.reposFrom, "repos-from", "", "the outputs are an index of the repositories listed in `FILE` (chunk --repos-from's list): the guard asks git in each one's checkout (a folder outside git: whether the file is there); a repository the list no longer names has left the index")
	f.StringVar(&o.manifest, "manifest", "", "NEW's manifest (chunk --manifest, or merge of the shards'): a file it lists as left out on purpose (binary, generated, too large, …) is a deletion, one it does not list was not in NEW's run")
	f.StringVarP(&o.output, "output", "o", "", "write the changes to `FILE` (atomically) instead of stdout")
	f.BoolVar(&o.stats, "stats", false, "print the counts of chunks added, deleted, relabelled and unchanged, and of files added, deleted, changed and unchanged, to stderr")
	f.BoolVar(&o.allowMassDelete, "allow-mass-delete", false, "print the changes however many chunks they delete, NEW empty included (a deliberate rebuild); reads the inputs once")
	f.StringVar(&o.maxDelete, "max-delete", "50%", "outside git (or given): refuse (status 5) to delete more than `PERCENT` of OLD's chunks: a number from 0 to 100, the % optional (25%, 12.5, 100: only an empty NEW is refused)")
	return cmd
}

func runDiff(ctx context.Context, o *diffOptions, args []string, s Streams) error {
	limit, err := parsePercent("--max-delete", o.maxDelete)
	if err != nil {
		return err
	}
	if o.allowMassDelete {
		inputs, out, closeAll, err := openStreams(ctx, args, o.output, s)
		if err != nil {
			return err
		}
		defer closeAll()
		return emitDiff(ctx, o, inputs, out, s)
	}
	ins, closeAll, err := openRewindables(ctx, args, s)
	if err != nil {
		return err
	}
	defer closeAll()
	out, err := openStreamOutput(ctx, o.output, s)
	if err != nil {
		return err
	}
	guard, err := openGuard(ctx, o)
	if err != nil {
		out.Abort()
		return err
	}
	st, err := countDiff(ins, guard.File)
	if err != nil {
		return finishOutput(ctx, out, err, nil)
	}
	refused := guard.Refusal(ins[0].display, ins[1].display)
	if refused != nil {
		refused = &exitError{code: ExitMassDelete, err: refused}
	} else if !guard.Applies() || o.maxDeleteSet { // outside git, --max-delete is the backstop
		refused = massDelete(st, ins[0].display, ins[1].display, limit)
	}
	if left, old := guard.LeftList(); refused == nil && float64(left)*100 > limit*float64(old) {
		refused = &exitError{code: ExitMassDelete, err: fmt.Errorf("diff: the repositories --repos-from no longer lists hold %d of OLD's %d chunks (%s), more than --max-delete %s: refusing (a list cut short?); give --allow-mass-delete to delete them",
			left, old, formatPercent(float64(left)*100/float64(old)), formatPercent(limit))}
	}
	if refused != nil {
		out.Abort() // nothing was written: -o FILE stays as it was
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := printDiffStats(o, st, s); err != nil {
			return failure(err)
		}
		return refused
	}
	inputs, err := rewind(ins)
	if err != nil {
		out.Abort()
		return failure(err)
	}
	return emitDiff(ctx, o, inputs, out, s)
}

// emitDiff prints the changes from OLD to NEW to out, then the stats.
func emitDiff(ctx context.Context, o *diffOptions, inputs []*stream.Reader, out *output.File, s Streams) error {
	w := ctxWriter{ctx, out}
	var line []byte
	st, err := stream.Diff(inputs[0], inputs[1], func(c stream.Change) error {
		line = changeLine(line[:0], c)
		_, err := w.Write(line)
		return err
	})
	return finishOutput(ctx, out, err, func() error { return printDiffStats(o, st, s) })
}

// printDiffStats prints the counts with --stats.
func printDiffStats(o *diffOptions, st stream.DiffStats, s Streams) error {
	if !o.stats {
		return nil
	}
	_, err := fmt.Fprintf(s.Err, "chunks: %d added, %d deleted, %d relabelled, %d unchanged\nfiles: %d added, %d deleted, %d changed, %d unchanged\n",
		st.Added, st.Deleted, st.Relabelled, st.Unchanged, st.FilesAdded, st.FilesDeleted, st.FilesChanged, st.FilesSame)
	return err
}

// countDiff is diff's counting pass: the changes counted, none printed,
// each file told to file (the guard).
func countDiff(ins []*rewindable, file func(stream.FileChange)) (stream.DiffStats, error) {
	inputs, err := rewind(ins)
	if err != nil {
		return stream.DiffStats{}, err
	}
	return stream.DiffFiles(inputs[0], inputs[1], func(stream.Change) error { return nil }, file)
}

// openGuard gathers the guard's evidence: git, asked in the checkout diff
// runs in (none outside git), and NEW's manifest when given.
func openGuard(ctx context.Context, o *diffOptions) (*output.Guard, error) {
	var manifest map[string]string
	if o.manifest == "-" {
		return nil, usageError("--manifest needs a file: stdin can hold one of the outputs")
	}
	if o.manifest != "" {
		in, display, closeIn, err := openRecordInput(ctx, o.manifest, nil)
		if err != nil {
			return nil, err
		}
		defer closeIn()
		if manifest, err = output.ReadManifest(in, display); err != nil {
			return nil, failure(err)
		}
	}
	repo, err := output.OpenRepo(ctx, ".")
	if err != nil {
		return nil, failure(err)
	}
	repos, unknown, err := openRepos(ctx, o.reposFrom)
	if err != nil {
		return nil, err
	}
	g := output.NewGuard(repo, manifest, repos)
	if unknown != "" {
		g.Unknown(unknown)
	}
	return g, nil
}

// openRepos asks git in the checkout of each repository of --repos-from
// (nil without it): by name, nil for one that cannot be read. unknown is
// an entry of the list that cannot be read and that the list does not
// name: which repository it is cannot be told.
func openRepos(ctx context.Context, list string) (repos map[string]*output.Repo, unknown string, err error) {
	switch list {
	case "":
		return nil, "", nil
	case "-":
		return nil, "", usageError("--repos-from needs a file: stdin can hold one of the outputs")
	}
	sources, missing, err := loadRepos(ctx, list, nil)
	if err != nil {
		return nil, "", err
	}
	repos = map[string]*output.Repo{}
	for _, m := range missing {
		if m.named {
			repos[m.name] = nil
		} else if unknown == "" {
			unknown = m.path
		}
	}
	for _, s := range sources {
		top := s.rebase.Root()
		r, err := output.OpenRepo(ctx, top)
		switch {
		case err != nil:
			return nil, "", failure(err)
		case r == nil || !sameFile(r.Top, top):
			r = output.PlainFolder(top) // a folder outside git (or one its repository ignores)
		}
		repos[s.repo] = r
	}
	return repos, unknown, nil
}

// massDelete is the guard of an unattended re-index: it refuses (status 5)
// a diff that would empty an index (NEW has no records, OLD has), or
// delete more than limit percent of OLD's chunks, which an ordinary commit
// never does and a wrong path or an empty checkout does. nil: go on.
func massDelete(st stream.DiffStats, oldName, newName string, limit float64) error {
	old := st.Old()
	var err error
	switch {
	case old == 0: // nothing to delete
	case st.New() == 0:
		err = fmt.Errorf("diff: NEW (%s) has no records and OLD (%s) has %d: refusing to delete them all (a wrong path, or an empty checkout?); give --allow-mass-delete to delete them",
			quoteName(newName), quoteName(oldName), old)
	case float64(st.Deleted)*100 > limit*float64(old):
		err = fmt.Errorf("diff: would delete %d of OLD's %d chunks (%s), more than --max-delete %s: refusing (a wrong path, a partial checkout, or a rebuild?); give --allow-mass-delete to delete them",
			st.Deleted, old, formatPercent(float64(st.Deleted)*100/float64(old)), formatPercent(limit))
	}
	if err != nil {
		return &exitError{code: ExitMassDelete, err: err}
	}
	return nil
}

// parsePercent reads a flag's share of a whole: a number from 0 to 100,
// the % optional. A number under 1 without % (0.5) is refused: it reads as
// a fraction (a half) as easily as a percentage.
func parsePercent(flag, value string) (float64, error) {
	text := strings.TrimSpace(value)
	num, hasSign := strings.CutSuffix(text, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > 100 {
		return 0, usageError("%s %s: give a percentage from 0 to 100 (50%%, 12.5%%)", flag, strconv.Quote(value))
	}
	if !hasSign && v > 0 && v < 1 {
		return 0, usageError("%s %s: a percentage from 0 to 100 is wanted: write %s for a share of %s, or %s%% for %s percent",
			flag, value, formatPercent(v*100), value, value, value)
	}
	return v, nil
}

// formatPercent writes a percentage with one decimal at most, and the %.
func formatPercent(p float64) string {
	return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64) + "%"
}

// rewindable is one input of diff's two passes. A regular file is read
// again from where it started; any other input (stdin, a FIFO, <(…)) is
// copied, as the first pass reads it, to a temporary file that the second
// pass reads: a spool unlinked at once, so that no run, even a killed one,
// leaves it behind.
type rewindable struct {
	ctx     context.Context
	in      io.Reader // the input as opened
	display string    // its name in errors
	file    *os.File  // the regular file, or the spool; nil until the spool is made
	start   int64     // where the regular file's records start
	spooled bool      // file is the spool, to close
}

// openRewindables opens diff's inputs (- is stdin, at most once) for two
// passes.
func openRewindables(ctx context.Context, names []string, s Streams) ([]*rewindable, func(), error) {
	if names[0] == "-" && names[1] == "-" {
		return nil, nil, usageError("- (stdin) can be given once")
	}
	var closers []func()
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	var ins []*rewindable
	for _, name := range names {
		in, display, closeIn, err := openRecordInput(ctx, name, s.In)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		closers = append(closers, closeIn)
		r := &rewindable{ctx: ctx, in: in, display: display}
		if f := regularFile(in); f != nil {
			if r.start, err = f.Seek(0, io.SeekCurrent); err == nil {
				r.file = f
			}
		}
		closers = append(closers, r.closeSpool)
		ins = append(ins, r)
	}
	return ins, closeAll, nil
}

// regularFile is the regular file behind an input of openRecordInput, or
// nil (a pipe, a FIFO, a terminal, a test's reader).
func regularFile(in io.Reader) *os.File {
	ir, ok := in.(interruptibleReader)
	if !ok {
		return nil
	}
	f, ok := ir.r.(*os.File)
	if !ok {
		return nil
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	return f
}

// rewind returns a fresh reader of each input for the next pass.
func rewind(ins []*rewindable) ([]*stream.Reader, error) {
	var readers []*stream.Reader
	for _, r := range ins {
		sr, err := r.next()
		if err != nil {
			return nil, err
		}
		readers = append(readers, sr)
	}
	return readers, nil
}

// next returns a reader of the input for the next pass.
func (r *rewindable) next() (*stream.Reader, error) {
	if r.file == nil { // the first pass of an input that cannot seek: spool it
		spool, err := os.CreateTemp("", "castchunk-diff-*")
		if err != nil {
			return nil, fmt.Errorf("cannot copy %s to a temporary file for the second pass: %w (give --allow-mass-delete to read it once)", r.display, err)
		}
		os.Remove(spool.Name())
		r.file, r.start, r.spooled = spool, 0, true
		return stream.NewReader(io.TeeReader(r.in, spoolWriter{spool, r.display}), r.display), nil
	}
	if _, err := r.file.Seek(r.start, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read %s again: %w", r.display, err)
	}
	return stream.NewReader(interruptibleReader{r.ctx, r.file}, r.display), nil
}

// closeSpool closes the spool, if one was made.
func (r *rewindable) closeSpool() {
	if r.spooled {
		r.file.Close()
	}
}

// spoolWriter writes a spool, its errors told as the spool's.
type spoolWriter struct {
	f    *os.File
	name string
}

func (w spoolWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = fmt.Errorf("copy %s to a temporary file for the second pass: %w (give --allow-mass-delete to read it once)", w.name, err)
	}
	return n, err
}

// changeLine is one line of diff's output (package output spells it).
func changeLine(dst []byte, c stream.Change) []byte {
	if c.Add {
		return output.AppendAdd(dst, c.Reason, c.Record)
	}
	return output.AppendDelete(dst, c.ID, c.Repo, c.Path)
}
