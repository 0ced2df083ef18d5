package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/verify"
)

// verifyOptions are the flags of `castchunk verify`.
type verifyOptions struct {
	root    string
	maxSize int
	strict  bool
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
a method castchunk has (the same for all chunks of a file), size within
--max-size when given, and each file's chunks tiling it: no gap, no overlap
(except between sliding windows with overlap), none missing at the end.

Records enriched by other tools are accepted: fields castchunk does not know
are ignored and the order of fields is free (one JSON object per line is
required). --strict accepts only what castchunk writes, byte for byte.

Prints one line per problem and a summary. Exit status: 0 no problem; 1
problems found (or the output could not be written); 2 usage error; 3 the
records file could not be read; 130 interrupted.`,
		Example: `  castchunk chunk . | castchunk verify --max-size 2000
  castchunk verify --root repo chunks.jsonl`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd.Context(), o, args, s)
		},
	}
	cmd.Flags().StringVar(&o.root, "root", ".", "`DIR` the records' paths are relative to")
	cmd.Flags().IntVar(&o.maxSize, "max-size", 0, "fail chunks larger than the budget `N` (0: no budget check)")
	cmd.Flags().BoolVar(&o.strict, "strict", false, "accept only records exactly as castchunk writes them: no unknown field, fields in order, compact JSON")
	_ = cmd.RegisterFlagCompletionFunc("root", dirCompletion)
	return cmd
}

func runVerify(ctx context.Context, o *verifyOptions, args []string, s Streams) error {
	if o.maxSize < 0 {
		return usageError("--max-size must not be negative")
	}
	in, name, closeIn, err := openInput(args, s.In)
	if err != nil {
		return err
	}
	defer closeIn()
	out := newLineWriter(s.Out)
	v := &verify.Verifier{Root: o.root, Budget: o.maxSize, Report: func(p verify.Problem) { out.println(p.String()) }}
	dec := record.NewDecoder(in)
	dec.Strict = o.strict
	var rec record.Record
	for ctx.Err() == nil {
		err := dec.Decode(&rec)
		if err == io.EOF {
			break
		}
		var lineErr *record.LineError
		if errors.As(err, &lineErr) {
			v.Problems++
			out.println(fmt.Sprintf("%s: %v", name, err))
			continue
		}
		if err != nil {
			return failure(fmt.Errorf("read %s: %w", name, err))
		}
		v.Add(&rec)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	v.Finish()
	out.println(fmt.Sprintf("verified %d records of %d files: %d problems", v.Records, v.Files, v.Problems))
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

// openInput opens the record stream named by the optional argument.
func openInput(args []string, stdin io.Reader) (io.Reader, string, func(), error) {
	if len(args) == 0 || args[0] == "-" {
		return stdin, "stdin", func() {}, nil
	}
	f, err := os.Open(args[0])
	if err != nil {
		return nil, "", nil, &exitError{code: ExitUnreadable, err: err}
	}
	return f, args[0], func() { f.Close() }, nil
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
