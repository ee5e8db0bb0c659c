package catalog_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"
)

type roles struct {
	admin, client, camello string
}

func setup(t *testing.T) (*testkit.Kit, roles) {
	k := testkit.New(t)
	_, admin := k.UserWithSession(users.RoleAdmin)
	_, client := k.UserWithSession(users.RoleClient)
	_, _, camello := k.CreateCamello()
	return k, roles{admin: admin, client: client, camello: camello}
}

func TestAdminRoutesGuarded(t *testing.T) {
	k, r := setup(t)
	routes := []struct{ method, path string }{
		{"GET", "/api/admin/categories"},
		{"POST", "/api/admin/categories"},
		{"PATCH", "/api/admin/categories/hogar"},
		{"DELETE", "/api/admin/categories/hogar"},
		{"GET", "/api/admin/services"},
		{"POST", "/api/admin/services"},
		{"PATCH", "/api/admin/services/abc"},
		{"DELETE", "/api/admin/services/abc"},
	}
	for _, rt := range routes {
		for _, c := range []struct {
			cookie string
			status int
			msg    string
		}{
			{"", 401, "No autenticado"},
			{"not-a-session", 401, "No autenticado"},
			{r.client, 403, "Sin permisos de administrador"},
			{r.camello, 403, "Sin permisos de administrador"},
		} {
			res := k.Do(testkit.Req{Method: rt.method, Path: rt.path, Cookie: c.cookie, Body: map[string]any{"name": "Hogar"}})
			if res.Status != c.status || res.Error() != c.msg {
				t.Errorf("%s %s cookie=%q: %d %s", rt.method, rt.path, c.cookie, res.Status, res.Raw)
			}
		}
	}
	if n := k.Count("categories", ""); n != 0 {
		t.Fatalf("a guarded request created %d categories", n)
	}
}

func TestCreateCategoryValidation(t *testing.T) {
	k, r := setup(t)
	long := func(n int) string { return strings.Repeat("ñ", n) }
	cases := []struct {
		name   string
		body   any
		status int
		field  string
	}{
		{"name missing", map[string]any{}, 400, "name"},
		{"name 1 char", map[string]any{"name": "A"}, 400, "name"},
		{"name 2 chars", map[string]any{"name": "Ab"}, 201, ""},
		{"name 80 chars", map[string]any{"name": long(80)}, 201, ""},
		{"name 81 chars", map[string]any{"name": long(81)}, 400, "name"},
		{"name blank", map[string]any{"name": "   "}, 400, "name"},
		{"name not text", map[string]any{"name": 12}, 400, "name"},
		{"id 2 chars", map[string]any{"name": "Id corto", "id": "ab"}, 400, "id"},
		{"id 3 chars", map[string]any{"name": "Id tres", "id": "abc"}, 201, ""},
		{"id 50 chars", map[string]any{"name": "Id cincuenta", "id": strings.Repeat("a", 50)}, 201, ""},
		{"id 51 chars", map[string]any{"name": "Id largo", "id": strings.Repeat("a", 51)}, 400, "id"},
		{"id upper case", map[string]any{"name": "Id mayus", "id": "Hogar"}, 400, "id"},
		{"id with space", map[string]any{"name": "Id espacio", "id": "ho gar"}, 400, "id"},
		{"id with _ and -", map[string]any{"name": "Id raro", "id": "a_b-c9"}, 201, ""},
		{"description 500", map[string]any{"name": "Desc ok", "description": long(500)}, 201, ""},
		{"description 501", map[string]any{"name": "Desc larga", "description": long(501)}, 400, "description"},
		{"color ok", map[string]any{"name": "Color ok", "color": "#A1b2C3"}, 201, ""},
		{"color short", map[string]any{"name": "Color corto", "color": "#abc"}, 400, "color"},
		{"color no hash", map[string]any{"name": "Color sin", "color": "a1b2c3"}, 400, "color"},
		{"color not hex", map[string]any{"name": "Color no hex", "color": "#ggg000"}, 400, "color"},
		{"icon 50", map[string]any{"name": "Icono ok", "icon": strings.Repeat("i", 50)}, 201, ""},
		{"icon 51", map[string]any{"name": "Icono largo", "icon": strings.Repeat("i", 51)}, 400, "icon"},
		{"sortOrder 0", map[string]any{"name": "Orden cero", "sortOrder": 0}, 201, ""},
		{"sortOrder -1", map[string]any{"name": "Orden negativo", "sortOrder": -1}, 400, "sortOrder"},
		{"sortOrder 1.5", map[string]any{"name": "Orden decimal", "sortOrder": 1.5}, 400, "sortOrder"},
		{"sortOrder text", map[string]any{"name": "Orden texto", "sortOrder": "3"}, 400, "sortOrder"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := k.Post("/api/admin/categories", r.admin, c.body)
			if res.Status != c.status {
				t.Fatalf("status %d, want %d: %s", res.Status, c.status, res.Raw)
			}
			if c.field != "" {
				if res.Error() != "Datos inválidos" || len(res.FieldErrors(c.field)) == 0 || res.Str("detail") == "" {
					t.Fatalf("want field error on %s: %s", c.field, res.Raw)
				}
			}
		})
	}
	res := k.Post("/api/admin/categories", r.admin, "{not json")
	if res.Status != 400 || res.Error() != "Cuerpo JSON inválido" {
		t.Fatalf("malformed: %d %s", res.Status, res.Raw)
	}
	res = k.Do(testkit.Req{Method: "POST", Path: "/api/admin/categories", Cookie: r.admin, Body: "name=x",
		Headers: map[string]string{"Content-Type": "text/plain"}})
	if res.Status != 415 {
		t.Fatalf("text/plain: %d %s", res.Status, res.Raw)
	}
}

