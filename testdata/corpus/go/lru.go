// Package lru implements a size-bounded, concurrency-safe LRU cache with
// optional time-to-live per entry and a loader that fills misses exactly
// once even when many goroutines ask for the same key.
package lru

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrClosed is returned by Get after Close.
var ErrClosed = errors.New("lru: cache closed")

// Loader computes the value of a key that is not in the cache.
type Loader[K comparable, V any] func(ctx context.Context, key K) (V, error)

// Options configure a Cache.
type Options struct {
	// MaxEntries bounds the number of entries; the least recently used
	// entry is evicted when a new one would exceed it.
	MaxEntries int
	// TTL is how long an entry stays valid; zero means forever.
	TTL time.Duration
	// Now returns the current time; tests replace it.
	Now func() time.Time
}

// Stats counts what the cache did.
type Stats struct {
	Hits, Misses, Loads, LoadErrors, Evictions, Expirations uint64
}

// entry is one cached value, kept in the recency list.
type entry[K comparable, V any] struct {
	key     K
	value   V
	expires time.Time // zero: never
}

// call is a load in flight; waiters block on done.
type call[V any] struct {
	done  chan struct{}
	value V
	err   error
}

// Cache is an LRU cache. The zero value is not usable: call New.
type Cache[K comparable, V any] struct {
	mu       sync.Mutex
	opts     Options
	load     Loader[K, V]
	ll       *list.List // front: most recently used
	items    map[K]*list.Element
	inflight map[K]*call[V]
	stats    Stats
	closed   bool
}

// New returns a cache that loads misses with load.
func New[K comparable, V any](opts Options, load Loader[K, V]) (*Cache[K, V], error) {
	if opts.MaxEntries <= 0 {
		return nil, fmt.Errorf("lru: MaxEntries must be positive, got %d", opts.MaxEntries)
	}
	if opts.TTL < 0 {
		return nil, fmt.Errorf("lru: TTL must not be negative, got %v", opts.TTL)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Cache[K, V]{
		opts:     opts,
		load:     load,
		ll:       list.New(),
		items:    make(map[K]*list.Element),
		inflight: make(map[K]*call[V]),
	}, nil
}

// Get returns the value of key, loading it on a miss. Concurrent Gets of
// the same missing key share one load; a failed load is not cached, so
// the next Get tries again.
func (c *Cache[K, V]) Get(ctx context.Context, key K) (V, error) {
	var zero V
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return zero, ErrClosed
	}
	if v, ok := c.lookupLocked(key); ok {
		c.stats.Hits++
		c.mu.Unlock()
		return v, nil
	}
	c.stats.Misses++
	if cl, ok := c.inflight[key]; ok {
		// Someone is already loading this key: wait for them.
		c.mu.Unlock()
		select {
		case <-cl.done:
			return cl.value, cl.err
		case <-ctx.Done():
			return zero, ctx.Err()
		}
	}
	cl := &call[V]{done: make(chan struct{})}
	c.inflight[key] = cl
	c.stats.Loads++
	c.mu.Unlock()

	// Load outside the lock: loads may be slow and may call back into
	// the cache for other keys.
	cl.value, cl.err = c.safeLoad(ctx, key)

	c.mu.Lock()
	delete(c.inflight, key)
	if cl.err != nil {
		c.stats.LoadErrors++
	} else if !c.closed {
		c.addLocked(key, cl.value)
	}
	c.mu.Unlock()
	close(cl.done)
	return cl.value, cl.err
}

// safeLoad calls the loader and turns a panic into an error, so that the
// waiters of a load are always released.
func (c *Cache[K, V]) safeLoad(ctx context.Context, key K) (v V, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("lru: loader panicked for key %v: %v", key, r)
		}
	}()
	if c.load == nil {
		return v, fmt.Errorf("lru: no loader and no entry for key %v", key)
	}
	return c.load(ctx, key)
}

// Peek returns the value of key without loading it or changing recency.
func (c *Cache[K, V]) Peek(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero V
	el, ok := c.items[key]
	if !ok {
		return zero, false
	}
	e := el.Value.(*entry[K, V])
	if c.expiredLocked(e) {
		return zero, false
	}
	return e.value, true
}

// Add stores a value, replacing any previous one.
func (c *Cache[K, V]) Add(key K, value V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.addLocked(key, value)
	}
}

// Remove deletes key; it reports whether the key was present.
func (c *Cache[K, V]) Remove(key K) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if ok {
		c.removeLocked(el)
	}
	return ok
}

// Len returns the number of entries, expired ones included until they are
// next looked at or swept.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

// Stats returns a copy of the counters.
func (c *Cache[K, V]) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Sweep removes every expired entry and returns how many it removed.
func (c *Cache[K, V]) Sweep() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for el := c.ll.Back(); el != nil; {
		prev := el.Prev()
		if c.expiredLocked(el.Value.(*entry[K, V])) {
			c.removeLocked(el)
			c.stats.Expirations++
			n++
		}
		el = prev
	}
	return n
}

// Close empties the cache; later Gets fail with ErrClosed. Loads in flight
// finish, but their values are not stored.
func (c *Cache[K, V]) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	c.ll.Init()
	clear(c.items)
}

func (c *Cache[K, V]) lookupLocked(key K) (V, bool) {
	var zero V
	el, ok := c.items[key]
	if !ok {
		return zero, false
	}
	e := el.Value.(*entry[K, V])
	if c.expiredLocked(e) {
		c.removeLocked(el)
		c.stats.Expirations++
		return zero, false
	}
	c.ll.MoveToFront(el)
	return e.value, true
}

func (c *Cache[K, V]) addLocked(key K, value V) {
	var expires time.Time
	if c.opts.TTL > 0 {
		expires = c.opts.Now().Add(c.opts.TTL)
	}
	if el, ok := c.items[key]; ok {
		e := el.Value.(*entry[K, V])
		e.value, e.expires = value, expires
		c.ll.MoveToFront(el)
		return
	}
	c.items[key] = c.ll.PushFront(&entry[K, V]{key: key, value: value, expires: expires})
	for c.ll.Len() > c.opts.MaxEntries {
		c.removeLocked(c.ll.Back())
		c.stats.Evictions++
	}
}

func (c *Cache[K, V]) removeLocked(el *list.Element) {
	e := c.ll.Remove(el).(*entry[K, V])
	delete(c.items, e.key)
}

func (c *Cache[K, V]) expiredLocked(e *entry[K, V]) bool {
	return !e.expires.IsZero() && !c.opts.Now().Before(e.expires)
}
