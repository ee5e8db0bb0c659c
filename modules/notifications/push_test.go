package notifications_test

import (
	"encoding/base64"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"camellos/internal/pushtest"
	"camellos/internal/testkit"
	"camellos/modules/notifications"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

var topicPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// subscribeOK subscribes a browser through endpoint 9 and expects 201.
func subscribeOK(t *testing.T, k *testkit.Kit, cookie string, b *browser, endpoint string) string {
	t.Helper()
	res := k.Post("/api/notifications/push/subscribe", cookie, b.subscription(endpoint))
	if res.Status != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", res.Status, res.Raw)
	}
	return res.Str("subscription.id")
}

// TestPushEndToEnd subscribes a real browser identity over HTTP, sends a
// notification through Notify and decrypts what the HTTPS push service got.
func TestPushEndToEnd(t *testing.T) {
	cases := []struct {
		name        string
		subject     string // VAPID_SUBJECT
		wantSub     string
		kind        string
		wantTTL     string
		wantUrgency string
	}{
		{"reminder, default subject", "", "mailto:soporte@camellos.co", notifications.KindAppointmentReminder, "86400", "high"},
		{"job status, mailto subject", "mailto:ops@camellos.co", "mailto:ops@camellos.co", notifications.KindJobStatus, "604800", "normal"},
		{"https subject", "https://camellos.co/contacto", "https://camellos.co/contacto", notifications.KindJobAssigned, "604800", "normal"},
		{"bare e-mail subject", "avisos@camellos.co", "mailto:avisos@camellos.co", notifications.KindAdminMessage, "604800", "normal"},
		{"doubled mailto subject", "mailto:mailto:x@camellos.co", "mailto:x@camellos.co", notifications.KindAdminMessage, "604800", "normal"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("VAPID_SUBJECT", tc.subject)
			recv := newReceiver(t)
			k := newKit(t, recv)
			user, cookie := k.UserWithSession(users.RoleClient)
			b := newBrowser(t)
			subscribeOK(t, k, cookie, b, recv.endpoint("e2e"))

			title := "Recordatorio: cita mañana ñandú"
			body := "Tu cita con el camello es mañana a las 10:00 — lleva herramientas."
			if err := notifications.Notify(k.App, user.Id, notifications.Message{
				Kind: tc.kind, Title: title, Body: body, URL: "/citas.html?id=abc",
				Data: map[string]any{"appointmentId": "abc"},
			}); err != nil {
				t.Fatal(err)
			}
			drain(t, k)

			got := recv.requests()
			if len(got) != 1 {
				t.Fatalf("push requests = %d, want 1", len(got))
			}
			req := got[0]
			if req.Path != "/push/e2e" {
				t.Errorf("path = %q", req.Path)
			}
			if ce := req.Header.Get("Content-Encoding"); ce != "aes128gcm" {
				t.Errorf("Content-Encoding = %q", ce)
			}
			plain, err := b.decrypt(req.Body)
			if err != nil {
				t.Fatalf("decrypt: %v", err)
			}
			var payload map[string]any
			if err := pushtest.Into(plain, &payload); err != nil {
				t.Fatalf("payload %q: %v", plain, err)
			}
			rec, err := k.App.FindFirstRecordByData("notifications", "user", user.Id)
			if err != nil {
				t.Fatal(err)
			}
			// Declarative Web Push: the link to open is absolute (APP_URL), in Spanish.
			want := map[string]any{"title": title, "body": body, "url": "/citas.html?id=abc", "kind": tc.kind, "id": rec.Id,
				"navigate": "http://127.0.0.1:8090/citas.html?id=abc", "lang": "es-CO", "tag": rec.Id}
			for f, v := range want {
				if payload[f] != v {
					t.Errorf("payload.%s = %v, want %v", f, payload[f], v)
				}
			}
			if ttl := req.Header.Get("TTL"); ttl != tc.wantTTL {
				t.Errorf("TTL = %q, want %q", ttl, tc.wantTTL)
			}
			if u := req.Header.Get("Urgency"); u != tc.wantUrgency {
				t.Errorf("Urgency = %q, want %q", u, tc.wantUrgency)
			}
			if topic := req.Header.Get("Topic"); !topicPattern.MatchString(topic) {
				t.Errorf("Topic = %q, want 1–32 base64url characters", topic)
			}
			jwt := parseVAPID(t, req.Header.Get("Authorization"))
			if jwt.Claims["sub"] != tc.wantSub {
				t.Errorf("JWT sub = %v, want %s", jwt.Claims["sub"], tc.wantSub)
			}
			if jwt.Claims["aud"] != recv.srv.URL {
				t.Errorf("JWT aud = %v, want %s", jwt.Claims["aud"], recv.srv.URL)
			}
			if exp, _ := jwt.Claims["exp"].(float64); int64(exp) <= time.Now().Unix() || int64(exp) > time.Now().Add(24*time.Hour).Unix() {
				t.Errorf("JWT exp = %v, want within 24 h", jwt.Claims["exp"])
			}
			pk := k.Get("/api/notifications/push/public-key", "")
			if pk.Status != http.StatusOK || pk.Str("publicKey") != jwt.Key {
				t.Errorf("public key %d %q, JWT k=%q", pk.Status, pk.Str("publicKey"), jwt.Key)
			}
		})
	}
}

