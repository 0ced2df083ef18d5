package cli

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagError turns the flag parser's errors into usage errors people can
// act on: a bad value says what the flag takes (not strconv's words), an
// unknown flag comes with the nearest flags of the command.
func flagError(cmd *cobra.Command, err error) error {
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		return usageError("%s", badValue(bad))
	}
	var unknown *pflag.NotExistError
	if errors.As(err, &unknown) && unknown.GetSpecifiedShortnames() == "" {
		e := usageError("%v", err).(*exitError)
		e.hint = didYouMean(nearestFlags(cmd, unknown.GetSpecifiedName()))
		return e
	}
	return &exitError{code: ExitUsage, err: err}
}

// badValue says what a flag takes, for a value it does not.
func badValue(e *pflag.InvalidValueError) string {
	f := e.GetFlag()
	name, value := "--"+f.Name, strconv.Quote(e.GetValue())
	switch f.Value.Type() {
	case "int", "int64", "uint", "uint64":
		if errors.Is(e, strconv.ErrRange) {
			return fmt.Sprintf("%s: %s is out of range", name, value)
		}
		return fmt.Sprintf("%s: %s is not a whole number", name, value)
	case "intSlice":
		return fmt.Sprintf("%s: %s is not a list of whole numbers (1000,2000)", name, value)
	case "duration":
		return fmt.Sprintf("%s: %s is not a duration: give a number and a unit (500ms, 20s, 1m30s)", name, value)
	case "bool":
		return fmt.Sprintf("%s: %s is not true or false", name, value)
	}
	return fmt.Sprintf("%s: invalid value %s: %v", name, value, errors.Unwrap(e))
}

// nearestFlags are the command's flags within an edit distance of 2 of
// the name typed (without its dashes), the nearest first.
func nearestFlags(cmd *cobra.Command, typed string) []string {
	type near struct {
		name string
		d    int
	}
	var found []near
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := editDistance(typed, f.Name); d <= 2 {
			found = append(found, near{"--" + f.Name, d})
		}
	})
	slices.SortFunc(found, func(a, b near) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	names := make([]string, len(found))
	for i, n := range found {
		names[i] = n.name
	}
	return names
}

// didYouMean is the hint line for some suggestions; "" for none.
func didYouMean(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "Did you mean " + names[0] + "?"
	}
	return "Did you mean " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + "?"
}

// commandSuggestions splits cobra's error for an unknown command, whose
// suggestions come after "Did you mean this?" on lines of their own, into
// the error and a hint line.
func commandSuggestions(err error) (msg, hint string) {
	msg = err.Error()
	head, rest, ok := strings.Cut(msg, "\n\nDid you mean this?\n")
	if !ok {
		return msg, ""
	}
	return head, didYouMean(strings.Fields(rest))
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (flag names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
