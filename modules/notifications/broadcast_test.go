package notifications_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"camellos/internal/pushtest"
	"camellos/internal/testkit"
	"camellos/modules/notifications"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

func TestBroadcastAuth(t *testing.T) {
	k := newKit(t, nil)
	body := map[string]any{"title": "Hola", "role": "CLIENTE"}
	if res := k.Post("/api/admin/notifications", "", body); res.Status != http.StatusUnauthorized || res.Error() != "No autenticado" {
		t.Errorf("guest: %d %s", res.Status, res.Raw)
	}
	for _, role := range []string{users.RoleCamello, users.RoleClient} {
		_, cookie := k.UserWithSession(role)
		if res := k.Post("/api/admin/notifications", cookie, body); res.Status != http.StatusForbidden || res.Error() != "Sin permisos de administrador" {
			t.Errorf("%s: %d %s", role, res.Status, res.Raw)
		}
	}
}

func TestBroadcastValidation(t *testing.T) {
	k := newKit(t, nil)
	_, admin := k.UserWithSession(users.RoleAdmin)
	client := k.CreateUser(users.RoleClient)
	tooMany := make([]string, 1001)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf("id%d", i)
	}
	cases := []struct {
		name  string
		body  any
		field string // "" = form error
	}{
		{"title missing", map[string]any{"role": "CLIENTE"}, "title"},
		{"title blank", map[string]any{"title": "   ", "role": "CLIENTE"}, "title"},
		{"title 201 chars", map[string]any{"title": strings.Repeat("ñ", 201), "role": "CLIENTE"}, "title"},
		{"body 2001 chars", map[string]any{"title": "t", "body": strings.Repeat("é", 2001), "role": "CLIENTE"}, "body"},
		{"url not a path or URL", map[string]any{"title": "t", "url": "javascript:alert(1)", "role": "CLIENTE"}, "url"},
		{"url protocol-relative", map[string]any{"title": "t", "url": "//evil.example.com", "role": "CLIENTE"}, "url"},
		{"neither role nor userIds", map[string]any{"title": "t"}, ""},
		{"both role and userIds", map[string]any{"title": "t", "role": "CLIENTE", "userIds": []string{client.Id}}, ""},
		{"unknown role", map[string]any{"title": "t", "role": "JEFE"}, "role"},
		{"role lower case", map[string]any{"title": "t", "role": "cliente"}, "role"},
		{"role not a string", map[string]any{"title": "t", "role": 1}, "role"},
		{"userIds empty", map[string]any{"title": "t", "userIds": []string{}}, "userIds"},
		{"userIds 1001", map[string]any{"title": "t", "userIds": tooMany}, "userIds"},
		{"userIds bad id", map[string]any{"title": "t", "userIds": []string{"a b"}}, "userIds"},
		{"userIds unknown", map[string]any{"title": "t", "userIds": []string{client.Id, "unknownuser123"}}, "userIds"},
		{"userIds not a list", map[string]any{"title": "t", "userIds": "abc"}, "userIds"},
	}
	for _, tc := range cases {
		res := k.Post("/api/admin/notifications", admin, tc.body)
		if res.Status != http.StatusBadRequest || res.Error() != "Datos inválidos" {
			t.Errorf("%s: %d %s", tc.name, res.Status, res.Raw)
			continue
		}
		if tc.field == "" {
			if fe, _ := res.Get("issues.formErrors").([]any); len(fe) == 0 {
				t.Errorf("%s: no form error: %s", tc.name, res.Raw)
			}
		} else if len(res.FieldErrors(tc.field)) == 0 {
			t.Errorf("%s: no issue for %s: %s", tc.name, tc.field, res.Raw)
		}
	}
	// Bounds just inside.
	ok := k.Post("/api/admin/notifications", admin, map[string]any{
		"title": strings.Repeat("ñ", 200), "body": strings.Repeat("é", 2000), "url": "/trabajos.html", "userIds": []string{client.Id, client.Id},
	})
	if ok.Status != http.StatusAccepted || ok.Get("queued") != 1.0 {
		t.Errorf("inside bounds: %d %s", ok.Status, ok.Raw)
	}
	drain(t, k)
	if n := k.Count("notifications", "user = {:u}", map[string]any{"u": client.Id}); n != 1 {
		t.Errorf("deduplicated userIds wrote %d notifications", n)
	}
	if n := k.Count("notifications", ""); n != 1 {
		t.Errorf("rejected broadcasts wrote notifications: %d", n)
	}
}