// TestPushTopicCollapsesRepeats: the same event repeated gets the same
// Topic; a different event another one.
func TestPushTopicCollapsesRepeats(t *testing.T) {
	recv := newReceiver(t)
	k := newKit(t, recv)
	user, cookie := k.UserWithSession(users.RoleCamello)
	subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("topic"))
	for _, id := range []string{"job1", "job1", "job2"} {
		if err := notifications.Notify(k.App, user.Id, notifications.Message{
			Kind: notifications.KindJobStatus, Title: "Trabajo actualizado", Data: map[string]any{"jobId": id},
		}); err != nil {
			t.Fatal(err)
		}
	}
	drain(t, k)
	got := recv.requests()
	if len(got) != 3 {
		t.Fatalf("requests = %d", len(got))
	}
	topics := map[string]int{}
	for _, r := range got {
		topics[r.Header.Get("Topic")]++
	}
	if len(topics) != 2 {
		t.Errorf("topics = %v, want two distinct (job1 twice)", topics)
	}
}

// TestPushLongBodyFitsOneRecord: a 2000-character multi-byte body is
// shortened in the push payload, never failing the delivery.
func TestPushLongBodyFitsOneRecord(t *testing.T) {
	recv := newReceiver(t)
	k := newKit(t, recv)
	user, cookie := k.UserWithSession(users.RoleClient)
	b := newBrowser(t)
	subscribeOK(t, k, cookie, b, recv.endpoint("long"))
	body := strings.Repeat("€", 2000)
	if err := notifications.Notify(k.App, user.Id, notifications.Message{
		Kind: notifications.KindAdminMessage, Title: strings.Repeat("ñ", 200), Body: body,
	}); err != nil {
		t.Fatal(err)
	}
	drain(t, k)
	got := recv.requests()
	if len(got) != 1 {
		t.Fatalf("requests = %d", len(got))
	}
	plain, err := b.decrypt(got[0].Body)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]string
	if err := pushtest.Into(plain, &p); err != nil {
		t.Fatal(err)
	}
	if p["title"] != strings.Repeat("ñ", 200) || !strings.HasPrefix(body, strings.TrimSuffix(p["body"], "…")) || len(p["body"]) == 0 {
		t.Errorf("payload title/body not kept or shortened correctly: %d bytes body", len(p["body"]))
	}
	// The inbox keeps the whole body.
	n := k.Get("/api/notifications", cookie)
	if n.Str("notifications.0.body") != body {
		t.Error("inbox body was shortened")
	}
}

// TestPushGoneDeletesSubscription: 404 and 410 answers delete the
// subscription at once, without retrying.
func TestPushGoneDeletesSubscription(t *testing.T) {
	for _, status := range []int{http.StatusGone, http.StatusNotFound} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			recv := newReceiver(t, status)
			k := newKit(t, recv)
			user, cookie := k.UserWithSession(users.RoleClient)
			gone := subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("gone"))
			if err := notifications.Notify(k.App, user.Id, notifications.Message{Kind: notifications.KindJobAssigned, Title: "Asignado"}); err != nil {
				t.Fatal(err)
			}
			drain(t, k)
			if n := len(recv.requests()); n != 1 {
				t.Errorf("requests = %d, want 1 (no retry)", n)
			}
			if n := k.Count("push_subscriptions", "id = {:id}", map[string]any{"id": gone}); n != 0 {
				t.Errorf("subscription still stored after %d", status)
			}
		})
	}
}

