package admin_test

import (
	"fmt"
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/internal/text"
	"camellos/modules/users"
)

func TestAdminUsersGuards(t *testing.T) {
	k := testkit.New(t)
	_, client := k.UserWithSession(users.RoleClient)
	_, _, camello := k.CreateCamello()
	target := k.CreateUser(users.RoleClient)
	for _, rt := range []struct{ method, path string }{
		{"GET", "/api/admin/users"},
		{"PATCH", "/api/admin/users/" + target.Id},
		{"GET", "/api/admin/camellos"},
	} {
		for _, c := range []struct {
			cookie, msg string
			status      int
		}{{"", "No autenticado", 401}, {client, "Sin permisos de administrador", 403}, {camello, "Sin permisos de administrador", 403}} {
			res := k.Do(testkit.Req{Method: rt.method, Path: rt.path, Cookie: c.cookie, Body: map[string]any{"role": "ADMIN"}})
			if res.Status != c.status || res.Error() != c.msg {
				t.Errorf("%s %s %q: %d %s", rt.method, rt.path, c.cookie, res.Status, res.Raw)
			}
		}
	}
	if u, _ := k.App.FindRecordById("users", target.Id); u.GetString("role") != users.RoleClient {
		t.Fatal("a non-admin changed a role")
	}
}

func TestAdminListUsers(t *testing.T) {
	k := testkit.New(t)
	_, admin := k.UserWithSession(users.RoleAdmin, testkit.UserOpts{Name: "Admin Uno"})
	for i := 0; i < 5; i++ {
		k.CreateUser(users.RoleClient, testkit.UserOpts{Name: fmt.Sprintf("Cliente %d", i)})
	}
	k.CreateUser(users.RoleClient, testkit.UserOpts{Name: "Ana Pérez", Email: "ana.perez@correo.co"})
	k.CreateCamello()

	cases := []struct {
		query  string
		status int
		total  float64
		items  int
		page   float64
		per    float64
	}{
		{"", 200, 8, 8, 1, 20},
		{"?role=CLIENTE", 200, 6, 6, 1, 20},
		{"?role=ADMIN", 200, 1, 1, 1, 20},
		{"?role=CAMELLOS", 200, 1, 1, 1, 20},
		{"?role=JEFE", 400, 0, 0, 0, 0},
		{"?q=ana", 200, 1, 1, 1, 20},
		{"?q=CORREO.CO", 200, 1, 1, 1, 20},
		{"?q=cliente&role=CLIENTE&perPage=2", 200, 5, 2, 1, 2},
		{"?q=cliente&perPage=2&page=3", 200, 5, 1, 3, 2},
		{"?q=cliente&perPage=2&page=4", 200, 5, 0, 4, 2},
		{"?q=100%25", 200, 0, 0, 1, 20},
		{"?perPage=1", 200, 8, 1, 1, 1},
		{"?perPage=100", 200, 8, 8, 1, 100},
		{"?perPage=0", 400, 0, 0, 0, 0},
		{"?perPage=101", 400, 0, 0, 0, 0},
		{"?page=0", 400, 0, 0, 0, 0},
		{"?page=-1", 400, 0, 0, 0, 0},
		{"?page=uno", 400, 0, 0, 0, 0},
	}
	for _, c := range cases {
		res := k.Get("/api/admin/users"+c.query, admin)
		if res.Status != c.status {
			t.Errorf("%s: %d %s", c.query, res.Status, res.Raw)
			continue
		}
		if c.status != 200 {
			if res.Error() != "Datos inválidos" || res.Get("issues.fieldErrors") == nil {
				t.Errorf("%s: %s", c.query, res.Raw)
			}
			continue
		}
		items, _ := res.Get("users").([]any)
		if res.Get("total") != c.total || len(items) != c.items || res.Get("page") != c.page || res.Get("perPage") != c.per {
			t.Errorf("%s: %s", c.query, res.Raw)
		}
	}
	res := k.Get("/api/admin/users?q=ana", admin)
	if res.Str("users.0.email") != "ana.perez@correo.co" || res.Str("users.0.role") != "CLIENTE" || res.Get("users.0.disabled") != false {
		t.Fatalf("shape: %s", res.Raw)
	}
	for _, secret := range []string{"password", "tokenKey", "passwordHash"} {
		if strings.Contains(string(res.Raw), secret) {
			t.Fatalf("%s leaked: %s", secret, res.Raw)
		}
	}
}

