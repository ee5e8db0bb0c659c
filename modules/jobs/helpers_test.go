package jobs_test

import (
	"strings"
	"testing"
	_ "time/tzdata"

	"camellos/internal/testkit"

	"github.com/pocketbase/pocketbase/core"
)

// world is a running service with one of each party of a job.
type world struct {
	k              *testkit.Kit
	client         *core.Record
	clientCookie   string
	camUser        *core.Record
	camello        *core.Record
	camCookie      string
	admin          *core.Record
	adminCookie    string
	stranger       *core.Record
	strangerCookie string
	otherCamCookie string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	t.Setenv("AUTH_IP_LIMIT", "0") // not about the limits (internal/ratelimit's table test is)
	p := testkit.NewParties(t)
	w := &world{k: p.K, client: p.Client, clientCookie: p.ClientCookie, camUser: p.CamUser, camello: p.Camello,
		camCookie: p.CamCookie, admin: p.Admin, adminCookie: p.AdminCookie, stranger: p.Stranger, strangerCookie: p.StrangerCookie}
	_, _, w.otherCamCookie = p.K.CreateCamello()
	return w
}

// job creates a job of w.client in a state, with w.camello as provider
// once assigned.
func (w *world) job(status string) *core.Record {
	w.k.T.Helper()
	return w.k.CreateJob(testkit.JobOpts{Client: w.client, Provider: w.camello, Status: status})
}

func expect(t *testing.T, r *testkit.Response, status int, msg string) {
	t.Helper()
	testkit.Expect(t, r, status, msg)
}

// expectField is testkit.ExpectField, and the detail names the field.
func expectField(t *testing.T, r *testkit.Response, field, contains string) {
	t.Helper()
	testkit.ExpectField(t, r, field, contains)
	if d, _ := r.Get("detail").(string); !strings.Contains(d, field) {
		t.Fatalf("detail %q does not name %s", d, field)
	}
}

func (w *world) notifications(user *core.Record, kind string) int {
	w.k.T.Helper()
	return w.k.Count("notifications", "user = {:u} AND kind = {:k}", map[string]any{"u": user.Id, "k": kind})
}
