package notifications_test

import (
	"net/http"
	"testing"
	"time"

	"camellos/internal/pushtest"
	"camellos/modules/notifications"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// TestNotifyMany: one bulk call honours every user's preferences like
// Notify: inbox rows as the API shows them, pushes (decrypted, carrying
// the inbox id) only for subscribed users with push on, critical
// reminders in the inbox even with in-app off.
func TestNotifyMany(t *testing.T) {
	recv := newReceiver(t)
	k := newKit(t, recv)
	subscribed, subCookie := k.UserWithSession(users.RoleClient)
	noInbox, noInboxCookie := k.UserWithSession(users.RoleCamello)
	plain, plainCookie := k.UserWithSession(users.RoleClient) // no subscription
	pushOff, pushOffCookie := k.UserWithSession(users.RoleClient)
	devices := map[string]*browser{"/push/sub": newBrowser(t), "/push/noinbox": newBrowser(t), "/push/off": newBrowser(t)}
	subscribeOK(t, k, subCookie, devices["/push/sub"], recv.endpoint("sub"))
	subscribeOK(t, k, noInboxCookie, devices["/push/noinbox"], recv.endpoint("noinbox"))
	subscribeOK(t, k, pushOffCookie, devices["/push/off"], recv.endpoint("off"))
	for cookie, prefs := range map[string]map[string]any{
		noInboxCookie: {notifications.KindJobStatus: map[string]any{"inApp": false}},
		pushOffCookie: {notifications.KindJobStatus: map[string]any{"push": false}, notifications.KindAppointmentReminder: map[string]any{"push": false}},
	} {
		if res := k.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": prefs}); res.Status != http.StatusOK {
			t.Fatalf("preferences: %d %s", res.Status, res.Raw)
		}
	}

	status := notifications.Message{Kind: notifications.KindJobStatus, Title: "Estado", Body: "En progreso ñ",
		URL: "/trabajos.html?id=j1", Data: map[string]any{"jobId": "j1"}}
	reminder := notifications.Message{Kind: notifications.KindAppointmentReminder, Title: "Recordatorio de cita",
		Body: "Mañana", Data: map[string]any{"appointmentId": "a1"}}
	var items []notifications.Addressed
	for _, u := range []*core.Record{subscribed, noInbox, plain, pushOff} {
		items = append(items, notifications.Addressed{UserID: u.Id, Message: status},
			notifications.Addressed{UserID: u.Id, Message: reminder})
	}
	if err := notifications.NotifyMany(k.App, items); err != nil {
		t.Fatal(err)
	}
	drain(t, k)

	// Inbox: everyone gets the reminder; JOB_STATUS skips noInbox's inbox.
	for _, c := range []struct {
		name   string
		cookie string
		kinds  []string
	}{
		{"subscribed", subCookie, []string{"APPOINTMENT_REMINDER", "JOB_STATUS"}},
		{"in-app off", noInboxCookie, []string{"APPOINTMENT_REMINDER"}},
		{"no subscription", plainCookie, []string{"APPOINTMENT_REMINDER", "JOB_STATUS"}},
		{"push off", pushOffCookie, []string{"APPOINTMENT_REMINDER", "JOB_STATUS"}},
	} {
		res := k.Get("/api/notifications?perPage=100", c.cookie)
		if res.Status != http.StatusOK || res.Get("total") != float64(len(c.kinds)) || res.Get("unread") != float64(len(c.kinds)) {
			t.Fatalf("%s inbox: %d %s", c.name, res.Status, res.Raw)
		}
		got := map[string]bool{}
		list, _ := res.Get("notifications").([]any)
		for _, raw := range list {
			n := raw.(map[string]any)
			got[n["kind"].(string)] = true
			if n["readAt"] != nil || len(n["id"].(string)) != 15 {
				t.Errorf("%s: notification %v", c.name, n)
			}
			if created, err := time.Parse("2006-01-02T15:04:05.000Z", n["createdAt"].(string)); err != nil || time.Since(created) > time.Minute {
				t.Errorf("%s: createdAt %v", c.name, n["createdAt"])
			}
			if n["kind"] == "JOB_STATUS" && (n["body"] != "En progreso ñ" || n["url"] != "/trabajos.html?id=j1" ||
				n["data"].(map[string]any)["jobId"] != "j1") {
				t.Errorf("%s: notification %v", c.name, n)
			}
		}
		for _, kind := range c.kinds {
			if !got[kind] {
				t.Errorf("%s: no %s in the inbox (%v)", c.name, kind, got)
			}
		}
	}

	// Push: subscribed twice, in-app-off user twice (JOB_STATUS with id ""),
	// push-off user never, the user without a subscription never.
	perPath := map[string][]map[string]any{}
	for _, r := range recv.requests() {
		b := devices[r.Path]
		if b == nil {
			t.Fatalf("push to %s", r.Path)
		}
		raw, err := b.decrypt(r.Body)
		if err != nil {
			t.Fatalf("%s: decrypt: %v", r.Path, err)
		}
		var p map[string]any
		if err := pushtest.Into(raw, &p); err != nil {
			t.Fatal(err)
		}
		perPath[r.Path] = append(perPath[r.Path], p)
	}
	if len(perPath["/push/sub"]) != 2 || len(perPath["/push/noinbox"]) != 2 || len(perPath["/push/off"]) != 0 {
		t.Fatalf("pushes per device: sub %d, noinbox %d, off %d", len(perPath["/push/sub"]), len(perPath["/push/noinbox"]), len(perPath["/push/off"]))
	}
	for path, user := range map[string]*core.Record{"/push/sub": subscribed, "/push/noinbox": noInbox} {
		for _, p := range perPath[path] {
			wantID := ""
			if rec, err := k.App.FindFirstRecordByFilter("notifications", "user = {:u} && kind = {:k}",
				map[string]any{"u": user.Id, "k": p["kind"]}); err == nil {
				wantID = rec.Id
			}
			if p["id"] != wantID || p["title"] == "" {
				t.Errorf("%s: payload %v, want id %q", path, p, wantID)
			}
		}
	}
}

