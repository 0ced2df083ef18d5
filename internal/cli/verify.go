package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/castchunk/castchunk/internal/bytesize"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/tokens"
	"github.com/castchunk/castchunk/internal/verify"
	"github.com/castchunk/castchunk/internal/walk"
)

// verifyOptions are the flags of `castchunk verify`.
type verifyOptions struct {
	root             string
	maxSize          int
	strict           bool
	maxFileSize      string
	lang             string
	allowOutsideRoot bool
	tokenizer        tokenizerFlags
	maxTokens        int
	embedHeader      string
	repo             string
	reposFrom        string
}

func newVerifyCmd(s Streams) *cobra.Command {
	o := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify [FILE.jsonl|-]",
		Short: "Check chunk records against the files they name",
		Long: `Read records (from FILE, or stdin when FILE is - or absent) and check each
against the file it names, relative to --root: every field present with the
right type, content equal to the file's bytes at the byte range, line numbers
and size right, the id as the README's recipe gives it (so ids are unique),
a method castchunk has (the same for all chunks of a file), a language
castchunk has (the same for all chunks of a file), size within --max-size
when given, and each file's chunks tiling it: no gap, no overlap (except
between sliding windows with overlap), none missing at the end. The function
method chunks functions alone: its chunks must be in order and never overlap,
and the code between them is in no chunk.

The language must be the one the file's name gives (.py: python), or, with
--lang NAME, NAME: records made with chunk --lang need verify --lang. A path
whose name gives no language (chunk --lang python notes.txt) may name any
language castchunk has.

Records are input like any other, so verify reads only regular files (a
device, FIFO or folder is a problem, and is not opened in a way that could
wait), of at most --max-file-size, under --root: a path outside it (an
absolute path not under --root, a path that climbs out with .., a symbolic
link that leads out or is absolute) is one problem line and is not read,
unless --allow-outside-root. Absolute paths (chunk writes them for a file
outside its root, e.g. chunk a.py /abs/b.py) are read with --root set to a
folder above them (such as /), or with --allow-outside-root; chunk DIR
outside git writes paths relative to DIR: verify --root DIR. A record line longer than any record of a
file of --max-file-size could be (6 x SIZE + 1 MiB) is a problem and is not
held in memory.

A record with a text (chunk --embed-text) must have the header chunk writes
in the format --embed-header names (the same flag as chunk's, with the same
default): exactly, when the record has its scope (chunk --context), the
defining lines read again from the file; else its shape: the path's line,
then no more lines than the format adds.

Records enriched by other tools are accepted: fields castchunk does not know
are ignored and the order of fields is free (one JSON object per line is
required). --strict accepts only what castchunk writes, byte for byte.

Prints one line per problem and a summary. Exit status: 0 no problem; 1
problems found (or the output could not be written); 2 usage error; 3 the
records file could not be read; 130 interrupted.`,
		Example: `  castchunk chunk . | castchunk verify --max-size 2000
  castchunk verify --root repo chunks.jsonl
  castchunk chunk /srv/repo | castchunk verify --root /srv/repo
  castchunk chunk --lang python notes.txt | castchunk verify --lang python`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd.Context(), o, args, s)
		},
	}
	cmd.Flags().StringVar(&o.root, "root", "", "`DIR` the records' paths are relative to (default: as chunk's for the current folder: the top of the git repository holding it, else the current folder)")
	cmd.Flags().IntVar(&o.maxSize, "max-size", 0, "fail chunks larger than the budget `N` (0: no budget check)")
	cmd.Flags().BoolVar(&o.strict, "strict", false, "accept only records exactly as castchunk writes them: no unknown field, fields in order, compact JSON")
	cmd.Flags().StringVar(&o.maxFileSize, "max-file-size", "10MiB", "do not read files larger than `SIZE` (bytes, or with a unit: 512KiB, 64MiB; 0: no limit): such a file is a problem")
	cmd.Flags().StringVar(&o.lang, "lang", "", "the records were made with chunk --lang `LANGUAGE` ("+strings.Join(lang.Names(), ", ")+"): every record must name it")
	o.tokenizer.register(cmd.Flags(), "recount each record's tokens (a tokens field must match) with")
	cmd.Flags().IntVar(&o.maxTokens, "max-tokens", 0, "with --tokenizer, fail chunks (or texts) of more than `N` tokens (0: no check)")
	cmd.Flags().StringVar(&o.embedHeader, "embed-header", string(enrich.DefaultHeader), "the records' texts have headers in `FORMAT`, as chunk --embed-header wrote them ("+strings.Join(headerNames(), ", ")+")")
	cmd.Flags().BoolVar(&o.allowOutsideRoot, "allow-outside-root", false, "also read files outside --root: absolute paths not under it, paths with .., symbolic links that lead out")
	cmd.Flags().StringVar(&o.repo, "repo", "", "check only the records of repository `NAME` (chunk --repo, --repos-from), under --root; count the others as skipped")
	cmd.Flags().StringVar(&o.reposFrom, "repos-from", "", "the records name repositories: read each one's files under its path in `FILE`, the list chunk --repos-from read (PATH, or PATH, a tab, NAME)")
	_ = cmd.RegisterFlagCompletionFunc("root", dirCompletion)
	completeValues(cmd, "lang", lang.Names())
	_ = cmd.RegisterFlagCompletionFunc("tokenizer", tokenizerCompletion)
	completeValues(cmd, "embed-header", headerNames())
	return cmd
}