// TestPushRetries: 5xx and 429 are retried until the push service accepts;
// Retry-After is honoured; a push service that keeps failing is given up
// after the retries.
func TestPushRetries(t *testing.T) {
	t.Run("500 then 201", func(t *testing.T) {
		recv := newReceiver(t, http.StatusInternalServerError)
		k := newKit(t, recv)
		user, cookie := k.UserWithSession(users.RoleClient)
		b := newBrowser(t)
		sub := subscribeOK(t, k, cookie, b, recv.endpoint("retry"))
		if err := notifications.Notify(k.App, user.Id, notifications.Message{Kind: notifications.KindJobCancelled, Title: "Cancelado", Body: "El trabajo fue cancelado"}); err != nil {
			t.Fatal(err)
		}
		drain(t, k)
		got := recv.requests()
		if len(got) != 2 {
			t.Fatalf("requests = %d, want 2", len(got))
		}
		for i, r := range got {
			plain, err := b.decrypt(r.Body)
			if err != nil || !strings.Contains(string(plain), "El trabajo fue cancelado") {
				t.Errorf("attempt %d: %v %q", i+1, err, plain)
			}
		}
		if n := k.Count("push_subscriptions", "id = {:id}", map[string]any{"id": sub}); n != 1 {
			t.Error("subscription deleted after a 5xx")
		}
	})
	t.Run("429 with Retry-After", func(t *testing.T) {
		recv := newReceiver(t, http.StatusTooManyRequests, http.StatusServiceUnavailable)
		recv.retryAft = "1"
		k := newKit(t, recv)
		user, cookie := k.UserWithSession(users.RoleClient)
		subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("busy"))
		if err := notifications.Notify(k.App, user.Id, notifications.Message{Kind: notifications.KindJobStatus, Title: "Estado"}); err != nil {
			t.Fatal(err)
		}
		drain(t, k)
		got := recv.requests()
		if len(got) != 3 {
			t.Fatalf("requests = %d, want 3", len(got))
		}
		for i := 1; i < len(got); i++ {
			if gap := got[i].At.Sub(got[i-1].At); gap < 900*time.Millisecond {
				t.Errorf("retry %d came %v after the previous attempt, Retry-After was 1 s", i, gap)
			}
		}
	})
	t.Run("always 502: given up after the retries", func(t *testing.T) {
		recv := newReceiver(t, 502, 502, 502, 502, 502, 502)
		k := newKit(t, recv)
		user, cookie := k.UserWithSession(users.RoleClient)
		subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("down"))
		if err := notifications.Notify(k.App, user.Id, notifications.Message{Kind: notifications.KindJobStatus, Title: "Estado"}); err != nil {
			t.Fatal(err)
		}
		drain(t, k)
		if n := len(recv.requests()); n != 1+len(fastRetries) {
			t.Errorf("requests = %d, want %d", n, 1+len(fastRetries))
		}
	})
}

// TestPushFansOutToEverySubscription: each of a user's devices gets it;
// other users' devices do not.
func TestPushFansOutToEverySubscription(t *testing.T) {
	recv := newReceiver(t)
	k := newKit(t, recv)
	user, cookie := k.UserWithSession(users.RoleClient)
	_, other := k.UserWithSession(users.RoleClient)
	subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("phone"))
	subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("laptop"))
	subscribeOK(t, k, other, newBrowser(t), recv.endpoint("other"))
	if err := notifications.Notify(k.App, user.Id, notifications.Message{Kind: notifications.KindJobAssigned, Title: "Hola"}); err != nil {
		t.Fatal(err)
	}
	drain(t, k)
	paths := map[string]bool{}
	for _, r := range recv.requests() {
		paths[r.Path] = true
	}
	if len(paths) != 2 || !paths["/push/phone"] || !paths["/push/laptop"] {
		t.Errorf("pushed to %v", paths)
	}
}

