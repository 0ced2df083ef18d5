package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// cacheRuns are the cache measurements: (h) with the flags of (b), and (i)
// with those of (g), the embedding flags of the README's recipe.
var cacheRuns = [...]struct {
	name, label string
	args        []string
}{
	{"h", "--cache", nil},
	{"i", "--cache with the flags of (g)", embedRuns[3].args},
}

// cacheResult is (h) or (i): the cold and the warm runs with --cache, and
// the space the cache took.
type cacheResult struct {
	cold, warm samples
	disk       int64 // bytes on disk of the cache folder after the warm run (the largest of the repetitions)
	files      int
}

func (r cacheResult) speedup() float64 { return r.cold.best().Seconds() / r.warm.best().Seconds() }
func (r cacheResult) perThousand() float64 {
	return float64(r.disk) / float64(max(r.files, 1)) * 1000
}

func (r cacheResult) summary(dir, name, label string) {
	fmt.Printf("  %-20s (%s) %s: warm run %.1fx faster than cold (target >= %.0fx: %s); cache %.2f MiB on disk, %.1f KiB per 1,000 files\n",
		dir, name, label, r.speedup(), targetWarm, verdict(r.speedup() >= targetWarm), mib(r.disk), r.perThousand()/1024)
}

// benchCache measures (h) or (i): `castchunk chunk -j 1 --cache C FLAGS
// DIR` with C a new, empty folder (cold), then again (warm), -reps times,
// each with a new folder; then the space the cache folder takes on disk,
// as du counts it. The first warm run's output is compared with the cold
// one's: a cache must not change it.
func benchCache(o options, dir string, files int, name, label string, flags []string) (cacheResult, error) {
	r := cacheResult{files: files}
	for rep := range o.reps {
		c, err := os.MkdirTemp(o.tmp, "cache-")
		if err != nil {
			return r, err
		}
		args := append([]string{"--cache", c}, flags...)
		var sums [2][sha256.Size]byte
		sum := func(i int) *[sha256.Size]byte {
			if rep == 0 {
				return &sums[i]
			}
			return nil
		}
		cold, err := chunkRunSum(o, dir, 1, false, nil, sum(0), args...)
		if err != nil {
			os.RemoveAll(c)
			return r, err
		}
		warm, err := chunkRunSum(o, dir, 1, false, nil, sum(1), args...)
		if err != nil {
			os.RemoveAll(c)
			return r, err
		}
		disk, err := du(c)
		os.RemoveAll(c)
		if err != nil {
			return r, err
		}
		if sums[0] != sums[1] {
			return r, fmt.Errorf("(%s) the warm run's output differs from the cold run's", name)
		}
		r.cold, r.warm, r.disk = append(r.cold, cold), append(r.warm, warm), max(r.disk, disk)
	}
	fmt.Printf("  (%s) -j 1 %s: cold %s, warm %s: warm %.1fx faster (target >= %.0fx: %s)\n",
		name, label, r.cold.times(), r.warm.times(), r.speedup(), targetWarm, verdict(r.speedup() >= targetWarm))
	fmt.Printf("  (%s) the cache on disk: %.2f MiB (du) for %d files, %.1f KiB per 1,000 files\n",
		name, mib(r.disk), files, r.perThousand()/1024)
	return r, nil
}

// du is the space the files below dir take on disk: their allocated
// blocks, as du counts them, folders excluded.
func du(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			n += st.Blocks * 512
		} else {
			n += info.Size()
		}
		return nil
	})
	return n, err
}
