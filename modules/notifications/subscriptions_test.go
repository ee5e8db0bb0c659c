package notifications_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"sync"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

func TestSubscribeAuth(t *testing.T) {
	k := newKit(t, nil)
	b := newBrowser(t)
	for _, method := range []string{http.MethodPost, http.MethodDelete} {
		res := k.Do(testkit.Req{Method: method, Path: "/api/notifications/push/subscribe", Body: b.subscription("https://push.example.com/x")})
		if res.Status != http.StatusUnauthorized || res.Error() != "No autorizado" {
			t.Errorf("%s without session: %d %s", method, res.Status, res.Raw)
		}
		res = k.Do(testkit.Req{Method: method, Path: "/api/notifications/push/subscribe", Cookie: "not-a-session", Body: b.subscription("https://push.example.com/x")})
		if res.Status != http.StatusUnauthorized || res.Error() != "No autorizado" {
			t.Errorf("%s with a bad session: %d %s", method, res.Status, res.Raw)
		}
	}
	// Any signed-in role may subscribe.
	for i, role := range []string{users.RoleAdmin, users.RoleCamello, users.RoleClient} {
		_, cookie := k.UserWithSession(role)
		res := k.Post("/api/notifications/push/subscribe", cookie, b.subscription("https://push.example.com/role/"+string(rune('a'+i))))
		if res.Status != http.StatusCreated {
			t.Errorf("%s: %d %s", role, res.Status, res.Raw)
		}
	}
	// The public key needs no session.
	if res := k.Get("/api/notifications/push/public-key", ""); res.Status != http.StatusOK || res.Str("publicKey") == "" {
		t.Errorf("public key: %d %s", res.Status, res.Raw)
	}
}

