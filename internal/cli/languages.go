package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/castchunk/castchunk/internal/lang"
)

func newLanguagesCmd(s Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "languages",
		Short: "List the supported languages, their file extensions and names, and grammar versions",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return runLanguages(s)
		},
	}
}

// runLanguages prints one row per language of the registry: its name, the
// extensions that pick it, the grammar module (the one go.mod replaces it
// with, if any: the module the grammar is built from) with the version
// linked into this binary, and last (the longest lists) the exact file
// names that pick it ("-" when none).
func runLanguages(s Streams) error {
	tw := tabwriter.NewWriter(s.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LANGUAGE\tEXTENSIONS\tGRAMMAR\tVERSION\tFILES")
	for _, l := range lang.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", l.Name, joinOrDash(l.Extensions), l.Source(), l.Version(), joinOrDash(l.FileNames))
	}
	if err := tw.Flush(); err != nil {
		return failure(err)
	}
	return nil
}

// joinOrDash joins a column's values with spaces, or says "-" for none.
func joinOrDash(values []string) string {
	if len(values) == 0 {
		return "-"
	}
	return strings.Join(values, " ")
}
