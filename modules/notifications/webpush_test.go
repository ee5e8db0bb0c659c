package notifications_test

import (
	"net/http"
	"testing"

	"camellos/modules/notifications"
	"camellos/modules/users"
)

// TestPushVAPIDHeaderPerOrigin: the VAPID Authorization header is signed
// once per push service origin and reused (every push to one origin
// carries the same JWT, whose aud is that origin); another origin gets
// its own. Every body is one 4096-byte record that the subscriber
// decrypts, through Notify and NotifyMany alike.
func TestPushVAPIDHeaderPerOrigin(t *testing.T) {
	one, two := newReceiver(t), newReceiver(t) // two origins (ports), one test certificate
	k := newKit(t, one)
	first, cookie1 := k.UserWithSession(users.RoleClient)
	second, cookie2 := k.UserWithSession(users.RoleCamello)
	devices := map[string]*browser{"a": newBrowser(t), "b": newBrowser(t), "c": newBrowser(t)}
	subscribeOK(t, k, cookie1, devices["a"], one.endpoint("a"))
	subscribeOK(t, k, cookie1, devices["b"], one.endpoint("b"))
	subscribeOK(t, k, cookie2, devices["c"], two.endpoint("c"))

	msg := notifications.Message{Kind: notifications.KindJobStatus, Title: "Tu trabajo cambió"}
	if err := notifications.Notify(k.App, first.Id, msg); err != nil {
		t.Fatal(err)
	}
	if err := notifications.Notify(k.App, second.Id, msg); err != nil {
		t.Fatal(err)
	}
	if err := notifications.NotifyMany(k.App, []notifications.Addressed{
		{UserID: first.Id, Message: notifications.Message{Kind: notifications.KindAdminMessage, Title: "Aviso uno"}},
		{UserID: second.Id, Message: notifications.Message{Kind: notifications.KindAdminMessage, Title: "Aviso dos"}},
	}); err != nil {
		t.Fatal(err)
	}
	drain(t, k)

	for _, tc := range []struct {
		recv *receiver
		want int
	}{{one, 4}, {two, 2}} {
		got := tc.recv.requests()
		if len(got) != tc.want {
			t.Fatalf("%s got %d pushes, want %d", tc.recv.srv.URL, len(got), tc.want)
		}
		auth := got[0].Header.Get("Authorization")
		jwt := parseVAPID(t, auth)
		if jwt.Claims["aud"] != tc.recv.srv.URL {
			t.Errorf("aud = %v, want %s", jwt.Claims["aud"], tc.recv.srv.URL)
		}
		for _, p := range got {
			if p.Header.Get("Authorization") != auth {
				t.Errorf("%s: a push signed anew: %q, first %q", tc.recv.srv.URL, p.Header.Get("Authorization"), auth)
			}
			if len(p.Body) != 4096 {
				t.Errorf("body of %d bytes, want one 4096-byte record", len(p.Body))
			}
			name := p.Path[len("/push/"):]
			if _, err := devices[name].decrypt(p.Body); err != nil {
				t.Errorf("push to %s: %v", name, err)
			}
		}
	}
	if one.requests()[0].Header.Get("Authorization") == two.requests()[0].Header.Get("Authorization") {
		t.Error("two origins share one VAPID header")
	}
}

// TestNotifyManyGoneDeletesSubscription: a delivery queued by NotifyMany
// (which carries the subscriptions it read) still deletes a subscription
// the push service answers 410 for.
func TestNotifyManyGoneDeletesSubscription(t *testing.T) {
	recv := newReceiver(t, http.StatusGone)
	k := newKit(t, recv)
	user, cookie := k.UserWithSession(users.RoleClient)
	gone := subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("gone"))
	if err := notifications.NotifyMany(k.App, []notifications.Addressed{
		{UserID: user.Id, Message: notifications.Message{Kind: notifications.KindAdminMessage, Title: "Aviso"}},
	}); err != nil {
		t.Fatal(err)
	}
	drain(t, k)
	if n := len(recv.requests()); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
	if n := k.Count("push_subscriptions", "id = {:id}", map[string]any{"id": gone}); n != 0 {
		t.Error("subscription still stored after 410")
	}
}
