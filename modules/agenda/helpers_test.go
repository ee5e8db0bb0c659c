package agenda_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/testkit"
	"camellos/modules/jobs"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
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
// Monday to Friday 08:00–12:00 in Bogotá, an admin and a stranger.
func newWorld(t *testing.T) *world {
	t.Helper()
	k := testkit.New(t)
	jobs.SetClock(k.App, func() time.Time { return monday })
	w := &world{k: k}
	w.client, w.clientCookie = k.UserWithSession(users.RoleClient)
	w.camUser, w.camello, w.camCookie = k.CreateCamello()
	_, w.adminCookie = k.UserWithSession(users.RoleAdmin)
	w.stranger, w.strangerCookie = k.UserWithSession(users.RoleClient)
	weekdays := []map[string]any{}
	for d := 1; d <= 5; d++ {
		weekdays = append(weekdays, map[string]any{"weekday": d, "start": "08:00", "end": "12:00"})
	}
	r := k.Put("/api/agenda/availability", w.camCookie, map[string]any{"weekly": weekdays})
	expect(t, r, 200, "")
	return w
}

func (w *world) job(status string) *core.Record {
	w.k.T.Helper()
	return w.k.CreateJob(testkit.JobOpts{Client: w.client, Provider: w.camello, Status: status})
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

func expectField(t *testing.T, r *testkit.Response, field, contains string) {
	t.Helper()
	expect(t, r, http.StatusBadRequest, httpapi.MsgInvalidData)
	fe, _ := r.Get("issues.fieldErrors").(map[string]any)
	list, _ := fe[field].([]any)
	errs := []string{}
	for _, m := range list {
		errs = append(errs, m.(string))
	}
	if len(errs) == 0 || !strings.Contains(strings.Join(errs, "|"), contains) {
		t.Fatalf("fieldErrors.%s = %v, want one containing %q: %s", field, errs, contains, r.Raw)
	}
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
