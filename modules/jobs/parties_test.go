package jobs_test

import "testing"

// The camello sees who the client is, and both see whether a completed job
// was reviewed already.
func TestJobShowsClientAndReviewed(t *testing.T) {
	w := newWorld(t)
	job := w.job("COMPLETADO")
	r := w.k.Get("/api/jobs/"+job.Id, w.camCookie)
	if r.Status != 200 || r.Str("job.client.id") != w.client.Id || r.Str("job.client.name") != w.client.GetString("name") || r.Get("job.reviewed") != false {
		t.Fatalf("before review: %d %s", r.Status, r.Raw)
	}
	if rv := w.k.Post("/api/jobs/"+job.Id+"/review", w.clientCookie, map[string]any{"rating": 5}); rv.Status != 201 && rv.Status != 200 {
		t.Fatalf("review: %d %s", rv.Status, rv.Raw)
	}
	list := w.k.Get("/api/jobs", w.clientCookie)
	if list.Status != 200 || list.Str("jobs.0.id") != job.Id || list.Get("jobs.0.reviewed") != true {
		t.Fatalf("after review: %s", list.Raw)
	}
}
