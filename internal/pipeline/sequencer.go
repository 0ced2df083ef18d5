package pipeline

import (
	"context"
	"sync"

	"golang.org/x/sync/semaphore"
)

// sequencer lets workers finish files in any order while the writer takes
// the results in job order. It hands out job indexes only while the window
// has room: the files between being handed out and being done with weigh at
// most maxBytes together (a bigger file goes through alone) and number at
// most maxFiles, so memory stays bounded by a few files however many there
// are and however many workers run. (gofmt's sequencer is the model.)
type sequencer struct {
	bytes   *semaphore.Weighted
	weight  func(i int) int64
	credits chan struct{} // one per job in the window

	mu    sync.Mutex
	ready map[int]*Result // results waiting for the writer
	want  int             // the index the writer waits for
	wake  chan struct{}   // signalled when result want arrives
}

// newSequencer makes a sequencer for jobs of the given sizes.
func newSequencer(maxFiles int, maxBytes int64, size func(i int) int64) *sequencer {
	return &sequencer{
		bytes:   semaphore.NewWeighted(maxBytes),
		weight:  func(i int) int64 { return min(max(size(i), 1), maxBytes) },
		credits: make(chan struct{}, maxFiles),
		ready:   map[int]*Result{},
		want:    -1,
		wake:    make(chan struct{}, 1),
	}
}

// dispatch sends the indexes 0..n-1 to next as the window lets them in,
// then closes next. It returns early when ctx is done.
func (s *sequencer) dispatch(ctx context.Context, n int, next chan<- int) {
	defer close(next)
	for i := range n {
		select {
		case s.credits <- struct{}{}:
		case <-ctx.Done():
			return
		}
		if s.bytes.Acquire(ctx, s.weight(i)) != nil {
			return
		}
		select {
		case next <- i:
		case <-ctx.Done():
			return
		}
	}
}

// put hands in job i's result.
func (s *sequencer) put(i int, r *Result) {
	s.mu.Lock()
	s.ready[i] = r
	waited := i == s.want
	s.mu.Unlock()
	if waited {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// take waits for job i's result.
func (s *sequencer) take(ctx context.Context, i int) (*Result, error) {
	for {
		s.mu.Lock()
		r, ok := s.ready[i]
		if ok {
			delete(s.ready, i)
		}
		s.want = i
		s.mu.Unlock()
		if ok {
			return r, nil
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// done frees job i's room in the window.
func (s *sequencer) done(i int) {
	s.bytes.Release(s.weight(i))
	<-s.credits
}
