package notifications_test

import (
	"net/http"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/notifications"
	"camellos/modules/users"
)

// TestNothingWrittenForAnErasedUser closes, for the inbox and the push
// outbox, the window that made TestErasure flake for the mail outbox: a
// writer that read a user (its push subscriptions, its preferences) before
// the account was erased writes after the erasure committed. An admin
// broadcast is such a writer (recipients read at the request, batches
// written later), as are the reminder sweep (recipients read ahead of the
// write) and the dispatcher (push outbox rows written after the
// notification committed). Whatever was read before, nothing is written
// for the erased user, nothing is pushed to it, and the other users of the
// same call are served. Both push deliveries: from the web process and
// through the push outbox (PUSH_DELIVERY=worker).
func TestNothingWrittenForAnErasedUser(t *testing.T) {
	for _, mode := range []string{"web", "worker"} {
		t.Run(mode, func(t *testing.T) {
			t.Setenv("PUSH_DELIVERY", mode)
			recv := newReceiver(t)
			k := newKit(t, recv)
			erased, erasedCookie := k.UserWithSession(users.RoleCamello)
			enabled, enabledCookie := k.UserWithSession(users.RoleClient)
			subscribeOK(t, k, erasedCookie, newBrowser(t), recv.endpoint("erased"))
			subscribeOK(t, k, enabledCookie, newBrowser(t), recv.endpoint("enabled"))
			// What a writer read before the erasure.
			before, err := notifications.ReadRecipients(k.App, []string{erased.Id, enabled.Id})
			if err != nil {
				t.Fatal(err)
			}
			if res := k.Delete("/api/me", erasedCookie, map[string]any{"password": testkit.DefaultPassword}); res.Status != http.StatusOK {
				t.Fatalf("erase: %d %s", res.Status, res.Raw)
			}
			// What a writer read after it: no users row changes before the
			// write, so the write trusts this read (the users change counter
			// has not moved) instead of reading the users again.
			after, err := notifications.ReadRecipients(k.App, []string{erased.Id})
			if err != nil {
				t.Fatal(err)
			}
			msg := notifications.Message{Kind: notifications.KindAdminMessage, Title: "Aviso", Body: "Para todos"}
			cases := []struct {
				name string
				send func() error
			}{
				{"NotifyMany", func() error {
					return notifications.NotifyMany(k.App, []notifications.Addressed{{UserID: erased.Id, Message: msg}})
				}},
				{"NotifyManyKnown with what was read before", func() error {
					return notifications.NotifyManyKnown(k.App, []notifications.Addressed{{UserID: erased.Id, Message: msg}}, before)
				}},
				{"NotifyManyKnown with what was read after", func() error {
					return notifications.NotifyManyKnown(k.App, []notifications.Addressed{{UserID: erased.Id, Message: msg}}, after)
				}},
				{"Notify outside a transaction", func() error { return notifications.Notify(k.App, erased.Id, msg) }},
				{"a batch of both users", func() error {
					return notifications.NotifyManyKnown(k.App, []notifications.Addressed{
						{UserID: erased.Id, Message: msg}, {UserID: enabled.Id, Message: msg}}, before)
				}},
				{"the dispatcher's push outbox row of an older notification", func() error {
					return notifications.QueuePushFor(k.App, erased.Id, msg, before)
				}},
			}
			for _, tc := range cases {
				if err := tc.send(); err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				drain(t, k)
				for _, col := range []string{"notifications", "push_outbox"} {
					if n := k.Count(col, "user = {:u}", map[string]any{"u": erased.Id}); n != 0 {
						t.Errorf("%s: %s: %d rows for the erased user", tc.name, col, n)
					}
				}
			}
			for _, p := range recv.requests() {
				if p.Path == "/push/erased" {
					t.Errorf("pushed to the erased user's old endpoint")
				}
			}
			// The enabled user of the mixed batch was served.
			if n := k.Count("notifications", "user = {:u}", map[string]any{"u": enabled.Id}); n != 1 {
				t.Errorf("enabled user: %d inbox rows, want 1", n)
			}
			if mode == "web" {
				if got := len(recv.requests()); got != 1 {
					t.Errorf("pushes: %d, want 1 (the enabled user's)", got)
				}
			} else if n := k.Count("push_outbox", "user = {:u}", map[string]any{"u": enabled.Id}); n != 1 {
				t.Errorf("enabled user: %d push outbox rows, want 1", n)
			}
		})
	}
}

// TestRoutesWriteNothingForAUserErasedMeanwhile: a request whose session
// was read before its user was erased (the window between the session
// middleware and the handler's transaction) writes no push subscription
// and no preferences: 401, and no row. The erasure is made in that window
// by a middleware that runs after the session's.
func TestRoutesWriteNothingForAUserErasedMeanwhile(t *testing.T) {
	midRequest, eraseFirst, pending := testkit.EraseMidRequest()
	k := newKit(t, nil, midRequest)
	cases := []struct {
		name string
		col  string
		send func(cookie string) *testkit.Response
	}{
		{"push subscription", "push_subscriptions", func(cookie string) *testkit.Response {
			return k.Post("/api/notifications/push/subscribe", cookie, newBrowser(t).subscription("https://push.example.com/e/"+testkit.Unique()))
		}},
		{"preferences", "notification_preferences", func(cookie string) *testkit.Response {
			return k.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": map[string]any{
				notifications.KindJobStatus: map[string]any{"push": false}}})
		}},
	}
	for _, tc := range cases {
		// The same request without the erasure writes its row.
		u, cookie := k.UserWithSession(users.RoleClient)
		if res := tc.send(cookie); res.Status/100 != 2 {
			t.Fatalf("%s, user enabled: %d %s", tc.name, res.Status, res.Raw)
		}
		if n := k.Count(tc.col, "user = {:u}", map[string]any{"u": u.Id}); n != 1 {
			t.Fatalf("%s, user enabled: %d rows", tc.name, n)
		}
		u, cookie = k.UserWithSession(users.RoleClient)
		eraseFirst(u.Id)
		res := tc.send(cookie)
		if res.Status != http.StatusUnauthorized || res.Error() != "No autenticado" {
			t.Errorf("%s, user erased meanwhile: %d %s", tc.name, res.Status, res.Raw)
		}
		if pending(u.Id) {
			t.Fatalf("%s: the erasure did not run", tc.name)
		}
		if n := k.Count(tc.col, "user = {:u}", map[string]any{"u": u.Id}); n != 0 {
			t.Errorf("%s, user erased meanwhile: %d rows", tc.name, n)
		}
	}
}
