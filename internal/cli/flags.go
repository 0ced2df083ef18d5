package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/castchunk/castchunk/internal/bytesize"
	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/method"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/tokens"
	"github.com/castchunk/castchunk/internal/walk"
)

// selectionFlags choose the files chunked. chunk and eval declare them
// here, once, so that eval measures the files chunk would ship, under the
// same names, defaults and help.
type selectionFlags struct {
	hidden      bool
	noIgnore    bool
	follow      bool
	include     []string
	exclude     []string
	maxFileSize string
	allText     bool
	generated   bool
	vendored    bool
}

func (s *selectionFlags) register(f *pflag.FlagSet) {
	f.BoolVar(&s.hidden, "hidden", false, "include hidden files and folders (.git is always skipped)")
	f.BoolVar(&s.noIgnore, "no-ignore", false, "do not honour .gitignore, .git/info/exclude or the global excludes file")
	f.BoolVarP(&s.follow, "follow", "L", false, "follow symbolic links")
	f.StringArrayVar(&s.include, "include", nil, "only chunk paths matching `GLOB` (gitignore-like: ** allowed, dir/ for folders; repeatable)")
	f.StringArrayVar(&s.exclude, "exclude", nil, "skip paths matching `GLOB` (gitignore-like: ** allowed, dir/ for folders; repeatable)")
	f.StringVar(&s.maxFileSize, "max-file-size", "10MiB", "skip files larger than `SIZE` (bytes, or with a unit: 512KiB, 64MiB; 0: no limit)")
	f.BoolVar(&s.allText, "all-text", false, "also chunk text files no grammar parses (.txt, .rst, Dockerfile, ...) with sliding windows")
	f.BoolVar(&s.generated, "include-generated", false, "also chunk generated files (lock files, minified bundles, \"DO NOT EDIT\" output)")
	f.BoolVar(&s.vendored, "include-vendored", false, "also chunk vendored files (vendor/, node_modules/, third_party/, ...)")
}

// check turns the flags into how files are chosen by their name and
// bytes (the policy, its Lang left to the caller) and how folders are
// walked.
func (s *selectionFlags) check() (plan.Policy, walk.Options, error) {
	limit, err := bytesize.Parse(s.maxFileSize)
	if err != nil {
		return plan.Policy{}, walk.Options{}, usageError("--max-file-size: %v", err)
	}
	policy := plan.Policy{Text: s.allText, KeepGenerated: s.generated, KeepVendored: s.vendored, MaxFileSize: limit}
	walkOpts := walk.Options{Hidden: s.hidden, NoIgnore: s.noIgnore, Follow: s.follow, Include: s.include, Exclude: s.exclude}
	return policy, walkOpts, nil
}

// chunkingFlags shape the chunks beyond the method and its budget: the
// methods' own options and the token budget. chunk and eval declare them
// here, once.
type chunkingFlags struct {
	methodFlags map[string]*int // every method's own options, by flag name
	tokenizer   tokenizerFlags
	maxTokens   int
}

// minContentTokens is the least room --max-tokens must leave for content
// after a tokenizer.json's special tokens: one character can take four.
const minContentTokens = 4

// tokenizerFlags are --tokenizer and --no-special-tokens, for every
// command that counts tokens (chunk, eval, verify).
type tokenizerFlags struct {
	name       string
	noSpecials bool
}

// tokenizerHelp says what --tokenizer accepts.
var tokenizerHelp = strings.Join(tokens.Names(), ", ") + ", or a Hugging Face tokenizer.json (the file, or a folder holding it): the embedding model's own tokenizer, counted exactly as it counts, its special tokens included"

// register declares the flags; use says what the count is for.
func (t *tokenizerFlags) register(f *pflag.FlagSet, use string) {
	f.StringVar(&t.name, "tokenizer", "", use+" `NAME`: "+tokenizerHelp)
	f.BoolVar(&t.noSpecials, "no-special-tokens", false, "with a tokenizer.json, count without the special tokens its post-processor adds ([CLS] and [SEP], <bos>), for an embedder that feeds the text without them")
}

// tokenizerCompletion completes --tokenizer with the encodings' names and
// with files (a tokenizer.json).
func tokenizerCompletion(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return tokens.Names(), cobra.ShellCompDirectiveDefault
}

// load loads the tokenizer; nil when none was given. A tokenizer.json is
// checked now, or, deferred, once the cache is open (settleTokenizer): a
// cache that saw the same bytes checked spares building its vocabulary in
// this process, which a run whose every file is a hit never needs.
func (t *tokenizerFlags) load(deferred bool) (*tokens.Encoding, error) {
	if t.name == "" {
		if t.noSpecials {
			return nil, usageError("--no-special-tokens needs --tokenizer")
		}
		return nil, nil
	}
	load := tokens.Load
	if deferred {
		load = tokens.LoadDeferred
	}
	e, err := load(t.name)
	if err != nil {
		return nil, usageError("--tokenizer: %v", err)
	}
	if t.noSpecials {
		if !e.Deferred() && e.Specials() == 0 {
			return nil, noSpecialsError(t.name)
		}
		e = e.WithoutSpecials()
	}
	return e, nil
}

