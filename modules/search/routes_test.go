package search_test

import (
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"
)

func TestInterpretRoute(t *testing.T) {
	k := testkit.New(t)
	_, client := k.UserWithSession(users.RoleClient)
	_, admin := k.UserWithSession(users.RoleAdmin)
	_, _, camello := k.CreateCamello()

	cases := []struct {
		name   string
		body   any
		status int
		msg    string
	}{
		{"missing", map[string]any{}, 400, "Datos inválidos"},
		{"empty", map[string]any{"query": ""}, 400, "Datos inválidos"},
		{"blank", map[string]any{"query": "   "}, 400, "Datos inválidos"},
		{"not text", map[string]any{"query": 5}, 400, "Datos inválidos"},
		{"301", map[string]any{"query": strings.Repeat("ñ", 301)}, 400, "Datos inválidos"},
		{"300", map[string]any{"query": strings.Repeat("ñ", 300)}, 200, ""},
		{"1", map[string]any{"query": "a"}, 200, ""},
		{"malformed", "{", 400, "Cuerpo JSON inválido"},
	}
	for _, c := range cases {
		res := k.Post("/api/search/interpret", "", c.body)
		if res.Status != c.status || (c.msg != "" && res.Error() != c.msg) {
			t.Errorf("%s: %d %.200s", c.name, res.Status, res.Raw)
		}
		if c.status == 400 && c.msg == "Datos inválidos" && len(res.FieldErrors("query")) == 0 {
			t.Errorf("%s: no query error: %s", c.name, res.Raw)
		}
	}
	// Public: every role (and nobody) may ask.
	for _, cookie := range []string{"", client, admin, camello} {
		res := k.Post("/api/search/interpret", cookie, map[string]any{"query": "Plomero urgente en Chapinero"})
		if res.Status != 200 || res.Str("interpretation.query") != "Plomero urgente en Chapinero" ||
			res.Get("interpretation.trades.0") != "plomería" || res.Str("interpretation.city") != "Bogotá" ||
			res.Str("interpretation.neighborhood") != "Chapinero" || res.Get("interpretation.urgent") != true {
			t.Fatalf("%q: %d %s", cookie, res.Status, res.Raw)
		}
	}
	// The shape: nulls and empty lists, never absent.
	res := k.Post("/api/search/interpret", "", map[string]any{"query": "hola"})
	interp, _ := res.JSON["interpretation"].(map[string]any)
	for _, f := range []string{"query", "categoryId", "serviceIds", "trades", "city", "neighborhood", "when", "urgent", "keywords"} {
		if _, ok := interp[f]; !ok {
			t.Errorf("field %s absent: %s", f, res.Raw)
		}
	}
	if !strings.Contains(string(res.Raw), `"categoryId":null`) || !strings.Contains(string(res.Raw), `"when":null`) ||
		!strings.Contains(string(res.Raw), `"serviceIds":[]`) {
		t.Errorf("nulls: %s", res.Raw)
	}
	res = k.Post("/api/search/interpret", "", map[string]any{"query": "pintor mañana"})
	if from := res.Str("interpretation.when.from"); !strings.HasSuffix(from, ".000Z") || res.Str("interpretation.when.to") <= from {
		t.Errorf("when: %s", res.Raw)
	}
}

func TestInterpretLearnsFromData(t *testing.T) {
	k := testkit.New(t)
	_, admin := k.UserWithSession(users.RoleAdmin)
	ask := func(q string) *testkit.Response {
		res := k.Post("/api/search/interpret", "", map[string]any{"query": q})
		if res.Status != 200 {
			t.Fatalf("%s: %d %s", q, res.Status, res.Raw)
		}
		return res
	}
	// Before the catalog knows them, nothing is recognised.
	res := ask("tapicería de sillas en Zipaquirá, barrio La Esperanza")
	if res.Get("interpretation.categoryId") != nil || len(res.Get("interpretation.serviceIds").([]any)) != 0 ||
		res.Get("interpretation.city") != nil || len(res.Get("interpretation.trades").([]any)) != 0 {
		t.Fatalf("before: %s", res.Raw)
	}
	// A category and a service created through the admin API are learned at once.
	if r := k.Post("/api/admin/categories", admin, map[string]any{"id": "muebles", "name": "Muebles"}); r.Status != 201 {
		t.Fatalf("category: %s", r.Raw)
	}
	r := k.Post("/api/admin/services", admin, map[string]any{"name": "Tapizado de sillas", "categoryId": "muebles"})
	if r.Status != 201 {
		t.Fatalf("service: %s", r.Raw)
	}
	svc := r.Str("service.id")
	res = ask("tapizado de sillas")
	if res.Str("interpretation.categoryId") != "muebles" || res.Get("interpretation.serviceIds.0") != svc {
		t.Fatalf("service learned: %s", res.Raw)
	}
	res = ask("algo para muebles")
	if res.Str("interpretation.categoryId") != "muebles" {
		t.Fatalf("category learned: %s", res.Raw)
	}
	// A camello's trade, city and neighbourhood are learned when it is saved.
	_, cam, _ := k.CreateCamello(testkit.CamelloOpts{City: "Zipaquirá", Trades: []string{"Tapicería"}})
	rec, _ := k.App.FindRecordById("camellos", cam.Id)
	rec.Set("neighborhood", "La Esperanza")
	if err := k.App.Save(rec); err != nil {
		t.Fatal(err)
	}
	res = ask("tapicería de sillas en zipaquira, barrio la esperanza")
	if res.Get("interpretation.trades.0") != "tapicería" || res.Str("interpretation.city") != "Zipaquirá" ||
		res.Str("interpretation.neighborhood") != "La Esperanza" {
		t.Fatalf("camello learned: %s", res.Raw)
	}
	// A renamed service is known by its new name only.
	if r := k.Patch("/api/admin/services/"+svc, admin, map[string]any{"name": "Retapizado de sofás"}); r.Status != 200 {
		t.Fatalf("rename: %s", r.Raw)
	}
	if res := ask("retapizado de sofás"); res.Get("interpretation.serviceIds.0") != svc {
		t.Fatalf("renamed: %s", res.Raw)
	}
	if res := ask("tapizado de sillas"); len(res.Get("interpretation.serviceIds").([]any)) != 0 {
		t.Fatalf("old name still known: %s", res.Raw)
	}
	// A deleted category is forgotten.
	k.Delete("/api/admin/services/"+svc, admin, nil)
	if r := k.Delete("/api/admin/categories/muebles", admin, nil); r.Status != 204 {
		t.Fatalf("delete category: %d %s", r.Status, r.Raw)
	}
	if res := ask("algo para muebles"); res.Get("interpretation.categoryId") != nil {
		t.Fatalf("deleted category still known: %s", res.Raw)
	}
}
