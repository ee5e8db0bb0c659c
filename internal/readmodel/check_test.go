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
