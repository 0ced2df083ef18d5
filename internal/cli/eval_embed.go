package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/castchunk/castchunk/internal/bytesize"
	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/embed"
	"github.com/castchunk/castchunk/internal/eval"
)

// embedFlags are castchunk eval's flags for the dense and hybrid
// retrievers: the user's own embeddings endpoint, and the vector cache.
type embedFlags struct {
	url         string
	model       string
	batch       int
	concurrency int
	timeout     int // seconds per attempt
	retries     int
	cacheDir    string
	cacheMax    string
	noCache     bool
}

func (e *embedFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&e.url, "embedder", "", "an OpenAI-compatible embeddings endpoint, `URL` (http://127.0.0.1:11434/v1 for Ollama): adds the dense and hybrid retrievers; its key, if any, is read from $"+embed.KeyEnv)
	f.StringVar(&e.model, "embed-model", "", "the `NAME` of the endpoint's model (required with --embedder)")
	f.IntVar(&e.batch, "embed-batch", embed.DefaultBatch, "texts per request: `N`")
	f.IntVar(&e.concurrency, "embed-concurrency", embed.DefaultConcurrency, "requests in flight at once: `N`")
	f.IntVar(&e.timeout, "embed-timeout", int(embed.DefaultTimeout.Seconds()), "give up on an attempt of a request after `SECONDS`")
	f.IntVar(&e.retries, "embed-retries", embed.DefaultRetries, "retry a request `N` times on 429, 5xx, a refused or dropped connection or a timeout, with backoff")
	f.StringVar(&e.cacheDir, "cache", os.Getenv(cacheEnv), "keep the vectors in `DIR`, so a second eval sends no request for unchanged chunks (default $"+cacheEnv+", else castchunk's folder in the user's cache folder)")
	f.StringVar(&e.cacheMax, "cache-max-size", "1GiB", "prune the vector cache to `SIZE` after a run that added vectors")
	f.BoolVar(&e.noCache, "no-cache", false, "keep no vectors on disk")
	_ = cmd.RegisterFlagCompletionFunc("cache", dirCompletion)
}

// maxEmbedTimeout bounds --embed-timeout: a day.
const maxEmbedTimeout = 86400

// check checks the flags that need --embedder.
func (e *embedFlags) check(cmd *cobra.Command) error {
	if e.url == "" {
		for _, name := range []string{"embed-model", "embed-batch", "embed-concurrency", "embed-timeout", "embed-retries"} {
			if cmd.Flags().Changed(name) {
				return usageError("--%s needs --embedder", name)
			}
		}
		return nil
	}
	switch {
	case e.model == "":
		return usageError("--embedder needs --embed-model NAME: the endpoint serves a model by its name")
	case e.batch < 1:
		return usageError("--embed-batch must be at least 1, got %d", e.batch)
	case e.concurrency < 1 || e.concurrency > maxJobs:
		return usageError("--embed-concurrency must be between 1 and %d, got %d", maxJobs, e.concurrency)
	case e.timeout < 1 || e.timeout > maxEmbedTimeout:
		return usageError("--embed-timeout must be between 1 and %d seconds, got %d", maxEmbedTimeout, e.timeout)
	case e.retries < 0:
		return usageError("--embed-retries must not be negative, got %d", e.retries)
	}
	if _, err := bytesize.Parse(e.cacheMax); err != nil {
		return usageError("--cache-max-size: %v", err)
	}
	return nil
}

// folder is the vector cache's folder: --cache, else the user's cache
// folder; "" for none.
func (e *embedFlags) folder() string {
	if e.noCache {
		return ""
	}
	if e.cacheDir != "" {
		return e.cacheDir
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "castchunk")
	}
	return ""
}

// client opens the embedder the flags name into opt, telling onRetry of
// each retry and warn of a default cache folder it cannot use; nil
// without --embedder.
func (e *embedFlags) client(opt *eval.Options, onRetry func(err error, wait time.Duration), warn func(msg string)) (*embed.Client, error) {
	if e.url == "" {
		return nil, nil
	}
	maxBytes, _ := bytesize.Parse(e.cacheMax) // checked
	retries := e.retries
	if retries == 0 {
		retries = -1 // embed.Options: 0 is the default, negative none
	}
	dir := e.folder()
	if dir != "" && e.cacheDir != "" {
		if err := notAFolder(dir); err != nil {
			return nil, err
		}
	}
	o := embed.Options{
		URL: e.url, Model: e.model, Key: os.Getenv(embed.KeyEnv),
		Batch: e.batch, Concurrency: e.concurrency, Timeout: time.Duration(e.timeout) * time.Second, Retries: retries,
		CacheDir: dir, CacheMaxBytes: maxBytes, OnRetry: onRetry,
	}
	c, err := embed.New(o)
	if err != nil && errors.Is(err, cache.ErrNotCache) && e.cacheDir == "" {
		// The default folder holds something else: not the user's doing.
		warn(fmt.Sprintf("vector cache %s: %v; going on without it (--cache DIR names another folder, --no-cache keeps none)", quoteName(dir), errors.Unwrap(err)))
		o.CacheDir = ""
		c, err = embed.New(o)
	}
	if err != nil {
		return nil, usageError("%v", err)
	}
	opt.Embed, opt.EmbedURL, opt.EmbedModel = c.Embed, c.Endpoint(), e.model
	return c, nil
}
