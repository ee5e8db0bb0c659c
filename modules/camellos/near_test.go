package camellos_test

import (
	"fmt"
	"math/rand"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"camellos/internal/bounds"
	"camellos/internal/geo"
	"camellos/internal/testkit"
	"camellos/modules/camellos"
	"camellos/modules/places"

	"github.com/pocketbase/pocketbase/core"
)

// placeID is the id of a seeded place of the gazetteer.
func placeID(t *testing.T, k *testkit.Kit, name, city string) string {
	t.Helper()
	p, ok, err := places.Resolve(k.App, name, city)
	if err != nil || !ok {
		t.Fatalf("place %s (%s): %v %v", name, city, ok, err)
	}
	return p.ID
}

// setArea puts a camello's work area through its own route.
func setArea(t *testing.T, k *testkit.Kit, cookie string, body map[string]any) *testkit.Response {
	t.Helper()
	return k.Put("/api/me/camello/area", cookie, body)
}

// The distances were worked by hand (haversine, R = 6371.0088 km) from a
// client at Teusaquillo (4.6430, −74.0900):
//
//	Chapinero (4.6480, −74.0620): Δφ = 0.0050°, Δλ = 0.0280° → 3.15 km (radius 10: reached)
//	Kennedy (4.6165, −74.14597):   Δφ = −0.0265°, Δλ = −0.05597° → 6.87 km (radius 20: reached)
//	Suba (4.7400, −74.0830):       Δφ = 0.0970°, Δλ = 0.0070° → 10.81 km (radius 5: not reached)
//	Medellín (6.25184, −75.56359): 242.1 km (radius 50: not reached)
func TestListingByDistance(t *testing.T) {
	k := testkit.New(t)
	mk := func(name string, city string, lat, lng float64, radius int) (string, string) {
		_, rec, cookie := k.CreateCamello(testkit.CamelloOpts{Name: name, City: city})
		r := setArea(t, k, cookie, map[string]any{"lat": lat, "lng": lng, "radiusKm": radius})
		testkit.Expect(t, r, http.StatusOK, "")
		return rec.Id, cookie
	}
	chapinero, _ := mk("Ana Chapinero", "Bogotá", 4.6480, -74.0620, 10)
	kennedy, _ := mk("Beto Kennedy", "Bogotá", 4.6165, -74.14597, 20)
	suba, subaCookie := mk("Caro Suba", "Bogotá", 4.7400, -74.0830, 5)
	mk("Dani Medellín", "Medellín", 6.25184, -75.56359, 50)
	k.CreateCamello(testkit.CamelloOpts{Name: "Eva sin punto"}) // never in a search by distance

	type hit struct {
		id string
		km float64
	}
	near := func(query string) []hit {
		t.Helper()
		r := k.Get("/api/camellos?"+query, "")
		testkit.Expect(t, r, http.StatusOK, "")
		list, _ := r.Get("camellos").([]any)
		out := []hit{}
		for _, c := range list {
			m := c.(map[string]any)
			out = append(out, hit{m["id"].(string), m["distanceKm"].(float64)})
			for _, private := range []string{"baseLat", "baseLng", "area", "radiusKm"} {
				if _, ok := m[private]; ok {
					t.Fatalf("the public listing shows %s: %v", private, m)
				}
			}
		}
		if total := int(r.Get("total").(float64)); total != len(out) && r.Get("page").(float64) == 1 {
			t.Fatalf("total %d for %d shown: %s", total, len(out), r.Raw)
		}
		return out
	}
	if got, want := fmt.Sprint(near("lat=4.6430&lng=-74.0900")), fmt.Sprint([]hit{{chapinero, 3.2}, {kennedy, 6.9}}); got != want {
		t.Fatalf("Teusaquillo: %s, want %s", got, want)
	}
	// By a barrio of the gazetteer: the same as its point (Teusaquillo's seeded centre is 4.6430, −74.0900).
	if got, want := fmt.Sprint(near("barrio=Teusaquillo")), fmt.Sprint([]hit{{chapinero, 3.2}, {kennedy, 6.9}}); got != want {
		t.Fatalf("barrio=Teusaquillo: %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(near("barrio="+placeID(t, k, "Teusaquillo", "Bogotá"))), fmt.Sprint([]hit{{chapinero, 3.2}, {kennedy, 6.9}}); got != want {
		t.Fatalf("barrio by id: %s, want %s", got, want)
	}
	// The other filters still apply.
	if got := near("lat=4.6430&lng=-74.0900&q=Beto"); len(got) != 1 || got[0].id != kennedy {
		t.Fatalf("q=Beto: %v", got)
	}
	// Paging keeps the order and the total.
	if got := near("lat=4.6430&lng=-74.0900&perPage=1&page=2"); len(got) != 1 || got[0].id != kennedy {
		t.Fatalf("page 2: %v", got)
	}
	// A camello's move shows at once: Suba moves next to the client.
	testkit.Expect(t, setArea(t, k, subaCookie, map[string]any{"lat": 4.6431, "lng": -74.0901, "radiusKm": 5}), http.StatusOK, "")
	if got := near("lat=4.6430&lng=-74.0900"); len(got) != 3 || got[0].id != suba || got[0].km != 0 {
		t.Fatalf("after the move: %v", got)
	}
	// Its radius, just outside then just inside: Suba at 10.81 km reaches the client with 11 km, not 10.
	for _, c := range []struct {
		radius int
		in     bool
	}{{10, false}, {11, true}} {
		testkit.Expect(t, setArea(t, k, subaCookie, map[string]any{"lat": 4.7400, "lng": -74.0830, "radiusKm": c.radius}), http.StatusOK, "")
		got := near("lat=4.6430&lng=-74.0900")
		found := false
		for _, h := range got {
			found = found || h.id == suba
			if h.id == suba && h.km != 11 {
				t.Fatalf("Suba at %v km", h.km)
			}
		}
		if found != c.in {
			t.Fatalf("radius %d: reached %v, want %v (%v)", c.radius, found, c.in, got)
		}
	}
	// Removing the area takes it out of the searches by distance.
	testkit.Expect(t, k.Delete("/api/me/camello/area", subaCookie, nil), http.StatusOK, "")
	if got := near("lat=4.6430&lng=-74.0900"); len(got) != 2 {
		t.Fatalf("after the removal: %v", got)
	}
	// The index equals a full build after every move.
	if built, err := camellos.VerifyIndex(k.App); !built || err != nil {
		t.Fatalf("index: built %v, %v", built, err)
	}
	// Without a position the listing is as before: no distance.
	r := k.Get("/api/camellos", "")
	testkit.Expect(t, r, http.StatusOK, "")
	if _, ok := r.Get("camellos.0").(map[string]any)["distanceKm"]; ok {
		t.Fatalf("a listing without position shows a distance: %s", r.Raw)
	}
}

// The listing's position: bad input is a Spanish 400 naming the field.
func TestListingPositionBounds(t *testing.T) {
	k := testkit.New(t)
	for _, c := range []struct {
		query, field, msg string
	}{
		{"lat=4.6", "lng", camellos.MsgLatLngTogether},
		{"lng=-74", "lat", camellos.MsgLatLngTogether},
		{"lat=90.0001&lng=0", "lat", camellos.MsgLat},
		{"lat=-90.0001&lng=0", "lat", camellos.MsgLat},
		{"lat=0&lng=180.0001", "lng", camellos.MsgLng},
		{"lat=0&lng=-180.0001", "lng", camellos.MsgLng},
		{"lat=abc&lng=0", "lat", camellos.MsgLat},
		{"lat=NaN&lng=0", "lat", camellos.MsgLat},
		{"barrio=Atlantida%20Perdida", "barrio", camellos.MsgUnknownBarrio},
		{"barrio=Chapinero&lat=4&lng=-74", "barrio", camellos.MsgOnePosition},
	} {
		testkit.ExpectField(t, k.Get("/api/camellos?"+c.query, ""), c.field, c.msg)
	}
	for _, ok := range []string{"lat=90&lng=180", "lat=-90&lng=-180", "barrio=chapinero", "barrio=Kennedy&city=Bogota", "barrio=Kennedy&city=Bogot%C3%A1%20D.C."} {
		testkit.Expect(t, k.Get("/api/camellos?"+ok, ""), http.StatusOK, "")
	}
}

// Only the camello sets its area; bounds just inside and outside; the
// point is private (the camello and admins), exported and erased.
func TestWorkAreaRulesAndPrivacy(t *testing.T) {
	k := testkit.New(t)
	user, cam, cookie := k.CreateCamello()
	_, clientCookie := k.UserWithSession("CLIENTE")
	_, adminCookie := k.UserWithSession("ADMIN")
	body := map[string]any{"lat": 4.65, "lng": -74.06, "radiusKm": 10}
	testkit.Expect(t, k.Put("/api/me/camello/area", "", body), http.StatusUnauthorized, "No autenticado")
	testkit.Expect(t, k.Put("/api/me/camello/area", clientCookie, body), http.StatusForbidden, "Solo los camellos tienen perfil de camello")
	testkit.Expect(t, k.Put("/api/me/camello/area", adminCookie, body), http.StatusForbidden, "Solo los camellos tienen perfil de camello")
	chapinero := placeID(t, k, "Chapinero", "Bogotá")
	for _, c := range []struct {
		body  map[string]any
		field string // "" = accepted
		msg   string
	}{
		{map[string]any{"lat": 4.65, "lng": -74.06, "radiusKm": bounds.TravelRadiusMinKm}, "", ""},
		{map[string]any{"lat": 4.65, "lng": -74.06, "radiusKm": bounds.TravelRadiusMaxKm}, "", ""},
		{map[string]any{"lat": 4.65, "lng": -74.06, "radiusKm": bounds.TravelRadiusMinKm - 1}, "radiusKm", "de 1 a 100 km"},
		{map[string]any{"lat": 4.65, "lng": -74.06, "radiusKm": bounds.TravelRadiusMaxKm + 1}, "radiusKm", "de 1 a 100 km"},
		{map[string]any{"lat": 4.65, "lng": -74.06, "radiusKm": 2.5}, "radiusKm", "entero"},
		{map[string]any{"lat": 4.65, "lng": -74.06}, "radiusKm", "Es obligatorio"},
		{map[string]any{"lat": 90, "lng": 180, "radiusKm": 5}, "", ""},
		{map[string]any{"lat": 90.5, "lng": -74.06, "radiusKm": 5}, "lat", "latitud"},
		{map[string]any{"lat": 4.65, "lng": -180.5, "radiusKm": 5}, "lng", "longitud"},
		{map[string]any{"lat": 4.65, "radiusKm": 5}, "lng", "juntos"},
		{map[string]any{"radiusKm": 5}, "placeId", "Elige un barrio"},
		{map[string]any{"placeId": "noexiste1234567", "radiusKm": 5}, "placeId", "No conocemos"},
		{map[string]any{"placeId": chapinero, "lat": 4.6, "lng": -74, "radiusKm": 5}, "placeId", "no ambos"},
		{map[string]any{"lat": "norte", "lng": -74.06, "radiusKm": 5}, "lat", ""},
		{map[string]any{"placeId": chapinero, "radiusKm": 7}, "", ""},
	} {
		r := k.Put("/api/me/camello/area", cookie, c.body)
		if c.field == "" {
			testkit.Expect(t, r, http.StatusOK, "")
			continue
		}
		testkit.ExpectField(t, r, c.field, c.msg)
	}
	// The last accepted one: the barrio's point, its name public, the point private.
	me := k.Get("/api/me", cookie)
	testkit.Expect(t, me, http.StatusOK, "")
	if me.Str("camello.area.placeId") != chapinero || me.Get("camello.area.radiusKm") != float64(7) || me.Get("camello.area.lat") != 4.648 {
		t.Fatalf("own profile: %s", me.Raw)
	}
	admin := k.Get("/api/admin/camellos/"+cam.Id, adminCookie)
	if admin.Get("camello.area.lat") != 4.648 {
		t.Fatalf("the admin does not see the point: %s", admin.Raw)
	}
	pub := k.Get("/api/camellos/"+cam.Id, "")
	if pub.Str("camello.neighborhood") != "Chapinero" || pub.Get("camello.area") != nil {
		t.Fatalf("public profile: %s", pub.Raw)
	}
	if !containsNone(string(pub.Raw), "4.648", "-74.062") {
		t.Fatalf("the public profile carries the point: %s", pub.Raw)
	}
	// The export carries the point; the erasure removes it.
	exp := k.Get("/api/me/export", cookie)
	testkit.Expect(t, exp, http.StatusOK, "")
	if !containsAll(string(exp.Raw), `"area":{`, "4.648", chapinero) {
		t.Fatalf("the export lacks the point: %s", exp.Raw)
	}
	r := k.Delete("/api/me", cookie, map[string]any{"password": testkit.DefaultPassword})
	if r.Status != http.StatusOK && r.Status != http.StatusNoContent {
		t.Fatalf("erasure answered %d: %s", r.Status, r.Raw)
	}
	rec, err := k.App.FindRecordById("camellos", cam.Id)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := camellos.Wrap(rec).WorkArea(); ok || rec.GetFloat("baseLat") != 0 || rec.GetString("basePlace") != "" {
		t.Fatalf("the erased camello keeps its point: %v", rec)
	}
	_ = user
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func containsNone(s string, parts ...string) bool {
	for _, p := range parts {
		if strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// The listing by distance answers, for any position, page and filter, what
// a full scan of every camello's area finds (the haversine distance within
// its radius; nearest first, then in the listing's order; the total of all
// in reach), before and after camellos move, premium and rating change.
// The cases cover ties (two camellos on one point), every page size from 1
// to 7 across several pages, the service filter, and areas from 1 to 40 km.
func TestListingByDistanceMatchesAFullScan(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	svc := twoServices(k)
	slugs := map[string]string{svc[0]: "plomeria-general", svc[1]: "pintura-casas"}
	rng := rand.New(rand.NewSource(26))
	type area struct {
		p       geo.Point
		radius  float64
		service string
		cookie  string
		rec     *core.Record
	}
	var areas []*area
	place := func(a *area) {
		t.Helper()
		testkit.Expect(t, setArea(t, k, a.cookie, map[string]any{"lat": a.p.Lat, "lng": a.p.Lng, "radiusKm": a.radius}), http.StatusOK, "")
	}
	randomPoint := func() geo.Point {
		return geo.Point{Lat: 4.45 + rng.Float64()*0.35, Lng: -74.25 + rng.Float64()*0.3}
	}
	for i := 0; i < 40; i++ {
		s := svc[i%2]
		_, rec, cookie := k.CreateCamello(testkit.CamelloOpts{City: "Bogotá", Services: []string{s}, Premium: i%7 == 0})
		a := &area{p: randomPoint(), radius: float64(1 + rng.Intn(40)), service: s, cookie: cookie, rec: rec}
		if i%10 == 9 { // on the point of the one before: the same distance
			a.p = areas[i-1].p
		}
		areas = append(areas, a)
		place(a)
	}
	check := func(round string) {
		t.Helper()
		// the listing's order, for ties
		rank := map[string]int{}
		all := k.Get("/api/camellos?perPage=100", "")
		testkit.Expect(t, all, http.StatusOK, "")
		for i, c := range all.Get("camellos").([]any) {
			rank[c.(map[string]any)["id"].(string)] = i
		}
		for q := 0; q < 40; q++ {
			p := randomPoint()
			if q%8 == 0 {
				p = areas[rng.Intn(len(areas))].p // on a camello's own point
			}
			service := ""
			if q%3 == 0 {
				service = svc[rng.Intn(2)]
			}
			type hit struct {
				id string
				km float64
			}
			var want []hit
			for _, a := range areas {
				if d := geo.DistanceKm(p, a.p); d <= a.radius && (service == "" || a.service == service) {
					want = append(want, hit{a.rec.Id, d})
				}
			}
			sort.Slice(want, func(i, j int) bool {
				if want[i].km != want[j].km {
					return want[i].km < want[j].km
				}
				return rank[want[i].id] < rank[want[j].id]
			})
			perPage := 1 + q%7
			for page := 1; page <= 4; page++ {
				query := fmt.Sprintf("lat=%v&lng=%v&perPage=%d&page=%d", p.Lat, p.Lng, perPage, page)
				if service != "" {
					query += "&service=" + slugs[service]
				}
				r := k.Get("/api/camellos?"+query, "")
				testkit.Expect(t, r, http.StatusOK, "")
				var got []string
				for _, c := range r.Get("camellos").([]any) {
					m := c.(map[string]any)
					got = append(got, fmt.Sprintf("%s %v", m["id"], m["distanceKm"]))
				}
				var exp []string
				for i := (page - 1) * perPage; i < min(len(want), page*perPage); i++ {
					exp = append(exp, fmt.Sprintf("%s %v", want[i].id, geo.RoundKm(want[i].km)))
				}
				if fmt.Sprint(got) != fmt.Sprint(exp) || int(r.Get("total").(float64)) != len(want) {
					t.Fatalf("%s, %s: total %v, got %v\nwant total %d, %v", round, query, r.Get("total"), got, len(want), exp)
				}
			}
		}
	}
	check("as placed")
	// Moves, premium and rating changes: the index patched, not rebuilt.
	for i := 0; i < 12; i++ {
		a := areas[rng.Intn(len(areas))]
		a.p, a.radius = randomPoint(), float64(1+rng.Intn(40))
		place(a)
		fresh, err := k.App.FindRecordById("camellos", a.rec.Id)
		if err != nil {
			t.Fatal(err)
		}
		fresh.Set("premium", rng.Intn(3) == 0)
		fresh.Set("ratingAvg", float64(rng.Intn(51))/10)
		if err := k.App.Save(fresh); err != nil {
			t.Fatal(err)
		}
	}
	if built, err := camellos.VerifyIndex(k.App); !built || err != nil {
		t.Fatalf("index after the moves: built %v, %v", built, err)
	}
	check("after the moves")
}

// The barrios, comunas and localidades placed by hand in Cali,
// Barranquilla, Cartagena and Bucaramanga (main_cities.csv) work in the
// listing: a camello working from one is found from another of the same
// city at the distance between their points, and not from the next city.
func TestListingByBarrioInTheMainCities(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	for _, c := range []struct {
		city, from, client string
	}{
		{"Cali", "Granada", "Comuna 19 (San Fernando)"},
		{"Barranquilla", "El Prado", "Riomar"},
		{"Cartagena", "Bocagrande", "Getsemaní"},
		{"Bucaramanga", "Cabecera del Llano", "Centro"},
	} {
		t.Run(c.city, func(t *testing.T) {
			from, ok, err := places.Resolve(k.App, c.from, c.city)
			if err != nil || !ok {
				t.Fatalf("%s (%s): %v %v", c.from, c.city, ok, err)
			}
			client, ok, err := places.Resolve(k.App, c.client, c.city)
			if err != nil || !ok {
				t.Fatalf("%s (%s): %v %v", c.client, c.city, ok, err)
			}
			if !strings.Contains(from.Source, "colocada a mano") || !strings.Contains(client.Source, "colocada a mano") {
				t.Fatalf("sources: %q, %q", from.Source, client.Source)
			}
			_, cam, cookie := k.CreateCamello(testkit.CamelloOpts{City: c.city})
			testkit.Expect(t, setArea(t, k, cookie, map[string]any{"placeId": from.ID, "radiusKm": 15}), http.StatusOK, "")
			r := k.Get("/api/camellos?barrio="+url.QueryEscape(c.client)+"&city="+url.QueryEscape(c.city), "")
			testkit.Expect(t, r, http.StatusOK, "")
			want := geo.RoundKm(geo.DistanceKm(from.Point(), client.Point()))
			found := false
			for _, x := range r.Get("camellos").([]any) {
				m := x.(map[string]any)
				if m["id"] == cam.Id {
					found = true
					if m["distanceKm"] != want || m["neighborhood"] != c.from {
						t.Fatalf("%s from %s: %v", c.from, c.client, m)
					}
				}
			}
			if !found || want <= 0 || want > 15 {
				t.Fatalf("%s not found from %s (%v km): %s", c.from, c.client, want, r.Raw)
			}
		})
	}
	// Cali's camello does not reach Barranquilla (about 700 km away).
	r := k.Get("/api/camellos?barrio=Riomar&city=Barranquilla", "")
	testkit.Expect(t, r, http.StatusOK, "")
	if total := r.Get("total").(float64); total != 1 {
		t.Fatalf("from Riomar: %v camellos in reach, want the one of Barranquilla: %s", total, r.Raw)
	}
}
