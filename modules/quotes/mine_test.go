package quotes_test

import (
	"testing"

	"camellos/modules/quotes"
)

// "Mis cotizaciones": a camello's own quotes, newest first, with the job as
// a quoting camello may read it (service and place, never the address),
// filtered by state and by job; other roles are refused.
func TestMyQuotes(t *testing.T) {
	m := newMarket(t, 2)
	k := m.k
	jobA := m.openJob(t, "Bogotá")
	jobB := m.openJob(t, "Medellín")
	qa := m.quote(t, 0, jobA, 120000)
	qb := m.quote(t, 0, jobB, 90000)
	m.quote(t, 1, jobA, 110000) // another camello's: never in camello 0's list
	expect(t, k.Post("/api/quotes/"+qb+"/withdraw", m.camCookies[0], nil), 200, "")

	expect(t, k.Get("/api/me/quotes", ""), 401, "No autorizado")
	expect(t, k.Get("/api/me/quotes", m.clientCookie), 403, quotes.MsgOnlyCamelloQuotes)
	expect(t, k.Get("/api/me/quotes", m.adminCookie), 403, quotes.MsgOnlyCamelloQuotes)
	for _, bad := range []struct{ q, field string }{{"status=ABIERTA", "status"}, {"job=bad.id", "job"}, {"perPage=101", "perPage"}, {"page=0", "page"}} {
		r := k.Get("/api/me/quotes?"+bad.q, m.camCookies[0])
		if r.Status != 400 || len(r.FieldErrors(bad.field)) == 0 {
			t.Fatalf("%s: %d %s", bad.q, r.Status, r.Raw)
		}
	}

	r := k.Get("/api/me/quotes", m.camCookies[0])
	expect(t, r, 200, "")
	if r.Get("total") != 2.0 || r.Str("quotes.0.id") != qb || r.Str("quotes.1.id") != qa {
		t.Fatalf("list: %s", r.Raw)
	}
	if r.Str("quotes.0.status") != quotes.StatusWithdrawn || r.Str("quotes.1.status") != quotes.StatusPending {
		t.Fatalf("states: %s", r.Raw)
	}
	if r.Str("quotes.1.job.id") != jobA || r.Str("quotes.1.job.city") != "Bogotá" || r.Str("quotes.1.job.service.name") == "" ||
		r.Str("quotes.1.job.title") != "Arreglar fuga" || r.Str("quotes.1.job.status") != "PENDIENTE" {
		t.Fatalf("job of the quote: %s", r.Raw)
	}
	if r.Get("quotes.1.job.address") != nil || r.Get("quotes.1.job.client") != nil {
		t.Fatalf("a quoting camello reads no address nor client: %s", r.Raw)
	}
	r = k.Get("/api/me/quotes?status=PENDIENTE", m.camCookies[0])
	if r.Get("total") != 1.0 || r.Str("quotes.0.id") != qa {
		t.Fatalf("PENDIENTE: %s", r.Raw)
	}
	r = k.Get("/api/me/quotes?job="+jobB, m.camCookies[0])
	if r.Get("total") != 1.0 || r.Str("quotes.0.id") != qb {
		t.Fatalf("one job: %s", r.Raw)
	}
	r = k.Get("/api/me/quotes?perPage=1&page=2", m.camCookies[0])
	if r.Get("total") != 2.0 || r.Str("quotes.0.id") != qa {
		t.Fatalf("page 2: %s", r.Raw)
	}
	// The client accepts camello 1's quote: camello 0's reads RECHAZADA.
	r = k.Get("/api/jobs/"+jobA+"/quotes", m.clientCookie)
	for i := 0; i < 2; i++ {
		if r.Str("quotes."+string(rune('0'+i))+".camello.id") == m.cams[1].Id {
			expect(t, k.Post("/api/quotes/"+r.Str("quotes."+string(rune('0'+i))+".id")+"/accept", m.clientCookie, nil), 200, "")
		}
	}
	r = k.Get("/api/me/quotes?status=RECHAZADA", m.camCookies[0])
	if r.Get("total") != 1.0 || r.Str("quotes.0.id") != qa || r.Str("quotes.0.job.status") != "ASIGNADO" {
		t.Fatalf("RECHAZADA: %s", r.Raw)
	}
}