func noSpecialsError(name string) error {
	return usageError("--no-special-tokens: --tokenizer %s adds no special tokens", name)
}

func tooFewTokensError(maxTokens int, e *tokens.Encoding) error {
	return usageError("--max-tokens %d leaves too little room: --tokenizer %s adds %d special tokens to every text, and content needs at least %d", maxTokens, e.Name(), e.Specials(), minContentTokens)
}

// settleTokenizer checks a tokenizer.json whose check was deferred
// (tokenizerFlags.load): as a cache that saw the same bytes (and the same
// settings) checked says, else by building it here, and then the flags
// that depend on its special tokens.
func settleTokenizer(opt enrich.Options, c *cache.Cache) error {
	e := opt.Encoding
	if e == nil || !e.Deferred() {
		return nil
	}
	var key cache.Key
	if c != nil {
		key = c.Key("\x00tokenizer.json checked", []byte(e.Sum()))
		if hint, ok := c.Note(key); ok && hint.Method == "tokenizer.json" && len(hint.Spans) == 1 {
			e.Trust(hint.Spans[0].Size)
		}
	}
	if e.Deferred() {
		if err := e.Validate(); err != nil {
			return usageError("--tokenizer: %v", err)
		}
		if c != nil {
			n := e.RawSpecials()
			c.Put(key, cache.Entry{Method: "tokenizer.json", Spans: []chunk.Span{{Start: 0, End: n + 1, Size: n}}})
		}
	}
	if !e.CountsSpecials() && e.RawSpecials() == 0 {
		return noSpecialsError(e.Name())
	}
	if opt.MaxTokens > 0 && opt.MaxTokens-e.Specials() < minContentTokens {
		return tooFewTokensError(opt.MaxTokens, e)
	}
	return nil
}

func (c *chunkingFlags) register(f *pflag.FlagSet) {
	c.methodFlags = map[string]*int{}
	for _, m := range method.All() {
		for _, opt := range m.Options {
			if f.Lookup(opt.Name) == nil {
				c.methodFlags[opt.Name] = f.Int(opt.Name, opt.Default, m.Name+": "+optionUsage(opt.Help))
			}
		}
	}
	c.tokenizer.register(f, "add each chunk's token count for")
	f.IntVar(&c.maxTokens, "max-tokens", 0, "with --tokenizer, at most `N` tokens in a chunk (or in its text), besides --max-size (0: no limit)")
}

// values are the method options given, each checked against the methods
// that will chunk: one no method of them declares is a mistake worth
// saying, naming the method that does.
func (c *chunkingFlags) values(f *pflag.FlagSet, methods []*chunk.Method) (chunk.Values, error) {
	vals := chunk.Values{}
	for _, other := range method.All() {
		for _, opt := range other.Options {
			if !f.Changed(opt.Name) {
				continue
			}
			declared := false
			for _, m := range methods {
				declared = declared || m.Declares(opt.Name)
			}
			if !declared {
				return nil, usageError("--%s needs --method %s", opt.Name, other.Name)
			}
			vals[opt.Name] = *c.methodFlags[opt.Name]
		}
	}
	return vals, nil
}

// tokenBudget checks --tokenizer and --max-tokens into opt; with
// deferred, a tokenizer.json is checked later (settleTokenizer).
func (c *chunkingFlags) tokenBudget(opt *enrich.Options, deferred bool) error {
	opt.MaxTokens = c.maxTokens
	var err error
	if opt.Encoding, err = c.tokenizer.load(deferred); err != nil {
		return err
	}
	switch {
	case c.maxTokens < 0:
		return usageError("--max-tokens must not be negative, got %d", c.maxTokens)
	case c.maxTokens > 0 && opt.Encoding == nil:
		return usageError("--max-tokens needs --tokenizer (%s, or a tokenizer.json): tokens are counted with it", strings.Join(tokens.Names(), ", "))
	case c.maxTokens > 0 && c.maxTokens < minMaxTokens:
		return usageError("--max-tokens must be at least %d (one character can take 4 tokens), got %d", minMaxTokens, c.maxTokens)
	case c.maxTokens > 0 && !opt.Encoding.Deferred() && c.maxTokens-opt.Encoding.Specials() < minContentTokens:
		return tooFewTokensError(c.maxTokens, opt.Encoding)
	}
	return nil
}
