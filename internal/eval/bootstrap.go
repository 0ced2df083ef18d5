package eval

import (
	"math"
	"slices"
)

// rng is SplitMix64 (Steele, Lea and Flood 2014): a small generator that is
// defined here, not by a library, so that a seed gives the same draws on
// every platform and Go version.
type rng struct{ s uint64 }

// newRNG returns a generator for seed and stream: different streams of one
// seed draw independently.
func newRNG(seed uint64, stream string) *rng {
	r := &rng{s: seed}
	for _, c := range []byte(stream) {
		r.s = (r.s ^ uint64(c)) * 0x100000001b3
	}
	r.next()
	return r
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// intn returns a uniform integer in [0, n), n > 0, by rejection: no modulo
// bias.
func (r *rng) intn(n int) int {
	limit := math.MaxUint64 - math.MaxUint64%uint64(n)
	for {
		if x := r.next(); x < limit {
			return int(x % uint64(n))
		}
	}
}

// Estimate is a mean with its 95% bootstrap confidence interval.
type Estimate struct {
	Mean, Lo, Hi float64
}

// bootstrap estimates the mean of values and, when base is not nil, the
// mean of the paired differences values[i] - base[i]: resamples times, it
// draws len(values) queries with replacement (the same draws for every
// configuration: the generator is seeded by seed and stream alone), and
// the interval runs from the 2.5th to the 97.5th percentile of the
// resampled means, the p-th percentile of the sorted means m being
// m[round(p*(resamples-1))].
func bootstrap(values, base []float64, seed uint64, stream string, resamples int) Estimate {
	n := len(values)
	if n == 0 {
		return Estimate{}
	}
	diff := func(i int) float64 {
		if base == nil {
			return values[i]
		}
		return values[i] - base[i]
	}
	var sum float64
	for i := range n {
		sum += diff(i)
	}
	e := Estimate{Mean: sum / float64(n)}
	if resamples < 1 {
		e.Lo, e.Hi = e.Mean, e.Mean
		return e
	}
	r := newRNG(seed, stream)
	means := make([]float64, resamples)
	for b := range means {
		var s float64
		for range n {
			s += diff(r.intn(n))
		}
		means[b] = s / float64(n)
	}
	slices.Sort(means)
	e.Lo = means[int(math.Round(0.025*float64(resamples-1)))]
	e.Hi = means[int(math.Round(0.975*float64(resamples-1)))]
	return e
}
