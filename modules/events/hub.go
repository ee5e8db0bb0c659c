// Package events is the live events area: GET /api/events, a Server-Sent
// Events stream of the signed-in user's own events (notification, message,
// job), and the per-app hub other areas publish to.
package events

import (
	"sync"
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// Event names of the stream.
const (
	Notification = "notification"
	Message      = "message"
	Job          = "job"
)

// Event is one event for a user: Name is the SSE event, Data its JSON, ID
// (optional) the SSE id a client resumes from (inbox notifications only).
type Event struct {
	ID   string
	Name string
	Data any
}

// Options tune the stream of one app; set them with SetOptions before
// Register (tests shorten the intervals). Zero fields take the defaults.
type Options struct {
	// Heartbeat is how often an idle stream gets a comment line (default 15 s),
	// so proxies keep it open and dead clients are noticed.
	Heartbeat time.Duration
	// SessionCheck is how often a stream checks that its session is still
	// valid (default 1 s); a revoked session ends the stream.
	SessionCheck time.Duration
	// Buffer is how many events may wait for a slow client (default 64);
	// beyond that its stream ends and the client resumes with Last-Event-ID.
	Buffer int
}

const optionsKey = "camellos.events.options"
const hubKey = "camellos.events.hub"

// SetOptions stores stream options for app; call it before Register.
func SetOptions(app core.App, o Options) { app.Store().Set(optionsKey, o) }

func optionsOf(app core.App) Options {
	o, _ := app.Store().Get(optionsKey).(Options)
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.SessionCheck <= 0 {
		o.SessionCheck = time.Second
	}
	if o.Buffer <= 0 {
		o.Buffer = 64
	}
	return o
}

// hub routes published events to the open streams of their users. One per
// app (on app.Store()); closed when the app terminates.
type hub struct {
	mu     sync.Mutex
	subs   map[string]map[*subscriber]struct{}
	done   chan struct{}
	closed bool
}

// subscriber is one open stream.
type subscriber struct {
	userID string
	ch     chan Event
	gone   chan struct{} // closed when the hub drops the stream (slow client, shutdown)
	once   sync.Once
}

func (s *subscriber) drop() { s.once.Do(func() { close(s.gone) }) }

func hubOf(app core.App) *hub {
	return app.Store().GetOrSet(hubKey, func() any {
		return &hub{subs: map[string]map[*subscriber]struct{}{}, done: make(chan struct{})}
	}).(*hub)
}

// subscribe opens a stream for userID with a buffer of n events.
func (h *hub) subscribe(userID string, n int) *subscriber {
	s := &subscriber{userID: userID, ch: make(chan Event, n), gone: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		s.drop()
		return s
	}
	if h.subs[userID] == nil {
		h.subs[userID] = map[*subscriber]struct{}{}
	}
	h.subs[userID][s] = struct{}{}
	return s
}

// unsubscribe frees a stream's place (client gone or stream ended).
func (h *hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if m := h.subs[s.userID]; m != nil {
		delete(m, s)
		if len(m) == 0 {
			delete(h.subs, s.userID)
		}
	}
}

// count is how many streams are open (tests check that disconnects free them).
func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, m := range h.subs {
		n += len(m)
	}
	return n
}

// send hands ev to every open stream of userID without blocking: a stream
// whose buffer is full is dropped (its client resumes from the inbox).
func (h *hub) send(userID string, ev Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[userID] {
		select {
		case s.ch <- ev:
		default:
			delete(h.subs[userID], s)
			s.drop()
		}
	}
}

// close ends every stream (app terminate).
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	close(h.done)
	for _, m := range h.subs {
		for s := range m {
			s.drop()
		}
	}
	h.subs = map[string]map[*subscriber]struct{}{}
}

// Publish hands ev to the open streams of each user now. Use it outside a
// transaction or from an after-commit hook; inside a transaction use
// PublishAfterCommit.
func Publish(app core.App, ev Event, userIDs ...string) {
	h := hubOf(app)
	seen := map[string]bool{}
	for _, u := range userIDs {
		if u != "" && !seen[u] {
			seen[u] = true
			h.send(u, ev)
		}
	}
}

// PublishAfterCommit publishes ev once the transaction of app commits (at
// once when app is not a transaction); a rolled back write publishes nothing.
func PublishAfterCommit(app core.App, ev Event, userIDs ...string) {
	tx := app.TxInfo()
	if tx == nil {
		Publish(app, ev, userIDs...)
		return
	}
	tx.OnComplete(func(txErr error) error {
		if txErr == nil {
			Publish(app, ev, userIDs...)
		}
		return nil
	})
}

// OpenStreams is how many event streams app holds open.
func OpenStreams(app core.App) int { return hubOf(app).count() }