func TestSubscribeValidation(t *testing.T) {
	k := newKit(t, nil)
	_, cookie := k.UserWithSession(users.RoleClient)
	b := newBrowser(t)
	pub := b.priv.PublicKey().Bytes()
	b64 := base64.RawURLEncoding.EncodeToString
	offCurve := append([]byte(nil), pub...)
	offCurve[64] ^= 0x01 // y no longer matches x
	compressed := append([]byte{0x02 | pub[64]&1}, pub[1:33]...)
	long := "https://push.example.com/" + strings.Repeat("a", 2048-len("https://push.example.com/"))

	cases := []struct {
		name   string
		body   any
		fields []string // fields with issues; none = valid
	}{
		{"valid, no padding", map[string]any{"endpoint": "https://push.example.com/ok1", "keys": map[string]any{"p256dh": b.p256dh(), "auth": b.authB64()}}, nil},
		{"valid, with padding", map[string]any{"endpoint": "https://push.example.com/ok2", "keys": map[string]any{"p256dh": base64.URLEncoding.EncodeToString(pub), "auth": base64.URLEncoding.EncodeToString(b.auth)}}, nil},
		{"endpoint of 2048 chars", map[string]any{"endpoint": long, "keys": map[string]any{"p256dh": b.p256dh(), "auth": b.authB64()}}, nil},
		{"endpoint of 2049 chars", map[string]any{"endpoint": long + "a", "keys": map[string]any{"p256dh": b.p256dh(), "auth": b.authB64()}}, []string{"endpoint"}},
		{"http endpoint", map[string]any{"endpoint": "http://push.example.com/x", "keys": map[string]any{"p256dh": b.p256dh(), "auth": b.authB64()}}, []string{"endpoint"}},
		{"not a URL", map[string]any{"endpoint": "push service", "keys": map[string]any{"p256dh": b.p256dh(), "auth": b.authB64()}}, []string{"endpoint"}},
		{"https without host", map[string]any{"endpoint": "https:///x", "keys": map[string]any{"p256dh": b.p256dh(), "auth": b.authB64()}}, []string{"endpoint"}},
		{"everything missing", map[string]any{}, []string{"endpoint", "keys.p256dh", "keys.auth"}},
		{"keys missing", map[string]any{"endpoint": "https://push.example.com/x"}, []string{"keys.p256dh", "keys.auth"}},
		{"p256dh off the curve", map[string]any{"endpoint": "https://push.example.com/x", "keys": map[string]any{"p256dh": b64(offCurve), "auth": b.authB64()}}, []string{"keys.p256dh"}},
		{"p256dh compressed", map[string]any{"endpoint": "https://push.example.com/x", "keys": map[string]any{"p256dh": b64(compressed), "auth": b.authB64()}}, []string{"keys.p256dh"}},
		{"p256dh 64 bytes", map[string]any{"endpoint": "https://push.example.com/x", "keys": map[string]any{"p256dh": b64(pub[:64]), "auth": b.authB64()}}, []string{"keys.p256dh"}},
		{"p256dh not base64url", map[string]any{"endpoint": "https://push.example.com/x", "keys": map[string]any{"p256dh": "***", "auth": b.authB64()}}, []string{"keys.p256dh"}},
		{"p256dh a number", map[string]any{"endpoint": "https://push.example.com/x", "keys": map[string]any{"p256dh": 42, "auth": b.authB64()}}, []string{"keys.p256dh"}},
		{"auth 15 bytes", map[string]any{"endpoint": "https://push.example.com/x", "keys": map[string]any{"p256dh": b.p256dh(), "auth": b64(b.auth[:15])}}, []string{"keys.auth"}},
		{"auth 17 bytes", map[string]any{"endpoint": "https://push.example.com/x", "keys": map[string]any{"p256dh": b.p256dh(), "auth": b64(append(b.auth, 1))}}, []string{"keys.auth"}},
		{"keys not an object", map[string]any{"endpoint": "https://push.example.com/x", "keys": "abc"}, []string{"keys"}},
		{"endpoint not a string", map[string]any{"endpoint": 5, "keys": map[string]any{"p256dh": b.p256dh(), "auth": b.authB64()}}, []string{"endpoint"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := k.Post("/api/notifications/push/subscribe", cookie, tc.body)
			if tc.fields == nil {
				if res.Status != http.StatusCreated || res.Str("subscription.id") == "" {
					t.Fatalf("%d %s", res.Status, res.Raw)
				}
				return
			}
			if res.Status != http.StatusBadRequest || res.Error() != "Datos inválidos" {
				t.Fatalf("%d %s", res.Status, res.Raw)
			}
			for _, f := range tc.fields {
				if len(fieldIssues(res, f)) == 0 {
					t.Errorf("no issue for %s: %s", f, res.Raw)
				}
			}
		})
	}
	if res := k.Post("/api/notifications/push/subscribe", cookie, "{"); res.Status != http.StatusBadRequest || res.Error() != "Cuerpo JSON inválido" {
		t.Errorf("malformed JSON: %d %s", res.Status, res.Raw)
	}
}

