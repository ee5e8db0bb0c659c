package search_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"camellos/internal/testkit"
)

// "cerca de mí", "por aquí", "en mi barrio", "cerca" and a barrio name:
// the interpretation says the position the client must send, or uses the
// one sent (or the named barrio's point).
func TestInterpretNear(t *testing.T) {
	k := testkit.New(t)
	for _, c := range []struct {
		query         string
		phrase        string // "" = no near
		needsPosition bool
		place         string // the gazetteer place named
	}{
		{"plomero cerca de mí", "cerca de mí", true, ""},
		{"un electricista por aquí", "por aquí", true, ""},
		{"cerrajero en mi barrio urgente", "en mi barrio", true, ""},
		{"pintor cerca", "cerca", true, ""},
		{"plomero cerca de Chapinero", "cerca", false, "Chapinero"},
		{"plomero en Chapinero", "", false, "Chapinero"},
		{"jardinero en Laureles-Estadio", "", false, "Laureles-Estadio"},
		{"plomero en Bogotá", "", false, ""},
	} {
		r := k.Post("/api/search/interpret", "", map[string]any{"query": c.query})
		testkit.Expect(t, r, http.StatusOK, "")
		if got := r.Str("interpretation.near.phrase"); got != c.phrase {
			t.Errorf("%q: phrase %q, want %q: %s", c.query, got, c.phrase, r.Raw)
		}
		if c.phrase != "" && r.Get("interpretation.near.needsPosition") != c.needsPosition {
			t.Errorf("%q: needsPosition %v: %s", c.query, r.Get("interpretation.near.needsPosition"), r.Raw)
		}
		if got := r.Str("interpretation.place.name"); got != c.place {
			t.Errorf("%q: place %q, want %q: %s", c.query, got, c.place, r.Raw)
		}
		if c.place == "Chapinero" && (r.Get("interpretation.place.lat") != 4.648 || r.Str("interpretation.place.city") != "Bogotá") {
			t.Errorf("%q: the place's point: %s", c.query, r.Raw)
		}
		for _, kw := range []string{"cerca", "mí", "aquí", "barrio"} {
			for _, got := range r.Get("interpretation.keywords").([]any) {
				if got == kw {
					t.Errorf("%q: %q left as a keyword: %s", c.query, kw, r.Raw)
				}
			}
		}
	}
	// A position sent is used.
	r := k.Post("/api/search/interpret", "", map[string]any{"query": "plomero cerca de mí", "lat": 4.643, "lng": -74.09})
	testkit.Expect(t, r, http.StatusOK, "")
	if r.Get("interpretation.near.needsPosition") != false || r.Get("interpretation.near.position.lat") != 4.643 {
		t.Fatalf("position sent: %s", r.Raw)
	}
	testkit.ExpectField(t, k.Post("/api/search/interpret", "", map[string]any{"query": "cerca", "lat": 4.6}), "lng", "juntos")
	testkit.ExpectField(t, k.Post("/api/search/interpret", "", map[string]any{"query": "cerca", "lat": 90.5, "lng": 0}), "lat", "latitud")
	testkit.ExpectField(t, k.Post("/api/search/interpret", "", map[string]any{"query": "cerca", "lat": 0, "lng": -180.5}), "lng", "longitud")
}

// GET /api/search "cerca de mí" with a position keeps the camellos whose
// radius reaches it, nearest first, with their distance; without anyone
// in reach it says so and shows the others.
func TestSearchNearMe(t *testing.T) {
	k := testkit.New(t)
	mk := func(name string, lat, lng float64, radius int) string {
		_, rec, cookie := k.CreateCamello(testkit.CamelloOpts{Name: name, Trades: []string{"plomería"}})
		testkit.Expect(t, k.Put("/api/me/camello/area", cookie, map[string]any{"lat": lat, "lng": lng, "radiusKm": radius}), http.StatusOK, "")
		return rec.Id
	}
	// From Teusaquillo (4.6430, −74.0900): Chapinero 3.15 km, Kennedy 6.87 km, Suba 10.81 km (radius 5: out).
	chapinero := mk("Ana", 4.6480, -74.0620, 10)
	kennedy := mk("Beto", 4.6165, -74.14597, 20)
	mk("Caro", 4.7400, -74.0830, 5)
	search := func(query string, extra url.Values) *testkit.Response {
		v := url.Values{"query": {query}}
		for key, val := range extra {
			v[key] = val
		}
		r := k.Get("/api/search?"+v.Encode(), "")
		testkit.Expect(t, r, http.StatusOK, "")
		return r
	}
	ids := func(r *testkit.Response) string {
		out := ""
		for _, x := range r.Get("results").([]any) {
			m := x.(map[string]any)
			out += fmt.Sprintf("%s@%v ", m["camello"].(map[string]any)["id"], m["distanceKm"])
		}
		return out
	}
	want := fmt.Sprintf("%s@3.2 %s@6.9 ", chapinero, kennedy)
	for _, c := range []struct {
		query string
		extra url.Values
	}{
		{"plomero cerca de mí", url.Values{"lat": {"4.6430"}, "lng": {"-74.0900"}}},
		{"plomero por aquí", url.Values{"barrio": {"Teusaquillo"}}},
		{"plomero cerca de Teusaquillo", nil},
	} {
		r := search(c.query, c.extra)
		if got := ids(r); got != want {
			t.Errorf("%q %v: %s, want %s: %s", c.query, c.extra, got, want, r.Raw)
		}
		if r.Get("applied.near") == nil || len(r.Get("relaxed").([]any)) != 0 {
			t.Errorf("%q: applied/relaxed: %s", c.query, r.Raw)
		}
	}
	// Without a position "cerca de mí" asks for one and searches as before.
	r := search("plomero cerca de mí", nil)
	if r.Get("interpretation.near.needsPosition") != true || r.Get("applied.near") != nil || r.Get("total") != float64(3) {
		t.Fatalf("without position: %s", r.Raw)
	}
	// Nobody reaches Medellín: said, and the others shown.
	r = search("plomero cerca de mí", url.Values{"lat": {"6.25184"}, "lng": {"-75.56359"}})
	if r.Str("relaxed.0.filter") != "near" || r.Get("total") != float64(3) || r.Get("results.0.distanceKm") != nil {
		t.Fatalf("out of reach: %s", r.Raw)
	}
	for _, c := range []struct{ query, field, msg string }{
		{"lat=4.6", "lng", "juntos"},
		{"lat=91&lng=0", "lat", "latitud"},
		{"lat=0&lng=181", "lng", "longitud"},
		{"barrio=Atlantida", "barrio", "No conocemos"},
	} {
		testkit.ExpectField(t, k.Get("/api/search?query=cerca&"+c.query, ""), c.field, c.msg)
	}
}
