package notifications_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/internal/timefmt"
	"camellos/modules/notifications"
	"camellos/modules/users"
)

// notify writes n notifications for a user through the dispatcher.
func notify(t *testing.T, k *testkit.Kit, userID string, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		err := notifications.Notify(k.App, userID, notifications.Message{
			Kind: notifications.KindJobStatus, Title: fmt.Sprintf("Aviso %d", i), Body: "Cuerpo",
			URL: "/trabajos.html?id=j", Data: map[string]any{"jobId": fmt.Sprintf("job%d", i)},
		})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // distinct creation times for the order
	}
}

func TestInboxAuth(t *testing.T) {
	k := newKit(t, nil)
	routes := []struct{ method, path string }{
		{http.MethodGet, "/api/notifications"},
		{http.MethodPost, "/api/notifications/abc/read"},
		{http.MethodPost, "/api/notifications/read-all"},
		{http.MethodGet, "/api/notifications/preferences"},
		{http.MethodPut, "/api/notifications/preferences"},
	}
	for _, r := range routes {
		res := k.Do(testkit.Req{Method: r.method, Path: r.path})
		if res.Status != http.StatusUnauthorized || res.Error() != "No autorizado" {
			t.Errorf("%s %s: %d %s", r.method, r.path, res.Status, res.Raw)
		}
	}
	for _, role := range []string{users.RoleAdmin, users.RoleCamello, users.RoleClient} {
		_, cookie := k.UserWithSession(role)
		if res := k.Get("/api/notifications", cookie); res.Status != http.StatusOK {
			t.Errorf("%s: %d %s", role, res.Status, res.Raw)
		}
	}
}