func TestSubscribeUpsert(t *testing.T) {
	k := newKit(t, nil)
	owner, cookie := k.UserWithSession(users.RoleClient)
	other, otherCookie := k.UserWithSession(users.RoleCamello)
	endpoint := "https://push.example.com/device-1"
	b := newBrowser(t)

	first := k.Post("/api/notifications/push/subscribe", cookie, b.subscription(endpoint))
	if first.Status != http.StatusCreated {
		t.Fatalf("new: %d %s", first.Status, first.Raw)
	}
	if first.Str("subscription.endpoint") != endpoint || first.Str("subscription.createdAt") == "" || first.Get("subscription.keys") != nil {
		t.Errorf("subscription object: %s", first.Raw)
	}
	id := first.Str("subscription.id")

	// Same endpoint again, with rotated keys: 200, same record, new keys.
	b2 := newBrowser(t)
	again := k.Post("/api/notifications/push/subscribe", cookie, b2.subscription(endpoint))
	if again.Status != http.StatusOK || again.Str("subscription.id") != id {
		t.Fatalf("existing: %d %s", again.Status, again.Raw)
	}
	rec, _ := k.App.FindRecordById("push_subscriptions", id)
	if rec.GetString("p256dh") != b2.p256dh() || rec.GetString("user") != owner.Id {
		t.Error("keys not updated")
	}

	// Another user posts the endpoint: 409, and the subscription stays
	// with its owner, keys and all (no takeover).
	b3 := newBrowser(t)
	taken := k.Post("/api/notifications/push/subscribe", otherCookie, b3.subscription(endpoint))
	if taken.Status != http.StatusConflict || taken.Error() != "Este dispositivo ya recibe avisos de otra cuenta; esa cuenta debe desactivarlos primero" {
		t.Fatalf("another user's post: %d %s", taken.Status, taken.Raw)
	}
	rec, _ = k.App.FindRecordById("push_subscriptions", id)
	if rec.GetString("user") != owner.Id || rec.GetString("p256dh") != b2.p256dh() {
		t.Error("the subscription was taken over")
	}
	if n := k.Count("push_subscriptions", ""); n != 1 {
		t.Errorf("subscriptions = %d, want 1", n)
	}
	// The other user cannot delete it either; once its owner removes it,
	// the endpoint is free for another account.
	if res := k.Delete("/api/notifications/push/subscribe", otherCookie, map[string]any{"endpoint": endpoint}); res.Status != http.StatusNotFound {
		t.Errorf("delete by another user: %d %s", res.Status, res.Raw)
	}
	if res := k.Delete("/api/notifications/push/subscribe", cookie, map[string]any{"endpoint": endpoint}); res.Status != http.StatusNoContent {
		t.Fatalf("delete by its owner: %d %s", res.Status, res.Raw)
	}
	if res := k.Post("/api/notifications/push/subscribe", otherCookie, b3.subscription(endpoint)); res.Status != http.StatusCreated {
		t.Fatalf("free endpoint: %d %s", res.Status, res.Raw)
	}
	if rec, err := k.App.FindFirstRecordByData("push_subscriptions", "endpoint", endpoint); err != nil || rec.GetString("user") != other.Id {
		t.Error("the freed endpoint is not the new user's")
	}
}

// TestSubscribeConcurrent: parallel subscriptions of one endpoint by
// several users make one record; exactly one answer is 201, the others 409
// (the endpoint is the first one's).
func TestSubscribeConcurrent(t *testing.T) {
	k := newKit(t, nil)
	const n = 8
	cookies := make([]string, n)
	for i := range cookies {
		_, cookies[i] = k.UserWithSession(users.RoleClient)
	}
	b := newBrowser(t)
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			statuses[i] = k.Post("/api/notifications/push/subscribe", cookies[i], b.subscription("https://push.example.com/race")).Status
		}(i)
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		switch s {
		case http.StatusCreated:
			created++
		case http.StatusConflict:
		default:
			t.Errorf("status %d", s)
		}
	}
	if created != 1 {
		t.Errorf("201 answers = %d, want 1 (%v)", created, statuses)
	}
	if c := k.Count("push_subscriptions", ""); c != 1 {
		t.Errorf("records = %d", c)
	}
}

func TestUnsubscribe(t *testing.T) {
	k := newKit(t, nil)
	_, cookie := k.UserWithSession(users.RoleClient)
	_, otherCookie := k.UserWithSession(users.RoleClient)
	endpoint := "https://push.example.com/bye"
	if res := k.Post("/api/notifications/push/subscribe", cookie, newBrowser(t).subscription(endpoint)); res.Status != http.StatusCreated {
		t.Fatal(res.Status)
	}
	cases := []struct {
		name   string
		cookie string
		body   any
		status int
		msg    string
	}{
		{"missing endpoint", cookie, map[string]any{}, 400, "Datos inválidos"},
		{"endpoint not a string", cookie, map[string]any{"endpoint": true}, 400, "Datos inválidos"},
		{"unknown endpoint", cookie, map[string]any{"endpoint": "https://push.example.com/nope"}, 404, "Suscripción no encontrada"},
		{"someone else's", otherCookie, map[string]any{"endpoint": endpoint}, 404, "Suscripción no encontrada"},
		{"own", cookie, map[string]any{"endpoint": endpoint}, 204, ""},
		{"already removed", cookie, map[string]any{"endpoint": endpoint}, 404, "Suscripción no encontrada"},
	}
	for _, tc := range cases {
		res := k.Delete("/api/notifications/push/subscribe", tc.cookie, tc.body)
		if res.Status != tc.status || res.Error() != tc.msg {
			t.Errorf("%s: %d %s", tc.name, res.Status, res.Raw)
		}
	}
	if n := k.Count("push_subscriptions", ""); n != 0 {
		t.Errorf("subscriptions left = %d", n)
	}
}

