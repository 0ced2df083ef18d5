// The report castfuzz prints at the end of a campaign (on stdout, and
// into -out/report.txt): what ran, for how long, with which seed, how many
// inputs each language got and how many reached its grammar, the stops,
// the anomalies, the fallbacks per language and reason class, and the
// fallback files kept, smallest first within a language.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// report writes the report of a campaign that ran for elapsed.
func (f *findings) report(command string, elapsed time.Duration, batchSize int, interrupted bool) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "castfuzz report\n\n")
	fmt.Fprintf(&b, "command:   %s\n", command)
	fmt.Fprintf(&b, "duration:  %v", elapsed.Round(time.Second))
	if interrupted {
		fmt.Fprintf(&b, " (interrupted)")
	}
	fmt.Fprintf(&b, "\nseed:      %d (-seed %d makes the same inputs again, batch by batch)\n", f.seed, f.seed)
	total, reached := 0, 0
	for _, ls := range f.langs {
		total += ls.inputs
		reached += ls.reached
	}
	fmt.Fprintf(&b, "batches:   %d of up to %d inputs, %d languages\n", f.batches, batchSize, len(f.order))
	fmt.Fprintf(&b, "inputs:    %d (%d reached a grammar: the rest were left out before parsing, as not UTF-8 or binary)\n", total, reached)
	fmt.Fprintf(&b, "stops:     %d (should be 0)\n", len(f.stops))
	fmt.Fprintf(&b, "anomalies: %d\n", len(f.anomalies))
	nfb := 0
	for _, ls := range f.langs {
		for _, n := range ls.fallbacks {
			nfb += n
		}
	}
	fmt.Fprintf(&b, "fallbacks: %d (%d saved; at most %d are saved per language and reason)\n\n", nfb, len(f.fallbacks), maxSaved)

	fmt.Fprintf(&b, "Inputs and fallbacks per language\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "language\tbatches\tinputs\treached\tleft out\tfallbacks\treasons\n")
	for _, name := range f.order {
		ls := f.langs[name]
		n := 0
		for _, c := range ls.fallbacks {
			n += c
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%d\t%s\n", name, ls.batches, ls.inputs, ls.reached, counts(ls.skipped), n, counts(ls.fallbacks))
	}
	tw.Flush()

	fmt.Fprintf(&b, "\nStops (the run stopped, hung, blew up or lost an input): %d\n", len(f.stops))
	for _, s := range f.stops {
		fmt.Fprintf(&b, "  batch %d (%s): %s\n    %s\n", s.batch, s.lang, s.dir, strings.Join(s.reasons, "\n    "))
	}
	fmt.Fprintf(&b, "\nAnomalies (exit status, manifest and records disagree): %d\n", len(f.anomalies))
	for _, s := range f.anomalies {
		fmt.Fprintf(&b, "  batch %d (%s): %s\n    %s\n", s.batch, s.lang, s.dir, strings.Join(s.reasons, "\n    "))
	}

	fmt.Fprintf(&b, "\nFallback files (smallest first per language)\n")
	list := append([]savedFallback(nil), f.fallbacks...)
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].lang != list[j].lang {
			return list[i].lang < list[j].lang
		}
		return list[i].size < list[j].size
	})
	if len(list) == 0 {
		fmt.Fprintf(&b, "  none\n")
	}
	for _, s := range list {
		fmt.Fprintf(&b, "  %-12s %7d bytes  %-48s %s\n", s.lang, s.size, s.class, s.path)
	}
	if f.unsaved > 0 {
		fmt.Fprintf(&b, "  (%d more counted, not saved)\n", f.unsaved)
	}
	slow := f.slowest()
	fmt.Fprintf(&b, "\nSlow inputs (%v of CPU time or more alone, under the deadline; slowest first): %d\n", slowInput, len(slow))
	for _, s := range slow {
		perKiB := float64(s.cpu.Milliseconds()) / max(1, float64(s.size)/1024)
		fmt.Fprintf(&b, "  %-12s %6.2fs CPU %7d bytes %8.1f ms/KiB  %s\n", s.lang, s.cpu.Seconds(), s.size, perKiB, s.path)
	}
	text := b.String()
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return text, err
	}
	return text, os.WriteFile(filepath.Join(f.out, "report.txt"), []byte(text), 0o644)
}

// counts says a tally as "a 3, b 1", largest first; "-" when empty.
func counts(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
