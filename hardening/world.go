package hardening

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// Role is one caller of the authorisation matrix.
type Role string

// The callers of the matrix: nobody, a client, the camello that owns the
// fixtures, another camello, an admin.
const (
	Anonymous    Role = "anonymous"
	Client       Role = "CLIENTE"
	Camello      Role = "CAMELLOS"
	OtherCamello Role = "otro CAMELLOS"
	Admin        Role = "ADMIN"
)

// Roles lists every caller, in the order the matrix calls them.
var Roles = []Role{Anonymous, Client, Camello, OtherCamello, Admin}

// World is a small, fully linked data set on a running service: a category
// and a service, a client with a job assigned to Camello (ACTIVO, with
// weekly availability) and an appointment on it, another camello, an admin,
// a notification of the client and a published legal text. Fixtures that
// the record hooks of a not yet merged area refuse are left empty ("").
type World struct {
	K       *testkit.Kit
	Users   map[Role]*core.Record
	Cookies map[Role]string

	CategoryID     string
	ServiceID      string
	CamelloID      string // the camello of Users[Camello]
	OtherCamelloID string
	PendingID      string // a PENDIENTE camello
	JobID          string // client's job, ASIGNADO to CamelloID
	OpenJobID      string // client's job, PENDIENTE without provider
	AppointmentID  string // PROGRAMADA, on JobID, tomorrow
	NotificationID string // of the client
	SlotStart      time.Time

	QuoteJobID  string // client's open job with a PENDIENTE quote of Camello
	QuoteID     string // that quote
	MessageID   string // Camello's message on JobID, with a photo
	MessageFile string // the photo's stored name
}

// NewWorld boots the service and creates the fixtures.
func NewWorld(t testing.TB, opts ...testkit.Option) *World {
	t.Helper()
	k := testkit.New(t, opts...)
	w := &World{K: k, Users: map[Role]*core.Record{}, Cookies: map[Role]string{}}
	w.Users[Client], w.Cookies[Client] = k.UserWithSession(users.RoleClient)
	w.Users[Admin], w.Cookies[Admin] = k.UserWithSession(users.RoleAdmin)

	cat, err := TryCreate(k.App, "categories", map[string]any{"id": "hogar", "name": "Hogar", "nameKey": "hogar", "color": "#112233"})
	if err != nil {
		t.Fatalf("category: %v", err)
	}
	w.CategoryID = cat.Id
	svc, err := TryCreate(k.App, "services", map[string]any{"name": "Plomería", "slug": "plomeria", "category": cat.Id})
	if err != nil {
		t.Fatalf("service: %v", err)
	}
	w.ServiceID = svc.Id

	var cam, other, pending *core.Record
	w.Users[Camello], cam, w.Cookies[Camello] = k.CreateCamello(testkit.CamelloOpts{Name: "Camello Dueño", Services: []string{svc.Id}, Trades: []string{"plomería"}})
	w.Users[OtherCamello], other, w.Cookies[OtherCamello] = k.CreateCamello(testkit.CamelloOpts{Name: "Otro Camello", Services: []string{svc.Id}})
	_, pending, _ = k.CreateCamello(testkit.CamelloOpts{Name: "Camello Pendiente", Status: "PENDIENTE"})
	w.CamelloID, w.OtherCamelloID, w.PendingID = cam.Id, other.Id, pending.Id

	weekly := []map[string]any{}
	for d := 0; d < 7; d++ {
		weekly = append(weekly, map[string]any{"weekday": d, "start": "00:00", "end": "23:00"})
	}
	for _, c := range []string{cam.Id, other.Id} {
		if _, err := TryCreate(k.App, "availability", map[string]any{"camello": c, "timezone": "America/Bogota", "weekly": weekly, "blockedDates": []string{}}); err != nil {
			t.Logf("fixture availability: %v", err)
		}
	}

	client := w.Users[Client].Id
	job, err := TryCreate(k.App, "jobs", map[string]any{"title": "Arreglar la ducha", "description": "Gotea", "status": "PENDIENTE", "source": "PERFIL", "city": "Bogotá", "service": svc.Id, "client": client, "provider": cam.Id})
	if err == nil {
		job.Set("status", "ASIGNADO")
		if err = k.App.Save(job); err == nil {
			w.JobID = job.Id
		}
	}
	if err != nil {
		t.Logf("fixture job: %v", err)
	}
	if open, err := TryCreate(k.App, "jobs", map[string]any{"title": "Pintar la sala", "status": "PENDIENTE", "source": "EXPLORE", "city": "Bogotá", "service": svc.Id, "client": client}); err == nil {
		w.OpenJobID = open.Id
	} else {
		t.Logf("fixture open job: %v", err)
	}
	if w.JobID != "" {
		start := time.Now().UTC().Add(26 * time.Hour).Truncate(time.Hour)
		w.SlotStart = start.Add(24 * time.Hour)
		if appt, err := TryCreate(k.App, "appointments", map[string]any{"job": w.JobID, "camello": cam.Id, "client": client, "start": start, "end": start.Add(time.Hour), "status": "PROGRAMADA"}); err == nil {
			w.AppointmentID = appt.Id
		} else {
			t.Logf("fixture appointment: %v", err)
		}
	}
	if n, err := TryCreate(k.App, "notifications", map[string]any{"user": client, "kind": "ADMIN_MESSAGE", "title": "Hola", "body": "Bienvenido", "data": map[string]any{}}); err == nil {
		w.NotificationID = n.Id
	} else {
		t.Logf("fixture notification: %v", err)
	}
	w.marketFixtures(t, svc.Id, cam.Id)
	for _, slug := range []string{"privacidad", "terminos"} {
		sections := []map[string]any{{"title": "Uno", "content": "Texto"}}
		if _, err := TryCreate(k.App, "legal_documents", map[string]any{"slug": slug, "title": "Texto " + slug, "sections": sections, "version": 1}); err != nil {
			t.Logf("fixture legal %s: %v", slug, err)
		}
		if _, err := TryCreate(k.App, "legal_document_versions", map[string]any{"slug": slug, "title": "Texto " + slug, "sections": sections, "version": 1}); err != nil {
			t.Logf("fixture legal version %s: %v", slug, err)
		}
	}
	return w
}

