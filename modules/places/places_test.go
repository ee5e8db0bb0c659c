package places_test

import (
	"net/http"
	"strings"
	"testing"

	"camellos/internal/bounds"
	"camellos/internal/cities"
	"camellos/internal/testkit"
	"camellos/modules/places"
)

// The seed: every row of places.csv is in the gazetteer with its source,
// each city in internal/cities' one spelling.
func TestSeededGazetteer(t *testing.T) {
	k := testkit.New(t)
	rows, err := places.SeedRows()
	if err != nil {
		t.Fatal(err)
	}
	more, err := places.MainCitiesRows()
	if err != nil {
		t.Fatal(err)
	}
	if n := k.Count(places.Collection, ""); n != len(rows)+len(more) || n < 1000 {
		t.Fatalf("%d places seeded, places.csv has %d and main_cities.csv %d", n, len(rows), len(more))
	}
	for _, p := range append(rows, more...) {
		if p.City != cities.Canonical(p.City) || p.Source == "" || !(p.Lat > -5 && p.Lat < 14 && p.Lng > -82 && p.Lng < -66) {
			t.Fatalf("row %+v: city not canonical, no source or outside Colombia", p)
		}
	}
	_, admin := k.UserWithSession("ADMIN")
	r := k.Get("/api/admin/places?q=bogota&kind=CIUDAD", admin)
	testkit.Expect(t, r, http.StatusOK, "")
	if r.Str("places.0.name") != "Bogotá" || !strings.Contains(r.Str("places.0.source"), "GeoNames") || r.Get("places.0.lat") != 4.60971 {
		t.Fatalf("Bogotá: %s", r.Raw)
	}
	r = k.Get("/api/places?q=chapi&city=bogota", "")
	testkit.Expect(t, r, http.StatusOK, "")
	if r.Str("places.0.name") != "Chapinero" || r.Str("places.0.kind") != places.KindLocalidad || !strings.Contains(r.Str("places.0.source"), "manual") {
		t.Fatalf("picker: %s", r.Raw)
	}
	id := r.Str("places.0.id")
	testkit.Expect(t, k.Get("/api/places/"+id, ""), http.StatusOK, "")
	testkit.Expect(t, k.Get("/api/places/noexiste1234567", ""), http.StatusNotFound, places.MsgPlaceNotFound)
	for _, q := range []string{"limit=0", "limit=51", "limit=x", "kind=PAIS"} {
		testkit.Expect(t, k.Get("/api/places?"+q, ""), http.StatusBadRequest, "Datos inválidos")
	}
	for _, q := range []string{"limit=1", "limit=50", "kind=BARRIO"} {
		testkit.Expect(t, k.Get("/api/places?"+q, ""), http.StatusOK, "")
	}
}

// Only an ADMIN edits the gazetteer; bounds just inside and outside; an
// edit shows at once in the lookups.
func TestAdminEditsTheGazetteer(t *testing.T) {
	k := testkit.New(t)
	_, admin := k.UserWithSession("ADMIN")
	_, client := k.UserWithSession("CLIENTE")
	_, _, camello := k.CreateCamello()
	ok := map[string]any{"name": "La Soledad", "kind": "BARRIO", "city": "bogota d.c.", "lat": 4.6362, "lng": -74.0747, "source": "admin: visita 2026"}
	for _, c := range []struct {
		cookie string
		status int
		msg    string
	}{{"", 401, "No autenticado"}, {client, 403, "Sin permisos de administrador"}, {camello, 403, "Sin permisos de administrador"}} {
		testkit.Expect(t, k.Post("/api/admin/places", c.cookie, ok), c.status, c.msg)
		testkit.Expect(t, k.Get("/api/admin/places", c.cookie), c.status, c.msg)
		testkit.Expect(t, k.Patch("/api/admin/places/abc123def456ghi", c.cookie, ok), c.status, c.msg)
		testkit.Expect(t, k.Delete("/api/admin/places/abc123def456ghi", c.cookie, nil), c.status, c.msg)
	}
	with := func(field string, v any) map[string]any {
		m := map[string]any{}
		for k, x := range ok {
			m[k] = x
		}
		if v == nil {
			delete(m, field)
		} else {
			m[field] = v
		}
		return m
	}
	long := func(n int) string { return strings.Repeat("a", n) }
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{with("name", long(bounds.PlaceNameMin-1)), "name"},
		{with("name", long(bounds.PlaceNameMax+1)), "name"},
		{with("name", nil), "name"},
		{with("kind", "PAIS"), "kind"},
		{with("city", "x"), "city"},
		{with("lat", 90.01), "lat"},
		{with("lat", -90.01), "lat"},
		{with("lng", 180.01), "lng"},
		{with("lng", nil), "lng"},
		{with("source", "ab"), "source"},
		{with("source", long(bounds.PlaceSourceMax+1)), "source"},
		{with("department", long(bounds.PlaceDepartmentMax+1)), "department"},
	} {
		testkit.ExpectField(t, k.Post("/api/admin/places", admin, c.body), c.field, "")
	}
	for _, body := range []map[string]any{
		with("name", long(bounds.PlaceNameMin)), with("name", long(bounds.PlaceNameMax)),
		with("lat", 90.0), with("lng", -180.0), with("source", long(bounds.PlaceSourceMin)),
	} {
		testkit.Expect(t, k.Post("/api/admin/places", admin, body), http.StatusCreated, "")
	}
	r := k.Post("/api/admin/places", admin, with("name", "  Galerías  "))
	testkit.Expect(t, r, http.StatusCreated, "")
	if r.Str("place.city") != "Bogotá" || r.Str("place.name") != "Galerías" || r.Str("place.source") != "admin: visita 2026" {
		t.Fatalf("created: %s", r.Raw)
	}
	id := r.Str("place.id")
	if got := k.Get("/api/places?q=galerias&city=Bogotá", ""); got.Str("places.0.id") != id {
		t.Fatalf("not found at once: %s", got.Raw)
	}
	r = k.Patch("/api/admin/places/"+id, admin, map[string]any{"lat": 4.637})
	testkit.Expect(t, r, http.StatusOK, "")
	if p, found, _ := places.Lookup(k.App, id); !found || p.Lat != 4.637 || p.Name != "Galerías" {
		t.Fatalf("after the edit: %+v %v", p, found)
	}
	testkit.ExpectField(t, k.Patch("/api/admin/places/"+id, admin, map[string]any{"lat": 91}), "lat", "latitud")
	testkit.Expect(t, k.Patch("/api/admin/places/abc123def456ghi", admin, map[string]any{"lat": 4}), http.StatusNotFound, places.MsgPlaceNotFound)
	testkit.Expect(t, k.Delete("/api/admin/places/"+id, admin, nil), http.StatusNoContent, "")
	testkit.Expect(t, k.Delete("/api/admin/places/"+id, admin, nil), http.StatusNotFound, places.MsgPlaceNotFound)
	if _, found, _ := places.Lookup(k.App, id); found {
		t.Fatal("a deleted place is still looked up")
	}
	list := k.Get("/api/admin/places?city=Medellín&kind=COMUNA&perPage=5&page=2", admin)
	testkit.Expect(t, list, http.StatusOK, "")
	if list.Get("total") != float64(16) || len(list.Get("places").([]any)) != 5 {
		t.Fatalf("comunas of Medellín: %s", list.Raw)
	}
}
