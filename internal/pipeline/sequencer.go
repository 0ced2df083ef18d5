package pipeline

import (
	"context"

	"golang.org/x/sync/semaphore"
)

// sequencer lets workers finish files in any order while the writer takes
// the results in job order. It hands out job indexes only while the window
// has room: at most window jobs, weighing at most windowBytes together, are
// between being handed out and being done with, so memory stays bounded by
// a few files however many there are. (gofmt's sequencer is the model.)
type sequencer struct {
	slots   []chan *Result // job i's result waits in slots[i%len(slots)]
	credits chan struct{}  // one per job in the window
	bytes   *semaphore.Weighted
	weight  func(i int) int64
}

// newSequencer makes a sequencer for jobs of the given weights (sizes).
func newSequencer(window int, maxBytes int64, size func(i int) int64) *sequencer {
	s := &sequencer{
		slots:   make([]chan *Result, window),
		credits: make(chan struct{}, window),
		bytes:   semaphore.NewWeighted(maxBytes),
		// A file bigger than the window goes through alone.
		weight: func(i int) int64 { return min(max(size(i), 1), maxBytes) },
	}
	for i := range s.slots {
		s.slots[i] = make(chan *Result, 1)
	}
	return s
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

// put hands in job i's result. Its slot is free: the credits make sure job
// i was handed out only after result i-window was done with.
func (s *sequencer) put(i int, r *Result) { s.slots[i%len(s.slots)] <- r }

// take waits for job i's result.
func (s *sequencer) take(ctx context.Context, i int) (*Result, error) {
	select {
	case r := <-s.slots[i%len(s.slots)]:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// done frees job i's room in the window.
func (s *sequencer) done(i int) {
	s.bytes.Release(s.weight(i))
	<-s.credits
}
