package hardening

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// Viewer is one reader of the privacy matrix: a role together with its
// relation to the jobs of the PrivacyWorld.
type Viewer string

// The readers of the privacy matrix.
const (
	VAnonymous  Viewer = "anonymous"
	VClient     Viewer = "the client"
	VAccepted   Viewer = "the job's camello (requested or accepted)"
	VQuoting    Viewer = "a quoting camello"
	VRejected   Viewer = "a rejected camello"
	VStrangerC  Viewer = "a stranger camello"
	VStrangerCl Viewer = "a stranger client"
	VAdmin      Viewer = "an admin"
)

// Viewers lists every reader, in the order the matrix reads as them.
var Viewers = []Viewer{VAnonymous, VClient, VAccepted, VQuoting, VRejected, VStrangerC, VStrangerCl, VAdmin}

// PrivacyJob is one job of the PrivacyWorld, in one state reached through
// the routes, with an address nobody else has (Marker).
type PrivacyJob struct {
	Name     string // the state as the matrix names it
	ID       string
	Status   string // the job state it ends in
	Provider bool   // the job names VAccepted's camello as its provider
	Marker   string // its address
}

// PrivacyWorld is a running service with one client, four camellos (the
// job's, a quoting one, a rejected one, a stranger), a stranger client and
// an admin, and one job of the client in every state a job can be in, each
// with its own address, reached through the routes (quotes sent, accepted
// and rejected; direct requests declined; cancellations), appointments on
// the assigned ones, and mail on (the Mailbox catches it). Every user has a
// phone, and every camello a document, nobody else has.
type PrivacyWorld struct {
	K       *testkit.Kit
	Mailbox *testkit.Mailbox
	Users   map[Viewer]*core.Record
	Cookies map[Viewer]string
	Camello map[Viewer]*core.Record // the camello profiles of the camello viewers
	Jobs    []PrivacyJob
	// Phones, Documents and Emails hold each viewer's own markers.
	Phones, Documents, Emails map[Viewer]string
	// BasePoints holds each camello viewer's base latitude as answered
	// (privacy.BasePoint), a marker nobody else has.
	BasePoints map[Viewer]string
	ServiceID  string
}

// NewPrivacyWorld builds the world (the caller sets the environment: mail
// through m, AUTH_IP_LIMIT=0). beforeJobs, when not nil, runs once the
// users exist and before anything happens to the jobs (push subscriptions).
func NewPrivacyWorld(t *testing.T, m *testkit.Mailbox, beforeJobs func(*PrivacyWorld), opts ...testkit.Option) *PrivacyWorld {
	t.Helper()
	k := testkit.New(t, opts...)
	w := &PrivacyWorld{K: k, Mailbox: m, Users: map[Viewer]*core.Record{}, Cookies: map[Viewer]string{},
		Camello: map[Viewer]*core.Record{}, Phones: map[Viewer]string{}, Documents: map[Viewer]string{}, Emails: map[Viewer]string{}, BasePoints: map[Viewer]string{}}
	cat, err := TryCreate(k.App, "categories", map[string]any{"id": "hogar", "name": "Hogar", "nameKey": "hogar", "color": "#112233"})
	if err != nil {
		t.Fatalf("category: %v", err)
	}
	svc, err := TryCreate(k.App, "services", map[string]any{"name": "Plomería", "slug": "plomeria", "category": cat.Id})
	if err != nil {
		t.Fatalf("service: %v", err)
	}
	w.ServiceID = svc.Id
	for i, v := range Viewers[1:] {
		phone := fmt.Sprintf("3017%06d", 100+i)
		w.Phones[v] = phone
		switch v {
		case VClient, VStrangerCl, VAdmin:
			role := users.RoleClient
			if v == VAdmin {
				role = users.RoleAdmin
			}
			w.Users[v], w.Cookies[v] = k.UserWithSession(role, testkit.UserOpts{Phone: phone, Name: string(v)})
		default:
			u, cam, cookie := k.CreateCamello(testkit.CamelloOpts{Name: "Camello " + Unique(), Services: []string{svc.Id}})
			w.Documents[v] = fmt.Sprintf("DOC%07d", 500+i)
			cam.Set("documentId", w.Documents[v])
			cam.Set("phone", phone)
			w.BasePoints[v] = fmt.Sprintf("4.%d12345", 50+i)
			lat, _ := strconv.ParseFloat(w.BasePoints[v], 64)
			cam.Set("baseLat", lat)
			cam.Set("baseLng", -74.08)
			cam.Set("hasBase", true)
			cam.Set("radiusKm", 10)
			if err := k.App.Save(cam); err != nil {
				t.Fatalf("camello %s: %v", v, err)
			}
			u.Set("phone", phone)
			if err := k.App.Save(u); err != nil {
				t.Fatalf("user %s: %v", v, err)
			}
			w.Users[v], w.Camello[v], w.Cookies[v] = u, cam, cookie
			weekly := []map[string]any{}
			for d := 0; d < 7; d++ {
				weekly = append(weekly, map[string]any{"weekday": d, "start": "00:00", "end": "23:00"})
			}
			if _, err := TryCreate(k.App, "availability", map[string]any{"camello": cam.Id, "timezone": "America/Bogota",
				"weekly": weekly, "blockedDates": []string{}, "minNoticeMinutes": 0}); err != nil {
				t.Fatalf("availability: %v", err)
			}
		}
		w.Emails[v] = w.Users[v].Email()
	}
	if beforeJobs != nil {
		beforeJobs(w)
	}
	w.buildJobs(t)
	return w
}

