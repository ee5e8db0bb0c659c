package readmodel_test

import (
	"strings"
	"testing"

	"camellos/internal/readmodel"
	"camellos/internal/testkit"
)

// A write that reached the database around the hooks (a missed
// invalidation: raw SQL through the app's own pool) leaves the listing
// index and the open board stale, with no maximum age; one round of the
// background check finds each difference against a fresh build, counts
// it, repairs it (the next answers are right), and the metric shows it
// (issue 22, leak 5). A round over consistent projections finds nothing.
func TestCheckFindsAndRepairsStaleProjections(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	t.Setenv("METRICS_TOKEN", "secreto-de-metricas")
	k := testkit.New(t)
	svc := k.CreateService()
	_, cam, camCookie := k.CreateCamello(testkit.CamelloOpts{Services: []string{svc.Id}, Name: "Nombre Viejo"})
	client := k.CreateUser("CLIENTE")
	job := k.CreateJob(testkit.JobOpts{Client: client, Service: svc, Title: "Título viejo"})
	board := func() string {
		r := k.Get("/api/jobs/open?perPage=50", camCookie)
		if r.Status != 200 {
			t.Fatalf("board: %d %s", r.Status, r.Raw)
		}
		return string(r.Raw)
	}
	listing := func() string {
		r := k.Get("/api/camellos?perPage=100", "")
		if r.Status != 200 {
			t.Fatalf("listing: %d", r.Status)
		}
		return string(r.Raw)
	}
	if !strings.Contains(listing(), "Nombre Viejo") || !strings.Contains(board(), "Título viejo") { // built
		t.Fatal("projections not built")
	}
	if got := readmodel.RunAll(k.App); got["listing"] != 0 || got["board"] != 0 {
		t.Fatalf("consistent projections: %v", got)
	}

	for _, q := range []string{
		"UPDATE camellos SET name = 'Nombre Nuevo' WHERE id = {:c}",
		"UPDATE jobs SET title = 'Título nuevo' WHERE id = {:j}",
	} {
		if _, err := k.App.DB().NewQuery(q).Bind(map[string]any{"c": cam.Id, "j": job.Id}).Execute(); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(listing(), "Nombre Viejo") || !strings.Contains(board(), "Título viejo") {
		t.Fatal("the write around the hooks was seen at once: this test shows nothing")
	}
	got := readmodel.RunAll(k.App)
	if got["listing"] != 1 || got["board"] != 1 {
		t.Fatalf("differences found: %v (want listing 1, board 1)", got)
	}
	if !strings.Contains(listing(), "Nombre Nuevo") || !strings.Contains(board(), "Título nuevo") {
		t.Fatal("not repaired")
	}
	if again := readmodel.RunAll(k.App); again["listing"] != 0 || again["board"] != 0 {
		t.Fatalf("after the repair: %v", again)
	}
	if d := readmodel.Differences(k.App); d["listing"] != 1 || d["board"] != 1 {
		t.Fatalf("counted: %v", d)
	}
	r := k.Do(testkit.Req{Method: "GET", Path: "/metrics", Headers: map[string]string{"Authorization": "Bearer secreto-de-metricas"}})
	for _, want := range []string{`camellos_projection_differences_total{projection="board"} 1`,
		`camellos_projection_differences_total{projection="listing"} 1`, "camellos_write_retries_total"} {
		if !strings.Contains(string(r.Raw), want) {
			t.Fatalf("metrics lack %q: %d", want, r.Status)
		}
	}
}

// The per-job quote and message lists have no maximum age either: a write
// around their hooks (raw SQL through the app's own pool, so no foreign
// commit either) is found by one round of the check and repaired; so are
// the other projections without an age (categories, camello summaries,
// parties, authors, vocabulary), each compared with a fresh build.
func TestCheckCoversTheListsAndEveryProjectionWithoutAnAge(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	svc := k.CreateService()
	_, _, camCookie := k.CreateCamello(testkit.CamelloOpts{Services: []string{svc.Id}})
	client, clientCookie := k.UserWithSession("CLIENTE")
	job := k.Post("/api/jobs", clientCookie, map[string]any{"title": "Arreglar fuga", "serviceId": svc.Id, "city": "Bogotá"}).Str("job.id")
	quote := k.Post("/api/jobs/"+job+"/quotes", camCookie, map[string]any{"amount": 40000, "message": "Mensaje viejo"}).Str("quote.id")
	if r := k.Post("/api/jobs/"+job+"/messages", camCookie, map[string]any{"body": "Cuerpo viejo"}); r.Status != 201 || quote == "" {
		t.Fatalf("fixture: %d %s", r.Status, r.Raw)
	}
	get := func(path string) string {
		r := k.Get(path, clientCookie)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
		}
		return string(r.Raw)
	}
	quotes := func() string { return get("/api/jobs/" + job + "/quotes") }
	messages := func() string { return get("/api/jobs/" + job + "/messages") }
	categories := func() string { return get("/api/categories") }
	if !strings.Contains(quotes(), "Mensaje viejo") || !strings.Contains(messages(), "Cuerpo viejo") || categories() == "" {
		t.Fatal("lists not built")
	}
	if got := readmodel.RunAll(k.App); sum(got) != 0 {
		t.Fatalf("consistent projections: %v", got)
	}
	for _, q := range []string{
		"UPDATE quotes SET message = 'Mensaje nuevo' WHERE id = {:q}",
		"UPDATE messages SET body = 'Cuerpo nuevo' WHERE job = {:j}",
		"UPDATE categories SET name = 'Categoría nueva' WHERE id = (SELECT category FROM services WHERE id = {:s})",
		"UPDATE users SET name = 'Nombre nuevo' WHERE id = (SELECT user FROM camellos WHERE id = (SELECT camello FROM quotes WHERE id = {:q}))",
	} {
		if _, err := k.App.DB().NewQuery(q).Bind(map[string]any{"q": quote, "j": job, "s": svc.Id, "u": client.Id}).Execute(); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(quotes(), "Mensaje viejo") || !strings.Contains(messages(), "Cuerpo viejo") ||
		strings.Contains(categories(), "Categoría nueva") || strings.Contains(messages(), "Nombre nuevo") {
		t.Fatal("the writes around the hooks were seen at once: this test shows nothing")
	}
	got := readmodel.RunAll(k.App)
	for _, name := range []string{"quote-lists", "message-lists", "categories", "message-authors"} {
		if got[name] != 1 {
			t.Fatalf("differences found: %v (want 1 in %s)", got, name)
		}
	}
	if !strings.Contains(quotes(), "Mensaje nuevo") || !strings.Contains(messages(), "Cuerpo nuevo") ||
		!strings.Contains(messages(), "Nombre nuevo") || !strings.Contains(categories(), "Categoría nueva") {
		t.Fatal("not repaired")
	}
	if again := readmodel.RunAll(k.App); sum(again) != 0 {
		t.Fatalf("after the repair: %v", again)
	}
	// Every projection without a maximum age has a check (Declare refuses
	// one without), and each was run.
	for _, s := range readmodel.Stats(k.App) {
		if _, ran := got[s.Name]; s.MaxAge <= 0 && !ran {
			t.Fatalf("projection %s has no age and was not checked", s.Name)
		}
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
