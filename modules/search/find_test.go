package search_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/internal/timefmt"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// searchWorld is a running service with camellos of several trades and
// cities, each with a description and a weekly availability.
type searchWorld struct {
	k       *testkit.Kit
	byName  map[string]*core.Record
	cookies map[string]string
}

type camelloSpec struct {
	name, city, trade, description string
	days                           []int // weekdays with 06:00–22:00 free (nil: no availability at all)
}

func newSearchWorld(t *testing.T, specs []camelloSpec) *searchWorld {
	t.Helper()
	w := &searchWorld{k: testkit.New(t), byName: map[string]*core.Record{}, cookies: map[string]string{}}
	for _, s := range specs {
		_, cam, cookie := w.k.CreateCamello(testkit.CamelloOpts{Name: s.name, City: s.city, Trades: []string{s.trade}})
		cam.Set("description", s.description)
		if err := w.k.App.Save(cam); err != nil {
			t.Fatal(err)
		}
		if s.days != nil {
			weekly := []map[string]any{}
			for _, d := range s.days {
				weekly = append(weekly, map[string]any{"weekday": d, "start": "06:00", "end": "22:00"})
			}
			if r := w.k.Put("/api/agenda/availability", cookie, map[string]any{"weekly": weekly}); r.Status != 200 {
				t.Fatalf("availability of %s: %d %s", s.name, r.Status, r.Raw)
			}
		}
		w.byName[s.name] = cam
		w.cookies[s.name] = cookie
	}
	return w
}

var everyDay = []int{0, 1, 2, 3, 4, 5, 6}

func (w *searchWorld) search(t *testing.T, query string) *testkit.Response {
	t.Helper()
	r := w.k.Get("/api/search?query="+url.QueryEscape(query), "")
	if r.Status != 200 {
		t.Fatalf("%q: %d %s", query, r.Status, r.Raw)
	}
	return r
}

// names lists the names of the camellos found, in order.
func names(r *testkit.Response) string {
	var out []string
	list, _ := r.Get("results").([]any)
	for _, x := range list {
		m, _ := x.(map[string]any)
		c, _ := m["camello"].(map[string]any)
		out = append(out, c["name"].(string))
	}
	return strings.Join(out, ",")
}

func relaxedFilters(r *testkit.Response) string {
	var out []string
	list, _ := r.Get("relaxed").([]any)
	for _, x := range list {
		out = append(out, x.(map[string]any)["filter"].(string))
	}
	return strings.Join(out, ",")
}

