package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/pipeline"
)

// cacheEnv names the cache directory when --cache is not given, so CI can
// turn the cache on for every run.
const cacheEnv = "CASTCHUNK_CACHE"

// openCache opens the cache when one is asked for. A path that can never
// be a cache (a folder of other files, a regular file) is a usage error;
// a cache that cannot be opened now (a read-only or full file system, a
// database locked or broken beyond repair) is worth one warning, and the
// run goes on without it: a cache only saves time.
func (r *chunkRun) openCache() (*cache.Cache, error) {
	cfg := r.cfg
	if cfg.cacheDir == "" {
		return nil, nil
	}
	if err := notAFolder(cfg.cacheDir); err != nil {
		return nil, err
	}
	c, err := cache.Open(cfg.cacheDir, cacheSalt(cfg.pipeline))
	if errors.Is(err, cache.ErrNotCache) {
		return nil, usageError("--cache: %v", err)
	}
	if err != nil {
		r.warn(cfg.cacheDir, fmt.Sprintf("cannot use the cache, going on without it: %v", err))
		return nil, nil
	}
	return c, nil
}

// notAFolder is the usage error of a --cache path that can never be a
// cache's folder: one that is there and is not a folder.
func notAFolder(dir string) error {
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return usageError("--cache: %s is a file, not a folder", quoteName(dir))
	}
	return nil
}

// cacheSalt holds everything besides a file's content, language and (with
// --embed-text) path that decides what its entry holds: castchunk's build
// (for a development build, a hash of the binary itself), the method setup,
// whose key names every option, and the embedding options, whose key names
// each flag that changes the spans or what is stored beside them
// (--context, --tokenizer, --max-tokens, --embed-text).
func cacheSalt(p pipeline.Config) string {
	return buildID() + "|" + p.Setup.Key() + "|" + p.Enrich.Key()
}

// pruneCache keeps the cache under --cache-max-size after a run that
// stored entries.
func (r *chunkRun) pruneCache() {
	if r.cacheWrites == 0 || r.cfg.pipeline.Cache == nil {
		return
	}
	if err := r.cfg.pipeline.Cache.Prune(r.cfg.cacheMax); err != nil {
		r.warn(r.cfg.cacheDir, fmt.Sprintf("cannot prune the cache: %v", err))
	}
}

// closeCache reports a cache database that had to be replaced, closes the
// cache (writing its last entries), and returns the --stats line on it
// ("" without a cache).
func (r *chunkRun) closeCache() string {
	c := r.cfg.pipeline.Cache
	if c == nil {
		return ""
	}
	if err := c.Repaired(); err != nil {
		r.warn(r.cfg.cacheDir, err.Error())
	}
	st := c.Stats() // before Close
	if err := c.Close(); err != nil && !r.cacheWarned {
		r.cacheWarned = true
		r.warn(r.cfg.cacheDir, fmt.Sprintf("cannot write to the cache: %v", err))
	}
	return fmt.Sprintf("cache: %d hits, %d misses, %d stored; %s, %.1f MiB on disk\n",
		st.Hits, st.Misses, st.Writes, st.EntriesText(), float64(st.Bytes)/(1<<20))
}

// noteCache counts cache writes and reports the first failed one.
func (r *chunkRun) noteCache(res *pipeline.Result) {
	switch {
	case res.CacheErr != nil && !r.cacheWarned:
		r.cacheWarned = true
		r.warn(r.cfg.cacheDir, fmt.Sprintf("cannot write to the cache, going on without storing: %v", res.CacheErr))
	case r.cfg.pipeline.Cache != nil && res.CacheErr == nil && !res.Cached:
		r.cacheWrites++
	}
}