// TestNotifyInTransaction: delivery happens only after the caller's
// transaction commits; a rolled back notification is neither stored nor
// pushed.
func TestNotifyInTransaction(t *testing.T) {
	recv := newReceiver(t)
	k := newKit(t, recv)
	user, cookie := k.UserWithSession(users.RoleClient)
	subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("tx"))

	errRollback := http.ErrAbortHandler
	err := k.App.RunInTransaction(func(txApp core.App) error {
		if err := notifications.Notify(txApp, user.Id, notifications.Message{Kind: notifications.KindJobAssigned, Title: "No"}); err != nil {
			return err
		}
		return errRollback
	})
	if err != errRollback {
		t.Fatalf("transaction error = %v", err)
	}
	drain(t, k)
	if n := len(recv.requests()); n != 0 {
		t.Fatalf("rolled back notification pushed %d times", n)
	}
	if n := k.Count("notifications", ""); n != 0 {
		t.Fatalf("rolled back notification stored")
	}

	err = k.App.RunInTransaction(func(txApp core.App) error {
		if err := notifications.Notify(txApp, user.Id, notifications.Message{Kind: notifications.KindJobAssigned, Title: "Sí"}); err != nil {
			return err
		}
		// Nothing is sent while the transaction is open.
		if !notifications.WaitIdle(k.App, time.Minute) || len(recv.requests()) != 0 {
			t.Error("pushed before commit")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	drain(t, k)
	if n := len(recv.requests()); n != 1 {
		t.Fatalf("committed notification pushed %d times", n)
	}
}

// TestPushKeysFromEnvironment: VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY are used
// when set (padding tolerated); otherwise a pair is generated once and
// stored in app_kv.
func TestPushKeysFromEnvironment(t *testing.T) {
	t.Run("generated once and stored", func(t *testing.T) {
		k := newKit(t, nil)
		first := k.Get("/api/notifications/push/public-key", "")
		second := k.Get("/api/notifications/push/public-key", "")
		key := first.Str("publicKey")
		raw, err := base64.RawURLEncoding.DecodeString(key)
		if first.Status != http.StatusOK || err != nil || len(raw) != 65 || raw[0] != 4 {
			t.Fatalf("public key %d %q", first.Status, key)
		}
		if second.Str("publicKey") != key {
			t.Error("public key changed between calls")
		}
		if n := k.Count("app_kv", "key = 'vapid_keys'"); n != 1 {
			t.Errorf("stored pairs = %d", n)
		}
	})
	t.Run("from environment", func(t *testing.T) {
		b := newBrowser(t) // any P-256 pair will do as a VAPID identity
		pub := base64.URLEncoding.EncodeToString(b.priv.PublicKey().Bytes())
		t.Setenv("VAPID_PUBLIC_KEY", pub)
		t.Setenv("VAPID_PRIVATE_KEY", base64.RawURLEncoding.EncodeToString(b.priv.Bytes()))
		recv := newReceiver(t)
		k := newKit(t, recv)
		res := k.Get("/api/notifications/push/public-key", "")
		want := strings.TrimRight(pub, "=")
		if res.Str("publicKey") != want {
			t.Fatalf("public key %q, want %q", res.Str("publicKey"), want)
		}
		user, cookie := k.UserWithSession(users.RoleClient)
		subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("env"))
		if err := notifications.Notify(k.App, user.Id, notifications.Message{Kind: notifications.KindJobStatus, Title: "x"}); err != nil {
			t.Fatal(err)
		}
		drain(t, k)
		got := recv.requests()
		if len(got) != 1 || parseVAPID(t, got[0].Header.Get("Authorization")).Key != want {
			t.Fatal("push not signed with the configured key")
		}
		if n := k.Count("app_kv", ""); n != 0 {
			t.Errorf("a key pair was stored although the environment has one")
		}
	})
}

// TestNotifyInAppOffInTransaction: with the inbox off, the push still waits
// for the caller's commit (and never happens on rollback).
func TestNotifyInAppOffInTransaction(t *testing.T) {
	recv := newReceiver(t)
	k := newKit(t, recv)
	user, cookie := k.UserWithSession(users.RoleCamello)
	device := newBrowser(t)
	subscribeOK(t, k, cookie, device, recv.endpoint("noinbox"))
	if res := k.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": map[string]any{
		notifications.KindJobCancelled: map[string]any{"inApp": false},
	}}); res.Status != http.StatusOK {
		t.Fatal(res.Status)
	}
	msg := notifications.Message{Kind: notifications.KindJobCancelled, Title: "Cancelado", Data: map[string]any{"jobId": "j1"}}
	_ = k.App.RunInTransaction(func(txApp core.App) error {
		if err := notifications.Notify(txApp, user.Id, msg); err != nil {
			t.Fatal(err)
		}
		return http.ErrAbortHandler // roll back
	})
	err := k.App.RunInTransaction(func(txApp core.App) error {
		if err := notifications.Notify(txApp, user.Id, msg); err != nil {
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
	got := recv.requests()
	if len(got) != 1 {
		t.Fatalf("pushes = %d, want 1 (the committed one)", len(got))
	}
	plain, err := device.decrypt(got[0].Body)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	_ = pushtest.Into(plain, &p)
	if p["title"] != "Cancelado" || p["id"] != "" || p["kind"] != "JOB_CANCELLED" {
		t.Errorf("payload %v", p)
	}
	if n := k.Count("notifications", ""); n != 0 {
		t.Errorf("inbox records = %d with in-app off", n)
	}
}