// TestBroadcastDelivers: a role broadcast reaches every active user of the
// role (inbox in batches, then push), and only them.
func TestBroadcastDelivers(t *testing.T) {
	recv := newReceiver(t)
	k := newKit(t, recv, func(app *tests.TestApp) {
		notifications.SetOptions(app, notifications.Options{HTTPClient: recv.srv.Client(), RetryDelays: fastRetries, BatchSize: 3})
	})
	_, admin := k.UserWithSession(users.RoleAdmin)
	var camellos []*core.Record
	for i := 0; i < 7; i++ {
		u, _ := k.UserWithSession(users.RoleCamello)
		camellos = append(camellos, u)
	}
	k.CreateUser(users.RoleCamello, testkit.UserOpts{Disabled: true})
	client, clientCookie := k.UserWithSession(users.RoleClient)
	pushUser, pushCookie := camellos[0], k.Session(camellos[0])
	device := newBrowser(t)
	subscribeOK(t, k, pushCookie, device, recv.endpoint("camello"))
	subscribeOK(t, k, clientCookie, newBrowser(t), recv.endpoint("client"))

	res := k.Post("/api/admin/notifications", admin, map[string]any{"title": "Mantenimiento", "body": "Esta noche", "url": "/avisos", "role": "CAMELLOS"})
	if res.Status != http.StatusAccepted || res.Get("queued") != 7.0 {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	drain(t, k)
	if n := k.Count("notifications", "kind = 'ADMIN_MESSAGE'"); n != 7 {
		t.Errorf("inbox records = %d, want 7", n)
	}
	if n := k.Count("notifications", "user = {:u}", map[string]any{"u": client.Id}); n != 0 {
		t.Error("a client got the camellos' broadcast")
	}
	inbox := k.Get("/api/notifications", pushCookie)
	if inbox.Str("notifications.0.kind") != "ADMIN_MESSAGE" || inbox.Str("notifications.0.title") != "Mantenimiento" || inbox.Str("notifications.0.url") != "/avisos" {
		t.Errorf("inbox: %s", inbox.Raw)
	}
	got := recv.requests()
	if len(got) != 1 || got[0].Path != "/push/camello" {
		t.Fatalf("pushes: %d", len(got))
	}
	plain, err := device.decrypt(got[0].Body)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	_ = pushtest.Into(plain, &p)
	if p["title"] != "Mantenimiento" || p["body"] != "Esta noche" || p["kind"] != "ADMIN_MESSAGE" || p["id"] != inbox.Str("notifications.0.id") {
		t.Errorf("payload %v", p)
	}
	_ = pushUser
}

// TestBroadcastTenThousand: 10,000 recipients are counted and answered
// 202 at once; the records follow in the background.
func TestBroadcastTenThousand(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("bulk test: skipped with -short or -race")
	}
	k := newKit(t, nil)
	_, admin := k.UserWithSession(users.RoleAdmin)
	// Insert the users in bulk (no password hashing): one transaction.
	now := time.Now().UTC().Format("2006-01-02 15:04:05.000Z")
	err := k.App.RunInTransaction(func(txApp core.App) error {
		for i := 0; i < 10000; i++ {
			_, err := txApp.DB().Insert("users", dbx.Params{
				"id": fmt.Sprintf("bulkuser%07d", i), "email": fmt.Sprintf("bulk%d@example.com", i),
				"password": "x", "tokenKey": fmt.Sprintf("tk%d", i), "role": "CLIENTE",
				"name": "Bulk", "created": now, "updated": now,
			}).Execute()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := k.Post("/api/admin/notifications", admin, map[string]any{"title": "A todos", "role": "CLIENTE"})
	t.Logf("202 after %v", time.Since(start))
	if res.Status != http.StatusAccepted || res.Get("queued") != 10000.0 {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	drain(t, k)
	if n := k.Count("notifications", ""); n != 10000 {
		t.Errorf("records = %d", n)
	}
}

// TestDeliveryForEveryInboxRecord: an inbox record written by any path
// (here saved directly, as another module or the dashboard would) is pushed.
func TestDeliveryForEveryInboxRecord(t *testing.T) {
	recv := newReceiver(t)
	k := newKit(t, recv)
	user, cookie := k.UserWithSession(users.RoleClient)
	subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("direct"))
	k.CreateRecord("notifications", map[string]any{"user": user.Id, "kind": "JOB_ASSIGNED", "title": "Directo"})
	drain(t, k)
	if n := len(recv.requests()); n != 1 {
		t.Errorf("pushes = %d", n)
	}
	// Without SMTP configured nothing is mailed.
	if n := k.App.TestMailer.TotalSend(); n != 0 {
		t.Errorf("mails = %d without SMTP", n)
	}
}