// The search: the problem words rank, the trade, the city and the
// day filter; the camellos' own words count double their reviews' words.
func TestSearchRanksProblemWords(t *testing.T) {
	w := newSearchWorld(t, []camelloSpec{
		{"Ana Plomera", "Bogotá", "Plomería", "Destapo cañerías y lavaplatos.", everyDay},
		{"Beto Plomero", "Bogotá D.C.", "Plomería", "Reparo fugas en baños y cocinas.", everyDay},
		{"Ciro Plomero", "Medellín", "Plomería", "Fugas y baños en Medellín.", everyDay},
		{"Dora Eléctrica", "Bogotá", "Electricidad", "Arreglo fugas de corriente en el baño.", everyDay},
		{"Eva Plomera", "Bogotá", "Plomería", "Instalo calentadores.", everyDay},
	})
	k := w.k
	// A client's review of Ana names the leak: her reviews rank her above Eva.
	client, clientCookie := k.UserWithSession(users.RoleClient)
	job := k.CreateJob(testkit.JobOpts{Client: client, Provider: w.byName["Ana Plomera"], Status: "COMPLETADO"})
	if r := k.Post("/api/jobs/"+job.Id+"/review", clientCookie, map[string]any{"rating": 4, "comment": "Arregló la fuga del baño en una hora"}); r.Status != 201 && r.Status != 200 {
		t.Fatalf("review: %d %s", r.Status, r.Raw)
	}

	cases := []struct {
		query, names, trades, city string
		when                       bool
	}{
		// The example: plomeros in Bogotá (both spellings of the city).
		{"necesito alguien que me arregle una fuga en el baño en Bogotá el sábado", "Beto Plomero,Ana Plomera,Eva Plomera", "plomería", "Bogotá", true},
		{"fuga en el baño en bogota", "Beto Plomero,Ana Plomera,Eva Plomera", "plomería", "Bogotá", false},
		// No city: every plomero, the words rank (Ciro has fugas and baños
		// too; between equals the listing's order: newest first).
		{"fuga en el baño", "Ciro Plomero,Beto Plomero,Ana Plomera,Eva Plomera", "plomería", "", false},
		// Words no one has: the trade and the city still filter, the order is the listing's.
		{"plomero en Bogotá para el tanque de reserva", "", "plomería", "Bogotá", false},
		// A clue of another trade: electricians only.
		{"se dañó el enchufe del baño en Bogotá", "Dora Eléctrica", "electricidad", "Bogotá", false},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			r := w.search(t, c.query)
			got := names(r)
			if c.names != "" && got != c.names {
				t.Errorf("found %q, want %q", got, c.names)
			}
			if c.names == "" && (r.Get("total") != 3.0 || strings.Contains(got, "Ciro") || strings.Contains(got, "Dora")) {
				t.Errorf("found %q (total %v), want the 3 plomeros of Bogotá", got, r.Get("total"))
			}
			if tr, _ := r.Get("applied.trades").([]any); len(tr) != 1 || tr[0] != c.trades {
				t.Errorf("applied trades %v, want %s", tr, c.trades)
			}
			if city := r.Str("applied.city"); city != c.city {
				t.Errorf("applied city %q, want %q", city, c.city)
			}
			if (r.Get("applied.when") != nil) != c.when {
				t.Errorf("applied when %v, want set %v", r.Get("applied.when"), c.when)
			}
			if relaxedFilters(r) != "" || r.Get("notice") != nil {
				t.Errorf("relaxed %s", r.Raw)
			}
		})
	}
	// The first answer in detail: scores, matched words, free slots.
	r := w.search(t, cases[0].query)
	if r.Get("results.0.score") != 4.0 || r.Get("results.1.score") != 2.0 || r.Get("results.2.score") != 0.0 {
		t.Errorf("scores: %s", r.Raw)
	}
	if m, _ := r.Get("results.0.matched").([]any); len(m) != 2 || m[0] != "fuga" || m[1] != "baño" {
		t.Errorf("matched: %s", r.Raw)
	}
	if n, _ := r.Get("results.0.freeSlots").(float64); n < 1 {
		t.Errorf("freeSlots: %s", r.Raw)
	}
	if r.Str("interpretation.query") != cases[0].query || r.Get("page") != 1.0 || r.Get("perPage") != 20.0 || r.Get("total") != 3.0 {
		t.Errorf("envelope: %s", r.Raw)
	}
	// Without a time the free slots are null.
	if r := w.search(t, "fuga en el baño"); !strings.Contains(string(r.Raw), `"freeSlots":null`) {
		t.Errorf("freeSlots without time: %s", r.Raw)
	}
	// Paging: the same order, one per page.
	for i, want := range strings.Split(cases[0].names, ",") {
		r := k.Get("/api/search?perPage=1&page="+string(rune('1'+i))+"&query="+url.QueryEscape(cases[0].query), "")
		if names(r) != want || r.Get("total") != 3.0 {
			t.Errorf("page %d: %s", i+1, r.Raw)
		}
	}
	// A new review is ranked at once (the reviews' text is forgotten).
	job2 := k.CreateJob(testkit.JobOpts{Client: client, Provider: w.byName["Eva Plomera"], Status: "COMPLETADO"})
	if r := k.Post("/api/jobs/"+job2.Id+"/review", clientCookie, map[string]any{"rating": 5, "comment": "Encontró la fuga y dejó el baño limpio"}); r.Status != 201 && r.Status != 200 {
		t.Fatalf("review: %d %s", r.Status, r.Raw)
	}
	if got := names(w.search(t, "fuga en el baño en Bogotá")); got != "Beto Plomero,Eva Plomera,Ana Plomera" {
		// Eva (rating 5) and Ana (4) both match by their reviews: the listing's order decides.
		t.Errorf("after a review: %q", got)
	}
}

