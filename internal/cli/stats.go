package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/stats"
)

// statsOptions are the flags of `castchunk stats`.
type statsOptions struct {
	maxSize int
	json    bool
}

func newStatsCmd(s Streams) *cobra.Command {
	o := &statsOptions{}
	cmd := &cobra.Command{
		Use:   "stats [FILE.jsonl|-]",
		Short: "Summarise chunk records: files, chunks, bytes and sizes per language",
		Long: `Read records (from FILE, or stdin when FILE is - or absent) and print, per
language and overall: files, chunks, bytes, the size distribution (min,
median, p90, max, mean as a share of the budget), the share of tiny chunks
(under 5% of the budget) and a histogram of sizes.

Records need path, language, size and end_byte; other fields (content too)
may be missing, and fields castchunk does not know are ignored. A chunk
larger than --max-size gets a warning: the shares are only right with the
budget the records were made with.`,
		Example: `  castchunk chunk . | castchunk stats
  castchunk stats --json chunks.jsonl | jq .total`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStats(cmd.Context(), o, args, s)
		},
	}
	cmd.Flags().IntVar(&o.maxSize, "max-size", 2000, "the budget `N` the chunks were made with, for the shares")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the summary as JSON")
	return cmd
}

func runStats(ctx context.Context, o *statsOptions, args []string, s Streams) error {
	if o.maxSize < 1 {
		return usageError("--max-size must be at least 1")
	}
	in, name, closeIn, err := openRecords(ctx, args, s.In)
	if err != nil {
		return err
	}
	defer closeIn()
	summary := stats.Summary{Budget: o.maxSize}
	dec := record.NewDecoder(in)
	dec.Need = []string{"path", "language", "size", "end_byte"}
	dec.Schema = record.All() // repo counts files by repository
	var rec record.Record
	repo, path, language, fileEnd, chunks := "", "", "", 0, 0
	flush := func() {
		if path != "" {
			summary.AddFile(language, fileEnd)
			if repo != "" {
				summary.AddRepo(repo, chunks)
			}
		}
	}
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		err := dec.Decode(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			var lineErr *record.LineError
			if errors.As(err, &lineErr) {
				return failure(fmt.Errorf("%s: %v", name, err))
			}
			return failure(fmt.Errorf("read %s: %w", name, err))
		}
		if rec.Path != path || rec.Repo != repo {
			flush()
			repo, path, language, fileEnd, chunks = rec.Repo, rec.Path, rec.Language, 0, 0
			if rec.HostLanguage != "" {
				language = rec.HostLanguage // a file counts in its own language, its chunks in theirs
			}
		}
		fileEnd, chunks = max(fileEnd, rec.EndByte), chunks+1
		summary.AddChunk(rec.Language, rec.Size)
	}
	flush()
	report := summary.Report()
	if report.OverBudget > 0 {
		fmt.Fprintf(s.Err, "castchunk: %d chunks are larger than --max-size %d: the shares assume the budget the records were made with\n", report.OverBudget, o.maxSize)
	}
	if o.json {
		err = report.WriteJSON(s.Out)
	} else {
		err = report.WriteText(s.Out)
	}
	if err != nil && !closedPipe(err) {
		return failure(err)
	}
	return nil
}