// TestSubscriptionRecordHook: a subscription saved outside our route (the
// dashboard) is validated the same way.
func TestSubscriptionRecordHook(t *testing.T) {
	k := newKit(t, nil)
	user := k.CreateUser(users.RoleClient)
	col, _ := k.App.FindCollectionByNameOrId("push_subscriptions")
	rec := core.NewRecord(col)
	rec.Set("user", user.Id)
	rec.Set("endpoint", "http://insecure.example.com/x")
	rec.Set("p256dh", "abc")
	rec.Set("auth", "abc")
	if err := k.App.Save(rec); err == nil {
		t.Fatal("invalid subscription saved")
	}
}

// The re-sync of a subscription (every app open, pushsubscriptionchange):
// new → 201, unchanged → 200, a replaced endpoint leaves with its
// oldEndpoint (the caller's only), another user's endpoint is 409, and a
// bad body is 400 in Spanish.
func TestPushSync(t *testing.T) {
	k := newKit(t, nil)
	_, cookie := k.UserWithSession(users.RoleClient)
	_, other := k.UserWithSession(users.RoleCamello)
	b := newBrowser(t)
	withOld := func(endpoint, old string) map[string]any {
		body := b.subscription(endpoint)
		body["oldEndpoint"] = old
		return body
	}
	k.Post("/api/notifications/push/subscribe", other, b.subscription("https://push.example.com/de-otro"))
	for _, tc := range []struct {
		name    string
		cookie  string
		body    any
		status  int
		present []string
		absent  []string
	}{
		{"first open", cookie, b.subscription("https://push.example.com/a"), http.StatusCreated, []string{"https://push.example.com/a"}, nil},
		{"next open, unchanged", cookie, b.subscription("https://push.example.com/a"), http.StatusOK, []string{"https://push.example.com/a"}, nil},
		{"pushsubscriptionchange", cookie, withOld("https://push.example.com/b", "https://push.example.com/a"), http.StatusCreated,
			[]string{"https://push.example.com/b"}, []string{"https://push.example.com/a"}},
		{"old endpoint of another user stays", cookie, withOld("https://push.example.com/c", "https://push.example.com/de-otro"), http.StatusCreated,
			[]string{"https://push.example.com/c", "https://push.example.com/de-otro"}, nil},
		{"endpoint of another user", cookie, b.subscription("https://push.example.com/de-otro"), http.StatusConflict, nil, nil},
		{"not https", cookie, b.subscription("http://push.example.com/d"), http.StatusBadRequest, nil, []string{"http://push.example.com/d"}},
		{"no session", "", b.subscription("https://push.example.com/e"), http.StatusUnauthorized, nil, []string{"https://push.example.com/e"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := k.Post("/api/notifications/push/sync", tc.cookie, tc.body)
			if res.Status != tc.status {
				t.Fatalf("%d %s, want %d", res.Status, res.Raw, tc.status)
			}
			if res.Status >= 400 && res.Error() == "" {
				t.Fatalf("no Spanish error: %s", res.Raw)
			}
			for _, e := range tc.present {
				if k.Count("push_subscriptions", "endpoint = {:e}", map[string]any{"e": e}) != 1 {
					t.Errorf("%s missing", e)
				}
			}
			for _, e := range tc.absent {
				if k.Count("push_subscriptions", "endpoint = {:e}", map[string]any{"e": e}) != 0 {
					t.Errorf("%s still stored", e)
				}
			}
		})
	}
}
