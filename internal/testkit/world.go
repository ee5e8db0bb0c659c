package testkit

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// Parties is a running service with one user of each side of a job: a
// client, an ACTIVO camello (user, profile), an admin and a stranger
// (another client), each with a session cookie. The test packages build
// their worlds on it instead of copying it.
type Parties struct {
	K              *Kit
	Client         *core.Record
	ClientCookie   string
	CamUser        *core.Record
	Camello        *core.Record
	CamCookie      string
	Admin          *core.Record
	AdminCookie    string
	Stranger       *core.Record
	StrangerCookie string
}

// NewParties boots the service (with opts) and creates the parties, in
// this order: client, camello, admin, stranger.
func NewParties(t testing.TB, opts ...Option) *Parties {
	t.Helper()
	k := New(t, opts...)
	p := &Parties{K: k}
	p.Client, p.ClientCookie = k.UserWithSession(users.RoleClient)
	p.CamUser, p.Camello, p.CamCookie = k.CreateCamello()
	p.Admin, p.AdminCookie = k.UserWithSession(users.RoleAdmin)
	p.Stranger, p.StrangerCookie = k.UserWithSession(users.RoleClient)
	return p
}

// Job creates a job of the client in a state, with the camello as provider
// once assigned.
func (p *Parties) Job(status string) *core.Record {
	p.K.T.Helper()
	return p.K.CreateJob(JobOpts{Client: p.Client, Provider: p.Camello, Status: status})
}

// Expect fails the test unless r has the status and, when msg is not "",
// the error message msg.
func Expect(t testing.TB, r *Response, status int, msg string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	if msg != "" && r.Error() != msg {
		t.Fatalf("error %q, want %q: %s", r.Error(), msg, r.Raw)
	}
}

// ExpectField fails the test unless r is a 400 "Datos inválidos" with a
// field error on field containing contains.
func ExpectField(t testing.TB, r *Response, field, contains string) {
	t.Helper()
	Expect(t, r, http.StatusBadRequest, "Datos inválidos")
	fe, _ := r.Get("issues.fieldErrors").(map[string]any)
	list, _ := fe[field].([]any) // field may contain dots ("weekly.0.start")
	errs := []string{}
	for _, m := range list {
		errs = append(errs, fmt.Sprint(m))
	}
	if len(errs) == 0 || !strings.Contains(strings.Join(errs, "|"), contains) {
		t.Fatalf("fieldErrors.%s = %v, want one containing %q: %s", field, errs, contains, r.Raw)
	}
}
