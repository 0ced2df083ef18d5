package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// runEvalRepos measures each repository of --repos-from in turn, as eval
// measures one: an index of many repositories is shipped with one
// configuration, but whether a configuration is better is a question of
// each repository's code and history, so each gets its report and
// verdict (text: one after the other; --json: one JSON value each, with
// "repo"). A repository that cannot be read or measured is named and the
// others go on; the exit status says the worst (3 unreadable, 1 failed).
func runEvalRepos(cmd *cobra.Command, o *evalOptions, args []string, s Streams) error {
	if len(args) > 0 {
		return usageError("--repos-from lists the repositories: give no PATH")
	}
	sources, missing, err := loadRepos(cmd.Context(), o.reposFrom, s.In)
	if err != nil {
		return err
	}
	var worst error
	for _, m := range missing {
		fmt.Fprintf(s.Err, "castchunk: %s: %s\n", quoteName(m.path), safeText(m.reason))
		worst = &exitError{code: ExitUnreadable}
	}
	for i, src := range sources {
		path := src.rebase.Root() // the repository: several paths of it listed
		if len(src.roots) == 1 {
			path = src.roots[0] // a folder of it listed: eval measures the files under it
		}
		opt, err := o.options(cmd, []string{path})
		if err != nil {
			return err // a flag's mistake is every repository's
		}
		opt.Repo = src.repo
		if i > 0 && !o.json {
			if _, err := fmt.Fprintln(s.Out); err != nil {
				return failure(err)
			}
		}
		err = runEval(cmd.Context(), o, opt, s)
		var ee *exitError
		switch {
		case cmd.Context().Err() != nil:
			return cmd.Context().Err()
		case errors.As(err, &ee) && ee.code == ExitUsage:
			return err
		case err != nil:
			fmt.Fprintf(s.Err, "castchunk: repository %s: %s\n", quoteName(src.repo), safeText(err.Error()))
			if worst == nil {
				worst = &exitError{code: ExitFailure}
			}
		}
	}
	return worst
}
