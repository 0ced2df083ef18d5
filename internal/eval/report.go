package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Report is an evaluation's result. Its JSON form is deterministic: fields
// in a fixed order, numbers rounded to four decimals, no time or duration.
type Report struct {
	Repo        string       `json:"repo,omitempty"` // the repository's name (eval --repos-from)
	Path        string       `json:"path"`
	Commit      string       `json:"commit,omitempty"`
	Seed        uint64       `json:"seed"`
	Budget      int          `json:"budget"`
	Resamples   int          `json:"resamples"`
	Baseline    string       `json:"baseline"`
	TokenCap    *TokenCap    `json:"token_cap,omitempty"`
	Files       Files        `json:"files"`
	Sources     []Source     `json:"sources"`
	Shallow     *Shallow     `json:"shallow,omitempty"`
	Verdict     Verdict      `json:"verdict"`
	Definitions []Definition `json:"definitions"`
}

// TokenCap is the --max-tokens every chunk was held to, in the tokenizer
// --tokenizer names: the setup measured is the one shipped.
type TokenCap struct {
	Tokens    int    `json:"tokens"`
	Tokenizer string `json:"tokenizer"`
	Specials  int    `json:"special_tokens"` // counted in every chunk's tokens
}

// Shallow is what a shallow clone (git clone --depth N, CI's default
// checkout) cost the git queries: the history ended after Commits
// commits, Missing of those --from-git asked for were not there to read,
// and Fallback completion queries were drawn instead (0: none).
type Shallow struct {
	Commits  int `json:"commits"`
	Missing  int `json:"missing"`
	Fallback int `json:"fallback"`
}

// Hint is the note for people: what was missing and how to fetch it.
func (s *Shallow) Hint() string {
	commits := "commits"
	if s.Commits == 1 {
		commits = "commit"
	}
	msg := fmt.Sprintf("a shallow clone: the history ends after %d %s, so %d of the commits --from-git asks for could not be read; "+
		"fetch them with git fetch --unshallow (GitHub Actions: actions/checkout with fetch-depth: 0)", s.Commits, commits, s.Missing)
	if s.Fallback > 0 {
		msg += fmt.Sprintf("; measuring with --completion %d as well", s.Fallback)
	}
	return msg
}

// Verdict is what the report recommends: the configuration measurably
// better than its baseline with the best intervals, or none.
type Verdict struct {
	Config   *Config `json:"config"` // nil: none is measurably better
	Baseline *Config `json:"baseline"`
	Text     string  `json:"text"`
}

// Files counts the versions of files the queries' indexes hold, chunked
// and skipped (with the first configuration).
type Files struct {
	Versions int      `json:"versions"`
	Chunked  int      `json:"chunked"`
	Skipped  []Reason `json:"skipped"`
}

// Source is the result of one kind of query.
type Source struct {
	Name    string   `json:"name"`
	Metrics []string `json:"metrics"`
	Queries Counts   `json:"queries"`
	Rows    []Row    `json:"rows"`
}

// Row is one configuration's result on one source's queries.
type Row struct {
	Config Config `json:"config"`
	N      int    `json:"n"`
	// Chunks is the mean number of chunks in the queries' indexes.
	Chunks Number `json:"chunks"`
	// Metrics holds each metric's mean and 95% interval, in the source's
	// order.
	Metrics []Estimate `json:"metrics"`
	// Baseline is the configuration compared with; nil when the row is its
	// own baseline. Delta holds the paired differences, row minus
	// baseline.
	Baseline *Config    `json:"baseline"`
	Delta    []Estimate `json:"delta"`
	// Versus holds the paired differences with the verdict's reference
	// (what the user runs now: castchunk's defaults, or --baseline), row
	// minus reference; empty for the reference itself.
	Versus []Estimate `json:"versus_reference"`
}

// Number is a float written with four decimals.
type Number float64

// MarshalJSON writes the number rounded to four decimals.
func (n Number) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(round4(float64(n)), 'f', 4, 64)), nil
}

func round4(f float64) float64 {
	r := math.Round(f*1e4) / 1e4
	if r == 0 {
		r = 0 // no -0
	}
	return r
}

