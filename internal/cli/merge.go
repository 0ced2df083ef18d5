package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/stream"
)

// mergeOptions are the flags of `castchunk merge`.
type mergeOptions struct {
	output string
}

func newMergeCmd(s Streams) *cobra.Command {
	o := &mergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge OUTPUT...",
		Short: "Merge the outputs (or manifests) of chunk --shard K/N back into one, in path order",
		Long: `Merge outputs of castchunk chunk, each in path order and sharing no file
(the shards of one run: chunk --shard 1/N ... --shard N/N), into one output
in path order: byte for byte what the unsharded run writes. It streams: memory
holds one file's records per input, however large the inputs.

The shards' manifests (chunk --manifest FILE) merge the same way, into the
manifest of the unsharded run, byte for byte. Which an input is, its first
line tells: a record has an "id", a manifest entry "path" and "status" and no
"id"; a first line that is neither is refused. Give one kind at a time; an
empty input is either.

Exit status: 0 merged; 1 when an input holds a line that is not a record (or
not a manifest entry with a status chunk writes), is not in path order, or
shares a file with another input, or when records and manifests are given
together; 2 usage error; 3 an input cannot be opened; 130 interrupted.`,
		Example: `  castchunk merge shard-*.jsonl > chunks.jsonl
  castchunk merge -o chunks.jsonl out/1.jsonl out/2.jsonl out/3.jsonl
  castchunk merge -o files.jsonl out/files-*.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMerge(cmd.Context(), o, args, s)
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "write the merged records to `FILE` (atomically) instead of stdout")
	return cmd
}

func runMerge(ctx context.Context, o *mergeOptions, args []string, s Streams) error {
	ins, names, kind, closeAll, err := openMergeInputs(ctx, args, s)
	if err != nil {
		return err
	}
	defer closeAll()
	out, err := openOutputCtx(ctx, o.output, s.Out)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return failure(fmt.Errorf("cannot write output: %w", err))
	}
	w := ctxWriter{ctx, out}
	if kind == stream.Manifest {
		err = stream.MergeManifests(ins, names, plan.Fates(), w)
	} else {
		readers := make([]*stream.Reader, len(ins))
		for i, in := range ins {
			readers[i] = stream.NewReader(in, names[i])
		}
		err = stream.Merge(readers, w)
	}
	return finishOutput(ctx, out, err, func() error { return nil })
}

// openMergeInputs opens merge's inputs (as openInputs does) and tells
// whether they are records or manifests, by their first lines: all the
// same kind, an empty input being either.
func openMergeInputs(ctx context.Context, args []string, s Streams) ([]io.Reader, []string, stream.Kind, func(), error) {
	if i := slices.Index(args, "-"); i >= 0 && slices.Contains(args[i+1:], "-") {
		return nil, nil, 0, nil, usageError("- (stdin) can be given once")
	}
	var closers []func()
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	var ins []io.Reader
	var names []string
	kind, first := stream.Empty, ""
	for _, name := range args {
		in, display, closeIn, err := openRecordInput(ctx, name, s.In)
		if err == nil {
			closers = append(closers, closeIn)
			var k stream.Kind
			var neither *stream.NeitherError
			if k, in, err = stream.Sniff(in); errors.As(err, &neither) {
				err = failure(fmt.Errorf("%s: %v: merge takes the outputs or the manifests of castchunk chunk", display, err))
			} else if err != nil {
				err = failure(fmt.Errorf("read %s: %w", display, err))
			} else if k != stream.Empty && kind != stream.Empty && k != kind {
				err = failure(fmt.Errorf("%s holds %s and %s %s: merge one kind at a time", first, kindName(kind), display, kindName(k)))
			} else if k != stream.Empty && kind == stream.Empty {
				kind, first = k, display
			}
		}
		if err != nil {
			closeAll()
			if ctx.Err() != nil {
				return nil, nil, 0, nil, ctx.Err()
			}
			return nil, nil, 0, nil, err
		}
		ins, names = append(ins, in), append(names, display)
	}
	return ins, names, kind, closeAll, nil
}

// kindName names what an input holds, for messages.
func kindName(k stream.Kind) string {
	if k == stream.Manifest {
		return "a manifest (chunk --manifest)"
	}
	return "records"
}
