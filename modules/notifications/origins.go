package notifications

import (
	"context"
	"net/http"
	"net/http/httptrace"
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
// exists (the transport reports it got one), then up to streams.
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
	warm     bool // its connection exists (a request of it got one)
}

// newOrigins paces up to limit requests per origin, over lanes of
// streams requests (0: laneStreams) of clients made by newClient.
func newOrigins(limit, streams int, newClient func() *http.Client) *origins {
	if limit < 1 {
		limit = 1
	}
	if streams < 1 {
		streams = laneStreams
	}
	return &origins{limit: limit, streams: streams, newClient: newClient, m: map[string]*origin{}}
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

// slot is one request's place: an in-flight slot of its origin on one of
// the origin's lanes.
type slot struct {
	g      *origins
	o      *origin
	l      *lane
	client *http.Client // the lane's
}

// trace returns ctx with the hook that marks the lane's connection as
// existing once the request got one.
func (s *slot) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) {
		s.g.mu.Lock()
		defer s.g.mu.Unlock()
		if !s.l.warm {
			s.l.warm = true
			s.o.wakeLocked()
		}
	}})
}

// release gives the slot back.
func (s *slot) release() {
	s.g.mu.Lock()
	s.l.inFlight--
	s.o.wakeLocked()
	s.g.mu.Unlock()
	<-s.o.slots
}

func (o *origin) wakeLocked() {
	close(o.wake)
	o.wake = make(chan struct{})
}

// acquire takes one of name's in-flight slots and a place on one of its
// lanes, waiting for them while ctx lives.
func (g *origins) acquire(ctx context.Context, name string) (*slot, bool) {
	o := g.get(name)
	select {
	case o.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, false
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
			return &slot{g: g, o: o, l: l, client: l.client}, true
		}
		wake := o.wake
		g.mu.Unlock()
		select { // every lane is full or still opening its connection
		case <-wake:
		case <-ctx.Done():
			<-o.slots
			return nil, false
		}
	}
}

// inFlight is how many requests to name are in flight now (tests).
func (g *origins) inFlight(name string) int {
	return len(g.get(name).slots)
}