// headerNames are the header formats of --embed-header, in order.
func headerNames() []string {
	var names []string
	for _, c := range enrich.HeaderFormats() {
		names = append(names, string(c.Name))
	}
	return names
}

// counter checks --tokenizer and --max-tokens and returns the counter
// (nil without --tokenizer).
func (o *verifyOptions) counter() (*tokens.Counter, error) {
	switch {
	case o.maxTokens < 0:
		return nil, usageError("--max-tokens must not be negative, got %d", o.maxTokens)
	case o.tokenizer.name == "" && o.maxTokens > 0:
		return nil, usageError("--max-tokens needs --tokenizer (%s, or a tokenizer.json)", strings.Join(tokens.Names(), ", "))
	}
	e, err := o.tokenizer.load(false)
	if e == nil || err != nil {
		return nil, err
	}
	return e.NewCounter(), nil
}

func runVerify(ctx context.Context, o *verifyOptions, args []string, s Streams) error {
	v, err := o.verifier()
	if err != nil {
		return err
	}
	if v.Roots, err = o.repoRoots(ctx, s.In, args); err != nil {
		return err
	}
	in, name, closeIn, err := openRecords(ctx, args, s.In)
	if err != nil {
		return err
	}
	defer closeIn()
	out := newLineWriter(s.Out)
	var missing []verify.Problem // files the records name that are not under the root
	v.Report = func(p verify.Problem) {
		if p.Missing {
			missing = append(missing, p) // told at the end: one line when most are missing
			return
		}
		out.println(problemLine(p))
	}
	if err := o.readAll(ctx, v, in, name, out); err != nil {
		return err
	}
	v.Finish()
	tellMissing(out, missing, v.Files, v.Root, v.Roots != nil)
	tellHeaders(out, v.Explained)
	if v.Repo != "" && v.Records == 0 {
		v.Problems++ // a misspelt name must not verify nothing and pass
		out.println(fmt.Sprintf("no record names repository %q: give the name chunk wrote in repo", v.Repo))
	}
	summary := fmt.Sprintf("verified %d records of %d files: %d problems", v.Records, v.Files, v.Problems)
	if v.Repo != "" {
		summary = fmt.Sprintf("verified %d records of %d files of repository %q: %d problems (%d records of other repositories skipped)", v.Records, v.Files, v.Repo, v.Problems, v.Skipped)
	}
	out.println(summary)
	if out.err != nil {
		if closedPipe(out.err) {
			return nil
		}
		return failure(out.err)
	}
	if v.Problems > 0 {
		return &exitError{code: ExitFailure}
	}
	return nil
}

// verifier checks the flags and turns them into a Verifier, its Report
// still to set.
func (o *verifyOptions) verifier() (*verify.Verifier, error) {
	if o.maxSize < 0 {
		return nil, usageError("--max-size must not be negative")
	}
	limit, err := bytesize.Parse(o.maxFileSize)
	if err != nil {
		return nil, usageError("--max-file-size: %v", err)
	}
	if o.lang != "" && lang.ByName(o.lang) == nil {
		return nil, usageError("unknown language %q: want one of %s", o.lang, strings.Join(lang.Names(), ", "))
	}
	counter, err := o.counter()
	if err != nil {
		return nil, err
	}
	header, err := enrich.ParseHeader(o.embedHeader)
	if err != nil {
		return nil, usageError("--embed-header: %v", err)
	}
	root := o.root
	if root == "" {
		if root, err = walk.DefaultRoot(nil); err != nil {
			return nil, failure(fmt.Errorf("cannot find the root: %w", err))
		}
	}
	return &verify.Verifier{
		Root: root, AllowOutsideRoot: o.allowOutsideRoot, MaxFileSize: limit, Lang: o.lang, Budget: o.maxSize,
		Tokens: counter, MaxTokens: o.maxTokens, Header: header, Repo: o.repo,
	}, nil
}

