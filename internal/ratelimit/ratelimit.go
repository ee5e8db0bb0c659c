// Package ratelimit holds the per-client limits of the service: a sliding
// window counter per key, kept on the app (never process-wide), and the
// quota table built on it (quota.go: Table, read by Guard and Take), the
// one place every per-user or per-IP limit of a repeatable write is
// written.
package ratelimit

import (
	"sync"
	"time"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// maxKeys bounds the keys one window keeps; past it, expired keys are swept.
const maxKeys = 100_000

// Window allows at most Max events per key within Per (sliding window).
// Events are reserved atomically before the work they guard, so parallel
// requests cannot all pass the check before any of them is counted.
type Window struct {
	Max int
	Per time.Duration

	mu   sync.Mutex
	hits map[string][]time.Time
	now  func() time.Time
}

// NewWindow builds a window of max events per per.
func NewWindow(max int, per time.Duration) *Window {
	return &Window{Max: max, Per: per, hits: map[string][]time.Time{}, now: time.Now}
}

// recent drops the events of key older than the window; w.mu is held.
func (w *Window) recent(key string, now time.Time) []time.Time {
	list := w.hits[key]
	i := 0
	for i < len(list) && now.Sub(list[i]) >= w.Per {
		i++
	}
	list = list[i:]
	if len(list) == 0 {
		delete(w.hits, key)
	} else {
		w.hits[key] = list
	}
	return list
}

// Reservation is one counted event; Cancel uncounts it (the guarded work
// did not happen, or did not count).
type Reservation struct {
	w   *Window
	key string
	at  time.Time
}

// Cancel removes the event from the window (no-op on a zero Reservation).
func (r Reservation) Cancel() {
	if r.w == nil {
		return
	}
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	list := r.w.hits[r.key]
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].Equal(r.at) {
			r.w.hits[r.key] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(r.w.hits[r.key]) == 0 {
		delete(r.w.hits, r.key)
	}
}

// Reserve counts one event for key when the window has room, in one step.
// When it is full, ok is false and wait is how long until the oldest event
// leaves the window.
func (w *Window) Reserve(key string) (res Reservation, wait time.Duration, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	list := w.recent(key, now)
	if len(list) >= w.Max {
		return Reservation{}, w.Per - now.Sub(list[0]), false
	}
	if len(w.hits) >= maxKeys {
		for k := range w.hits {
			w.recent(k, now)
		}
	}
	// Distinct instants, so Cancel removes exactly this event.
	if n := len(list); n > 0 && !now.After(list[n-1]) {
		now = list[n-1].Add(time.Nanosecond)
	}
	w.hits[key] = append(list, now)
	return Reservation{w: w, key: key, at: now}, 0, true
}

// Blocked reports whether key is at its limit now, and for how long.
func (w *Window) Blocked(key string) (bool, time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	list := w.recent(key, now)
	if len(list) < w.Max {
		return false, 0
	}
	return true, w.Per - now.Sub(list[0])
}

// Reset forgets every event of key.
func (w *Window) Reset(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.hits, key)
}

// Of is the app's window called name, created with max per per on first use.
func Of(app core.App, name string, max int, per time.Duration) *Window {
	return app.Store().GetOrSet("camellos.ratelimit."+name, func() any {
		return NewWindow(max, per)
	}).(*Window)
}

// AuthIP counts a request that checks or sets a password against the
// table's "password" row: AUTH_IP_LIMIT per minute per client IP; past it
// the answer is 429 with Retry-After (after the tarpit). Handlers that
// check a password only on some requests (PATCH /api/me) call it before
// any other work; the other password routes bind AuthIPGuard.
func AuthIP(e *core.RequestEvent) error {
	_, err := Take(e, "password", "")
	return err
}

// TarpitDelay is how long a refusal of the password limits is held back.
const TarpitDelay = 500 * time.Millisecond

// Tarpit holds a throttled password request back for TarpitDelay (or until
// the client goes away) before its 429: a client flooding in a loop then
// makes a few requests a second instead of thousands, so even the cheap
// refusals cannot take the CPU from the rest of the service. The wait
// costs a parked goroutine, no CPU.
func Tarpit(e *core.RequestEvent) {
	t := time.NewTimer(TarpitDelay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-e.Request.Context().Done():
	}
}

// AuthIPGuard is the "password" row as route middleware: bind it to every
// route that checks or sets a password (sign-in, sign-ups, password reset,
// account deletion...).
func AuthIPGuard() *hook.Handler[*core.RequestEvent] { return Guard("password") }