// TestNotifyManyInTransaction: the rows roll back with the caller's
// transaction and nothing is pushed; after a commit the pushes go out.
func TestNotifyManyInTransaction(t *testing.T) {
	recv := newReceiver(t)
	k := newKit(t, recv)
	user, cookie := k.UserWithSession(users.RoleClient)
	subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("tx"))
	items := []notifications.Addressed{{UserID: user.Id, Message: notifications.Message{Kind: notifications.KindJobAssigned, Title: "Uno"}}}

	err := k.App.RunInTransaction(func(txApp core.App) error {
		if err := notifications.NotifyMany(txApp, items); err != nil {
			return err
		}
		return http.ErrAbortHandler
	})
	if err != http.ErrAbortHandler {
		t.Fatalf("transaction error = %v", err)
	}
	drain(t, k)
	if n := k.Count("notifications", ""); n != 0 || len(recv.requests()) != 0 {
		t.Fatalf("rolled back: %d stored, %d pushed", n, len(recv.requests()))
	}

	err = k.App.RunInTransaction(func(txApp core.App) error {
		if err := notifications.NotifyMany(txApp, items); err != nil {
			return err
		}
		if !notifications.WaitIdle(k.App, time.Minute) || len(recv.requests()) != 0 {
			t.Error("pushed before commit")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	drain(t, k)
	if n := k.Count("notifications", ""); n != 1 || len(recv.requests()) != 1 {
		t.Fatalf("committed: %d stored, %d pushed", n, len(recv.requests()))
	}
}

// TestNotifyManyRejects: an unknown user, kind or out-of-bounds field
// fails the whole call and stores nothing.
func TestNotifyManyRejects(t *testing.T) {
	k := newKit(t, nil)
	user := k.CreateUser(users.RoleClient)
	ok := notifications.Message{Kind: notifications.KindJobAssigned, Title: "Bien"}
	cases := map[string]notifications.Addressed{
		"unknown user":  {UserID: "abcdefghijklmno", Message: ok},
		"malformed id":  {UserID: "no válido", Message: ok},
		"unknown kind":  {UserID: user.Id, Message: notifications.Message{Kind: "NOPE", Title: "x"}},
		"empty title":   {UserID: user.Id, Message: notifications.Message{Kind: notifications.KindJobAssigned}},
		"long title":    {UserID: user.Id, Message: notifications.Message{Kind: notifications.KindJobAssigned, Title: string(make([]byte, 201))}},
		"long body":     {UserID: user.Id, Message: notifications.Message{Kind: notifications.KindJobAssigned, Title: "x", Body: string(make([]byte, 2001))}},
		"huge data":     {UserID: user.Id, Message: notifications.Message{Kind: notifications.KindJobAssigned, Title: "x", Data: map[string]any{"x": string(make([]byte, 17000))}}},
		"unsendable da": {UserID: user.Id, Message: notifications.Message{Kind: notifications.KindJobAssigned, Title: "x", Data: map[string]any{"f": func() {}}}},
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			err := notifications.NotifyMany(k.App, []notifications.Addressed{{UserID: user.Id, Message: ok}, bad})
			if err == nil {
				t.Fatal("accepted")
			}
			if n := k.Count("notifications", ""); n != 0 {
				t.Fatalf("%d stored", n)
			}
		})
	}
	// Bounds just inside are fine.
	long := notifications.Message{Kind: notifications.KindJobAssigned, Title: string(make([]rune, 200)), Body: string(make([]rune, 2000))}
	if err := notifications.NotifyMany(k.App, []notifications.Addressed{{UserID: user.Id, Message: long}}); err != nil {
		t.Fatal(err)
	}
	if err := notifications.NotifyMany(k.App, nil); err != nil {
		t.Fatal(err)
	}
}

