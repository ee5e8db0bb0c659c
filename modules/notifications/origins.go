package notifications

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// origins paces pushes per push service (an endpoint's scheme://host):
// at most limit requests in flight to one origin, and none while the
// origin asked us to wait — a 429 or 503 with Retry-After pauses the whole
// origin, not only the subscription that got the answer, since a push
// service that throttles one request throttles the next one too. Other
// origins are untouched.
//
// The requests in flight to one origin are spread over lanes of at most
// laneStreams each; a lane is an HTTP client with its own connection pool,
// so over HTTP/2 one lane is one connection and its requests are streams
// on it. A push service caps the streams of one connection
// (SETTINGS_MAX_CONCURRENT_STREAMS: Google's front ends announce 100,
// APNs 500). Left to itself, Go's transport opens a new connection for
// every request that finds the connection full — hundreds of TLS
// handshakes at the start of a broadcast (196 connections for 512 in
// flight, measured). A new lane takes one request until its connection
// exists (an answer came back), then up to laneStreams.
type origins struct {
	limit     int
	streams   int                 // requests per lane
	newClient func() *http.Client // a client with its own connection pool
	mu        sync.Mutex
	m         map[string]*origin
}

// laneStreams is how many requests one lane (one HTTP/2 connection)
// carries at once: the lowest of the big push services' stream limits.
const laneStreams = 100

type origin struct {
	slots       chan struct{}
	pausedUntil time.Time
	lanes       []*lane
	wake        chan struct{} // closed (and replaced) when a lane has room again
}

type lane struct {
	client   *http.Client
	inFlight int
	warm     bool // an answer came back on it: its connection exists
}

// newOrigins paces up to limit requests per origin, over lanes of
// clients made by newClient (nil: one shared default client).
func newOrigins(limit int, newClient func() *http.Client) *origins {
	if limit < 1 {
		limit = 1
	}
	if newClient == nil {
		c := http.DefaultClient
		newClient = func() *http.Client { return c }
	}
	return &origins{limit: limit, streams: laneStreams, newClient: newClient, m: map[string]*origin{}}
}

// laneClients makes the lanes' clients from base: the first lane uses base
// itself, each further lane a copy with a clone of its transport (its own
// connections). A transport that cannot be cloned is shared by every lane.
func laneClients(base *http.Client) func() *http.Client {
	tr, ok := base.Transport.(*http.Transport)
	first := true
	var mu sync.Mutex
	return func() *http.Client {
		mu.Lock()
		defer mu.Unlock()
		if first || !ok {
			first = false
			return base
		}
		c := *base
		c.Transport = tr.Clone()
		return &c
	}
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
		o = &origin{slots: make(chan struct{}, g.limit), wake: make(chan struct{})}
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

// acquire takes one of name's in-flight slots and a place on one of its
// lanes, waiting for them while ctx lives; it returns the lane's client.
// release gives both back; answered says an answer came back (the lane's
// connection exists).
func (g *origins) acquire(ctx context.Context, name string) (client *http.Client, release func(answered bool), ok bool) {
	o := g.get(name)
	select {
	case o.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, false
	}
	maxLanes := (g.limit + g.streams - 1) / g.streams
	for {
		g.mu.Lock()
		var l *lane
		for _, c := range o.lanes {
			if (c.warm && c.inFlight < g.streams) || (!c.warm && c.inFlight == 0) {
				l = c
				break
			}
		}
		if l == nil && len(o.lanes) < maxLanes {
			l = &lane{client: g.newClient()}
			o.lanes = append(o.lanes, l)
		}
		if l != nil {
			l.inFlight++
			g.mu.Unlock()
			return l.client, func(answered bool) {
				g.mu.Lock()
				l.inFlight--
				if answered {
					l.warm = true
				}
				close(o.wake)
				o.wake = make(chan struct{})
				g.mu.Unlock()
				<-o.slots
			}, true
		}
		wake := o.wake
		g.mu.Unlock()
		select { // every lane is full or still opening its connection
		case <-wake:
		case <-ctx.Done():
			<-o.slots
			return nil, nil, false
		}
	}
}

// inFlight is how many requests to name are in flight now (tests).
func (g *origins) inFlight(name string) int {
	return len(g.get(name).slots)
}