// saturday is the next Saturday (Bogotá) the interpreter means by "el sábado".
func nextWeekday(wd time.Weekday) time.Time {
	loc, _ := time.LoadLocation("America/Bogota")
	n := time.Now().In(loc)
	d := (int(wd) - int(n.Weekday()) + 7) % 7
	if d == 0 {
		d = 7
	}
	return time.Date(n.Year(), n.Month(), n.Day()+d, 0, 0, 0, 0, loc)
}

// When the filters leave nobody they are relaxed one at a time, and the
// answer says which.
func TestSearchRelaxesFilters(t *testing.T) {
	w := newSearchWorld(t, []camelloSpec{
		{"Sara Cerrajera", "Cali", "Cerrajería", "Abro puertas y cambio guardas.", []int{0}}, // Sundays only
		{"Tomás Cerrajero", "Pasto", "Cerrajería", "Cerraduras de seguridad.", nil},          // no agenda
		{"Uma Plomera", "Bogotá", "Plomería", "Fugas.", everyDay},
		{"Vera Pintora", "Bogotá", "Pintura", "Pinto fachadas y jardines.", everyDay},
	})
	cases := []struct {
		name, query, names, relaxed, city, trades string
		notice                                    []string
		when                                      bool
	}{
		{"time moved to the next day", "cerrajero en Cali el sábado", "Sara Cerrajera", "when", "Cali", "cerrajería",
			[]string{"Sin resultados para ", "; mostramos los disponibles ", "domingo"}, true},
		{"time dropped", "cerrajero en Pasto el sábado", "Tomás Cerrajero", "when", "Pasto", "cerrajería",
			[]string{"Nadie tiene horarios libres", "mostramos a todos, sin filtrar por fecha."}, false},
		{"city dropped", "plomero en Cúcuta", "Uma Plomera", "city", "", "plomería",
			[]string{"Sin resultados en Cúcuta; mostramos camellos de otras ciudades."}, false},
		{"trade dropped, city kept", "jardinero en Bogotá para los jardines", "Vera Pintora,Uma Plomera", "trade", "Bogotá", "",
			[]string{"Sin camellos de jardinería; mostramos otros que coinciden con tu búsqueda."}, false},
		{"city then time", "cerrajero en Cúcuta el sábado", "Sara Cerrajera", "city,when", "", "cerrajería",
			[]string{"Sin resultados en Cúcuta", "mostramos los disponibles"}, true},
		{"nothing to relax", "plomero en Bogotá", "Uma Plomera", "", "Bogotá", "plomería", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := w.search(t, c.query)
			if got := names(r); got != c.names {
				t.Errorf("found %q, want %q", got, c.names)
			}
			if got := relaxedFilters(r); got != c.relaxed {
				t.Errorf("relaxed %q, want %q: %s", got, c.relaxed, r.Raw)
			}
			if got := r.Str("applied.city"); got != c.city {
				t.Errorf("applied city %q, want %q", got, c.city)
			}
			tr, _ := r.Get("applied.trades").([]any)
			if (c.trades == "" && len(tr) != 0) || (c.trades != "" && (len(tr) != 1 || tr[0] != c.trades)) {
				t.Errorf("applied trades %v, want %q", tr, c.trades)
			}
			if (r.Get("applied.when") != nil) != c.when {
				t.Errorf("applied when: %s", r.Raw)
			}
			notice := r.Str("notice")
			if c.notice == nil && r.Get("notice") != nil {
				t.Errorf("notice %q, want null", notice)
			}
			for _, part := range c.notice {
				if !strings.Contains(notice, part) {
					t.Errorf("notice %q lacks %q", notice, part)
				}
			}
		})
	}
	// The moved window is the Sunday after the Saturday asked.
	r := w.search(t, "cerrajero en Cali el sábado")
	sat, sun := nextWeekday(time.Saturday), nextWeekday(time.Saturday).AddDate(0, 0, 1)
	if r.Str("relaxed.0.from.from") != timefmt.ISO(sat) || r.Str("relaxed.0.to.from") != timefmt.ISO(sun) ||
		r.Str("applied.when.from") != timefmt.ISO(sun) || r.Str("applied.when.to") != timefmt.ISO(sun.AddDate(0, 0, 1)) {
		t.Errorf("moved window: %s", r.Raw)
	}
	if n, _ := r.Get("results.0.freeSlots").(float64); n != 16 {
		t.Errorf("free slots on Sunday 06:00–22:00 = %v, want 16", r.Get("results.0.freeSlots"))
	}
}