// MarshalJSON writes an estimate as {"mean","lo","hi"} with four decimals.
func (e Estimate) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(`{"mean":%s,"lo":%s,"hi":%s}`, num(e.Mean), num(e.Lo), num(e.Hi))), nil
}

func num(f float64) string { return strconv.FormatFloat(round4(f), 'f', 4, 64) }

// Definition is one rule of the measurement, as every report prints it.
type Definition struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// metricNames are each source's metrics, in the order of scores.values.
var metricNames = map[string][]string{
	SourceGit:        {"LineRecall", "FileHit"},
	SourceCompletion: {"AnsLine", "IdRecall"},
}

// report gathers the configurations' scores into a report.
func report(opt *Options, p *queryPlan, configs []Config, results []*scores) *Report {
	if opt.Reference == (Config{}) {
		opt.Reference, opt.ReferenceName = Defaults(), "castchunk's defaults"
	}
	rep := &Report{
		Repo: opt.Repo, Path: opt.Path, Commit: p.commit, Seed: opt.Seed, Budget: opt.Budget, Resamples: opt.Resamples,
		Baseline:    baselineName(opt.Baseline),
		Definitions: definitions(opt, configs),
		Files:       Files{Versions: len(p.entries)},
	}
	if opt.MaxTokens > 0 && opt.Encoding != nil {
		rep.TokenCap = &TokenCap{Tokens: opt.MaxTokens, Tokenizer: opt.Encoding.Name(), Specials: opt.Encoding.Specials()}
	}
	if len(results) > 0 {
		rep.Files.Chunked = results[0].chunked
		for reason, n := range results[0].skipped {
			rep.Files.Skipped = append(rep.Files.Skipped, Reason{Reason: reason, Count: n})
		}
		slices.SortFunc(rep.Files.Skipped, func(a, b Reason) int { return strings.Compare(a.Reason, b.Reason) })
	}
	for _, name := range []string{SourceGit, SourceCompletion} {
		counts, ok := p.counts[name]
		if !ok {
			continue
		}
		src := Source{Name: name, Metrics: metricNames[name], Queries: *counts}
		if src.Queries.Skipped == nil {
			src.Queries.Skipped = []Reason{}
		}
		var idx []int
		for i, q := range p.queries {
			if q.Source == name {
				idx = append(idx, i)
			}
		}
		column := func(r *scores, k int) []float64 {
			v := make([]float64, len(idx))
			for j, i := range idx {
				v[j] = r.values[i][k]
			}
			return v
		}
		for ci, c := range configs {
			row := Row{Config: c, N: len(idx), Metrics: []Estimate{}, Delta: []Estimate{}, Versus: []Estimate{}}
			ri := slices.Index(configs, opt.Reference)
			live := 0
			for _, i := range idx {
				live += results[ci].live[i]
			}
			if len(idx) > 0 {
				row.Chunks = Number(float64(live) / float64(len(idx)))
			}
			base := opt.Baseline.of(c)
			bi := slices.Index(configs, base)
			if base != c && bi >= 0 {
				row.Baseline = &configs[bi]
			}
			for k := range metricNames[name] {
				v := column(results[ci], k)
				row.Metrics = append(row.Metrics, bootstrap(v, nil, opt.Seed, name, opt.Resamples))
				if row.Baseline != nil {
					row.Delta = append(row.Delta, bootstrap(v, column(results[bi], k), opt.Seed, name, opt.Resamples))
				}
				if ri >= 0 && ri != ci {
					row.Versus = append(row.Versus, bootstrap(v, column(results[ri], k), opt.Seed, name, opt.Resamples))
				}
			}
			src.Rows = append(src.Rows, row)
		}
		rep.Sources = append(rep.Sources, src)
	}
	if rep.Sources == nil {
		rep.Sources = []Source{}
	}
	rep.Verdict = verdict(rep, configs, opt.Reference, opt.ReferenceName)
	if rep.Files.Skipped == nil {
		rep.Files.Skipped = []Reason{}
	}
	return rep
}