func TestInboxList(t *testing.T) {
	k := newKit(t, nil)
	user, cookie := k.UserWithSession(users.RoleClient)
	other, otherCookie := k.UserWithSession(users.RoleCamello)
	notify(t, k, user.Id, 25)
	notify(t, k, other.Id, 1)

	res := k.Get("/api/notifications", cookie)
	if res.Status != http.StatusOK {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	items, _ := res.Get("notifications").([]any)
	if len(items) != 20 || res.Get("total") != 25.0 || res.Get("unread") != 25.0 || res.Get("page") != 1.0 || res.Get("perPage") != 20.0 {
		t.Fatalf("first page: %d items, %s", len(items), res.Raw)
	}
	if res.Str("notifications.0.title") != "Aviso 25" || res.Str("notifications.19.title") != "Aviso 6" {
		t.Errorf("not newest first: %s .. %s", res.Str("notifications.0.title"), res.Str("notifications.19.title"))
	}
	first, _ := res.Get("notifications.0").(map[string]any)
	for _, f := range []string{"id", "kind", "title", "body", "url", "data", "readAt", "createdAt"} {
		if _, ok := first[f]; !ok {
			t.Errorf("notification object lacks %s", f)
		}
	}
	if first["readAt"] != nil || first["kind"] != "JOB_STATUS" || res.Str("notifications.0.data.jobId") != "job25" || res.Str("notifications.0.url") != "/trabajos.html?id=j" {
		t.Errorf("notification object: %v", first)
	}
	if _, ok := timefmt.ParseTime(res.Str("notifications.0.createdAt")); !ok {
		t.Errorf("createdAt %q", res.Str("notifications.0.createdAt"))
	}

	page2 := k.Get("/api/notifications?page=2", cookie)
	if items, _ := page2.Get("notifications").([]any); len(items) != 5 || page2.Str("notifications.4.title") != "Aviso 1" || page2.Get("page") != 2.0 {
		t.Errorf("page 2: %s", page2.Raw)
	}
	beyond := k.Get("/api/notifications?page=9", cookie)
	if items, _ := beyond.Get("notifications").([]any); beyond.Status != 200 || len(items) != 0 || beyond.Get("total") != 25.0 {
		t.Errorf("page beyond: %s", beyond.Raw)
	}
	for _, pp := range []struct {
		q    string
		want int
	}{{"perPage=1", 1}, {"perPage=100", 25}} {
		r := k.Get("/api/notifications?"+pp.q, cookie)
		if items, _ := r.Get("notifications").([]any); r.Status != 200 || len(items) != pp.want {
			t.Errorf("%s: %d %d items", pp.q, r.Status, len(items))
		}
	}
	for _, q := range []struct{ query, field string }{
		{"page=0", "page"}, {"page=-1", "page"}, {"page=x", "page"}, {"page=922337203685477580", "page"},
		{"perPage=0", "perPage"}, {"perPage=101", "perPage"}, {"perPage=2.5", "perPage"},
		{"unread=maybe", "unread"},
	} {
		r := k.Get("/api/notifications?"+q.query, cookie)
		if r.Status != http.StatusBadRequest || len(r.FieldErrors(q.field)) == 0 {
			t.Errorf("%s: %d %s", q.query, r.Status, r.Raw)
		}
	}

	// The other user sees only theirs.
	o := k.Get("/api/notifications", otherCookie)
	if o.Get("total") != 1.0 || o.Get("unread") != 1.0 {
		t.Errorf("other user's inbox: %s", o.Raw)
	}
}

func TestInboxRead(t *testing.T) {
	k := newKit(t, nil)
	user, cookie := k.UserWithSession(users.RoleCamello)
	_, otherCookie := k.UserWithSession(users.RoleClient)
	_, adminCookie := k.UserWithSession(users.RoleAdmin)
	notify(t, k, user.Id, 3)
	list := k.Get("/api/notifications", cookie)
	id := list.Str("notifications.2.id") // the oldest

	// Nobody but the owner may read it, admins included: 404.
	for name, c := range map[string]string{"other user": otherCookie, "admin": adminCookie} {
		if res := k.Post("/api/notifications/"+id+"/read", c, nil); res.Status != http.StatusNotFound || res.Error() != "Notificación no encontrada" {
			t.Errorf("%s: %d %s", name, res.Status, res.Raw)
		}
	}
	if res := k.Post("/api/notifications/unknownid12345/read", cookie, nil); res.Status != http.StatusNotFound {
		t.Errorf("unknown: %d %s", res.Status, res.Raw)
	}
	if res := k.Post("/api/notifications/bad%20id/read", cookie, nil); res.Status != http.StatusBadRequest || len(res.FieldErrors("id")) == 0 {
		t.Errorf("bad id: %d %s", res.Status, res.Raw)
	}

	res := k.Post("/api/notifications/"+id+"/read", cookie, nil)
	readAt := res.Str("notification.readAt")
	if res.Status != http.StatusOK || res.Str("notification.id") != id || readAt == "" {
		t.Fatalf("read: %d %s", res.Status, res.Raw)
	}
	// Idempotent: the first read time stays.
	if again := k.Post("/api/notifications/"+id+"/read", cookie, nil); again.Status != 200 || again.Str("notification.readAt") != readAt {
		t.Errorf("read again: %s", again.Raw)
	}
	unread := k.Get("/api/notifications?unread=true", cookie)
	if items, _ := unread.Get("notifications").([]any); len(items) != 2 || unread.Get("total") != 2.0 || unread.Get("unread") != 2.0 {
		t.Errorf("unread list: %s", unread.Raw)
	}
	all := k.Get("/api/notifications", cookie)
	if all.Get("total") != 3.0 || all.Get("unread") != 2.0 {
		t.Errorf("list after read: %s", all.Raw)
	}

	// read-all touches only the caller's.
	other := k.CreateUser(users.RoleClient)
	notify(t, k, other.Id, 1)
	ra := k.Post("/api/notifications/read-all", cookie, nil)
	if ra.Status != http.StatusOK || ra.Get("updated") != 2.0 || ra.Get("unread") != 0.0 {
		t.Errorf("read-all: %d %s", ra.Status, ra.Raw)
	}
	if after := k.Get("/api/notifications", cookie); after.Get("unread") != 0.0 || after.Get("total") != 3.0 {
		t.Errorf("after read-all: %s", after.Raw)
	}
	if n := k.Count("notifications", "user = {:u} AND readAt = ''", map[string]any{"u": other.Id}); n != 1 {
		t.Errorf("read-all changed another user's notifications")
	}
}