// TryCreate saves a record of a collection with the given fields, returning
// the record hooks' error instead of failing the test.
func TryCreate(app core.App, collection string, fields map[string]any) (*core.Record, error) {
	col, err := app.FindCollectionByNameOrId(collection)
	if err != nil {
		return nil, err
	}
	rec := core.NewRecord(col)
	for f, v := range fields {
		rec.Set(f, v)
	}
	if err := app.Save(rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// Fresh opens a new session for a role's user (for calls that end it).
func (w *World) Fresh(role Role) string {
	if role == Anonymous {
		return ""
	}
	return w.K.Session(w.Users[role])
}

// ExpandID fills a route pattern's parameters with the world's ids: {id} is
// the natural object of the route (job, camello, appointment, ...), {slug}
// a legal slug. An empty id (fixture missing) gives a well-formed unknown id.
// id, when not "", replaces the route's natural one.
func (w *World) ExpandID(pattern, id string) string {
	switch {
	case id != "":
	case strings.HasPrefix(pattern, "/api/jobs/"):
		id = w.JobID
	case strings.HasPrefix(pattern, "/api/admin/jobs/"):
		id = w.OpenJobID
	case strings.HasPrefix(pattern, "/api/camellos/"), strings.HasPrefix(pattern, "/api/admin/camellos/"):
		id = w.CamelloID
	case strings.HasPrefix(pattern, "/api/appointments/"):
		id = w.AppointmentID
	case strings.HasPrefix(pattern, "/api/notifications/"):
		id = w.NotificationID
	case strings.HasPrefix(pattern, "/api/admin/categories/"):
		id = w.CategoryID
	case strings.HasPrefix(pattern, "/api/admin/services/"):
		id = w.ServiceID
	case strings.HasPrefix(pattern, "/api/admin/users/"):
		id = w.Users[Client].Id
	case strings.HasPrefix(pattern, "/api/quotes/"):
		id = w.QuoteID
	case strings.HasPrefix(pattern, "/api/messages/files/"):
		id = w.MessageID
	}
	file := w.MessageFile
	if file == "" {
		file = "desconocido.png"
	}
	pattern = strings.ReplaceAll(pattern, "{file}", url.PathEscape(file))
	if id == "" {
		id = "desconocido12345"
	}
	p := strings.ReplaceAll(pattern, "{id}", url.PathEscape(id))
	p = strings.ReplaceAll(p, "{path...}", "nada/aqui")
	p = strings.ReplaceAll(p, "{token}", "desconocido.ics")
	p = strings.ReplaceAll(p, "{userId}", url.PathEscape(w.Users[Camello].Id))
	return strings.ReplaceAll(p, "{slug}", "privacidad")
}

// Unique returns a fresh suffix for e-mails and names.
func Unique() string { return testkit.Unique() }
