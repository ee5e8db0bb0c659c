package jobs_test

import (
	"strings"
	"testing"

	"camellos/modules/jobs"
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
