package pipeline_test

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/chunk"
	"github.com/castchunk/castchunk/internal/enrich"
	"github.com/castchunk/castchunk/internal/lang"
	"github.com/castchunk/castchunk/internal/pipeline"
	"github.com/castchunk/castchunk/internal/plan"
	"github.com/castchunk/castchunk/internal/record"
	"github.com/castchunk/castchunk/internal/tokens"
)

// everyFlag is --context --embed-text --tokenizer cl100k_base --max-tokens
// N: what the README's embedding recipe asks for.
func everyFlag(t *testing.T, maxTokens int) enrich.Options {
	t.Helper()
	enc, err := tokens.Load("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	return enrich.Options{Context: true, Encoding: enc, MaxTokens: maxTokens, Text: true}
}

// enriched is a result with its records encoded with every optional field
// the run computed.
type enriched struct {
	pipeline.Result
	Records []byte
}

// runEnriched runs the pipeline and encodes each file's records with the
// schema of cfg.Enrich, as castchunk chunk writes them.
func runEnriched(t *testing.T, jobs []pipeline.Job, cfg pipeline.Config) []enriched {
	t.Helper()
	var optional []string
	for _, f := range record.All().Fields() {
		switch {
		case f.Name == "scope" || f.Name == "defines":
			if cfg.Enrich.Context {
				optional = append(optional, f.Name)
			}
		case f.Name == "tokens":
			if cfg.Enrich.Encoding != nil {
				optional = append(optional, f.Name)
			}
		case f.Name == "text":
			if cfg.Enrich.Text {
				optional = append(optional, f.Name)
			}
		}
	}
	schema, err := record.Select(optional...)
	if err != nil {
		t.Fatal(err)
	}
	enc := record.Encoder{Schema: schema}
	var out []enriched
	err = pipeline.Run(context.Background(), jobs, cfg, func(r *pipeline.Result) error {
		e := enriched{Result: *r}
		e.Src = nil
		if r.Outcome == plan.Chunked {
			f := record.File{Path: r.Job.Path, Language: r.Language, Method: r.Method.Name, Src: r.Src, Extras: r.Extras}
			var err error
			if e.Records, err = enc.AppendFile(nil, f, r.Spans); err != nil {
				t.Errorf("%s: encode: %v", r.Job.Path, err)
			}
		} else if r.Outcome == plan.Failed {
			t.Errorf("%s: %s", r.Job.Path, r.Message)
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return out
}

// corpusJobs are the jobs of testdata/corpus: every language castchunk has a
// sample of, and the edge cases (BOM, CRLF, an empty file, syntax errors).
func corpusJobs(t *testing.T) []pipeline.Job {
	t.Helper()
	dir, err := filepath.Abs("../../testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	var jobs []pipeline.Job
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name, _ := filepath.Rel(dir, p)
		name = filepath.ToSlash(name)
		if lang.ForPath(name) != nil {
			jobs = append(jobs, job(dir, name))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) < 20 {
		t.Fatalf("only %d files in %s", len(jobs), dir)
	}
	return jobs
}

// TestCacheEveryFlagHitDoesNoWork: with every embedding flag, a warm run's
// records are byte for byte those of a run without the cache, and a hit
// neither parses the file nor runs package enrich (definitions, tokens):
// the cache holds the spans after the token refit and what enrich added
// to each. Before, a hit parsed and tokenized the file again, and a warm
// run was slower than a cold one.
func TestCacheEveryFlagHitDoesNoWork(t *testing.T) {
	jobs := corpusJobs(t)
	c, err := cache.Open(t.TempDir(), "every flag")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cfg := config(2, 400)
	cfg.Enrich = everyFlag(t, 90) // small budgets: the refit splits chunks
	plain := runEnriched(t, jobs, cfg)
	cfg.Cache = c
	cold := runEnriched(t, jobs, cfg)
	warm := runEnriched(t, jobs, cfg)
	syntaxErrors, parsed := 0, 0
	for i, p := range plain {
		path := p.Job.Path
		if p.Outcome != plan.Chunked {
			t.Fatalf("%s: %v %s", path, p.Outcome, p.Message)
		}
		if !bytes.Equal(cold[i].Records, p.Records) || !bytes.Equal(warm[i].Records, p.Records) {
			t.Errorf("%s: records of the cold run equal %v, of the warm run %v, to an uncached run's", path,
				bytes.Equal(cold[i].Records, p.Records), bytes.Equal(warm[i].Records, p.Records))
		}
		if cold[i].Cached || !cold[i].Parsed || !cold[i].Enriched {
			t.Errorf("%s, cold: cached %v, parsed %v, enriched %v", path, cold[i].Cached, cold[i].Parsed, cold[i].Enriched)
		}
		if w := warm[i]; !w.Cached || w.Parsed || w.Enriched || w.CacheErr != nil {
			t.Errorf("%s, warm: cached %v, parsed %v, enriched %v (cache error %v); want a hit with no work", path, w.Cached, w.Parsed, w.Enriched, w.CacheErr)
		}
		if warm[i].HasSyntaxErrors != p.HasSyntaxErrors || warm[i].Method != p.Method {
			t.Errorf("%s, warm: syntax errors %v, method %s; uncached %v, %s", path, warm[i].HasSyntaxErrors, warm[i].Method.Name, p.HasSyntaxErrors, p.Method.Name)
		}
		if p.HasSyntaxErrors {
			syntaxErrors++
		}
		if p.Parsed {
			parsed++
		}
	}
	// A parse that cannot finish shows the same: a hit that parsed would
	// lose its scope (the defines' parse fails quietly) or fall back.
	cfg.ParseTimeout = time.Nanosecond
	for i, w := range runEnriched(t, jobs, cfg) {
		if !w.Cached || !bytes.Equal(w.Records, plain[i].Records) || w.Message != "" {
			t.Errorf("%s, warm with a 1ns parse timeout: cached %v, records as uncached %v, message %q", w.Job.Path, w.Cached, bytes.Equal(w.Records, plain[i].Records), w.Message)
		}
	}
	if syntaxErrors == 0 || parsed == 0 {
		t.Errorf("the corpus tests too little: %d files with syntax errors, %d parsed", syntaxErrors, parsed)
	}
	if !bytes.Contains(plain[0].Records, []byte(`"text":"`)) || !bytes.Contains(plain[0].Records, []byte(`"tokens":`)) {
		t.Errorf("records without the optional fields: %.300s", plain[0].Records)
	}
}

// TestCacheEveryFlagSliding: the same with overlapping sliding windows,
// whose pieces the refit puts back in order.
func TestCacheEveryFlagSliding(t *testing.T) {
	_, jobs := setup(t, []file{{"o.py", pythonFile(60, 5)}, {"e.py", ""}, {"A.java", "class A {\n    void f() {\n        int x = 1;\n    }\n}\n"}})
	c, err := cache.Open(t.TempDir(), "sliding every flag")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cfg := slidingConfig(1, 200, chunk.Values{"overlap-lines": 2})
	cfg.Enrich = everyFlag(t, 40)
	plain := runEnriched(t, jobs, cfg)
	cfg.Cache = c
	runEnriched(t, jobs, cfg)
	for i, w := range runEnriched(t, jobs, cfg) {
		if !w.Cached || w.Parsed || w.Enriched || !bytes.Equal(w.Records, plain[i].Records) {
			t.Errorf("%s, warm: cached %v, parsed %v, enriched %v, records equal %v", w.Job.Path, w.Cached, w.Parsed, w.Enriched, bytes.Equal(w.Records, plain[i].Records))
		}
	}
}

// TestCacheNeverStoresAFailedParseForDefinitions: with a method that needs
// no tree, --context still parses the file for its definitions; when that
// parse times out the chunks have no scope, and that result is not stored
// (a timeout depends on the machine's load, not on the file).
func TestCacheNeverStoresAFailedParseForDefinitions(t *testing.T) {
	_, jobs := setup(t, []file{{"slow.py", pythonFile(400, 3)}})
	c, err := cache.Open(t.TempDir(), "salt")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cfg := slidingConfig(1, 300, nil)
	cfg.Enrich = enrich.Options{Context: true}
	want := runEnriched(t, jobs, cfg)[0]
	cfg.Cache = c
	cfg.ParseTimeout = time.Nanosecond
	if r := runEnriched(t, jobs, cfg)[0]; r.Cached || bytes.Equal(r.Records, want.Records) {
		t.Fatalf("with a 1ns timeout: cached %v, records with their scope %v", r.Cached, bytes.Equal(r.Records, want.Records))
	}
	cfg.ParseTimeout = 0
	if r := runEnriched(t, jobs, cfg)[0]; r.Cached || !bytes.Equal(r.Records, want.Records) {
		t.Errorf("after a timed-out parse: cached %v, records right %v; want them computed again", r.Cached, bytes.Equal(r.Records, want.Records))
	}
	if r := runEnriched(t, jobs, cfg)[0]; !r.Cached || !bytes.Equal(r.Records, want.Records) {
		t.Errorf("third run: cached %v, records right %v", r.Cached, bytes.Equal(r.Records, want.Records))
	}
}

// TestCacheEntryWithWrongExtras: an entry whose checksum holds (Put
// computes it: a forge, or a bug) but whose extras are wrong for the
// file, the path or the options is removed and recomputed, where telling
// needs neither a parse nor a tokenizer (enrich.Options.Check). A token
// count that is wrong but plausible is not caught: counts are trusted under
// the checksum, and the last case pins that limit.
func TestCacheEntryWithWrongExtras(t *testing.T) {
	content := "class App:\n" + strings.Repeat("    def handle(self, req):\n        x = [req * 2 for req in range(10)]\n        return sum(x)\n\n", 6)
	_, jobs := setup(t, []file{{"app.py", content}})
	c, err := cache.Open(t.TempDir(), "salt")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cfg := config(1, 200)
	cfg.Enrich = everyFlag(t, 60)
	plain := runEnriched(t, jobs, cfg)[0]
	cfg.Cache = c
	runEnriched(t, jobs, cfg) // stores the right entry
	key := c.Key("python\x00app.py", []byte(content))
	right, ok := c.Get(key)
	if !ok || len(right.Spans) < 3 || len(right.Extras) != len(right.Spans) || len(right.Extras[1].Scope) == 0 {
		t.Fatalf("no entry with extras stored: %v %+v", ok, right)
	}
	last := len(right.Spans) - 1
	lies := map[string]func(e *cache.Entry){
		"tokens over --max-tokens": func(e *cache.Entry) { e.Extras[0].Tokens = 61 },
		"no tokens":                func(e *cache.Entry) { e.Extras[0].Tokens = 0 },
		"more tokens than bytes":   func(e *cache.Entry) { e.Extras[last].Tokens = 10000 },
		"header of another path":   func(e *cache.Entry) { e.Extras[0].Header = "other.py\n" },
		"header not the scope's":   func(e *cache.Entry) { e.Extras[1].Header = "app.py\n" },
		"scope not the header's":   func(e *cache.Entry) { e.Extras[1].Scope = nil },
		"header over the budget": func(e *cache.Entry) {
			e.Extras[1].Scope = []record.Def{{Kind: "class", Name: strings.Repeat("N", 200), Line: 1}}
			e.Extras[1].Header = "app.py\nclass " + strings.Repeat("N", 200) + "\n"
		},
		"an extra missing": func(e *cache.Entry) { e.Extras = e.Extras[:last] },
		"no extras":        func(e *cache.Entry) { e.Extras = nil },
		"defines after the chunk": func(e *cache.Entry) {
			e.Extras[0].Defines = append(slices.Clone(e.Extras[0].Defines), record.Def{Kind: "method", Name: "late", Line: 1000})
		},
		"scope of an unknown kind": func(e *cache.Entry) {
			e.Extras[1].Scope = []record.Def{{Kind: "klass", Name: "App", Line: 1}}
			e.Extras[1].Header = "app.py\nklass App\n"
		},
	}
	for name, lie := range lies {
		bad := forge(right, lie)
		if err := c.Put(key, bad); err != nil {
			t.Fatal(err)
		}
		r := runEnriched(t, jobs, cfg)[0]
		if r.Cached || !bytes.Equal(r.Records, plain.Records) {
			t.Errorf("%s: cached %v, same records as uncached %v", name, r.Cached, bytes.Equal(r.Records, plain.Records))
		}
		if again := runEnriched(t, jobs, cfg)[0]; !again.Cached || !bytes.Equal(again.Records, plain.Records) {
			t.Errorf("%s: the entry was not replaced by the right one", name)
		}
	}

	// Documented: a count that is wrong but possible is trusted.
	bad := forge(right, func(e *cache.Entry) { e.Extras[0].Tokens-- })
	if err := c.Put(key, bad); err != nil {
		t.Fatal(err)
	}
	r := runEnriched(t, jobs, cfg)[0]
	if !r.Cached || bytes.Equal(r.Records, plain.Records) {
		t.Errorf("a plausible token count: cached %v, records as uncached %v; the README says it is trusted under the checksum", r.Cached, bytes.Equal(r.Records, plain.Records))
	}
}

// forge returns a deep copy of e changed by lie.
func forge(e cache.Entry, lie func(*cache.Entry)) cache.Entry {
	bad := cache.Entry{Method: e.Method, Syntax: e.Syntax, Spans: slices.Clone(e.Spans), Extras: slices.Clone(e.Extras)}
	for i := range bad.Extras {
		bad.Extras[i].Scope = slices.Clone(bad.Extras[i].Scope)
		bad.Extras[i].Defines = slices.Clone(bad.Extras[i].Defines)
	}
	lie(&bad)
	return bad
}

// TestCacheEntryOfOtherOptions: entries stored without extras are not
// used by a run that asks for them, and the reverse, even under one salt
// (the cache key separates them too: see the cli's cacheSalt).
func TestCacheEntryOfOtherOptions(t *testing.T) {
	_, jobs := setup(t, []file{{"a.py", pythonFile(20, 1)}})
	c, err := cache.Open(t.TempDir(), "one salt for both")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bare, rich := config(1, 300), config(1, 300)
	rich.Enrich = enrich.Options{Context: true}
	wantBare, wantRich := runEnriched(t, jobs, bare)[0], runEnriched(t, jobs, rich)[0]
	bare.Cache, rich.Cache = c, c
	runEnriched(t, jobs, bare)
	if r := runEnriched(t, jobs, rich)[0]; r.Cached || !bytes.Equal(r.Records, wantRich.Records) {
		t.Errorf("--context over an entry without extras: cached %v, records right %v", r.Cached, bytes.Equal(r.Records, wantRich.Records))
	}
	if r := runEnriched(t, jobs, bare)[0]; r.Cached || !bytes.Equal(r.Records, wantBare.Records) {
		t.Errorf("no flag over an entry with extras: cached %v, records right %v", r.Cached, bytes.Equal(r.Records, wantBare.Records))
	}
}
