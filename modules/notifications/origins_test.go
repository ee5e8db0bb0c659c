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
	deadline := time.Now().Add(20 * time.Second)
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

// A broadcast keeps many pushes in flight to one push service, multiplexed
// as HTTP/2 streams on one connection, and never more than the origin's
// cap: the receiver holds every answer until the cap is reached (with 4
// requests in flight at most, as before, it never would be).
func TestPushManyInFlightOnOneHTTP2Connection(t *testing.T) {
	const capacity, users_ = 8, 20
	var mu sync.Mutex
	inFlight, maxInFlight := 0, 0
	remotes := map[string]bool{}
	protos := map[string]int{}
	gate, open := make(chan struct{}), false
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
		protos[req.Proto]++
		inFlight++
		if inFlight > maxInFlight {
			maxInFlight = inFlight
		}
		if inFlight == capacity && !open {
			open = true
			close(gate)
		}
		mu.Unlock()
		select {
		case <-gate:
		case <-time.After(20 * time.Second): // never hang the suite
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	recv := &receiver{srv: srv}
	k := newKit(t, recv, func(app *tests.TestApp) {
		notifications.SetOptions(app, notifications.Options{HTTPClient: srv.Client(), RetryDelays: fastRetries, OriginConcurrency: capacity})
	})
	// One push first: the connection exists before the burst.
	u0, c0 := k.UserWithSession(users.RoleClient)
	subscribeOK(t, k, c0, newBrowser(t), recv.endpoint("warm"))
	msg := notifications.Message{Kind: notifications.KindJobStatus, Title: "Estado", Body: "Cambió"}
	if err := notifications.Notify(k.App, u0.Id, msg); err != nil {
		t.Fatal(err)
	}
	drain(t, k)
	var ids []string
	for i := 0; i < users_; i++ {
		u, c := k.UserWithSession(users.RoleClient)
		subscribeOK(t, k, c, newBrowser(t), recv.endpoint("u"+strings.Repeat("x", i)))
		ids = append(ids, u.Id)
	}
	mu.Lock()
	warm = false
	mu.Unlock()
	for _, id := range ids {
		if err := notifications.Notify(k.App, id, msg); err != nil {
			t.Fatal(err)
		}
	}
	drain(t, k)
	mu.Lock()
	defer mu.Unlock()
	if !open {
		t.Fatalf("at most %d pushes were in flight at once, want %d", maxInFlight, capacity)
	}
	if maxInFlight != capacity {
		t.Errorf("max in flight = %d, want exactly the origin's cap %d", maxInFlight, capacity)
	}
	if protos["HTTP/2.0"] != users_ {
		t.Errorf("protocols = %v, want %d over HTTP/2", protos, users_)
	}
	if len(remotes) != 1 {
		t.Errorf("the burst used %d connections, want 1: %v", len(remotes), remotes)
	}
}
