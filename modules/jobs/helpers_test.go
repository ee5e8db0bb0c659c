package jobs_test

import (
	"net/http"
	"strings"
	"testing"
	_ "time/tzdata"

	"camellos/internal/httpapi"
	"camellos/internal/testkit"
	"camellos/modules/users"

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
	k := testkit.New(t)
	w := &world{k: k}
	w.client, w.clientCookie = k.UserWithSession(users.RoleClient)
	w.camUser, w.camello, w.camCookie = k.CreateCamello()
	w.admin, w.adminCookie = k.UserWithSession(users.RoleAdmin)
	w.stranger, w.strangerCookie = k.UserWithSession(users.RoleClient)
	_, _, w.otherCamCookie = k.CreateCamello()
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
	errs := r.FieldErrors(field)
	if len(errs) == 0 || !strings.Contains(strings.Join(errs, "|"), contains) {
		t.Fatalf("fieldErrors.%s = %v, want one containing %q: %s", field, errs, contains, r.Raw)
	}
	if d, _ := r.Get("detail").(string); !strings.Contains(d, field) {
		t.Fatalf("detail %q does not name %s", d, field)
	}
}

func (w *world) notifications(user *core.Record, kind string) int {
	w.k.T.Helper()
	return w.k.Count("notifications", "user = {:u} AND kind = {:k}", map[string]any{"u": user.Id, "k": kind})
}
