package quotes_test

import (
	"testing"
)

// A camello that withdraws and quotes again notifies the client each time:
// at most 5 quotes per camello and job within an hour, then 429 with
// Retry-After; refused quotes do not count, and other camellos are not
// affected.
func TestQuotesToOneJobAreLimited(t *testing.T) {
	m := newMarketLimited(t, 2, "1000")
	job := m.openJob(t, "Bogotá")
	// Refused quotes (out of bounds) are not counted.
	for i := 0; i < 6; i++ {
		expect(t, m.k.Post("/api/jobs/"+job+"/quotes", m.camCookies[0], map[string]any{"amount": 5}), 400, "")
	}
	for i := 0; i < 5; i++ {
		id := m.quote(t, 0, job, 50000+i)
		expect(t, m.k.Post("/api/quotes/"+id+"/withdraw", m.camCookies[0], nil), 200, "")
	}
	r := m.k.Post("/api/jobs/"+job+"/quotes", m.camCookies[0], map[string]any{"amount": 60000})
	if r.Status != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("6th quote on one job: %d %s", r.Status, r.Raw)
	}
	m.quote(t, 1, job, 70000) // another camello
}
