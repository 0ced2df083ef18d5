package cli

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/castchunk/castchunk/internal/pipeline"
)

// shard selects the files of shard K of N (1 <= K <= N) by a hash of their
// display path (of their repository's name, when the run chunks several
// repositories: a repository lies in one shard), so N machines can split one repository with no
// coordination: every file lands in exactly one shard, and a shard's files
// do not change when other files are added or removed. All shards must be
// run with the same path arguments, since the display path is what is
// hashed.
type shard struct {
	k, n uint64
	// byRepo: the run chunks several repositories (a list, or several as
	// arguments), and a repository lies whole in one shard. A run of one
	// repository (--repo) shards its files by path, as any tree.
	byRepo bool
}

// parseShard reads "K/N"; the empty string means no sharding (1/1).
func parseShard(s string) (shard, error) {
	if s == "" {
		return shard{k: 1, n: 1}, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, errK := strconv.ParseUint(ks, 10, 32)
	n, errN := strconv.ParseUint(ns, 10, 32)
	if !ok || errK != nil || errN != nil || n < 1 || k < 1 || k > n {
		return shard{}, fmt.Errorf("--shard %q: want K/N with 1 <= K <= N, e.g. 2/8", s)
	}
	return shard{k: k, n: n}, nil
}

// has reports whether the file at path of repository repo belongs to this
// shard: a repository's files go together, so its name is hashed; the
// path when the run names no repository.
func (s shard) has(repo, path string) bool {
	if s.n == 1 {
		return true
	}
	h := fnv.New64a()
	unit := path
	if s.byRepo && repo != "" {
		unit = repo
	}
	h.Write([]byte(unit))
	return h.Sum64()%s.n == s.k-1
}

// filter keeps the jobs of this shard, in order.
func (s shard) filter(jobs []pipeline.Job) []pipeline.Job {
	if s.n == 1 {
		return jobs
	}
	kept := jobs[:0]
	for _, j := range jobs {
		if s.has(j.Repo, j.Path) {
			kept = append(kept, j)
		}
	}
	return kept
}
