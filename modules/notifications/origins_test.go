package notifications_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"camellos/modules/notifications"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/tests"
)

// A 429 with Retry-After pauses its whole push service, not only the
// subscription that got it: pushes to that origin queued meanwhile wait
// for the pause (counted as postponed, sent afterwards, none lost), while
// another push service is not held up.
func TestPushServicePauseHoldsItsOriginOnly(t *testing.T) {
	busy := newReceiver(t, http.StatusTooManyRequests)
	busy.retryAft = "2"
	other := newReceiver(t)
	k := newKit(t, busy)
	first, firstCookie := k.UserWithSession(users.RoleClient)
	subscribeOK(t, k, firstCookie, newBrowser(t), busy.endpoint("first"))
	var sameOrigin []string
	for i := 0; i < 3; i++ {
		u, c := k.UserWithSession(users.RoleClient)
		subscribeOK(t, k, c, newBrowser(t), busy.endpoint("same-"+string(rune('a'+i))))
		sameOrigin = append(sameOrigin, u.Id)
	}
	elsewhere, elsewhereCookie := k.UserWithSession(users.RoleClient)
	subscribeOK(t, k, elsewhereCookie, newBrowser(t), other.endpoint("elsewhere"))

	msg := notifications.Message{Kind: notifications.KindJobStatus, Title: "Estado", Body: "Cambió"}
	if err := notifications.Notify(k.App, first.Id, msg); err != nil {
		t.Fatal(err)
	}
	// Wait for the dispatcher to have read the 429 (the pause is set before
	// the retry is counted), not only for the receiver to have seen the
	// request: on a busy machine the answer can still be in flight then.
	deadline := time.Now().Add(2 * time.Minute) // only stops a hung test
	for len(busy.requests()) == 0 || notifications.Stats(k.App).Outcomes[notifications.PushRetried] == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the first push's 429 never reached the dispatcher")
		}
		time.Sleep(5 * time.Millisecond)
	}
	throttledAt := busy.requests()[0].At
	before := notifications.Stats(k.App).Outcomes[notifications.PushPostponed]
	for _, id := range append(sameOrigin, elsewhere.Id) {
		if err := notifications.Notify(k.App, id, msg); err != nil {
			t.Fatal(err)
		}
	}
	drain(t, k)

	got := busy.requests()
	if len(got) != 1+1+len(sameOrigin) { // the 429, its retry, one each
		t.Fatalf("requests to the throttling service = %d, want %d", len(got), 2+len(sameOrigin))
	}
	for _, r := range got[1:] {
		// A lower bound only: a busy machine can only make it later.
		if gap := r.At.Sub(throttledAt); gap < 1900*time.Millisecond {
			t.Errorf("%s reached the paused service %v after its 429 (Retry-After: 2)", r.Path, gap)
		}
	}
	if n := len(other.requests()); n != 1 {
		t.Errorf("the other push service got %d requests, want 1", n)
	}
	if post := notifications.Stats(k.App).Outcomes[notifications.PushPostponed] - before; post < int64(len(sameOrigin)) {
		t.Errorf("postponed = %d, want at least %d", post, len(sameOrigin))
	}
}

// burstResult is what a push service saw of a burst (pushBurst).
type burstResult struct {
	opened      bool // the gate opened: capacity requests were in flight at once
	maxInFlight int
	conns       int            // connections the burst used
	protos      map[string]int // requests by protocol
}

