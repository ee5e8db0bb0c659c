package notifications_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/notifications"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/tests"
)

// Private push targets are refused at subscription unless
// WEBPUSH_ALLOW_PRIVATE is set.
func TestSubscribeRefusesPrivateTargets(t *testing.T) {
	t.Setenv("WEBPUSH_ALLOW_PRIVATE", "")
	k := testkit.New(t)
	_, cookie := k.UserWithSession(users.RoleClient)
	b := newBrowser(t)
	for _, endpoint := range []string{
		"https://127.0.0.1:8443/push/x",
		"https://127.1.2.3/x",
		"https://10.0.0.1/x",
		"https://172.16.5.4/x",
		"https://192.168.1.1/x",
		"https://169.254.169.254/latest/meta-data",
		"https://100.64.0.1/x",
		"https://224.0.0.1/x",
		"https://0.0.0.0/x",
		"https://[::1]/x",
		"https://[::]/x",
		"https://[fd00::1]/x",
		"https://[fe80::1]/x",
		"https://[ff02::1]/x",
		"https://[::ffff:127.0.0.1]/x",
		"https://localhost/x",
		"https://push.localhost/x",
	} {
		res := k.Post("/api/notifications/push/subscribe", cookie, b.subscription(endpoint))
		if res.Status != http.StatusBadRequest || len(fieldIssues(res, "endpoint")) == 0 {
			t.Errorf("%s: %d %s", endpoint, res.Status, res.Raw)
		}
	}
	if n := k.Count("push_subscriptions", "id != ''"); n != 0 {
		t.Fatalf("%d private subscriptions stored", n)
	}
	if res := k.Post("/api/notifications/push/subscribe", cookie, b.subscription("https://fcm.googleapis.com/fcm/send/abc")); res.Status != http.StatusCreated {
		t.Fatalf("public endpoint: %d %s", res.Status, res.Raw)
	}
}

// A subscription whose host resolves to a private address by the time a
// push is sent (DNS rebinding, or stored before the check) is refused at
// dial time, after resolution: no connection is ever opened.
func TestPushRefusesPrivateTargetsAtDialTime(t *testing.T) {
	t.Setenv("WEBPUSH_ALLOW_PRIVATE", "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	k := testkit.New(t)
	user := k.CreateUser(users.RoleClient)
	b := newBrowser(t)
	port := ln.Addr().(*net.TCPAddr).Port
	for i, host := range []string{"127.0.0.1", "localhost"} {
		k.CreateRecord("push_subscriptions", map[string]any{"user": user.Id,
			"endpoint": fmt.Sprintf("https://%s:%d/push/%d", host, port, i), "p256dh": b.p256dh(), "auth": b.authB64()})
	}
	if err := notifications.Notify(k.App, user.Id, notifications.Message{Kind: notifications.KindJobAssigned, Title: "Hola"}); err != nil {
		t.Fatal(err)
	}
	drain(t, k)
	if n := conns.Load(); n != 0 {
		t.Fatalf("the service opened %d connections to a loopback push target", n)
	}
}

// Redirects from a push service are not followed.
func TestPushFollowsNoRedirect(t *testing.T) {
	var hits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(target.Close)
	recv := newReceiver(t)
	recv.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/robado", http.StatusTemporaryRedirect)
	})
	k := newKit(t, recv)
	user, cookie := k.UserWithSession(users.RoleClient)
	subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("r"))
	if err := notifications.Notify(k.App, user.Id, notifications.Message{Kind: notifications.KindJobAssigned, Title: "Hola"}); err != nil {
		t.Fatal(err)
	}
	drain(t, k)
	if n := hits.Load(); n != 0 {
		t.Fatalf("redirect followed %d times", n)
	}
}

// A user keeps at most 10 subscriptions: the 11th replaces the oldest.
func TestSubscriptionsPerUserAreCapped(t *testing.T) {
	k := newKit(t, nil)
	user, cookie := k.UserWithSession(users.RoleClient)
	b := newBrowser(t)
	for i := 0; i < 11; i++ {
		res := k.Post("/api/notifications/push/subscribe", cookie, b.subscription(fmt.Sprintf("https://push.example.com/d%d", i)))
		if res.Status != http.StatusCreated {
			t.Fatalf("subscription %d: %d %s", i, res.Status, res.Raw)
		}
		time.Sleep(3 * time.Millisecond) // distinct creation times
	}
	if n := k.Count("push_subscriptions", "user = {:u}", map[string]any{"u": user.Id}); n != 10 {
		t.Fatalf("%d subscriptions kept, want 10", n)
	}
	if n := k.Count("push_subscriptions", "endpoint = 'https://push.example.com/d0'"); n != 0 {
		t.Fatal("the oldest subscription was kept")
	}
	if n := k.Count("push_subscriptions", "endpoint = 'https://push.example.com/d10'"); n != 1 {
		t.Fatal("the newest subscription is missing")
	}
}

// A user whose 8 endpoints never answer does not hold the delivery
// workers: with two workers and pushes that wait as long as the endpoints
// hang (the requests never time out during the test), another user's push
// still arrives while every push of the first user hangs. Without the fair
// queue the first user's notifications take both workers and the other
// push never leaves. No duration is asserted: a busy machine only makes
// the wait longer, never the answer different.
func TestDeadEndpointsDoNotStarveOtherUsers(t *testing.T) {
	release := make(chan struct{})
	var hung atomic.Int32
	dead := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hung.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	var once sync.Once
	stop := func() { once.Do(func() { close(release); dead.CloseClientConnections(); dead.Close() }) }
	t.Cleanup(stop)
	recv := newReceiver(t)
	k := newKit(t, recv, func(app *tests.TestApp) {
		notifications.SetOptions(app, notifications.Options{RetryDelays: fastRetries, HTTPClient: recv.srv.Client(),
			Workers: 2, PushTimeout: time.Hour})
	})
	t.Cleanup(stop) // runs before the kit's cleanup: the service stops first
	attacker, aCookie := k.UserWithSession(users.RoleClient)
	victim, vCookie := k.UserWithSession(users.RoleClient)
	for i := 0; i < 8; i++ {
		subscribeOK(t, k, aCookie, newBrowser(t), fmt.Sprintf("%s/push/dead%d", dead.URL, i))
	}
	subscribeOK(t, k, vCookie, newBrowser(t), recv.endpoint("victim"))
	for i := 0; i < 8; i++ {
		if err := notifications.Notify(k.App, attacker.Id, notifications.Message{Kind: notifications.KindJobAssigned, Title: fmt.Sprintf("A%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the first user's pushes to hang", func() bool { return hung.Load() > 0 })
	if err := notifications.Notify(k.App, victim.Id, notifications.Message{Kind: notifications.KindJobAssigned, Title: "B"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the other user's push", func() bool { return len(recv.requests()) > 0 })
	select {
	case <-release:
		t.Fatal("the dead endpoints were released before the other user's push arrived")
	default: // every push of the first user still hangs
	}
	t.Logf("the other user's push arrived while %d requests to the dead endpoints hung", hung.Load())
}