// verdict names the configuration to ship: among all measured, those
// measurably better than the reference (what the user runs now,
// castchunk's defaults or --baseline): on some metric of some source the
// paired difference's interval lies above 0, and on none below 0. Of
// these it takes the one whose intervals' lower ends sum highest (the most
// the queries support), the first in the report's order on a tie; with
// none, it says plainly that nothing beats the reference.
func verdict(rep *Report, configs []Config, ref Config, refName string) Verdict {
	if refName == "" {
		refName = "the reference"
	}
	best, bestSum := -1, 0.0
	var bestWins []string
	for ci, c := range configs {
		if c == ref {
			continue
		}
		sum, better, worse := 0.0, false, false
		var wins []string
		for _, src := range rep.Sources {
			if src.Queries.Kept == 0 || ci >= len(src.Rows) {
				continue
			}
			for k, d := range src.Rows[ci].Versus {
				lo, hi := round4(d.Lo), round4(d.Hi)
				sum += lo
				if lo > 0 {
					better = true
					wins = append(wins, fmt.Sprintf("%s %s %s [%s, %s]", src.Name, src.Metrics[k], signed(d.Mean), signed(d.Lo), signed(d.Hi)))
				}
				if hi < 0 {
					worse = true
				}
			}
		}
		if better && !worse && (best < 0 || sum > bestSum) {
			best, bestSum, bestWins = ci, sum, wins
		}
	}
	measured := slices.ContainsFunc(rep.Sources, func(s Source) bool { return s.Queries.Kept > 0 })
	if !measured {
		return Verdict{Text: "nothing was measured: no query was kept"}
	}
	r := ref
	if best < 0 {
		return Verdict{Baseline: &r, Text: fmt.Sprintf("nothing is measurably better than %s (%s) here: keep %s", refName, ref, keepWhat(refName))}
	}
	c := configs[best]
	return Verdict{Config: &c, Baseline: &r,
		Text: fmt.Sprintf("use %s: better than %s (%s) on %s, and worse on none", c, refName, ref, strings.Join(bestWins, "; "))}
}

// keepWhat is what the verdict tells the user to keep when nothing beats
// the reference.
func keepWhat(refName string) string {
	if strings.HasSuffix(refName, "defaults") {
		return "them"
	}
	return "it"
}

func baselineName(b Baseline) string {
	s := b.Method
	if b.MaxSize > 0 {
		s += fmt.Sprintf(" %d", b.MaxSize)
	} else {
		s += " at the same size"
	}
	switch {
	case b.Context == nil:
		s += ", same context"
	case *b.Context:
		s += ", context on"
		if b.Header != "" {
			s += ":" + string(b.Header)
		}
	default:
		s += ", context off"
	}
	if b.Retriever != "" {
		s += ", " + b.Retriever
	}
	return s
}