// repoRoots reads --repos-from: the folder of each repository, by name
// (nil without the flag). A repository that cannot be read keeps its
// path: its records' files are then missing, each a problem.
func (o *verifyOptions) repoRoots(ctx context.Context, stdin io.Reader, args []string) (map[string]string, error) {
	switch {
	case o.reposFrom == "":
		return nil, nil
	case o.root != "":
		return nil, usageError("--repos-from and --root: each repository's paths are relative to its own top")
	case o.reposFrom == "-" && (len(args) == 0 || args[0] == "-"):
		return nil, usageError("--repos-from - and the records cannot both be read from stdin")
	}
	sources, missing, err := loadRepos(ctx, o.reposFrom, stdin)
	if err != nil {
		return nil, err
	}
	roots := map[string]string{}
	for _, s := range sources {
		roots[s.repo] = s.rebase.Root()
	}
	for _, m := range missing {
		if m.name != "" {
			roots[m.name] = m.path
		}
	}
	return roots, nil
}

// readAll decodes every record of in and adds it to v; a line that is not
// a record is a problem, printed to out.
func (o *verifyOptions) readAll(ctx context.Context, v *verify.Verifier, in io.Reader, name string, out *lineWriter) error {
	dec := record.NewDecoder(in)
	dec.Schema = record.All() // the optional fields too: text and tokens are checked
	dec.Strict = o.strict
	dec.MaxFileSize = v.MaxFileSize // the line limit and its message are diff's and merge's too
	if v.MaxFileSize == 0 {
		dec.MaxFileSize = -1 // no limit
	}
	var rec record.Record
	for ctx.Err() == nil {
		err := dec.Decode(&rec)
		if err == io.EOF {
			break
		}
		var lineErr *record.LineError
		if errors.As(err, &lineErr) {
			v.Problems++
			out.println(fmt.Sprintf("%s: %s", quoteName(name), safeText(err.Error())))
			continue
		}
		if err != nil {
			return failure(fmt.Errorf("read %s: %w", name, err))
		}
		v.Add(&rec)
	}
	return ctx.Err()
}

// tellMissing prints the files the records name that are missing under
// the root: each on its line, or, when most of the files are missing (the
// records were made relative to another root, or verify runs from the
// wrong folder), one line that says so and names --root.
func tellMissing(out *lineWriter, missing []verify.Problem, files int, root string, listed bool) {
	if len(missing) >= 3 && 2*len(missing) > files {
		abs, err := filepath.Abs(root)
		if err != nil {
			abs = root
		}
		where := quoteName(abs)
		hint := "the records look relative to another root; give --root the folder chunk took its paths from (the top of the git repository; outside git, the one folder chunk was given: chunk DIR, verify --root DIR)"
		switch {
		case listed:
			where = "their repositories' folders of --repos-from"
			hint = "does the list name the checkouts chunk read?"
		case missing[0].Repo != "":
			hint = "the records look relative to another root; they name repositories: give --repos-from the list chunk read, or run verify --repo NAME in that repository's checkout"
		}
		out.println(fmt.Sprintf("%d of the %d files the records name are missing under %s (%s, ...): %s",
			len(missing), files, where, quoteName(repoName(missing[0].Repo, missing[0].Path)), hint))
		return
	}
	for _, p := range missing {
		out.println(problemLine(p))
	}
}

// tellHeaders names the --embed-header that would explain the headers
// verify refused: one line per format, most records first.
func tellHeaders(out *lineWriter, explained map[enrich.HeaderFormat]int) {
	var formats []enrich.HeaderFormat
	for f := range explained {
		formats = append(formats, f)
	}
	slices.SortFunc(formats, func(a, b enrich.HeaderFormat) int {
		return cmp.Or(explained[b]-explained[a], strings.Compare(string(a), string(b)))
	})
	for _, f := range formats {
		n := explained[f]
		out.println(fmt.Sprintf("%d %s the header --embed-header %s writes: made with chunk --embed-header %s? pass it to verify",
			n, plural(n, "record's text has", "records' texts have"), f, f))
	}
}

// problemLine is p as verify prints it: a record's path and the message
// are input, so they are quoted or escaped when they would not print
// safely on one line (a path must not forge a line of the report).
func problemLine(p verify.Problem) string {
	p.Path, p.Message = quoteName(p.Path), safeText(p.Message)
	return p.String()
}

// lineWriter prints lines and remembers the first write error, so a long
// report is not interrupted by error handling at every line.
type lineWriter struct {
	w   io.Writer
	err error
}

func newLineWriter(w io.Writer) *lineWriter { return &lineWriter{w: w} }

func (l *lineWriter) println(line string) {
	if l.err == nil {
		_, l.err = fmt.Fprintln(l.w, line)
	}
}
