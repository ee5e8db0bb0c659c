package camellos_test

import (
	"fmt"
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

type fixture struct {
	k                          *testkit.Kit
	plomeria, electricidad     string // service ids
	ana, beto, caro, dani, eva *core.Record
	pending, suspended         *core.Record
}

// camello creates a camello and sets the extra fields; the camellos record
// hook derives searchText and cityKey.
func (f *fixture) camello(opts testkit.CamelloOpts, extra map[string]any) *core.Record {
	_, created, _ := f.k.CreateCamello(opts)
	rec, err := f.k.App.FindRecordById("camellos", created.Id)
	if err != nil {
		f.k.T.Fatal(err)
	}
	for k, v := range extra {
		rec.Set(k, v)
	}
	if err := f.k.App.Save(rec); err != nil {
		f.k.T.Fatalf("save camello: %v", err)
	}
	return rec
}

func newFixture(t *testing.T) *fixture {
	k := testkit.New(t)
	f := &fixture{k: k}
	k.CreateRecord("categories", map[string]any{"id": "hogar", "name": "Hogar"})
	k.CreateRecord("categories", map[string]any{"id": "energia", "name": "Energía"})
	f.plomeria = k.CreateRecord("services", map[string]any{"name": "Reparación de tuberías", "slug": "reparacion-tuberias", "category": "hogar"}).Id
	f.electricidad = k.CreateRecord("services", map[string]any{"name": "Instalación eléctrica", "slug": "instalacion-electrica", "category": "energia"}).Id

	f.ana = f.camello(testkit.CamelloOpts{Name: "Ana Gómez", City: "Bogotá", Trades: []string{"Plomería"}, Services: []string{f.plomeria}},
		map[string]any{"ratingAvg": 4.5, "ratingCount": 2, "neighborhood": "Chapinero", "documentId": "CC1", "notes": "nota privada", "professionalCard": "TP-1"})
	f.beto = f.camello(testkit.CamelloOpts{Name: "Beto Ruiz", City: "Medellín", Trades: []string{"Electricista"}, Services: []string{f.electricidad}, Premium: true},
		map[string]any{"ratingAvg": 3.0, "description": "Instalaciones y reparaciones eléctricas"})
	f.caro = f.camello(testkit.CamelloOpts{Name: "Caro Peña", City: "Bogotá D.C.", Trades: []string{"Pintura", "Plomería"}, Services: []string{f.plomeria, f.electricidad}},
		map[string]any{"ratingAvg": 4.5})
	f.dani = f.camello(testkit.CamelloOpts{Name: "Dani Ortiz", City: "Cali", Trades: []string{"Cerrajería"}}, map[string]any{"ratingAvg": 5.0})
	f.eva = f.camello(testkit.CamelloOpts{Name: "Eva Núñez", City: "Bogotá", Trades: []string{"Jardinería"}, Premium: true}, map[string]any{"ratingAvg": 1.0})
	f.pending = f.camello(testkit.CamelloOpts{Name: "Pedro Pendiente", City: "Bogotá", Trades: []string{"Plomería"}, Status: "PENDIENTE", Premium: true, Services: []string{f.plomeria}}, nil)
	f.suspended = f.camello(testkit.CamelloOpts{Name: "Sara Suspendida", City: "Bogotá", Trades: []string{"Plomería"}, Status: "ACTIVO", Premium: true}, nil)
	f.suspended, _ = k.App.FindRecordById("camellos", f.suspended.Id)
	f.suspended.Set("status", "SUSPENDIDO")
	if err := k.App.Save(f.suspended); err != nil {
		t.Fatal(err)
	}
	k.CreateCamello(testkit.CamelloOpts{Name: "Rita Rechazada", Status: "RECHAZADO"})
	// Distinct creation times, in this order, for the "newest" tie-break.
	for i, rec := range []*core.Record{f.ana, f.beto, f.caro, f.dani, f.eva} {
		setCreated(k, "camellos", rec.Id, i)
	}
	return f
}

// setCreated gives a record the creation time 2026-01-01 00:00:0N.
func setCreated(k *testkit.Kit, table, id string, n int) {
	created := fmt.Sprintf("2026-01-01 00:00:%02d.000Z", n)
	if _, err := k.App.DB().Update(table, dbx.Params{"created": created}, dbx.HashExp{"id": id}).Execute(); err != nil {
		k.T.Fatal(err)
	}
}

func names(res *testkit.Response) string {
	list, _ := res.Get("camellos").([]any)
	out := []string{}
	for _, c := range list {
		out = append(out, strings.Fields(c.(map[string]any)["name"].(string))[0])
	}
	return strings.Join(out, ",")
}

func TestPublicListing(t *testing.T) {
	f := newFixture(t)
	k := f.k
	_, client := k.UserWithSession(users.RoleClient)
	_, admin := k.UserWithSession(users.RoleAdmin)
	_, _, camello := k.CreateCamello(testkit.CamelloOpts{Status: "PENDIENTE"})
	cases := []struct {
		query string
		want  string
		total float64
	}{
		// premium first (newest premium Eva has the lower rating), then rating, then newest.
		{"", "Beto,Eva,Dani,Caro,Ana", 5},
		{"?q=plomeria", "Caro,Ana", 2},
		{"?q=PLOMERÍA", "Caro,Ana", 2},
		{"?q=plomer%C3%ADa%20chapinero", "Ana", 1},
		{"?q=nu%C3%B1ez", "Eva", 1},
		{"?q=nunez", "Eva", 1},
		{"?q=tuberias", "Caro,Ana", 2},
		{"?q=electricas", "Beto", 1},
		{"?q=nadie", "", 0},
		{"?q=100%25", "", 0},
		{"?trade=cerrajeria", "Dani", 1},
		{"?trade=Pintura", "Caro", 1},
		{"?trade=pintor", "Caro", 1},
		{"?trade=fontanero", "Caro,Ana", 2},
		{"?trade=PLOMEROS", "Caro,Ana", 2},
		{"?trade=el%C3%A9ctrico", "Beto,Caro", 2}, // Caro offers "Instalación eléctrica"
		{"?trade=carpintero", "", 0},
		{"?city=bogota", "Eva,Caro,Ana", 3},
		{"?city=BOGOT%C3%81%20d.c.", "Eva,Caro,Ana", 3}, // one spelling per city (issue 24): every Bogotá
		{"?city=Medell%C3%ADn", "Beto", 1},
		{"?city=bog", "", 0},
		{"?category=hogar", "Caro,Ana", 2},
		{"?category=energia", "Beto,Caro", 2},
		{"?category=nada", "", 0},
		{"?service=" + f.electricidad, "Beto,Caro", 2},
		{"?service=reparacion-tuberias", "Caro,Ana", 2},
		{"?service=reparacion-tuberias&city=bogota&trade=pintura", "Caro", 1},
		// city and service together: one list per (city, service), the
		// city matched as a prefix and the service by id or slug
		{"?service=reparacion-tuberias&city=bogota", "Caro,Ana", 2},
		{"?service=" + f.plomeria + "&city=bogota", "Caro,Ana", 2},
		{"?service=" + f.electricidad + "&city=bogota", "Caro", 1},
		{"?service=instalacion-electrica&city=Medell%C3%ADn", "Beto", 1},
		{"?service=reparacion-tuberias&city=medellin", "", 0},
		{"?service=reparacion-tuberias&city=bog", "", 0},
		{"?service=nada&city=bogota", "", 0},
		{"?service=reparacion-tuberias&city=bogota&perPage=1&page=2", "Ana", 2},
		{"?service=reparacion-tuberias&city=bogota&perPage=1&page=3", "", 2},
		{"?service=reparacion-tuberias&city=bogota&category=energia", "Caro", 1},
		{"?service=reparacion-tuberias&city=bogota&q=chapinero", "Ana", 1},
		{"?city=bogota&perPage=2&page=2", "Ana", 3},
		{"?category=energia&perPage=1&page=2", "Caro", 2},
		{"?perPage=2", "Beto,Eva", 5},
		{"?perPage=2&page=2", "Dani,Caro", 5},
		{"?perPage=2&page=3", "Ana", 5},
		{"?perPage=2&page=4", "", 5},
		{"?perPage=100", "Beto,Eva,Dani,Caro,Ana", 5},
	}
	for _, c := range cases {
		for _, cookie := range []string{"", client, admin, camello} {
			res := k.Get("/api/camellos"+c.query, cookie)
			if res.Status != 200 || names(res) != c.want || res.Get("total") != c.total {
				t.Errorf("%s: %d got %q total %v, want %q %v", c.query, res.Status, names(res), res.Get("total"), c.want, c.total)
			}
		}
	}
	for _, q := range []string{"?page=0", "?perPage=0", "?perPage=101", "?page=x", "?category=a%20b", "?q=" + strings.Repeat("a", 201)} {
		res := k.Get("/api/camellos"+q, "")
		if res.Status != 400 || res.Error() != "Datos inválidos" {
			t.Errorf("%s: %d %s", q, res.Status, res.Raw)
		}
	}
	res := k.Get("/api/camellos?perPage=2&page=1", "")
	if res.Get("page") != 1.0 || res.Get("perPage") != 2.0 {
		t.Fatalf("paging fields: %s", res.Raw)
	}
}

func TestPublicFieldsOnly(t *testing.T) {
	f := newFixture(t)
	k := f.k
	_, admin := k.UserWithSession(users.RoleAdmin)
	for _, path := range []string{"/api/camellos?q=ana", "/api/camellos/" + f.ana.Id, "/api/camellos/" + f.ana.Id + "/reviews"} {
		// Public fields for every caller, admins included.
		res := k.Get(path, admin)
		if res.Status != 200 {
			t.Fatalf("%s: %d", path, res.Raw)
		}
		raw := string(res.Raw)
		for _, private := range []string{"documentId", "phone", "professionalCard", "notes", "CC1", "nota privada", "TP-1",
			"3001234567", "searchText", "cityKey", "userId", f.ana.GetString("user")} {
			if strings.Contains(raw, private) {
				t.Errorf("%s leaks %q: %s", path, private, raw)
			}
		}
	}
	res := k.Get("/api/camellos/"+f.ana.Id, "")
	if res.Str("camello.name") != "Ana Gómez" || res.Str("camello.status") != "ACTIVO" || res.Str("camello.neighborhood") != "Chapinero" ||
		res.Str("camello.services.0.slug") != "reparacion-tuberias" || res.Get("camello.trades.0") != "Plomería" {
		t.Fatalf("profile: %s", res.Raw)
	}
	for _, c := range []struct {
		id     string
		status int
	}{{f.pending.Id, 404}, {f.suspended.Id, 404}, {"nadie12345", 404}, {"no%20valido", 400}} {
		for _, suffix := range []string{"", "/reviews"} {
			res := k.Get("/api/camellos/"+c.id+suffix, "")
			if res.Status != c.status {
				t.Errorf("%s%s: %d %s", c.id, suffix, res.Status, res.Raw)
			}
			if c.status == 404 && res.Error() != "Camello no encontrado" {
				t.Errorf("%s%s: %s", c.id, suffix, res.Raw)
			}
		}
	}
	// The generic collection API shows nothing to anonymous callers.
	for _, col := range []string{"camellos", "reviews", "categories", "services", "legal_acceptances"} {
		res := k.Get("/api/collections/"+col+"/records", "")
		if items, _ := res.Get("items").([]any); len(items) > 0 || strings.Contains(string(res.Raw), "Ana") {
			t.Errorf("%s leaks: %d %s", col, res.Status, res.Raw)
		}
		if res := k.Get("/api/collections/camellos/records/"+f.ana.Id, ""); res.Status == 200 {
			t.Errorf("view leaks: %s", res.Raw)
		}
	}
}

func TestReviews(t *testing.T) {
	f := newFixture(t)
	k := f.k
	res := k.Get("/api/camellos/"+f.beto.Id+"/reviews", "")
	if res.Status != 200 || res.Get("count") != 0.0 || res.Get("average") != 0.0 || len(res.Get("reviews").([]any)) != 0 {
		t.Fatalf("no reviews: %s", res.Raw)
	}
	svc, _ := k.App.FindRecordById("services", f.plomeria)
	ratings := []int{5, 4, 4}
	for i, r := range ratings {
		client := k.CreateUser(users.RoleClient, testkit.UserOpts{Name: fmt.Sprintf("María%d José Pérez", i)})
		job := k.CreateJob(testkit.JobOpts{Client: client, Service: svc, Provider: f.ana, Status: "COMPLETADO"})
		review := k.CreateRecord("reviews", map[string]any{"job": job.Id, "camello": f.ana.Id, "client": client.Id, "rating": r,
			"comment": fmt.Sprintf("Comentario %d", i)})
		setCreated(k, "reviews", review.Id, i)
	}
	res = k.Get("/api/camellos/"+f.ana.Id+"/reviews", "")
	if res.Status != 200 || res.Get("count") != 3.0 || res.Get("average") != 4.33 {
		t.Fatalf("reviews: %s", res.Raw)
	}
	if res.Str("reviews.0.comment") != "Comentario 2" || res.Str("reviews.0.author.name") != "María2" || res.Get("reviews.0.rating") != 4.0 ||
		!strings.HasSuffix(res.Str("reviews.0.createdAt"), "Z") {
		t.Fatalf("newest first, first name only: %s", res.Raw)
	}
	if strings.Contains(string(res.Raw), "Pérez") || strings.Contains(string(res.Raw), "@example.com") {
		t.Fatalf("author leaks: %s", res.Raw)
	}
	res = k.Get("/api/camellos/"+f.ana.Id+"/reviews?perPage=2&page=2", "")
	if res.Status != 200 || len(res.Get("reviews").([]any)) != 1 || res.Get("count") != 3.0 || res.Get("total") != 3.0 ||
		res.Get("page") != 2.0 || res.Get("perPage") != 2.0 || res.Str("reviews.0.comment") != "Comentario 0" {
		t.Fatalf("page 2: %s", res.Raw)
	}
	if res := k.Get("/api/camellos/"+f.ana.Id+"/reviews?perPage=101", ""); res.Status != 400 {
		t.Fatalf("perPage 101: %d", res.Status)
	}
}
