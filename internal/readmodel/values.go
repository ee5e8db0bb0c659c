package readmodel

import (
	"container/list"
	"sync"
	"time"
)

// Values holds values derived from the database by key (one per job, per
// camello...), bounded by a total cost: the least recently read values go
// first when a new one would pass MaxCost, so it keeps what is read, not
// everything. A value is built lazily by the first reader of its key (the
// other readers of that key wait for it and share its answer) and dropped
// by Drop or DropAll from the owner's hooks after a write commits. A build
// that raced a drop of its key is handed to the reader that built it,
// never stored, so the next reader builds again from what was committed.
//
// Build only outside a transaction (a value built from a transaction's
// uncommitted writes must not outlive it): readers inside one read the
// database directly.
type Values[K comparable, V any] struct {
	// MaxCost bounds the sum of Cost over the stored values (0: nothing is
	// stored). A value costing more than MaxCost on its own is not stored.
	MaxCost int64
	// Cost is a value's weight (e.g. its bytes); nil counts 1 per value.
	Cost func(V) int64
	// MaxAge, when set, is how long a stored value is served: an older one
	// is built again by its next reader (a safety net for writes made
	// around the hooks).
	MaxAge time.Duration

	mu       sync.Mutex
	items    map[K]*list.Element
	lru      list.List // of *keyedItem, most recently read first
	cost     int64
	building map[K]*keyedBuild[V]
}

type keyedItem[K comparable, V any] struct {
	key  K
	val  V
	cost int64
	at   time.Time // when it was built (MaxAge)
}

// keyedBuild is a build in flight; its answer is set before done closes.
type keyedBuild[V any] struct {
	done    chan struct{}
	dropped bool
	val     V
	ok      bool
	err     error
}

// Get returns the value of key, building it with build when it is not
// stored. ok false from build means "nothing to store" (e.g. the row does
// not exist): the value is returned as is and not kept.
func (c *Values[K, V]) Get(key K, build func() (v V, ok bool, err error)) (V, bool, error) {
	c.mu.Lock()
	for {
		if el, hit := c.items[key]; hit {
			it := el.Value.(*keyedItem[K, V])
			if c.MaxAge <= 0 || time.Since(it.at) <= c.MaxAge {
				c.lru.MoveToFront(el)
				c.mu.Unlock()
				return it.val, true, nil
			}
			c.removeLocked(el) // too old: built again below
		}
		b := c.building[key]
		if b == nil {
			break
		}
		c.mu.Unlock()
		<-b.done
		c.mu.Lock()
		if !b.dropped { // its answer holds for this reader too
			c.mu.Unlock()
			return b.val, b.ok, b.err
		}
	}
	b := &keyedBuild[V]{done: make(chan struct{})}
	if c.building == nil {
		c.building = map[K]*keyedBuild[V]{}
	}
	c.building[key] = b
	c.mu.Unlock()
	b.val, b.ok, b.err = build()
	c.mu.Lock()
	if !b.dropped {
		delete(c.building, key)
		if b.err == nil && b.ok {
			c.storeLocked(key, b.val)
		}
	}
	close(b.done)
	c.mu.Unlock()
	return b.val, b.ok, b.err
}

// storeLocked keeps v under key and evicts the least recently read values
// beyond MaxCost; v alone weighing more than MaxCost is not kept. c.mu is
// held.
func (c *Values[K, V]) storeLocked(key K, v V) {
	cost := int64(1)
	if c.Cost != nil {
		cost = c.Cost(v)
	}
	if cost > c.MaxCost {
		return
	}
	if c.items == nil {
		c.items = map[K]*list.Element{}
	}
	if el, ok := c.items[key]; ok {
		c.removeLocked(el)
	}
	c.items[key] = c.lru.PushFront(&keyedItem[K, V]{key: key, val: v, cost: cost, at: time.Now()})
	c.cost += cost
	for c.cost > c.MaxCost {
		c.removeLocked(c.lru.Back())
	}
}

func (c *Values[K, V]) removeLocked(el *list.Element) {
	it := el.Value.(*keyedItem[K, V])
	c.lru.Remove(el)
	delete(c.items, it.key)
	c.cost -= it.cost
}

// unbuildLocked makes a build of key in flight unusable. c.mu is held.
func (c *Values[K, V]) unbuildLocked(key K) {
	if b := c.building[key]; b != nil {
		b.dropped = true
		delete(c.building, key)
	}
}

// Drop forgets key's value and makes a build of it in flight unusable.
func (c *Values[K, V]) Drop(key K) {
	c.Patch(key, func(V) (V, bool) { var zero V; return zero, false })
}

// Patch replaces key's stored value by what fn makes of it, in place of a
// Drop when the owner knows what its write changed (a message appended to
// a conversation): fn returns the new value, or false to drop it. fn runs
// under the cache's lock (keep it short) and must not modify the value it
// gets (readers may hold it): it returns a new one. A build of key in
// flight is made unusable, as by Drop; without a stored value nothing
// happens.
func (c *Values[K, V]) Patch(key K, fn func(V) (V, bool)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unbuildLocked(key)
	if el, ok := c.items[key]; ok {
		c.removeLocked(el)
		if v, keep := fn(el.Value.(*keyedItem[K, V]).val); keep {
			c.storeLocked(key, v)
		}
	}
}

// DropAll forgets every value and makes every build in flight unusable.
func (c *Values[K, V]) DropAll() { c.DropWhere(func(K, V) bool { return true }) }

// DropWhere forgets the values match picks (a user's sessions) and makes
// every build in flight unusable (its value is not known yet).
func (c *Values[K, V]) DropWhere(match func(K, V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; {
		next, it := el.Next(), el.Value.(*keyedItem[K, V])
		if match(it.key, it.val) {
			c.removeLocked(el)
		}
		el = next
	}
	for k := range c.building {
		c.unbuildLocked(k)
	}
}

// Len is how many values are stored and their total cost.
func (c *Values[K, V]) Len() (n int, cost int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items), c.cost
}

// Sample returns up to n stored values, the most recently read first
// (the consistency check compares them with fresh builds).
func (c *Values[K, V]) Sample(n int) map[K]V {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[K]V, min(n, len(c.items)))
	for el := c.lru.Front(); el != nil && len(out) < n; el = el.Next() {
		it := el.Value.(*keyedItem[K, V])
		out[it.key] = it.val
	}
	return out
}
