package eval

import (
	"fmt"
	"testing"
)

// TestBootstrapGolden pins the draws: the same seed must give the same
// intervals on every platform and in every version, or the same
// repository, commit and seed would not give the same --json.
func TestBootstrapGolden(t *testing.T) {
	r := newRNG(1, SourceGit)
	for _, want := range []uint64{0xf551eae59d06f4f, 0x587474ad9382835f} {
		if got := r.next(); got != want {
			t.Fatalf("newRNG(1, %q): got %#x, want %#x", SourceGit, got, want)
		}
	}
	values := []float64{0, 1, 1, 0, 1, 0.5, 0.25, 1, 0, 0.75}
	if got, want := bootstrap(values, nil, 1, SourceGit, 1000), (Estimate{0.55, 0.275, 0.8}); got != want {
		t.Errorf("bootstrap = %+v, want %+v", got, want)
	}
}

// resampleMeans draws the means bootstrap draws, for checking which of
// them it reports.
func resampleMeans(values []float64, seed uint64, stream string, resamples int) []float64 {
	r := newRNG(seed, stream)
	out := make([]float64, resamples)
	for b := range out {
		var s float64
		for range values {
			s += values[r.intn(len(values))]
		}
		out[b] = s / float64(len(values))
	}
	return out
}

// TestBootstrapPercentiles: the interval's ends are the resampled means
// at round(0.025*(R-1)) and round(0.975*(R-1)) of the sorted means; with
// fewer than one resample, the interval is the mean itself.
func TestBootstrapPercentiles(t *testing.T) {
	values := []float64{0, 0.25, 0.5, 1, 1}
	mean := 2.75 / 5
	for _, resamples := range []int{0, -3} {
		if got := bootstrap(values, nil, 3, "s", resamples); got != (Estimate{mean, mean, mean}) {
			t.Errorf("%d resamples: %+v, want the mean %v throughout", resamples, got, mean)
		}
	}
	// One resample: both ends are its mean.
	one := resampleMeans(values, 3, "s", 1)[0]
	if got := bootstrap(values, nil, 3, "s", 1); got != (Estimate{mean, one, one}) {
		t.Errorf("1 resample: %+v, want lo = hi = %v", got, one)
	}
	// Two or three resamples: the ends are the smallest and the largest.
	for _, resamples := range []int{2, 3} {
		ms := resampleMeans(values, 3, "s", resamples)
		lo, hi := ms[0], ms[0]
		for _, m := range ms {
			lo, hi = min(lo, m), max(hi, m)
		}
		if got := bootstrap(values, nil, 3, "s", resamples); got != (Estimate{mean, lo, hi}) {
			t.Errorf("%d resamples %v: %+v, want lo %v, hi %v", resamples, ms, got, lo, hi)
		}
	}
}

// TestBootstrapIntervalHoldsMean: on a few samples of metric values (in
// [0, 1]), the interval holds the mean and stays in [0, 1].
func TestBootstrapIntervalHoldsMean(t *testing.T) {
	for i, values := range [][]float64{
		{1},
		{0, 1},
		{0, 0, 0, 1},
		{0.1, 0.9, 0.4, 0.4, 0.7, 0.2, 1, 0},
		{1, 1, 1, 1, 1, 1, 1, 1, 1, 0},
	} {
		for seed := range uint64(4) {
			e := bootstrap(values, nil, seed, SourceCompletion, 500)
			if !(e.Lo <= e.Mean && e.Mean <= e.Hi) || e.Lo < 0 || e.Hi > 1 {
				t.Errorf("sample %d, seed %d: %+v: the interval must hold the mean, within [0, 1]", i, seed, e)
			}
		}
	}
}

// TestBootstrapPaired: differences are paired, query by query, on the
// same draws: identical inputs differ by exactly 0, a constant shift by
// exactly that shift (however spread the values are), and a base of zeros
// is the values' own estimate.
func TestBootstrapPaired(t *testing.T) {
	values := []float64{0, 1, 0.5, 0.75, 0.25, 1, 0}
	shifted := make([]float64, len(values))
	zeros := make([]float64, len(values))
	for i, v := range values {
		shifted[i] = v - 0.25
	}
	for seed := range uint64(3) {
		for _, stream := range []string{SourceGit, SourceCompletion} {
			name := fmt.Sprintf("seed %d, %s", seed, stream)
			if d := bootstrap(values, values, seed, stream, 200); d != (Estimate{}) {
				t.Errorf("%s: identical inputs differ by %+v", name, d)
			}
			if d := bootstrap(values, shifted, seed, stream, 200); d != (Estimate{0.25, 0.25, 0.25}) {
				t.Errorf("%s: a shift of 0.25 gives %+v", name, d)
			}
			if a, b := bootstrap(values, zeros, seed, stream, 200), bootstrap(values, nil, seed, stream, 200); a != b {
				t.Errorf("%s: against zeros %+v, alone %+v", name, a, b)
			}
		}
	}
	// The reverse comparison is the negation.
	a, b := []float64{1, 0.5, 0.25, 1}, []float64{0, 0.5, 0.5, 0.25}
	ab, ba := bootstrap(a, b, 5, "x", 300), bootstrap(b, a, 5, "x", 300)
	if ab.Mean != -ba.Mean || ab.Lo != -ba.Hi || ab.Hi != -ba.Lo {
		t.Errorf("a-b %+v is not the negation of b-a %+v", ab, ba)
	}
}

// TestBootstrapStreams: one seed, two streams: independent draws; one
// stream, the same draws every time.
func TestBootstrapStreams(t *testing.T) {
	values := []float64{0, 1, 1, 0, 1, 0.5, 0.25, 1, 0, 0.75}
	git, completion := bootstrap(values, nil, 1, SourceGit, 1000), bootstrap(values, nil, 1, SourceCompletion, 1000)
	if git.Lo == completion.Lo && git.Hi == completion.Hi {
		t.Errorf("streams %q and %q drew the same interval %+v", SourceGit, SourceCompletion, git)
	}
	if again := bootstrap(values, nil, 1, SourceGit, 1000); again != git {
		t.Errorf("the same seed and stream: %+v, then %+v", git, again)
	}
	if newRNG(1, "a").next() == newRNG(1, "b").next() || newRNG(1, "a").next() == newRNG(2, "a").next() {
		t.Error("different seeds or streams start the generator alike")
	}
}

// TestIntn: draws lie in [0, n) and reach every value; n = 1 is always 0.
func TestIntn(t *testing.T) {
	r := newRNG(9, "intn")
	seen := make([]int, 7)
	for range 700 {
		v := r.intn(7)
		if v < 0 || v >= 7 {
			t.Fatalf("intn(7) = %d", v)
		}
		seen[v]++
	}
	for v, n := range seen {
		if n == 0 {
			t.Errorf("intn(7) never drew %d in 700 draws", v)
		}
	}
	for range 10 {
		if v := r.intn(1); v != 0 {
			t.Fatalf("intn(1) = %d", v)
		}
	}
}
