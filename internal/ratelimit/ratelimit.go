// Package ratelimit holds the per-client limits of the service: a sliding
// window counter per key, kept on the app (never process-wide), and the
// named limits built on it: AUTH_IP_LIMIT on every route that checks or
// sets a password (AuthIP, AuthIPGuard) and the per-client limits on
// requests directed at one camello (Directed).
package ratelimit

import (
	"net/http"
	"sync"
	"time"

	"camellos/internal/config"
	"camellos/internal/httpapi"

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

// MsgAuthIP answers a client IP past AUTH_IP_LIMIT.
const MsgAuthIP = "Demasiados intentos desde tu conexión, inténtalo más tarde"

// AuthIP counts a request that checks or sets a password against the
// client IP's AUTH_IP_LIMIT per minute (PocketBase's RealIP, which honours
// its trusted-proxy setting); past it the answer is 429 with Retry-After.
// A limit of 0 turns it off. Handlers call it before any other work (so
// registration bursts and e-mail probing count too), or bind AuthIPGuard.
func AuthIP(e *core.RequestEvent) error {
	limit := config.Of(e.App).AuthIPLimit
	if limit <= 0 {
		return nil
	}
	if _, wait, ok := Of(e.App, "authip", limit, time.Minute).Reserve(e.RealIP()); !ok {
		Tarpit(e)
		return httpapi.TooMany(e, http.StatusTooManyRequests, MsgAuthIP, wait)
	}
	return nil
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

// AuthIPGuard is AuthIP as route middleware: bind it to every route that
// checks or sets a password (sign-in, sign-ups, password reset, account
// deletion...).
func AuthIPGuard() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id: "camellosAuthIPLimit",
		Func: func(e *core.RequestEvent) error {
			if err := AuthIP(e); err != nil {
				return err
			}
			return e.Next()
		},
	}
}

// Limits of requests one party directs at another: a client's job
// requests to one camello (kind "job"), a camello's quotes on one job
// (kind "quote"); per target and in total, per hour.
const (
	DirectedPerCamello = 5
	DirectedPerClient  = 30
	DirectedWindow     = time.Hour
)

// MsgDirected answers a client past a directed-request limit.
const MsgDirected = "Demasiadas solicitudes seguidas, inténtalo más tarde"

// Directed counts one request of kind ("job", "quote"...) from fromID to
// toID: at most DirectedPerCamello to one target and DirectedPerClient in
// all per DirectedWindow, else 429 with Retry-After. It returns a cancel
// func so a request refused afterwards (validation, conflict) is not
// counted.
func Directed(e *core.RequestEvent, kind, fromID, toID string) (cancel func(), err error) {
	one := Of(e.App, "directed."+kind+".target", DirectedPerCamello, DirectedWindow)
	all := Of(e.App, "directed."+kind+".from", DirectedPerClient, DirectedWindow)
	r1, wait, ok := one.Reserve(fromID + "|" + toID)
	if !ok {
		return nil, httpapi.TooMany(e, http.StatusTooManyRequests, MsgDirected, wait)
	}
	r2, wait, ok := all.Reserve(fromID)
	if !ok {
		r1.Cancel()
		return nil, httpapi.TooMany(e, http.StatusTooManyRequests, MsgDirected, wait)
	}
	return func() { r1.Cancel(); r2.Cancel() }, nil
}

// DirectedAllowed is the check half of Directed for requests whose own
// rules already serialise them (one PENDIENTE quote per camello and job):
// 429 with Retry-After when fromID reached a limit of kind toward toID;
// the caller counts a request that went through with DirectedDone.
func DirectedAllowed(e *core.RequestEvent, kind, fromID, toID string) error {
	one := Of(e.App, "directed."+kind+".target", DirectedPerCamello, DirectedWindow)
	all := Of(e.App, "directed."+kind+".from", DirectedPerClient, DirectedWindow)
	if blocked, wait := one.Blocked(fromID + "|" + toID); blocked {
		return httpapi.TooMany(e, http.StatusTooManyRequests, MsgDirected, wait)
	}
	if blocked, wait := all.Blocked(fromID); blocked {
		return httpapi.TooMany(e, http.StatusTooManyRequests, MsgDirected, wait)
	}
	return nil
}

// DirectedDone counts a request of kind from fromID to toID that went
// through (see DirectedAllowed).
func DirectedDone(app core.App, kind, fromID, toID string) {
	Of(app, "directed."+kind+".target", DirectedPerCamello, DirectedWindow).Reserve(fromID + "|" + toID)
	Of(app, "directed."+kind+".from", DirectedPerClient, DirectedWindow).Reserve(fromID)
}
