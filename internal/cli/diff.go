package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/stream"
)

// diffOptions are the flags of `castchunk diff`.
type diffOptions struct {
	output string
	stats  bool
}

func newDiffCmd(s Streams) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Stream the chunks added and deleted between two outputs of chunk",
		Long: `Compare two outputs of castchunk chunk (JSON Lines, in path order; - reads
one of them from stdin) chunk by chunk and print one JSON object per change:

  {"op":"add",...}     a chunk of NEW that OLD lacks: its whole record,
                       with "op" first
  {"op":"add","reason":"language",...}
                       a chunk both have (the same id) whose language or
                       host_language changed: its whole record again, so
                       that an index keyed by id replaces the old label
                       (its text, hence its embedding, is the same)
  {"op":"delete","id":"…","path":"…"}
                       a chunk of OLD that NEW lacks

Nothing is printed for unchanged chunks. A chunk is unchanged when its id,
language and host_language are: the id sums up the path and the content,
so a chunk whose text moved down the file keeps it, and an edited one gets
a new one. Changes come file by file in path order, deletions first.
Memory is bounded by the largest file's records, not by the outputs.

Exit status: 0 when the inputs were read through (whatever the changes);
1 when an input holds a line that is not a record, or is not in path
order; 2 usage error; 3 an input cannot be opened; 130 interrupted.`,
		Example: `  castchunk chunk -o new.jsonl . && castchunk diff old.jsonl new.jsonl > changes.jsonl
  castchunk diff --stats old.jsonl new.jsonl | jq -r 'select(.op == "delete") | .id'`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd.Context(), o, args, s)
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "write the changes to `FILE` (atomically) instead of stdout")
	cmd.Flags().BoolVar(&o.stats, "stats", false, "print the counts of chunks added, deleted, relabelled and unchanged, and of files added, deleted, changed and unchanged, to stderr")
	return cmd
}

func runDiff(ctx context.Context, o *diffOptions, args []string, s Streams) error {
	inputs, out, closeAll, err := openStreams(ctx, args, o.output, s)
	if err != nil {
		return err
	}
	defer closeAll()
	w := ctxWriter{ctx, out}
	var line []byte
	st, err := stream.Diff(inputs[0], inputs[1], func(c stream.Change) error {
		line = changeLine(line[:0], c)
		_, err := w.Write(line)
		return err
	})
	return finishOutput(ctx, out, err, func() error {
		if !o.stats {
			return nil
		}
		_, err := fmt.Fprintf(s.Err, "chunks: %d added, %d deleted, %d relabelled, %d unchanged\nfiles: %d added, %d deleted, %d changed, %d unchanged\n",
			st.Added, st.Deleted, st.Relabelled, st.Unchanged, st.FilesAdded, st.FilesDeleted, st.FilesChanged, st.FilesSame)
		return err
	})
}

// changeLine is one line of diff's output.
func changeLine(dst []byte, c stream.Change) []byte {
	if c.Add {
		dst = append(dst, `{"op":"add",`...)
		if c.Reason != "" {
			dst = append(dst, `"reason":`...)
			dst = append(record.AppendQuoted(dst, c.Reason), ',')
		}
		dst = append(dst, c.Record[1:]...) // the record without its '{'
		return append(dst, '\n')
	}
	dst = append(dst, `{"op":"delete","id":`...)
	dst = record.AppendQuoted(dst, c.ID)
	dst = append(dst, `,"path":`...)
	dst = record.AppendQuoted(dst, c.Path)
	return append(dst, "}\n"...)
}