// must calls a route as a viewer and fails unless it answers want.
func (w *PrivacyWorld) must(t *testing.T, v Viewer, method, path string, body any, want int) *testkit.Response {
	t.Helper()
	r := w.K.Do(testkit.Req{Method: method, Path: path, Body: body, Cookie: w.Cookies[v]})
	if r.Status != want {
		t.Fatalf("%s %s as %s: %d %s, want %d", method, path, v, r.Status, r.Raw, want)
	}
	return r
}

// buildJobs walks one job of the client into every state.
func (w *PrivacyWorld) buildJobs(t *testing.T) {
	t.Helper()
	slot := time.Now().UTC().Add(30 * time.Hour).Truncate(time.Hour)
	post := func(name string, direct bool) string {
		body := map[string]any{"title": "Trabajo " + name, "description": "Detalles", "serviceId": w.ServiceID,
			"city": "Bogotá", "neighborhood": "Chapinero", "address": w.marker(name)}
		if direct {
			body["camelloId"] = w.Camello[VAccepted].Id
		}
		return w.must(t, VClient, "POST", "/api/jobs", body, 201).Str("job.id")
	}
	quote := func(job string, v Viewer) string {
		return w.must(t, v, "POST", "/api/jobs/"+job+"/quotes", map[string]any{"amount": 80000, "message": "Puedo ir"}, 201).Str("quote.id")
	}
	// assigned: the job's camello and another quote; the client takes the
	// first, the other is rejected; an appointment is booked on it.
	assigned := func(name string) (string, string) {
		job := post(name, false)
		q := quote(job, VAccepted)
		quote(job, VRejected)
		w.must(t, VClient, "POST", "/api/quotes/"+q+"/accept", nil, 200)
		appt, err := TryCreate(w.K.App, "appointments", map[string]any{"job": job, "camello": w.Camello[VAccepted].Id,
			"client": w.Users[VClient].Id, "start": slot, "end": slot.Add(time.Hour), "status": "PROGRAMADA"})
		if err != nil {
			t.Fatalf("appointment on %s: %v", name, err)
		}
		slot = slot.Add(2 * time.Hour)
		return job, appt.Id
	}
	add := func(name, id, status string, provider bool) {
		w.Jobs = append(w.Jobs, PrivacyJob{Name: name, ID: id, Status: status, Provider: provider, Marker: w.marker(name)})
	}

	open := post("abierto", false)
	quote(open, VQuoting)
	add("abierto", open, "PENDIENTE", false)

	add("solicitado", post("solicitado", true), "PENDIENTE", true)

	declined := post("declinado", true)
	w.must(t, VAccepted, "POST", "/api/jobs/"+declined+"/cancel", nil, 200)
	add("declinado", declined, "CANCELADO", true)

	job, _ := assigned("asignado")
	add("asignado", job, "ASIGNADO", true)

	job, _ = assigned("enprogreso")
	w.must(t, VAccepted, "POST", "/api/jobs/"+job+"/start", nil, 200)
	add("enprogreso", job, "EN_PROGRESO", true)

	job, appt := assigned("completado")
	w.must(t, VAccepted, "POST", "/api/jobs/"+job+"/start", nil, 200)
	w.must(t, VClient, "POST", "/api/appointments/"+appt+"/cancel", nil, 200)
	w.must(t, VAccepted, "POST", "/api/jobs/"+job+"/complete", nil, 200)
	add("completado", job, "COMPLETADO", true)

	job, _ = assigned("cancelado")
	w.must(t, VClient, "POST", "/api/jobs/"+job+"/cancel", nil, 200)
	add("cancelado", job, "CANCELADO", true)

	// A message of the job's camello on an assigned job, and one of the
	// quoting camello on the open job (mail and inbox items).
	w.must(t, VAccepted, "POST", "/api/jobs/"+w.Jobs[3].ID+"/messages", map[string]any{"body": "Voy mañana"}, 201)
	w.must(t, VQuoting, "POST", "/api/jobs/"+open+"/messages", map[string]any{"body": "¿Cuándo?"}, 201)
}

// marker is the address of the job in a named state.
func (w *PrivacyWorld) marker(name string) string { return "Calle Privada " + name + " 77" }