func TestCreateCategoryShapeAndConflicts(t *testing.T) {
	k, r := setup(t)
	res := k.Post("/api/admin/categories", r.admin, map[string]any{
		"id": "hogar", "name": "Hogar", "description": "Arreglos de la casa", "color": "#112233", "icon": "home", "sortOrder": 2,
	})
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Raw)
	}
	for path, want := range map[string]any{
		"category.id": "hogar", "category.name": "Hogar", "category.description": "Arreglos de la casa",
		"category.color": "#112233", "category.icon": "home", "category.sortOrder": 2.0, "category._count.services": 0.0,
	} {
		if got := res.Get(path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	if !strings.HasSuffix(res.Str("category.createdAt"), "Z") {
		t.Errorf("createdAt: %s", res.Raw)
	}
	if strings.Contains(string(res.Raw), "nameKey") {
		t.Errorf("hidden nameKey leaked: %s", res.Raw)
	}
	// Default id and sortOrder.
	res = k.Post("/api/admin/categories", r.admin, map[string]any{"name": "Jardín"})
	if res.Status != 201 || res.Get("category.sortOrder") != 0.0 || len(res.Str("category.id")) < 3 {
		t.Fatalf("defaults: %d %s", res.Status, res.Raw)
	}
	for _, c := range []struct {
		body map[string]any
		msg  string
	}{
		{map[string]any{"name": "hogar"}, "Ya existe una categoría con ese nombre"},
		{map[string]any{"name": "  HOGAR "}, "Ya existe una categoría con ese nombre"},
		{map[string]any{"name": "Jardin"}, "Ya existe una categoría con ese nombre"},
		{map[string]any{"id": "hogar", "name": "Otra"}, "Ya existe una categoría con ese id"},
	} {
		res := k.Post("/api/admin/categories", r.admin, c.body)
		if res.Status != 409 || res.Error() != c.msg {
			t.Errorf("%v: %d %s", c.body, res.Status, res.Raw)
		}
	}
	if n := k.Count("categories", ""); n != 2 {
		t.Fatalf("categories = %d", n)
	}
}

func TestCategoryUpdateDeleteAndPublicList(t *testing.T) {
	k, r := setup(t)
	mk := func(id, name string, order int) {
		res := k.Post("/api/admin/categories", r.admin, map[string]any{"id": id, "name": name, "sortOrder": order})
		if res.Status != 201 {
			t.Fatalf("create %s: %s", id, res.Raw)
		}
	}
	mk("zeta", "Zeta", 1)
	mk("alfa", "Alfa", 1)
	mk("primero", "Último", 0)
	k.Post("/api/admin/services", r.admin, map[string]any{"name": "Poda", "categoryId": "alfa"})

	res := k.Get("/api/categories", "")
	if res.Status != 200 {
		t.Fatalf("public: %d %s", res.Status, res.Raw)
	}
	var order []string
	for _, c := range res.Get("categories").([]any) {
		order = append(order, c.(map[string]any)["id"].(string))
	}
	if strings.Join(order, ",") != "primero,alfa,zeta" {
		t.Fatalf("order: %v", order)
	}
	if res.Get("categories.1._count.services") != 1.0 || res.Get("categories.0._count.services") != 0.0 {
		t.Fatalf("counts: %s", res.Raw)
	}

	// PATCH
	cases := []struct {
		path   string
		body   any
		status int
		msg    string
	}{
		{"/api/admin/categories/zeta", map[string]any{"name": "Alfa"}, 409, "Ya existe una categoría con ese nombre"},
		{"/api/admin/categories/zeta", map[string]any{"name": "A"}, 400, "Datos inválidos"},
		{"/api/admin/categories/zeta", map[string]any{"id": "otro"}, 400, "Datos inválidos"},
		{"/api/admin/categories/zeta", map[string]any{"color": "rojo"}, 400, "Datos inválidos"},
		{"/api/admin/categories/nada", map[string]any{"name": "Nada"}, 404, "Categoría no encontrada"},
		{"/api/admin/categories/no%20id", map[string]any{"name": "Nada"}, 400, "Datos inválidos"},
		{"/api/admin/categories/zeta", map[string]any{"name": "zeta"}, 200, ""},
		{"/api/admin/categories/zeta", map[string]any{"name": "Zeta Nueva", "sortOrder": 7, "color": ""}, 200, ""},
	}
	for _, c := range cases {
		res := k.Patch(c.path, r.admin, c.body)
		if res.Status != c.status || (c.msg != "" && res.Error() != c.msg) {
			t.Errorf("PATCH %s %v: %d %s", c.path, c.body, res.Status, res.Raw)
		}
	}
	res = k.Get("/api/admin/categories?perPage=1&page=2", r.admin)
	if res.Status != 200 || res.Get("total") != 3.0 || res.Get("page") != 2.0 || res.Get("perPage") != 1.0 ||
		res.Str("categories.0.id") != "alfa" {
		t.Fatalf("admin list: %s", res.Raw)
	}
	res = k.Get("/api/admin/categories?q=nueva", r.admin)
	if res.Get("total") != 1.0 || res.Str("categories.0.name") != "Zeta Nueva" || res.Get("categories.0.sortOrder") != 7.0 {
		t.Fatalf("admin q: %s", res.Raw)
	}
	for _, q := range []string{"page=0", "page=x", "perPage=0", "perPage=101"} {
		if res := k.Get("/api/admin/categories?"+q, r.admin); res.Status != 400 {
			t.Errorf("%s: %d", q, res.Status)
		}
	}
	if res := k.Get("/api/admin/categories?perPage=100&page=50", r.admin); res.Status != 200 || len(res.Get("categories").([]any)) != 0 {
		t.Errorf("past the end: %s", res.Raw)
	}

	// DELETE
	if res := k.Delete("/api/admin/categories/alfa", r.admin, nil); res.Status != 409 || res.Error() != "La categoría tiene servicios y no se puede eliminar" {
		t.Fatalf("delete in use: %d %s", res.Status, res.Raw)
	}
	if res := k.Delete("/api/admin/categories/nada", r.admin, nil); res.Status != 404 {
		t.Fatalf("delete unknown: %d %s", res.Status, res.Raw)
	}
	if res := k.Delete("/api/admin/categories/zeta", r.admin, nil); res.Status != 204 {
		t.Fatalf("delete: %d %s", res.Status, res.Raw)
	}
	if n := k.Count("categories", ""); n != 2 {
		t.Fatalf("categories = %d", n)
	}
}

func TestServices(t *testing.T) {
	k, r := setup(t)
	k.Post("/api/admin/categories", r.admin, map[string]any{"id": "hogar", "name": "Hogar"})
	k.Post("/api/admin/categories", r.admin, map[string]any{"id": "autos", "name": "Autos"})

	res := k.Post("/api/admin/services", r.admin, map[string]any{"name": "Plomería & Gas", "categoryId": "hogar", "description": "Tubos"})
	if res.Status != 201 || res.Str("service.slug") != "plomeria-gas" || res.Str("service.categoryId") != "hogar" ||
		res.Str("service.category.name") != "Hogar" || res.Str("service.description") != "Tubos" {
		t.Fatalf("create: %d %s", res.Status, res.Raw)
	}
	first := res.Str("service.id")
	for i, want := range []string{"plomeria-gas-2", "plomeria-gas-3"} {
		res := k.Post("/api/admin/services", r.admin, map[string]any{"name": "PLOMERÍA  gas", "categoryId": "hogar"})
		if res.Status != 201 || res.Str("service.slug") != want {
			t.Fatalf("clash %d: %s", i, res.Raw)
		}
	}
	res = k.Post("/api/admin/services", r.admin, map[string]any{"name": "Mecánica", "slug": "mecanica-general", "categoryId": "autos"})
	if res.Status != 201 || res.Str("service.slug") != "mecanica-general" {
		t.Fatalf("explicit slug: %s", res.Raw)
	}
	mech := res.Str("service.id")

	cases := []struct {
		body   map[string]any
		status int
		field  string
		msg    string
	}{
		{map[string]any{"categoryId": "hogar"}, 400, "name", ""},
		{map[string]any{"name": "X", "categoryId": "hogar"}, 400, "name", ""},
		{map[string]any{"name": strings.Repeat("a", 121), "categoryId": "hogar"}, 400, "name", ""},
		{map[string]any{"name": strings.Repeat("a", 120), "categoryId": "hogar"}, 201, "", ""},
		{map[string]any{"name": "Sin categoría"}, 400, "categoryId", ""},
		{map[string]any{"name": "Cat falsa", "categoryId": "nada"}, 400, "categoryId", ""},
		{map[string]any{"name": "Cat inválida", "categoryId": "no valida!"}, 400, "categoryId", ""},
		{map[string]any{"name": "Slug malo", "slug": "Slug Malo", "categoryId": "hogar"}, 400, "slug", ""},
		{map[string]any{"name": "Slug largo", "slug": strings.Repeat("a", 141), "categoryId": "hogar"}, 400, "slug", ""},
		{map[string]any{"name": "Desc larga", "description": strings.Repeat("d", 2001), "categoryId": "hogar"}, 400, "description", ""},
		{map[string]any{"name": "Desc justa", "description": strings.Repeat("d", 2000), "categoryId": "hogar"}, 201, "", ""},
		{map[string]any{"name": "Slug justo", "slug": strings.Repeat("b", 140), "categoryId": "hogar"}, 201, "", ""},
		{map[string]any{"name": "Ab", "categoryId": "hogar"}, 201, "", ""},
		{map[string]any{"name": "Otro", "slug": "plomeria-gas", "categoryId": "hogar"}, 409, "", "Ya existe un servicio con ese slug"},
		{map[string]any{"name": "!!!", "categoryId": "hogar"}, 201, "", ""},
	}
	for _, c := range cases {
		res := k.Post("/api/admin/services", r.admin, c.body)
		if res.Status != c.status || (c.field != "" && len(res.FieldErrors(c.field)) == 0) || (c.msg != "" && res.Error() != c.msg) {
			t.Errorf("%v: %d %s", c.body, res.Status, res.Raw)
		}
	}

	// PATCH
	res = k.Patch("/api/admin/services/"+mech, r.admin, map[string]any{"name": "Mecánica rápida", "slug": ""})
	if res.Status != 200 || res.Str("service.slug") != "mecanica-rapida" || res.Str("service.name") != "Mecánica rápida" {
		t.Fatalf("patch: %s", res.Raw)
	}
	if res := k.Patch("/api/admin/services/"+mech, r.admin, map[string]any{"slug": "plomeria-gas"}); res.Status != 409 {
		t.Fatalf("patch slug clash: %d %s", res.Status, res.Raw)
	}
	if res := k.Patch("/api/admin/services/"+mech, r.admin, map[string]any{"categoryId": "nada"}); res.Status != 400 {
		t.Fatalf("patch bad category: %d %s", res.Status, res.Raw)
	}
	if res := k.Patch("/api/admin/services/nada", r.admin, map[string]any{"name": "Nada"}); res.Status != 404 || res.Error() != "Servicio no encontrado" {
		t.Fatalf("patch unknown: %d %s", res.Status, res.Raw)
	}
	res = k.Patch("/api/admin/services/"+mech, r.admin, map[string]any{"categoryId": "hogar"})
	if res.Status != 200 || res.Str("service.category.id") != "hogar" {
		t.Fatalf("move: %s", res.Raw)
	}

	// Public list and filter.
	res = k.Get("/api/services", "")
	if res.Status != 200 || len(res.Get("services").([]any)) != 9 {
		t.Fatalf("public: %s", res.Raw)
	}
	res = k.Get("/api/services?category=autos", "")
	if res.Status != 200 || len(res.Get("services").([]any)) != 0 {
		t.Fatalf("public autos: %s", res.Raw)
	}
	if res := k.Get("/api/services?category=a%20b", ""); res.Status != 400 {
		t.Fatalf("bad category: %d", res.Status)
	}
	res = k.Get("/api/admin/services?q=plomer&perPage=2", r.admin)
	if res.Status != 200 || res.Get("total") != 3.0 || len(res.Get("services").([]any)) != 2 {
		t.Fatalf("admin list: %s", res.Raw)
	}

	// Delete: a service a job uses stays; others go and leave camellos.
	_, cam, _ := k.CreateCamello(testkit.CamelloOpts{Services: []string{first, mech}})
	client := k.CreateUser(users.RoleClient)
	svc, _ := k.App.FindRecordById("services", first)
	k.CreateJob(testkit.JobOpts{Client: client, Service: svc})
	if res := k.Delete("/api/admin/services/"+first, r.admin, nil); res.Status != 409 || res.Error() != "El servicio tiene trabajos asociados y no se puede eliminar" {
		t.Fatalf("delete used: %d %s", res.Status, res.Raw)
	}
	if res := k.Delete("/api/admin/services/"+mech, r.admin, nil); res.Status != 204 {
		t.Fatalf("delete: %d %s", res.Status, res.Raw)
	}
	if res := k.Delete("/api/admin/services/"+mech, r.admin, nil); res.Status != 404 {
		t.Fatalf("delete again: %d %s", res.Status, res.Raw)
	}
	got, _ := k.App.FindRecordById("camellos", cam.Id)
	if s := fmt.Sprint(got.GetStringSlice("services")); s != "["+first+"]" {
		t.Fatalf("camello services after delete: %s", s)
	}
}

func TestPublicCatalogForEveryRole(t *testing.T) {
	k, r := setup(t)
	k.Post("/api/admin/categories", r.admin, map[string]any{"id": "hogar", "name": "Hogar", "color": "#00AA00"})
	k.Post("/api/admin/services", r.admin, map[string]any{"name": "Pintura", "categoryId": "hogar"})
	for _, cookie := range []string{"", "bogus", r.client, r.camello, r.admin} {
		res := k.Get("/api/categories", cookie)
		if res.Status != 200 || res.Str("categories.0.id") != "hogar" || res.Str("categories.0.color") != "#00AA00" ||
			res.Get("categories.0._count.services") != 1.0 {
			t.Errorf("categories %q: %d %s", cookie, res.Status, res.Raw)
		}
		res = k.Get("/api/services?category=hogar", cookie)
		if res.Status != 200 || res.Str("services.0.slug") != "pintura" || res.Str("services.0.category.name") != "Hogar" {
			t.Errorf("services %q: %d %s", cookie, res.Status, res.Raw)
		}
	}
	if res := k.Get("/api/categories", ""); strings.Contains(string(res.Raw), "nameKey") {
		t.Errorf("nameKey leaked: %s", res.Raw)
	}
	// The generic collection API stays closed.
	for _, col := range []string{"categories", "services"} {
		res := k.Post("/api/collections/"+col+"/records", r.admin, map[string]any{"id": "colado", "name": "Colado", "category": "hogar", "slug": "colado"})
		if res.Status == 200 {
			t.Errorf("%s created through the generic API", col)
		}
	}
	if n := k.Count("categories", ""); n != 1 {
		t.Fatalf("categories = %d", n)
	}
}

func TestConcurrentServicesGetDistinctSlugs(t *testing.T) {
	k, r := setup(t)
	k.Post("/api/admin/categories", r.admin, map[string]any{"id": "hogar", "name": "Hogar"})
	const n = 10
	var wg sync.WaitGroup
	slugs := make([]string, n)
	statuses := make([]int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res := k.Post("/api/admin/services", r.admin, map[string]any{"name": "Cerrajería", "categoryId": "hogar"})
			statuses[i], slugs[i] = res.Status, res.Str("service.slug")
		}(i)
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range slugs {
		if statuses[i] != 201 || seen[slugs[i]] || !strings.HasPrefix(slugs[i], "cerrajeria") {
			t.Fatalf("statuses %v slugs %v", statuses, slugs)
		}
		seen[slugs[i]] = true
	}
	if !seen["cerrajeria"] || !seen["cerrajeria-10"] {
		t.Fatalf("slugs %v", slugs)
	}
}
