package quotes_test

import (
	"testing"
	_ "time/tzdata"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// market is a running service with a service, a client, an admin and
// ACTIVO camellos offering that service.
type market struct {
	k            *testkit.Kit
	service      *core.Record
	client       *core.Record
	clientCookie string
	adminCookie  string
	strangerCk   string
	cams         []*core.Record
	camCookies   []string
}

func newMarket(t *testing.T, camellos int) *market {
	t.Helper()
	return newMarketLimited(t, camellos, "0")
}

// newMarketLimited is newMarket with AUTH_IP_LIMIT set to limit ("0" turns
// the quota table off; tests about the limits turn it on).
func newMarketLimited(t *testing.T, camellos int, limit string) *market {
	t.Helper()
	t.Setenv("AUTH_IP_LIMIT", limit)
	k := testkit.New(t)
	m := &market{k: k, service: k.CreateService()}
	m.client, m.clientCookie = k.UserWithSession(users.RoleClient)
	_, m.adminCookie = k.UserWithSession(users.RoleAdmin)
	_, m.strangerCk = k.UserWithSession(users.RoleClient)
	for i := 0; i < camellos; i++ {
		_, c, ck := k.CreateCamello(testkit.CamelloOpts{Services: []string{m.service.Id}})
		m.cams = append(m.cams, c)
		m.camCookies = append(m.camCookies, ck)
	}
	return m
}

// openJob posts an open job of m.client through the API.
func (m *market) openJob(t *testing.T, city string) string {
	t.Helper()
	r := m.k.Post("/api/jobs", m.clientCookie, map[string]any{"title": "Arreglar fuga", "serviceId": m.service.Id,
		"city": city, "address": "Calle 10 # 5-20, apto 301"})
	if r.Status != 201 {
		t.Fatalf("post job: %d %s", r.Status, r.Raw)
	}
	return r.Str("job.id")
}

// quote sends a quote of camello i on job and returns its id.
func (m *market) quote(t *testing.T, i int, job string, amount int) string {
	t.Helper()
	r := m.k.Post("/api/jobs/"+job+"/quotes", m.camCookies[i], map[string]any{"amount": amount, "message": "Puedo mañana"})
	if r.Status != 201 {
		t.Fatalf("quote: %d %s", r.Status, r.Raw)
	}
	return r.Str("quote.id")
}

func expect(t *testing.T, r *testkit.Response, status int, msg string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	if msg != "" && r.Error() != msg {
		t.Fatalf("error %q, want %q: %s", r.Error(), msg, r.Raw)
	}
}

func reload(t *testing.T, k *testkit.Kit, collection, id string) *core.Record {
	t.Helper()
	rec, err := k.App.FindRecordById(collection, id)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func newRecord(col *core.Collection, fields map[string]any) *core.Record {
	rec := core.NewRecord(col)
	for f, v := range fields {
		rec.Set(f, v)
	}
	return rec
}
