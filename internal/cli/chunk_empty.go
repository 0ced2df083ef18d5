package cli

import (
	"fmt"
	"strings"

	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/stats"
)

// nothingChunked ends a run that wrote no record: an error (exit 1, as rg
// finding nothing), with one line saying why and how to go on, unless
// --allow-empty. In an unattended job an empty output is most often a
// wrong path or a failed checkout, and the diff that follows would empty
// the index. -o FILE is written all the same (empty), so a script can tell.
// With --shard, a shard may hold no file or only files that give no chunk
// while the others hold the rest: only a listing that is empty before
// sharding is an error (merge, then diff's guard, see the whole).
func (r *chunkRun) nothingChunked() error {
	if r.records > 0 || r.cfg.allowEmpty || r.cfg.shard.n > 1 && r.unsharded > 0 {
		return nil
	}
	fmt.Fprintf(r.s.Err, "castchunk: nothing chunked: %s; give --allow-empty if an empty result is expected\n", r.whyEmpty())
	return &exitError{code: ExitFailure}
}

// whyEmpty says why no record was written: nothing was listed (and what
// left the files out), or what became of each file listed.
func (r *chunkRun) whyEmpty() string {
	if r.listed == 0 {
		return r.whyNothingListed()
	}
	rep := r.summary.Report()
	var parts []string
	for _, fate := range []plan.Fate{plan.Unsupported, plan.Generated, plan.Vendored, plan.TooLarge, plan.Binary, plan.Encoding} {
		n := rep.Skipped[fate.String()]
		if fate == plan.Unsupported {
			for _, c := range rep.Unsupported {
				n += c
			}
		}
		if n == 0 {
			continue
		}
		part := fmt.Sprintf("%d %s", n, fate)
		switch fate {
		case plan.Unsupported:
			part += " (" + stats.UnsupportedText(rep.Unsupported) + "; --all-text chunks text with sliding windows)"
		case plan.Generated:
			part += " (--include-generated, with --all-text for those no grammar parses)"
		case plan.Vendored:
			part += " (--include-vendored)"
		case plan.TooLarge:
			part += " (--max-file-size)"
		}
		parts = append(parts, part)
	}
	if m := r.cfg.pipeline.Setup.Method; rep.Empty > 0 && m != nil && m.Partial {
		parts = append(parts, fmt.Sprintf("%d with no chunk: none of the files holds %s (--method %s chunks nothing else)", rep.Empty, m.Picks, m.Name))
	} else if rep.Empty > 0 {
		parts = append(parts, fmt.Sprintf("%d empty", rep.Empty))
	}
	return fmt.Sprintf("none of the %d %s listed gave a chunk: %s", r.listed, plural(r.listed, "file", "files"), strings.Join(parts, ", "))
}

// whyNothingListed says why the listing was empty: no path to chunk, the
// ignore rules (naming the file and line that ignored the most), the
// --include and --exclude globs, or an empty folder.
func (r *chunkRun) whyNothingListed() string {
	cfg := r.cfg
	switch {
	case len(cfg.roots) == 0 && cfg.repos:
		return "the --repos-from list names no repository that can be read"
	case len(cfg.roots) == 0:
		return "the --files-from list names no file"
	}
	where := strings.Join(quoteNames(cfg.roots), ", ")
	if t := cfg.walk.Ignored; t != nil && t.Total() > 0 {
		rule, n := t.Top()
		return fmt.Sprintf("every file under %s is ignored: the line %q of %s ignored %d of the %d entries left out, --no-ignore lists them",
			where, rule.Pattern, quoteName(rule.File), n, t.Total())
	}
	if len(cfg.walk.Include) > 0 || len(cfg.walk.Exclude) > 0 {
		return fmt.Sprintf("no file under %s passes --include and --exclude", where)
	}
	return fmt.Sprintf("there is no file under %s (hidden ones need --hidden)", where)
}

// quoteNames quotes each name as quoteName does.
func quoteNames(names []string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteName(n)
	}
	return q
}