// Every problem query of problemQueries finds a camello of its trade first
// (one camello per trade, in Bogotá, free every day).
func TestSearchProblemQueries(t *testing.T) {
	var specs []camelloSpec
	seen := map[string]bool{}
	for _, c := range problemQueries {
		if !seen[c.trade] {
			seen[c.trade] = true
			specs = append(specs, camelloSpec{name: "Camello de " + c.trade, city: "Bogotá", trade: c.trade,
				description: "Trabajo de " + c.trade + " en casas y apartamentos.", days: everyDay})
		}
	}
	w := newSearchWorld(t, specs)
	for _, c := range problemQueries {
		t.Run(c.query, func(t *testing.T) {
			r := w.search(t, c.query)
			if first := strings.Split(names(r), ",")[0]; first != "Camello de "+c.trade {
				t.Errorf("first %q, want the camello of %s: %s", first, c.trade, r.Raw)
			}
			// The trade filters (only a time may move: "esta noche" late at night).
			if rel := relaxedFilters(r); r.Get("total") != 1.0 || (rel != "" && rel != "when") {
				t.Errorf("total %v, relaxed %q: the trade filters", r.Get("total"), rel)
			}
		})
	}
}

// The query is checked like the interpreter's; page and perPage like every list.
func TestSearchValidation(t *testing.T) {
	k := testkit.New(t)
	_, client := k.UserWithSession(users.RoleClient)
	cases := []struct {
		name, qs string
		status   int
		field    string
	}{
		{"missing", "", 400, "query"},
		{"empty", "query=", 400, "query"},
		{"blank", "query=%20%20", 400, "query"},
		{"301", "query=" + strings.Repeat("%C3%B1", 301), 400, "query"},
		{"300", "query=" + strings.Repeat("%C3%B1", 300), 200, ""},
		{"1", "query=a", 200, ""},
		{"page 0", "query=plomero&page=0", 400, "page"},
		{"perPage 101", "query=plomero&perPage=101", 400, "perPage"},
		{"perPage 100", "query=plomero&perPage=100", 200, ""},
	}
	for _, c := range cases {
		for _, cookie := range []string{"", client} {
			r := k.Get("/api/search?"+c.qs, cookie)
			if r.Status != c.status {
				t.Errorf("%s: %d %s", c.name, r.Status, r.Raw)
				continue
			}
			if c.field != "" {
				testkit.ExpectField(t, r, c.field, "")
			}
			if c.status == 200 {
				for _, f := range []string{"interpretation", "applied", "relaxed", "notice", "results", "page", "perPage", "total"} {
					if _, ok := r.JSON[f]; !ok {
						t.Errorf("%s: no %s: %s", c.name, f, r.Raw)
					}
				}
			}
		}
	}
}