// pushBurst sends users pushes at once to one HTTP/2 push service that
// holds each request until capacity are in flight (or 20 s), announcing
// serverStreams streams per connection (0: Go's default, 250), with the
// dispatcher's OriginConcurrency capacity and StreamsPerConnection
// streams (0: the default); once the gate opened, each answer comes after
// answerAfter. With warmFirst, one push opens the first
// connection before the burst; else the burst starts with none.
func pushBurst(t *testing.T, capacity, users_, streams int, serverStreams uint32, warmFirst bool, answerAfter time.Duration) burstResult {
	t.Helper()
	var mu sync.Mutex
	inFlight := 0
	res := burstResult{protos: map[string]int{}}
	remotes := map[string]bool{}
	gate := make(chan struct{})
	warm := true
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		mu.Lock()
		if warm {
			mu.Unlock()
			w.WriteHeader(http.StatusCreated)
			return
		}
		remotes[req.RemoteAddr] = true
		res.protos[req.Proto]++
		inFlight++
		res.maxInFlight = max(res.maxInFlight, inFlight)
		if inFlight == capacity && !res.opened {
			res.opened = true
			close(gate)
		}
		mu.Unlock()
		select {
		case <-gate:
		case <-time.After(2 * time.Minute): // never hang the suite
		}
		time.Sleep(answerAfter) // a push service's latency: the streams stay busy
		mu.Lock()
		inFlight--
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
	}))
	srv.EnableHTTP2 = true
	if serverStreams > 0 {
		srv.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: int(serverStreams)}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	recv := &receiver{srv: srv}
	k := newKit(t, recv, func(app *tests.TestApp) {
		notifications.SetOptions(app, notifications.Options{HTTPClient: srv.Client(), RetryDelays: fastRetries,
			OriginConcurrency: capacity, StreamsPerConnection: streams})
	})
	msg := notifications.Message{Kind: notifications.KindJobStatus, Title: "Estado", Body: "Cambió"}
	if warmFirst {
		u0, c0 := k.UserWithSession(users.RoleClient)
		subscribeOK(t, k, c0, newBrowser(t), recv.endpoint("warm"))
		if err := notifications.Notify(k.App, u0.Id, msg); err != nil {
			t.Fatal(err)
		}
		drain(t, k)
	}
	var ids []string
	for i := 0; i < users_; i++ {
		u, c := k.UserWithSession(users.RoleClient)
		subscribeOK(t, k, c, newBrowser(t), recv.endpoint("u"+strings.Repeat("x", i)))
		ids = append(ids, u.Id)
	}
	mu.Lock()
	warm = false
	mu.Unlock()
	// At once: the pushes are queued before the first is sent.
	items := make([]notifications.Addressed, len(ids))
	for i, id := range ids {
		items[i] = notifications.Addressed{UserID: id, Message: msg}
	}
	if err := notifications.NotifyMany(k.App, items); err != nil {
		t.Fatal(err)
	}
	drain(t, k)
	mu.Lock()
	defer mu.Unlock()
	res.conns = len(remotes)
	return res
}

// Many pushes to one push service are in flight at once, up to the
// origin's cap, as streams of one HTTP/2 connection.
func TestPushManyInFlightOnOneHTTP2Connection(t *testing.T) {
	const capacity, users_ = 8, 20
	r := pushBurst(t, capacity, users_, 0, 0, true, 0)
	if !r.opened {
		t.Fatalf("at most %d pushes were in flight at once, want %d", r.maxInFlight, capacity)
	}
	if r.maxInFlight != capacity {
		t.Errorf("max in flight = %d, want exactly the origin's cap %d", r.maxInFlight, capacity)
	}
	if r.protos["HTTP/2.0"] != users_ {
		t.Errorf("protocols = %v, want %d over HTTP/2", r.protos, users_)
	}
	if r.conns != 1 {
		t.Errorf("the burst used %d connections, want 1", r.conns)
	}
}

// When the origin's cap is above what one connection carries, the
// requests in flight are spread over lanes of StreamsPerConnection, one
// HTTP/2 connection each: from a cold start, the cap is reached with as
// many connections as lanes, not one per request that found no
// connection ready (what Go's transport alone does).
func TestPushInFlightSpreadOverLanes(t *testing.T) {
	cases := []struct {
		name                      string
		capacity, streams, server int
		wantConns                 int
	}{
		// The service allows twice a lane's streams per connection: only
		// the lanes can make the connections (a connection at the
		// service's own limit may get one more from Go's transport).
		{"two full lanes", 8, 4, 8, 2},
		{"three lanes, the last one half full", 10, 4, 8, 3},
		{"one lane", 4, 4, 8, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := pushBurst(t, c.capacity, 8*c.capacity, c.streams, uint32(c.server), false, 20*time.Millisecond)
			if !r.opened || r.maxInFlight != c.capacity {
				t.Fatalf("max in flight = %d, want the origin's cap %d", r.maxInFlight, c.capacity)
			}
			t.Logf("connections %d, max in flight %d", r.conns, r.maxInFlight)
			if r.conns != c.wantConns {
				t.Errorf("the burst used %d connections, want %d (lanes of %d)", r.conns, c.wantConns, c.streams)
			}
			if r.protos["HTTP/2.0"] != 8*c.capacity {
				t.Errorf("protocols = %v, want all over HTTP/2", r.protos)
			}
		})
	}
}