// TestQueueFullNeverDrops: with a one-slot queue and one worker held by
// the push service, a burst of notifications (single saves and a bulk
// call) waits for room instead of being dropped, and the requests that
// caused them are not blocked.
func TestQueueFullNeverDrops(t *testing.T) {
	recv := newReceiver(t)
	recv.gate = make(chan struct{})
	k := newKit(t, recv, func(app *tests.TestApp) {
		notifications.SetOptions(app, notifications.Options{HTTPClient: recv.srv.Client(), RetryDelays: fastRetries, Workers: 1, QueueSize: 1})
	})
	user, cookie := k.UserWithSession(users.RoleClient)
	subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("burst"))
	const singles, bulk = 15, 15
	for i := 0; i < singles; i++ {
		if err := notifications.Notify(k.App, user.Id, notifications.Message{Kind: notifications.KindJobStatus, Title: "Uno"}); err != nil {
			t.Fatal(err)
		}
	}
	var items []notifications.Addressed
	for i := 0; i < bulk; i++ {
		items = append(items, notifications.Addressed{UserID: user.Id, Message: notifications.Message{Kind: notifications.KindJobStatus, Title: "Varios"}})
	}
	if err := notifications.NotifyMany(k.App, items); err != nil {
		t.Fatal(err)
	}
	// The API answers while every delivery is held.
	if res := k.Get("/api/notifications", cookie); res.Status != http.StatusOK || res.Get("total") != float64(singles+bulk) {
		t.Fatalf("inbox: %d %s", res.Status, res.Raw)
	}
	close(recv.gate)
	drain(t, k)
	if n := len(recv.requests()); n != singles+bulk {
		t.Fatalf("pushes = %d, want %d (none dropped)", n, singles+bulk)
	}
}

// TestDispatcherSkipsUnreachableUsers: users without a subscription (and
// e-mail off) never reach the delivery queue: a one-slot queue held by a
// hanging push service still takes their notifications without waiting.
func TestDispatcherSkipsUnreachableUsers(t *testing.T) {
	recv := newReceiver(t)
	recv.gate = make(chan struct{})
	k := newKit(t, recv, func(app *tests.TestApp) {
		notifications.SetOptions(app, notifications.Options{HTTPClient: recv.srv.Client(), Workers: 1, QueueSize: 1})
	})
	reachable, cookie := k.UserWithSession(users.RoleClient)
	subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("held"))
	if err := notifications.Notify(k.App, reachable.Id, notifications.Message{Kind: notifications.KindJobStatus, Title: "Retenido"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the held push", func() bool { return len(recv.requests()) == 1 })
	plain := k.CreateUser(users.RoleClient)
	for i := 0; i < 5; i++ {
		if err := notifications.Notify(k.App, plain.Id, notifications.Message{Kind: notifications.KindJobStatus, Title: "Sin canal"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := notifications.NotifyMany(k.App, []notifications.Addressed{{UserID: plain.Id,
		Message: notifications.Message{Kind: notifications.KindJobStatus, Title: "Sin canal"}}}); err != nil {
		t.Fatal(err)
	}
	// Only the held push is pending: nothing of the unreachable user queued.
	if notifications.Pending(k.App) != 1 {
		t.Errorf("pending deliveries = %d, want 1 (the held push)", notifications.Pending(k.App))
	}
	close(recv.gate)
	drain(t, k)
	if n := k.Count("notifications", "user = {:u}", map[string]any{"u": plain.Id}); n != 6 {
		t.Errorf("inbox rows of the unreachable user = %d, want 6", n)
	}
}
