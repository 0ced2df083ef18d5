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
		Short: "List the supported languages, their file extensions and grammar versions",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return runLanguages(s)
		},
	}
}

func runLanguages(s Streams) error {
	tw := tabwriter.NewWriter(s.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LANGUAGE\tEXTENSIONS\tGRAMMAR\tVERSION")
	for _, l := range lang.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.Name, strings.Join(l.Extensions, " "), l.Module, l.Version())
	}
	if err := tw.Flush(); err != nil {
		return failure(err)
	}
	return nil
}
