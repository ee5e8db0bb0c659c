package pb_migrations_test

import (
	"net/http"
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// The generic collection API is closed: nobody but superusers may list,
// read, create, change or delete records through /api/collections, and no
// PocketBase auth flow of the users collection is open.
func TestGenericCollectionAPIIsClosed(t *testing.T) {
	k := testkit.New(t)
	u, cookie := k.UserWithSession(users.RoleClient)
	_, cam, _ := k.CreateCamello()
	collections, err := k.App.FindAllCollections(core.CollectionTypeBase, core.CollectionTypeAuth)
	if err != nil {
		t.Fatal(err)
	}
	for _, col := range collections {
		if col.Name == core.CollectionNameSuperusers || strings.HasPrefix(col.Name, "_") {
			continue
		}
		for _, rule := range []*string{col.ListRule, col.ViewRule, col.CreateRule, col.UpdateRule, col.DeleteRule} {
			if rule != nil {
				t.Errorf("%s has an open rule %q", col.Name, *rule)
			}
		}
		base := "/api/collections/" + col.Name + "/records"
		for _, who := range []string{"", cookie} {
			if r := k.Get(base, who); r.Status == http.StatusOK && len(r.Get("items").([]any)) > 0 {
				t.Errorf("%s listed records", col.Name)
			}
		}
	}
	checks := []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/collections/users/records/" + u.Id, nil},
		{"GET", "/api/collections/camellos/records/" + cam.Id, nil},
		{"GET", "/api/collections/sessions/records", nil},
		{"PATCH", "/api/collections/users/records/" + u.Id, map[string]any{"role": "ADMIN"}},
		{"PATCH", "/api/collections/camellos/records/" + cam.Id, map[string]any{"status": "SUSPENDIDO"}},
		{"POST", "/api/collections/users/records", map[string]any{"email": "evil@example.com", "password": "12345678",
			"passwordConfirm": "12345678", "role": "ADMIN", "name": "Evil"}},
		{"POST", "/api/collections/users/auth-with-password", map[string]any{"identity": u.Email(), "password": testkit.DefaultPassword}},
		{"DELETE", "/api/collections/users/records/" + u.Id, nil},
	}
	for _, c := range checks {
		for _, who := range []string{"", cookie} {
			r := k.Do(testkit.Req{Method: c.method, Path: c.path, Body: c.body, Cookie: who})
			if r.Status < 400 {
				t.Errorf("%s %s (cookie=%v) answered %d: %s", c.method, c.path, who != "", r.Status, r.Raw)
			}
			for _, leak := range []string{"tokenHash", "documentId", "3001234567", "$2a$"} {
				if strings.Contains(string(r.Raw), leak) {
					t.Errorf("%s %s leaked %s", c.method, c.path, leak)
				}
			}
		}
	}
	if k.Count("users", "role = 'ADMIN'") != 0 {
		t.Fatal("an ADMIN was created through the generic API")
	}
	fresh, _ := k.App.FindRecordById("users", u.Id)
	if fresh.GetString("role") != users.RoleClient {
		t.Fatal("role escalated")
	}
}

// A superuser creating a user in the dashboard sets a plain password; it is
// derived like every other path, so the user can sign in with it.
func TestDashboardPasswordsWorkWithOurLogin(t *testing.T) {
	k := testkit.New(t)
	su := k.CreateRecord(core.CollectionNameSuperusers, map[string]any{"email": "root@example.com", "password": "superclave-123"})
	token, err := su.NewAuthToken()
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 90) + "!"
	r := k.Do(testkit.Req{Method: "POST", Path: "/api/collections/users/records", Headers: map[string]string{"Authorization": token},
		Body: map[string]any{"email": "Dash@Example.com", "password": long, "passwordConfirm": long, "role": "CLIENTE", "name": "Dash"}})
	if r.Status != 200 {
		t.Fatalf("dashboard create: %d %s", r.Status, r.Raw)
	}
	if res := k.Post("/api/auth/login", "", map[string]any{"email": "dash@example.com", "password": long}); res.Status != 200 {
		t.Fatalf("login with dashboard password: %d %s", res.Status, res.Raw)
	}
	r = k.Do(testkit.Req{Method: "POST", Path: "/api/collections/users/records", Headers: map[string]string{"Authorization": token},
		Body: map[string]any{"email": "dash2@example.com", "password": "clave-larga-1", "passwordConfirm": "otra-clave-1", "role": "CLIENTE"}})
	if r.Status != 400 {
		t.Fatalf("mismatched confirmation accepted: %d %s", r.Status, r.Raw)
	}
}
