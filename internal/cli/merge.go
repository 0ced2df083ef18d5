package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

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
		Short: "Merge the outputs of chunk --shard K/N back into one, in path order",
		Long: `Merge outputs of castchunk chunk, each in path order and sharing no file
(the shards of one run: chunk --shard 1/N ... --shard N/N), into one output
in path order: byte for byte what the unsharded run writes. It streams: memory
holds one file's records per input, however large the inputs.

Exit status: 0 merged; 1 when an input holds a line that is not a record, is
not in path order, or shares a file with another input; 2 usage error.`,
		Example: `  castchunk merge shard-*.jsonl > chunks.jsonl
  castchunk merge -o chunks.jsonl out/1.jsonl out/2.jsonl out/3.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMerge(cmd.Context(), o, args, s)
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "write the merged records to `FILE` (atomically) instead of stdout")
	return cmd
}

func runMerge(ctx context.Context, o *mergeOptions, args []string, s Streams) error {
	inputs, closeAll, err := openInputs(ctx, args, s)
	if err != nil {
		return err
	}
	defer closeAll()
	out, err := openOutput(o.output, s.Out)
	if err != nil {
		return failure(fmt.Errorf("cannot write output: %w", err))
	}
	err = stream.Merge(inputs, ctxWriter{ctx, out})
	return finishOutput(ctx, out, err, func() error { return nil })
}

// ctxWriter stops writing once ctx is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
