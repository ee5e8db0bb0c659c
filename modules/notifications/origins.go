package notifications

import (
	"context"
	"net/url"
	"sync"
	"time"
)

// origins paces pushes per push service (an endpoint's scheme://host):
// at most limit requests in flight to one origin (they share its HTTP/2
// connection, one stream each), and none while the origin asked us to
// wait — a 429 or 503 with Retry-After pauses the whole origin, not only
// the subscription that got the answer, since a push service that throttles
// one request throttles the next one too. Other origins are untouched.
type origins struct {
	limit int
	mu    sync.Mutex
	m     map[string]*origin
}

type origin struct {
	slots       chan struct{}
	pausedUntil time.Time
}

func newOrigins(limit int) *origins {
	if limit < 1 {
		limit = 1
	}
	return &origins{limit: limit, m: map[string]*origin{}}
}

// originOf is an endpoint's origin ("" when it is not an absolute URL;
// such an endpoint fails later, in sendPush).
func originOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

func (g *origins) get(name string) *origin {
	g.mu.Lock()
	defer g.mu.Unlock()
	o := g.m[name]
	if o == nil {
		o = &origin{slots: make(chan struct{}, g.limit)}
		g.m[name] = o
	}
	return o
}

// paused reports how long name still asks us to wait (0: not paused).
func (g *origins) paused(name string, now time.Time) time.Duration {
	o := g.get(name)
	g.mu.Lock()
	defer g.mu.Unlock()
	if now.Before(o.pausedUntil) {
		return o.pausedUntil.Sub(now)
	}
	return 0
}

// pause holds every push to name until now+wait (a longer pause already
// set stays).
func (g *origins) pause(name string, now time.Time, wait time.Duration) {
	if wait <= 0 {
		return
	}
	o := g.get(name)
	g.mu.Lock()
	defer g.mu.Unlock()
	if until := now.Add(wait); until.After(o.pausedUntil) {
		o.pausedUntil = until
	}
}

// acquire takes one of name's in-flight slots, waiting for one while ctx
// lives; release gives it back.
func (g *origins) acquire(ctx context.Context, name string) (release func(), ok bool) {
	o := g.get(name)
	select {
	case o.slots <- struct{}{}:
		return func() { <-o.slots }, true
	case <-ctx.Done():
		return nil, false
	}
}

// inFlight is how many requests to name are in flight now (tests).
func (g *origins) inFlight(name string) int {
	return len(g.get(name).slots)
}
