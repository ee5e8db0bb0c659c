package readmodel_test

import (
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"camellos/internal/readmodel"
	"camellos/internal/testkit"
)

// BenchmarkKeep measures, over HTTP, each route a small projection serves
// with the projection kept ("kept") and dropped before every other request,
// so that the route runs its plain query ("query"): issue 22's rule, a
// cache that a plain indexed query matches within 10 % is not worth keeping.
//
//	go test ./internal/readmodel -run x -bench Keep -benchtime 400x
func BenchmarkKeep(b *testing.B) {
	b.Setenv("AUTH_IP_LIMIT", "0")
	p := testkit.NewParties(b)
	k := p.K
	job := p.Job("PUBLICADO")
	var camCookies []string
	var camID string
	var camIDs []string
	for i := 0; i < 8; i++ {
		_, c, ck := k.CreateCamello(testkit.CamelloOpts{Services: []string{job.GetString("service")}})
		camCookies = append(camCookies, ck)
		camID = c.Id
		camIDs = append(camIDs, c.Id)
	}
	camCookie := camCookies[len(camCookies)-1]
	for _, ck := range camCookies {
		testkit.Expect(b, k.Post("/api/jobs/"+job.Id+"/quotes", ck, map[string]any{"amount": 50000, "message": "Puedo ir mañana"}), http.StatusCreated, "")
	}
	for i := 0; i < 40; i++ {
		ck, body := p.ClientCookie, map[string]any{"body": "Mensaje " + testkit.Unique(), "toCamelloId": camID}
		if i%2 == 1 {
			ck, body = camCookie, map[string]any{"body": "Mensaje " + testkit.Unique()}
		}
		testkit.Expect(b, k.Post("/api/jobs/"+job.Id+"/messages", ck, body), http.StatusCreated, "")
	}
	// Reviews for the search's ranking (raw rows: the review rules are not
	// what is measured here).
	for i := 0; i < 400; i++ {
		id := fmt.Sprintf("rv%013d", i)
		if _, err := k.App.DB().NewQuery("INSERT INTO reviews (id, job, camello, client, rating, comment, sealed, publishAt, created) " +
			"VALUES ({:id}, {:id}, {:cam}, {:client}, 5, 'Muy puntual, limpio y amable; volvería a llamarlo', FALSE, '', {:t})").
			Bind(map[string]any{"id": id, "cam": camIDs[i%len(camIDs)], "client": p.Client.Id, "t": "2026-01-01 10:00:00.000Z"}).Execute(); err != nil {
			b.Fatal(err)
		}
	}
	cases := []struct {
		name, method, path, cookie string
		body                       any
		projections                []string
	}{
		{"categories", "GET", "/api/categories", "", nil, []string{"categories"}},
		{"quotes", "GET", "/api/jobs/" + job.Id + "/quotes", p.ClientCookie, nil, []string{"quote-lists"}},
		{"quotes-summaries", "GET", "/api/jobs/" + job.Id + "/quotes", p.ClientCookie, nil, []string{"camello-summaries"}},
		{"quotes-parties", "GET", "/api/jobs/" + job.Id + "/quotes", p.ClientCookie, nil, []string{"job-parties"}},
		{"messages", "GET", "/api/jobs/" + job.Id + "/messages", p.ClientCookie, nil, []string{"message-lists"}},
		{"messages-authors", "GET", "/api/jobs/" + job.Id + "/messages", p.ClientCookie, nil, []string{"message-authors"}},
		{"messages-camello", "GET", "/api/jobs/" + job.Id + "/messages", camCookie, nil, []string{"camello-of-user"}},
		{"slots", "GET", "/api/camellos/" + camID + "/slots", p.ClientCookie, nil, []string{"agenda"}},
		{"sessions", "GET", "/api/me", p.ClientCookie, nil, []string{"sessions"}},
		{"vocabulary", "POST", "/api/search/interpret", "", map[string]any{"query": "plomero en bogotá mañana"}, []string{"vocabulary"}},
		{"search-reviews", "GET", "/api/search?query=puntual%20amable", "", nil, []string{"search-reviews"}},
	}
	for _, c := range cases {
		req := testkit.Req{Method: c.method, Path: c.path, Cookie: c.cookie, Body: c.body}
		if r := k.Do(req); r.Status != http.StatusOK {
			b.Fatalf("%s: %d %s", c.name, r.Status, r.Raw)
		}
		// Interleaved, so that the machine's load weighs on both alike;
		// the medians are reported (µs-kept, µs-query, query/kept).
		b.Run(c.name, func(b *testing.B) {
			kept, query := make([]float64, 0, b.N), make([]float64, 0, b.N)
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if r := k.Do(req); r.Status != http.StatusOK {
					b.Fatalf("%d %s", r.Status, r.Raw)
				}
				kept = append(kept, float64(time.Since(start).Microseconds()))
				for _, name := range c.projections {
					if !readmodel.DropNamed(k.App, name) {
						b.Fatalf("no projection %s", name)
					}
				}
				start = time.Now()
				if r := k.Do(req); r.Status != http.StatusOK {
					b.Fatalf("%d %s", r.Status, r.Raw)
				}
				query = append(query, float64(time.Since(start).Microseconds()))
			}
			mk, mq := median(kept), median(query)
			b.ReportMetric(mk, "µs-kept")
			b.ReportMetric(mq, "µs-query")
			b.ReportMetric(mq/mk, "query/kept")
		})
	}
}

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}
