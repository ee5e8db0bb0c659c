package admin_test

import (
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"
)

func TestAdminCamelloRoles(t *testing.T) {
	k := testkit.New(t)
	_, cam, camCookie := k.CreateCamello(testkit.CamelloOpts{Status: "PENDIENTE"})
	_, client := k.UserWithSession(users.RoleClient)
	_, admin := k.UserWithSession(users.RoleAdmin)
	path := "/api/admin/camellos/" + cam.Id
	cases := []struct {
		who, cookie string
		status      int
		msg         string
	}{
		{"anonymous", "", 401, "No autenticado"},
		{"forged cookie", "nope", 401, "No autenticado"},
		{"client", client, 403, "Sin permisos de administrador"},
		{"camello", camCookie, 403, "Sin permisos de administrador"},
		{"admin", admin, 200, ""},
	}
	for _, c := range cases {
		for _, method := range []string{"GET", "PATCH"} {
			var body any
			if method == "PATCH" {
				body = map[string]any{"premium": true}
			}
			r := k.Do(testkit.Req{Method: method, Path: path, Cookie: c.cookie, Body: body})
			if r.Status != c.status || (c.msg != "" && r.Error() != c.msg) {
				t.Fatalf("%s %s: %d %s", c.who, method, r.Status, r.Raw)
			}
			if c.msg != "" {
				if _, ok := r.JSON["issues"]; !ok {
					t.Fatalf("envelope without issues key: %s", r.Raw)
				}
			}
		}
	}
}

func TestAdminGetCamello(t *testing.T) {
	k := testkit.New(t)
	_, cam, _ := k.CreateCamello(testkit.CamelloOpts{Status: "PENDIENTE", Name: "Rosa Díaz"})
	_, admin := k.UserWithSession(users.RoleAdmin)
	r := k.Get("/api/admin/camellos/"+cam.Id, admin)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	for _, f := range []string{"id", "name", "trades", "status", "premium", "services", "createdAt", "updatedAt",
		"documentId", "phone", "city", "neighborhood", "professionalCard", "photo", "notes", "description"} {
		if _, ok := r.JSON["camello"].(map[string]any)[f]; !ok {
			t.Errorf("camello.%s missing", f)
		}
	}
	if r.Str("camello.name") != "Rosa Díaz" || r.Str("camello.phone") != "3001234567" {
		t.Fatalf("body: %s", r.Raw)
	}
	if r := k.Get("/api/admin/camellos/noexiste12345", admin); r.Status != 404 || r.Error() != "Camello no encontrado" {
		t.Fatalf("unknown: %d %s", r.Status, r.Raw)
	}
	for _, bad := range []string{"bad%20id", "a.b", "x" + string(make([]byte, 0)) + "123456789012345678901234567890123456789012345678901"} {
		if r := k.Get("/api/admin/camellos/"+bad, admin); r.Status != 400 || r.Get("issues") == nil {
			t.Fatalf("malformed id %q: %d %s", bad, r.Status, r.Raw)
		}
	}
}

func TestAdminCamelloTransitions(t *testing.T) {
	k := testkit.New(t)
	_, admin := k.UserWithSession(users.RoleAdmin)
	cases := []struct {
		from, to string
		status   int
	}{
		{"PENDIENTE", "ACTIVO", 200},
		{"PENDIENTE", "RECHAZADO", 200},
		{"PENDIENTE", "SUSPENDIDO", 409},
		{"ACTIVO", "SUSPENDIDO", 200},
		{"ACTIVO", "PENDIENTE", 409},
		{"ACTIVO", "RECHAZADO", 409},
		{"SUSPENDIDO", "ACTIVO", 200},
		{"SUSPENDIDO", "RECHAZADO", 409},
		{"RECHAZADO", "ACTIVO", 409},
		{"RECHAZADO", "PENDIENTE", 409},
		{"ACTIVO", "ACTIVO", 200},
		{"ACTIVO", "BORRADO", 400},
	}
	for _, c := range cases {
		t.Run(c.from+"→"+c.to, func(t *testing.T) {
			u, cam, _ := k.CreateCamello(testkit.CamelloOpts{Status: c.from})
			body := map[string]any{"status": c.to, "notes": "revisado"}
			if c.to == "RECHAZADO" {
				body["reason"] = "Documento ilegible" // a rejection needs its reason
			}
			r := k.Patch("/api/admin/camellos/"+cam.Id, admin, body)
			if r.Status != c.status {
				t.Fatalf("%d want %d: %s", r.Status, c.status, r.Raw)
			}
			fresh, _ := k.App.FindRecordById("camellos", cam.Id)
			switch {
			case c.status == 200:
				if fresh.GetString("status") != c.to || r.Str("camello.notes") != "revisado" {
					t.Fatalf("not saved: %s", r.Raw)
				}
				notified := k.Count("notifications", "user = {:u} AND kind = 'CAMELLO_STATUS'", map[string]any{"u": u.Id})
				if want := map[bool]int{true: 0, false: 1}[c.from == c.to]; notified != want {
					t.Fatalf("%d status notifications, want %d", notified, want)
				}
			default:
				if fresh.GetString("status") != c.from || fresh.GetString("notes") != "" {
					t.Fatal("refused change was written")
				}
			}
			if c.status == 409 && r.Error() != "Transición de estado no permitida: "+c.from+" → "+c.to {
				t.Fatalf("message: %s", r.Raw)
			}
			// The dashboard path (a direct save) obeys the same rule.
			if c.status == 409 {
				fresh.Set("status", c.to)
				if err := k.App.Save(fresh); err == nil {
					t.Fatal("direct save bypassed the transition rule")
				}
			}
		})
	}
	_, cam, _ := k.CreateCamello()
	if r := k.Patch("/api/admin/camellos/"+cam.Id, admin, map[string]any{}); r.Status != 400 {
		t.Fatalf("empty patch: %d", r.Status)
	}
	if r := k.Patch("/api/admin/camellos/"+cam.Id, admin, map[string]any{"premium": "sí"}); r.Status != 400 || len(r.FieldErrors("premium")) == 0 {
		t.Fatalf("premium type: %d %s", r.Status, r.Raw)
	}
	if r := k.Patch("/api/admin/camellos/noexiste12345", admin, map[string]any{"premium": true}); r.Status != 404 {
		t.Fatalf("unknown: %d", r.Status)
	}
}
