package readmodel

// Snapshot keeps one value derived from the database in memory (the
// listing, the open board): built lazily by the first reader, one build at
// a time (the others wait for it), replaced by Update for a patch and
// dropped by Invalidate. A generation counter makes a build that raced a
// write unusable: it is handed to the reader that built it, never stored,
// so the next reader builds again.

import (
	"sync"
	"sync/atomic"
)

// The zero Snapshot is ready to use.
type Snapshot[T any] struct {
	// cur is the value (nil: none). Readers load it
	// without a lock; it changes under mu.
	cur atomic.Pointer[stored[T]]

	// umu serialises Update calls (each derives from the last).
	umu sync.Mutex

	mu       sync.Mutex
	gen      uint64
	building chan struct{}
}

type stored[T any] struct{ val T }

// Invalidate drops the value; the next Get builds it again.
func (c *Snapshot[T]) Invalidate() {
	c.mu.Lock()
	c.gen++
	c.cur.Store(nil)
	c.mu.Unlock()
}

// Update replaces a built value with fn(value), so that a small write need
// not throw away a value that is costly to build. fn runs without the
// lock (readers keep the old value meanwhile) and must read what the write
// changed itself, after its commit; Update calls are serialised, so each
// one derives from the last. With no value built, or when fn fails or an
// Invalidate comes in meanwhile, the value is dropped instead (the next Get
// builds it). Builds that started before Update are not kept.
func (c *Snapshot[T]) Update(fn func(T) (T, error)) {
	c.umu.Lock()
	defer c.umu.Unlock()
	c.mu.Lock()
	old, gen := c.cur.Load(), c.gen
	c.mu.Unlock()
	if old == nil {
		c.Invalidate()
		return
	}
	v, err := fn(old.val)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++ // a build that started before is not kept
	if err != nil || c.gen != gen+1 || c.cur.Load() != old {
		c.cur.Store(nil)
		return
	}
	c.cur.Store(&stored[T]{val: v})
}

// Peek returns the current value without building it.
func (c *Snapshot[T]) Peek() (T, bool) {
	if p := c.cur.Load(); p != nil {
		return p.val, true
	}
	var zero T
	return zero, false
}

// Get returns the value, building it with build when there is none.
func (c *Snapshot[T]) Get(build func() (T, error)) (T, error) {
	for {
		if p := c.cur.Load(); p != nil {
			return p.val, nil // the common case, without the lock
		}
		c.mu.Lock()
		if p := c.cur.Load(); p != nil {
			c.mu.Unlock()
			return p.val, nil
		}
		if wait := c.building; wait != nil {
			c.mu.Unlock()
			<-wait
			continue
		}
		done, gen := c.start()
		c.mu.Unlock()
		return c.finish(build, done, gen)
	}
}

// start marks a build as running; c.mu is held.
func (c *Snapshot[T]) start() (chan struct{}, uint64) {
	c.building = make(chan struct{})
	return c.building, c.gen
}

// finish runs build and stores its value unless a write happened meanwhile.
func (c *Snapshot[T]) finish(build func() (T, error), done chan struct{}, gen uint64) (v T, err error) {
	defer func() {
		c.mu.Lock()
		if err == nil && c.gen == gen {
			c.cur.Store(&stored[T]{val: v})
		}
		c.building = nil
		close(done)
		c.mu.Unlock()
	}()
	return build()
}
