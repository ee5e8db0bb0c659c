package agenda_test

import (
	"testing"
	"time"

	"camellos/internal/clock"
	"camellos/internal/testkit"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// monday is the fixed "now" of the HTTP tests: Monday 2026-11-23 06:00 UTC
// (01:00 in Bogotá).
var monday = time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)

type world struct {
	k              *testkit.Kit
	client         *core.Record
	clientCookie   string
	camUser        *core.Record
	camello        *core.Record
	camCookie      string
	adminCookie    string
	stranger       *core.Record
	strangerCookie string
}

// newWorld boots the service at monday with a client, a camello available
// Monday to Friday 08:00–12:00 in Bogotá who works on festivos (8 and 25
// December and 1 January fall in these tests' weeks; holidays_test.go
// covers a camello who does not), an admin and a stranger.
func newWorld(t *testing.T) *world {
	t.Helper()
	t.Setenv("AUTH_IP_LIMIT", "0") // not about the limits (internal/ratelimit's table test is)
	p := testkit.NewParties(t, func(app *tests.TestApp) { clock.Set(app, func() time.Time { return monday }) })
	w := &world{k: p.K, client: p.Client, clientCookie: p.ClientCookie, camUser: p.CamUser, camello: p.Camello,
		camCookie: p.CamCookie, adminCookie: p.AdminCookie, stranger: p.Stranger, strangerCookie: p.StrangerCookie}
	weekdays := []map[string]any{}
	for d := 1; d <= 5; d++ {
		weekdays = append(weekdays, map[string]any{"weekday": d, "start": "08:00", "end": "12:00"})
	}
	r := p.K.Put("/api/agenda/availability", w.camCookie, map[string]any{"weekly": weekdays, "worksHolidays": true})
	expect(t, r, 200, "")
	return w
}

func (w *world) job(status string) *core.Record {
	w.k.T.Helper()
	return w.k.CreateJob(testkit.JobOpts{Client: w.client, Provider: w.camello, Status: status})
}

func expect(t *testing.T, r *testkit.Response, status int, msg string) {
	t.Helper()
	testkit.Expect(t, r, status, msg)
}

func expectField(t *testing.T, r *testkit.Response, field, contains string) {
	t.Helper()
	testkit.ExpectField(t, r, field, contains)
}

func slotStarts(r *testkit.Response) []string {
	list, _ := r.Get("slots").([]any)
	out := []string{}
	for _, s := range list {
		out = append(out, s.(map[string]any)["start"].(string))
	}
	return out
}

func reload(t *testing.T, k *testkit.Kit, rec *core.Record) *core.Record {
	t.Helper()
	fresh, err := k.App.FindRecordById(rec.Collection(), rec.Id)
	if err != nil {
		t.Fatal(err)
	}
	return fresh
}

func newRecord(col *core.Collection, fields map[string]any) *core.Record {
	rec := core.NewRecord(col)
	for f, v := range fields {
		rec.Set(f, v)
	}
	return rec
}
