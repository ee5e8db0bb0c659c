package jobs_test

import (
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/jobs"

	"github.com/pocketbase/pocketbase/core"
)

func TestReview(t *testing.T) {
	w := newWorld(t)
	k := w.k
	done := w.job("COMPLETADO")
	path := "/api/jobs/" + done.Id + "/review"

	t.Run("who", func(t *testing.T) {
		good := map[string]any{"rating": 5}
		expect(t, k.Post(path, "", good), 401, "No autorizado")
		expect(t, k.Post(path, w.camCookie, good), 403, jobs.MsgOnlyClient)
		expect(t, k.Post(path, w.adminCookie, good), 403, jobs.MsgOnlyClient)
		expect(t, k.Post(path, w.strangerCookie, good), 404, jobs.MsgJobNotFound)
	})

	t.Run("invalid", func(t *testing.T) {
		for name, c := range map[string]struct {
			body  any
			field string
		}{
			"missing": {map[string]any{}, "rating"}, "zero": {map[string]any{"rating": 0}, "rating"},
			"six": {map[string]any{"rating": 6}, "rating"}, "half": {map[string]any{"rating": 4.5}, "rating"},
			"text":         {map[string]any{"rating": "5"}, "rating"},
			"comment 2001": {map[string]any{"rating": 4, "comment": strings.Repeat("é", 2001)}, "comment"},
		} {
			t.Run(name, func(t *testing.T) { expectField(t, k.Post(path, w.clientCookie, c.body), c.field, "") })
		}
	})

	t.Run("not completed", func(t *testing.T) {
		for _, st := range []string{"ASIGNADO", "EN_PROGRESO", "CANCELADO"} {
			job := w.job(st)
			expect(t, k.Post("/api/jobs/"+job.Id+"/review", w.clientCookie, map[string]any{"rating": 3}), 409, jobs.MsgReviewNotDone)
		}
	})

	t.Run("once, rating updated", func(t *testing.T) {
		r := k.Post(path, w.clientCookie, map[string]any{"rating": 4, "comment": strings.Repeat("é", 2000)})
		expect(t, r, 201, "")
		if r.Get("review.rating") != 4.0 || r.Str("review.jobId") != done.Id || r.Str("review.camelloId") != w.camello.Id {
			t.Fatalf("review: %s", r.Raw)
		}
		expect(t, k.Post(path, w.clientCookie, map[string]any{"rating": 1}), 409, jobs.MsgAlreadyReviewed)
		other := w.job("COMPLETADO")
		expect(t, k.Post("/api/jobs/"+other.Id+"/review", w.clientCookie, map[string]any{"rating": 1}), 201, "")
		c := reload(t, k, w.camello)
		if c.GetFloat("ratingAvg") != 2.5 || c.GetInt("ratingCount") != 2 {
			t.Fatalf("rating %v / %v, want 2.5 / 2", c.GetFloat("ratingAvg"), c.GetInt("ratingCount"))
		}
		if n := k.Count("reviews", ""); n != 2 {
			t.Fatalf("%d reviews", n)
		}
	})
}

// Reviews count only from a client whose job with that camello really
// happened (issue 21): wherever a review is saved (our route, the
// dashboard, any record save) it must name a COMPLETADO job of that client
// whose camello is the reviewed one, one per job; fresh client accounts
// cannot mint ratings. A review saved by a record write counts in the
// camello's rating like one of the route.
func TestReviewsNeedARealJobWithThatCamello(t *testing.T) {
	w := newWorld(t)
	k := w.k
	save := func(fields map[string]any) error {
		col, err := k.App.FindCachedCollectionByNameOrId("reviews")
		if err != nil {
			t.Fatal(err)
		}
		rec := core.NewRecord(col)
		for f, v := range fields {
			rec.Set(f, v)
		}
		return k.App.Save(rec) // as the dashboard saves it
	}
	rating := func() (float64, int) {
		c, err := k.App.FindRecordById("camellos", w.camello.Id)
		if err != nil {
			t.Fatal(err)
		}
		return c.GetFloat("ratingAvg"), c.GetInt("ratingCount")
	}
	_, other, _ := k.CreateCamello()
	for i := 0; i < 3; i++ { // fresh client accounts
		fresh := k.CreateUser("CLIENTE")
		someoneElses := w.job("COMPLETADO")
		withOther := k.CreateJob(testkit.JobOpts{Client: fresh, Provider: other, Status: "COMPLETADO"})
		notDone := k.CreateJob(testkit.JobOpts{Client: fresh, Provider: w.camello, Status: "EN_PROGRESO"})
		cancelled := k.CreateJob(testkit.JobOpts{Client: fresh, Provider: w.camello, Status: "CANCELADO"})
		for name, fields := range map[string]map[string]any{
			"no job":                {"camello": w.camello.Id, "client": fresh.Id, "rating": 5},
			"another client's job":  {"job": someoneElses.Id, "camello": w.camello.Id, "client": fresh.Id, "rating": 5},
			"a job of another one":  {"job": withOther.Id, "camello": w.camello.Id, "client": fresh.Id, "rating": 5},
			"a job not done":        {"job": notDone.Id, "camello": w.camello.Id, "client": fresh.Id, "rating": 5},
			"a cancelled job":       {"job": cancelled.Id, "camello": w.camello.Id, "client": fresh.Id, "rating": 5},
			"a job without camello": {"job": k.CreateJob(testkit.JobOpts{Client: fresh, Status: "PENDIENTE"}).Id, "camello": w.camello.Id, "client": fresh.Id, "rating": 5},
		} {
			if err := save(fields); err == nil {
				t.Fatalf("client %d, %s: review saved", i, name)
			}
		}
		if avg, n := rating(); n != 0 || avg != 0 {
			t.Fatalf("refused reviews moved the rating: %v over %d", avg, n)
		}
	}
	// A real job: saved once, counted, and only once per job.
	done := w.job("COMPLETADO")
	if err := save(map[string]any{"job": done.Id, "camello": w.camello.Id, "client": w.client.Id, "rating": 4}); err != nil {
		t.Fatalf("the review of a real job: %v", err)
	}
	if avg, n := rating(); n != 1 || avg != 4 {
		t.Fatalf("rating after a dashboard review: %v over %d", avg, n)
	}
	if err := save(map[string]any{"job": done.Id, "camello": w.camello.Id, "client": w.client.Id, "rating": 5}); err == nil {
		t.Fatal("a second review of the same job was saved")
	}
	expect(t, k.Post("/api/jobs/"+done.Id+"/review", w.clientCookie, map[string]any{"rating": 5}), 409, jobs.MsgAlreadyReviewed)
	// Moving a review onto a job that does not qualify is refused too.
	rv, err := k.App.FindFirstRecordByData("reviews", "job", done.Id)
	if err != nil {
		t.Fatal(err)
	}
	rv.Set("job", w.job("EN_PROGRESO").Id)
	if err := k.App.Save(rv); err == nil {
		t.Fatal("a review moved to a job in progress")
	}
	// The route, on a real job, still works (the contract's flow).
	real := w.job("COMPLETADO")
	expect(t, k.Post("/api/jobs/"+real.Id+"/review", w.clientCookie, map[string]any{"rating": 2}), 201, "")
	if avg, n := rating(); n != 2 || avg != 3 {
		t.Fatalf("rating after the route's review: %v over %d", avg, n)
	}
}