func TestAdminUpdateUser(t *testing.T) {
	k := testkit.New(t)
	me, admin := k.UserWithSession(users.RoleAdmin)
	target, targetCookie := k.UserWithSession(users.RoleClient)
	_ = k.Session(target) // a second session

	cases := []struct {
		name   string
		id     string
		body   any
		status int
		msg    string
	}{
		{"unknown", "nadie123", map[string]any{"name": "Xx"}, 404, "Usuario no encontrado"},
		{"bad id", "no%20valido", map[string]any{"name": "Xx"}, 400, "Datos inválidos"},
		{"bad role", target.Id, map[string]any{"role": "JEFE"}, 400, "Datos inválidos"},
		{"role not text", target.Id, map[string]any{"role": 1}, 400, "Datos inválidos"},
		{"name 1", target.Id, map[string]any{"name": "X"}, 400, "Datos inválidos"},
		{"name 121", target.Id, map[string]any{"name": strings.Repeat("ñ", 121)}, 400, "Datos inválidos"},
		{"disabled not bool", target.Id, map[string]any{"disabled": "sí"}, 400, "Datos inválidos"},
		{"own role", me.Id, map[string]any{"role": "CLIENTE"}, 409, "No puedes quitarte tu propio rol de administrador"},
		{"disable self", me.Id, map[string]any{"disabled": true}, 409, "No puedes desactivar tu propia cuenta"},
		{"own name", me.Id, map[string]any{"name": "Jefa", "role": "ADMIN", "disabled": false}, 200, ""},
		{"name 120", target.Id, map[string]any{"name": strings.Repeat("ñ", 120)}, 200, ""},
		{"name 2", target.Id, map[string]any{"name": "Xi"}, 200, ""},
		{"camellos without profile", target.Id, map[string]any{"role": "CAMELLOS"}, 400, "Datos inválidos"},
		{"role", target.Id, map[string]any{"role": "ADMIN", "name": "Nuevo Nombre"}, 200, ""},
	}
	for _, c := range cases {
		res := k.Patch("/api/admin/users/"+c.id, admin, c.body)
		if res.Status != c.status || (c.msg != "" && res.Error() != c.msg) {
			t.Errorf("%s: %d %s", c.name, res.Status, res.Raw)
		}
	}
	res := k.Get("/api/admin/users?q=Nuevo", admin)
	if res.Str("users.0.role") != "ADMIN" || res.Str("users.0.name") != "Nuevo Nombre" {
		t.Fatalf("after patch: %s", res.Raw)
	}

	// Disabling revokes every session.
	if n := k.Count("sessions", "user = {:u}", map[string]any{"u": target.Id}); n != 2 {
		t.Fatalf("sessions before = %d", n)
	}
	res = k.Patch("/api/admin/users/"+target.Id, admin, map[string]any{"disabled": true})
	if res.Status != 200 || res.Get("user.disabled") != true {
		t.Fatalf("disable: %d %s", res.Status, res.Raw)
	}
	if n := k.Count("sessions", "user = {:u}", map[string]any{"u": target.Id}); n != 0 {
		t.Fatalf("sessions after = %d", n)
	}
	if res := k.Post("/api/legal/terminos/accept", targetCookie, nil); res.Status != 401 {
		t.Fatalf("revoked cookie still works: %d", res.Status)
	}
	res = k.Patch("/api/admin/users/"+target.Id, admin, map[string]any{"disabled": false})
	if res.Status != 200 || res.Get("user.disabled") != false {
		t.Fatalf("enable: %d %s", res.Status, res.Raw)
	}
	// Another admin may be demoted.
	other := k.CreateUser(users.RoleAdmin)
	if res := k.Patch("/api/admin/users/"+other.Id, admin, map[string]any{"role": "CLIENTE"}); res.Status != 200 {
		t.Fatalf("demote other: %d %s", res.Status, res.Raw)
	}
}

func TestAdminListCamellos(t *testing.T) {
	k := testkit.New(t)
	_, admin := k.UserWithSession(users.RoleAdmin)
	_, pending, _ := k.CreateCamello(testkit.CamelloOpts{Status: "PENDIENTE", Name: "José Núñez", City: "Medellín"})
	k.CreateCamello(testkit.CamelloOpts{Status: "ACTIVO", Name: "Ana Ruiz"})
	k.CreateCamello(testkit.CamelloOpts{Status: "SUSPENDIDO", Name: "Luis Gómez"})
	for _, rec := range []string{pending.Id} {
		r, _ := k.App.FindRecordById("camellos", rec)
		r.Set("searchText", text.Fold(r.GetString("name")+" plomería medellín"))
		r.Set("documentId", "CC123")
		if err := k.App.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		query  string
		status int
		total  float64
	}{
		{"", 200, 3},
		{"?status=PENDIENTE", 200, 1},
		{"?status=ACTIVO", 200, 1},
		{"?status=RECHAZADO", 200, 0},
		{"?status=activo", 400, 0},
		{"?q=JOSE%20nunez", 200, 1},
		{"?q=Medellín&status=ACTIVO", 200, 0},
		{"?perPage=2&page=2", 200, 3},
		{"?perPage=101", 400, 0},
	}
	for _, c := range cases {
		res := k.Get("/api/admin/camellos"+c.query, admin)
		if res.Status != c.status || (c.status == 200 && res.Get("total") != c.total) {
			t.Errorf("%s: %d %s", c.query, res.Status, res.Raw)
		}
	}
	res := k.Get("/api/admin/camellos?status=PENDIENTE", admin)
	if res.Str("camellos.0.documentId") != "CC123" || res.Str("camellos.0.phone") == "" || res.Str("camellos.0.status") != "PENDIENTE" {
		t.Fatalf("private fields missing: %s", res.Raw)
	}
	if res := k.Get("/api/admin/camellos?perPage=2&page=2", admin); len(res.Get("camellos").([]any)) != 1 {
		t.Fatalf("page 2: %s", res.Raw)
	}
}