// WriteJSON writes the report as one JSON document and a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteText writes the report as tables for people, then the
// definitions.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	at := r.Path
	if r.Repo != "" {
		at = "repository " + r.Repo + " (" + r.Path + ")"
	}
	if r.Commit != "" {
		at += " at " + r.Commit[:min(12, len(r.Commit))]
	}
	fmt.Fprintf(&b, "castchunk eval: %s\n", at)
	fmt.Fprintf(&b, "context budget %d non-whitespace characters; seed %d; %d bootstrap resamples; baseline: %s\n",
		r.Budget, r.Seed, r.Resamples, r.Baseline)
	if c := r.TokenCap; c != nil {
		fmt.Fprintf(&b, "every chunk within --max-tokens %d of --tokenizer %s (its %d special tokens counted)\n", c.Tokens, c.Tokenizer, c.Specials)
	}
	fmt.Fprintf(&b, "files: %d versions indexed, %d chunked", r.Files.Versions, r.Files.Chunked)
	for _, s := range r.Files.Skipped {
		fmt.Fprintf(&b, ", %d %s", s.Count, s.Reason)
	}
	b.WriteString("\n")
	for _, s := range r.Sources {
		b.WriteString("\n")
		q := s.Queries
		switch s.Name {
		case SourceGit:
			fmt.Fprintf(&b, "git history: %d queries kept of %d commits read (--from-git %d)", q.Kept, q.Candidates, q.Asked)
		case SourceCompletion:
			fmt.Fprintf(&b, "completion: %d queries drawn from %d functions (--completion %d)", q.Kept, q.Candidates, q.Asked)
		}
		for i, k := range q.Skipped {
			sep := "; skipped: "
			if i > 0 {
				sep = ", "
			}
			fmt.Fprintf(&b, "%s%d %s", sep, k.Count, k.Reason)
		}
		b.WriteString("\n")
		if q.Kept == 0 {
			continue
		}
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		head := "method\tsize\tcontext\tretriever\tn\tchunks"
		for _, m := range s.Metrics {
			head += "\t" + m
		}
		for _, m := range s.Metrics {
			head += "\tΔ" + m
		}
		fmt.Fprintln(tw, head)
		for _, row := range s.Rows {
			ctx := row.Config.contextName()
			line := fmt.Sprintf("%s\t%d\t%s\t%s\t%d\t%.0f", row.Config.Method, row.Config.MaxSize, ctx, row.Config.Retriever, row.N, float64(row.Chunks))
			for _, e := range row.Metrics {
				line += fmt.Sprintf("\t%.3f [%.3f, %.3f]", round4(e.Mean), round4(e.Lo), round4(e.Hi))
			}
			if row.Baseline == nil {
				line += "\t(baseline)"
			} else {
				for _, e := range row.Delta {
					line += fmt.Sprintf("\t%s [%s, %s]", signed(e.Mean), signed(e.Lo), signed(e.Hi))
				}
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
	}
	b.WriteString("\n" + wrap("verdict: "+r.Verdict.Text, "  ", 100))
	if len(r.Definitions) == 0 {
		// The short form: the definitions are behind a flag (the JSON
		// report and docs/retrieval.md always hold them).
		b.WriteString("\nDefinitions: castchunk eval --definitions prints them (and --json holds them)\n")
	} else {
		b.WriteString("\nDefinitions:\n")
		for _, d := range r.Definitions {
			b.WriteString(wrap(d.Name+": "+d.Text, "  ", 100))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func signed(f float64) string {
	s := strconv.FormatFloat(round4(f), 'f', 3, 64)
	if s == "-0.000" {
		s = "0.000"
	}
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// wrap breaks text into lines of at most width characters, every line but
// the first starting with indent.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent + w
			continue
		}
		if line == "" || line == indent {
			line += w
		} else {
			line += " " + w
		}
	}
	if line != "" {
		b.WriteString(line + "\n")
	}
	return b.String()
}

// definitions are the rules of the measurement, with this run's values,
// for the configurations measured.
func definitions(opt *Options, configs []Config) []Definition {
	var ds []Definition
	for _, d := range allDefinitions(opt) {
		if d.Name == "Git queries" || d.Name == "LineRecall" || d.Name == "FileHit" {
			if opt.FromGit == 0 {
				continue
			}
		}
		if d.Name == "Completion queries" || d.Name == "AnsLine" || d.Name == "IdRecall" {
			if opt.Completion == 0 {
				continue
			}
		}
		if (d.Name == "Dense" || d.Name == "Hybrid") && !slices.ContainsFunc(configs, func(c Config) bool { return needsVectors(c.Retriever) }) {
			continue
		}
		ds = append(ds, d)
	}
	return ds
}

func embedderName(opt *Options) string {
	if opt.EmbedURL == "" {
		return "given"
	}
	return opt.EmbedURL
}

func modelName(opt *Options) string {
	if opt.EmbedModel == "" {
		return "unnamed"
	}
	return opt.EmbedModel
}

func allDefinitions(opt *Options) []Definition {
	return []Definition{
		{"Tokens", "identifier runs (letters, digits, underscores) split into sub-words at underscores and case changes " +
			"(parseHTTPRequest: parse, http, request; utf8Decode: utf8, decode), lowercased; everything else separates tokens."},
		{"Index", "one index per configuration over the chunks castchunk chunk writes for the query's tree: each chunk's " +
			"content, or with context on (--context --embed-text) its text, the header (--embed-header: by default path, scope) then the content."},
		{"BM25", fmt.Sprintf("k1=%.1f, b=%.2f; score = sum over the query's tokens, repeats included, of idf*tf*(k1+1)/(tf+k1*(1-b+b*len/avglen)), "+
			"idf = ln(1+(N-df+0.5)/(df+0.5)), N, df and avglen over the chunks of the query's tree; ties go to the earlier path, then the earlier chunk.", K1, B)},
		{"Dense", fmt.Sprintf("the embedder %s (model %s) embeds each chunk's indexed text and each query's text; vectors scaled to unit length; "+
			"the live chunks ranked by cosine similarity to the query, exactly (every chunk scored); ties go to the earlier path, then the earlier chunk.",
			embedderName(opt), modelName(opt))},
		{"Hybrid", fmt.Sprintf("reciprocal rank fusion of BM25 and Dense: a chunk's score is the sum, over the two rankings whose best %d hold it, "+
			"of 1/(%d + its rank there), ranks from 1; ties go to the earlier path, then the earlier chunk.", rrfDepth, RRFK)},
		{"Verdict", "the configuration to ship: measured against what you run now (castchunk's defaults, cast 2000 context off bm25, or --baseline " +
			"filled in from them), it is measurably better: on some metric the paired difference's 95% interval lies above 0 " +
			"and on none below 0; of several, the one whose intervals' lower ends sum highest; with none, keep what you run. With many configurations one may pass by chance: " +
			"re-run with another --seed or more queries before changing course."},
		{"Context", fmt.Sprintf("chunks in rank order while they fit in %d non-whitespace characters (headers included); "+
			"the first that does not fit is cut to its leading whole lines that fit, and the context ends there.", opt.Budget)},
		{"Git queries", fmt.Sprintf("the last %d non-merge commits that change an indexed file, newest first from the commit evaluated; "+
			"query: the commit message, trailers (Signed-off-by: ...) dropped; index: the parent commit's tree, read from git; "+
			"gold: the parent's lines the commit removes or changes, and for a hunk that only adds lines, the parent line it follows (line 1 at the top); "+
			"skipped: root commits, messages under %d words, commits changing more than %d indexed files, commits with no gold line in a chunked file.",
			opt.FromGit, opt.MinWords, opt.MaxFiles)},
		{"LineRecall", "the share of the gold lines that lie in the context's content (a chunk cut short covers the lines it keeps; a chunk of several pieces, the lines of its pieces, not those between them)."},
		{"FileHit", "1 when some content of a gold file is in the context, else 0."},
		{"Completion queries", fmt.Sprintf("%d functions, methods and constructors (the definitions castchunk --context finds) drawn at random "+
			"(seeded) from the tree of the commit evaluated, among those whose body has %d non-blank lines or more, one of them non-trivial; "+
			"gold: the body's lines, from the first line that holds nothing before the body to its last line; query: the %d non-blank lines above "+
			"the gold (the whole signature when longer); the function's file is indexed only up to the line the function starts on.",
			opt.Completion, minBody, maxQueryLine)},
		{"AnsLine", fmt.Sprintf("the share of the gold's non-trivial lines (at least %d non-whitespace characters, one a letter) that the context "+
			"holds as a whole line, white space at both ends ignored.", minLine)},
		{"IdRecall", "the share of the gold's distinct identifiers (identifier runs of 2 or more characters not starting with a digit, case-sensitive) " +
			"that the context holds as identifiers."},
		{"Files", "the commit's tracked regular files under PATH (a plain folder: the files castchunk chunk lists) with a grammar by name, " +
			"not hidden, not vendored; generated, binary, non-UTF-8 and too large files skipped as castchunk chunk skips them; " +
			"chunk's selection flags (--include, --exclude, --hidden, --all-text, ...) change this as they change what chunk writes."},
		{"Statistics", fmt.Sprintf("mean over queries; 95%% interval: the 2.5th and 97.5th percentiles of the means of %d resamples of the queries "+
			"with replacement (SplitMix64 seeded by --seed %d); Δ: the paired difference with the baseline, on the same resamples; chunks: the mean "+
			"number of chunks in the queries' indexes.", opt.Resamples, opt.Seed)},
	}
}
