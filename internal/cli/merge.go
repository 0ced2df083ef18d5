package cli

import (
	"context"

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
not in path order, or shares a file with another input; 2 usage error;
3 an input cannot be opened; 130 interrupted.`,
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
	inputs, out, closeAll, err := openStreams(ctx, args, o.output, s)
	if err != nil {
		return err
	}
	defer closeAll()
	err = stream.Merge(inputs, ctxWriter{ctx, out})
	return finishOutput(ctx, out, err, func() error { return nil })
}
