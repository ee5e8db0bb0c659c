package agenda_test

import (
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/agenda"
	"camellos/modules/jobs"
	"camellos/modules/quotes"

	"github.com/pocketbase/pocketbase/core"
)

// quoting is a world whose two camellos offer one service and work Monday
// to Friday 08:00–12:00 in Bogotá; the client posts open jobs of it.
type quoting struct {
	*world
	service *core.Record
	cams    []*core.Record
	cookies []string
}

func newQuoting(t *testing.T) *quoting {
	t.Helper()
	w := newWorld(t)
	q := &quoting{world: w, service: w.k.CreateService()}
	weekdays := []map[string]any{}
	for d := 1; d <= 5; d++ {
		weekdays = append(weekdays, map[string]any{"weekday": d, "start": "08:00", "end": "12:00"})
	}
	for i := 0; i < 2; i++ {
		_, c, ck := w.k.CreateCamello(testkit.CamelloOpts{Services: []string{q.service.Id}})
		expect(t, w.k.Put("/api/agenda/availability", ck, map[string]any{"weekly": weekdays, "worksHolidays": true}), 200, "")
		q.cams, q.cookies = append(q.cams, c), append(q.cookies, ck)
	}
	return q
}

// openJobWithQuotes posts an open job and a quote of each camello; it
// returns the job id and the quote ids.
func (q *quoting) openJobWithQuotes(t *testing.T) (string, []string) {
	t.Helper()
	r := q.k.Post("/api/jobs", q.clientCookie, map[string]any{"title": "Arreglar fuga", "serviceId": q.service.Id, "city": "Bogotá", "neighborhood": "Chapinero"})
	expect(t, r, 201, "")
	job := r.Str("job.id")
	ids := []string{}
	for i, ck := range q.cookies {
		r := q.k.Post("/api/jobs/"+job+"/quotes", ck, map[string]any{"amount": 100000 + 10000*i})
		expect(t, r, 201, "")
		ids = append(ids, r.Str("quote.id"))
	}
	return job, ids
}

// "Aceptar y agendar": the accept and the booking are one step, all or
// nothing, for the job's client only.
func TestAcceptAndBook(t *testing.T) {
	q := newQuoting(t)
	k := q.k
	path := func(id string) string { return "/api/quotes/" + id + "/accept-and-book" }
	slot := map[string]any{"start": "2026-11-24T13:00:00Z"}
	job, ids := q.openJobWithQuotes(t)

	t.Run("refusals change nothing", func(t *testing.T) {
		expect(t, k.Post(path(ids[0]), "", slot), 401, "No autorizado")
		expect(t, k.Post(path("nosuchquote001"), q.clientCookie, slot), 404, quotes.MsgQuoteNotFound)
		expect(t, k.Post(path(ids[0]), q.strangerCookie, slot), 403, "")
		expect(t, k.Post(path(ids[0]), q.cookies[0], slot), 403, "")
		expectField(t, k.Post(path(ids[0]), q.clientCookie, map[string]any{}), "start", "obligatorio")
		expectField(t, k.Post(path(ids[0]), q.clientCookie, map[string]any{"start": "2026-11-24T13:00:00Z", "repeat": map[string]any{"every": "DAY", "count": 3}}), "repeat.every", "WEEK")
		// Not a free slot (Saturday, a half hour): 409, the quote still open, the job still open.
		for _, start := range []string{"2026-11-28T13:00:00Z", "2026-11-24T13:30:00Z"} {
			expect(t, k.Post(path(ids[0]), q.clientCookie, map[string]any{"start": start}), 409, agenda.MsgSlotTaken)
		}
		// A series with one taken date: the series' 409, nothing accepted.
		other := k.CreateJob(testkit.JobOpts{Client: q.client, Provider: q.cams[0], Status: "ASIGNADO", Service: q.service})
		expect(t, k.Post("/api/jobs/"+other.Id+"/appointments", q.clientCookie, map[string]any{"start": "2026-12-01T13:00:00Z"}), 201, "")
		r := k.Post(path(ids[0]), q.clientCookie, map[string]any{"start": "2026-11-24T13:00:00Z", "repeat": map[string]any{"every": "WEEK", "count": 3}})
		expect(t, r, 409, agenda.MsgSeriesTaken)
		if !strings.Contains(string(r.Raw), "2026-12-01T13:00:00.000Z") {
			t.Fatalf("conflicts: %s", r.Raw)
		}
		if st := reload(t, k, mustJob(t, k, job)).GetString("status"); st != jobs.StatusPending {
			t.Fatalf("job %s after refused steps", st)
		}
		for _, id := range ids {
			if st := k.Get("/api/jobs/"+job+"/quotes", q.clientCookie); !strings.Contains(string(st.Raw), id) || strings.Contains(string(st.Raw), "ACEPTADA") {
				t.Fatalf("quotes after refused steps: %s", st.Raw)
			}
		}
		if n := k.Count("appointments", "job = '"+job+"'"); n != 0 {
			t.Fatalf("refused steps booked %d", n)
		}
	})

	t.Run("accepted and booked together", func(t *testing.T) {
		r := k.Post(path(ids[1]), q.clientCookie, map[string]any{"start": "2026-11-24T13:00:00Z", "repeat": map[string]any{"every": "WEEK", "count": 2}})
		expect(t, r, 200, "")
		if r.Str("job.status") != jobs.StatusAssigned || r.Str("job.provider.id") != q.cams[1].Id || r.Str("quote.status") != quotes.StatusAccepted {
			t.Fatalf("answer: %s", r.Raw)
		}
		if r.Str("appointments.0.start") != "2026-11-24T13:00:00.000Z" || r.Str("appointments.1.start") != "2026-12-01T13:00:00.000Z" {
			t.Fatalf("series: %s", r.Raw)
		}
		if n := k.Count("appointments", "job = '"+job+"' AND status = 'PROGRAMADA' AND camello = '"+q.cams[1].Id+"'"); n != 2 {
			t.Fatalf("%d appointments", n)
		}
		// The other quote went with the assignment; a second step is refused.
		expect(t, k.Post(path(ids[0]), q.clientCookie, slot), 409, "")
	})

	t.Run("a taken slot keeps the quote open for another time", func(t *testing.T) {
		job2, ids2 := q.openJobWithQuotes(t)
		// camello 1 holds 2026-11-24 13:00 already (the series above).
		expect(t, k.Post(path(ids2[1]), q.clientCookie, slot), 409, agenda.MsgSlotTaken)
		r := k.Post(path(ids2[1]), q.clientCookie, map[string]any{"start": "2026-11-24T15:00:00Z"})
		expect(t, r, 200, "")
		if r.Str("appointments.0.job") != job2 {
			t.Fatalf("answer: %s", r.Raw)
		}
	})
}

func mustJob(t *testing.T, k *testkit.Kit, id string) *core.Record {
	t.Helper()
	rec, err := k.App.FindRecordById("jobs", id)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// A client requesting a camello from its profile holds a free time at once
// (the direct request is PENDIENTE until the camello answers); an open job
// without camello still cannot book; declining the request frees the time.
func TestDirectRequestHoldsATime(t *testing.T) {
	w := newWorld(t)
	k := w.k
	svc := k.CreateService()
	r := k.Post("/api/jobs", w.clientCookie, map[string]any{"title": "Arreglar ducha", "serviceId": svc.Id, "city": "Bogotá", "camelloId": w.camello.Id})
	expect(t, r, 201, "")
	direct := r.Str("job.id")
	slot := map[string]any{"start": "2026-11-24T13:00:00Z"}
	expect(t, k.Post("/api/jobs/"+direct+"/appointments", w.clientCookie, slot), 201, "")
	// The held time left the slots; a second hold of it is refused at once.
	if s := strings.Join(slotStarts(k.Get("/api/camellos/"+w.camello.Id+"/slots?from=2026-11-24T13:00:00Z&to=2026-11-24T15:00:00Z", w.clientCookie)), ","); s != "2026-11-24T14:00:00.000Z" {
		t.Fatalf("slots after the hold: %s", s)
	}
	r = k.Post("/api/jobs", w.clientCookie, map[string]any{"title": "Otra cosa", "serviceId": svc.Id, "city": "Bogotá", "camelloId": w.camello.Id})
	expect(t, r, 201, "")
	expect(t, k.Post("/api/jobs/"+r.Str("job.id")+"/appointments", w.clientCookie, slot), 409, agenda.MsgSlotTaken)
	// An open job (no camello) cannot hold a time.
	r = k.Post("/api/jobs", w.clientCookie, map[string]any{"title": "Abierto", "serviceId": svc.Id, "city": "Bogotá"})
	expect(t, r, 201, "")
	expect(t, k.Post("/api/jobs/"+r.Str("job.id")+"/appointments", w.clientCookie, map[string]any{"start": "2026-11-24T15:00:00Z"}), 409, agenda.MsgJobNotBookable)
	// The camello declines the request: the held time is free again.
	expect(t, k.Post("/api/jobs/"+direct+"/cancel", w.camCookie, nil), 200, "")
	if n := k.Count("appointments", "job = '"+direct+"' AND status = 'CANCELADA'"); n != 1 {
		t.Fatalf("declined request kept its hold (%d cancelled)", n)
	}
}

// "Añadir al calendario": one visit as an .ics, for its client and its
// camello only, escaped like the feed.
func TestAppointmentICS(t *testing.T) {
	w := newWorld(t)
	k := w.k
	job := k.CreateJob(testkit.JobOpts{Client: w.client, Provider: w.camello, Status: "ASIGNADO", Title: "Ducha; baño, y\nlavamanos"})
	r := k.Post("/api/jobs/"+job.Id+"/appointments", w.clientCookie, map[string]any{"start": "2026-11-24T13:00:00Z"})
	expect(t, r, 201, "")
	id := r.Str("appointment.id")
	path := "/api/appointments/" + id + "/ics"
	expect(t, k.Get(path, ""), 401, "No autorizado")
	expect(t, k.Get(path, w.strangerCookie), 403, "No autorizado")
	expect(t, k.Get(path, w.adminCookie), 403, "No autorizado")
	expect(t, k.Get("/api/appointments/nosuchappt0001/ics", w.clientCookie), 404, agenda.MsgAppointmentNotFound)
	expectField(t, k.Get("/api/appointments/bad.id/ics", w.clientCookie), "id", "")
	for _, ck := range []string{w.clientCookie, w.camCookie} {
		r := k.Get(path, ck)
		body := string(r.Raw)
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/calendar") ||
			!strings.Contains(r.Header.Get("Content-Disposition"), "cita-"+id+".ics") {
			t.Fatalf("ics: %d %v", r.Status, r.Header)
		}
		for _, want := range []string{"BEGIN:VEVENT", "UID:" + id + "@camellos", "DTSTART:20261124T130000Z", "DTEND:20261124T140000Z",
			`SUMMARY:Ducha\; baño\, y\nlavamanos`, "STATUS:CONFIRMED"} {
			if !strings.Contains(body, want) {
				t.Fatalf("ics lacks %q:\n%s", want, body)
			}
		}
		if strings.Count(body, "BEGIN:VEVENT") != 1 {
			t.Fatalf("one visit, one event:\n%s", body)
		}
	}
}

// The job page lists one job's visits: ?job= narrows the caller's list.
func TestAppointmentsOfOneJob(t *testing.T) {
	w := newWorld(t)
	k := w.k
	a := k.CreateJob(testkit.JobOpts{Client: w.client, Provider: w.camello, Status: "ASIGNADO"})
	b := k.CreateJob(testkit.JobOpts{Client: w.client, Provider: w.camello, Status: "ASIGNADO"})
	expect(t, k.Post("/api/jobs/"+a.Id+"/appointments", w.clientCookie, map[string]any{"start": "2026-11-24T13:00:00Z"}), 201, "")
	expect(t, k.Post("/api/jobs/"+b.Id+"/appointments", w.clientCookie, map[string]any{"start": "2026-11-24T15:00:00Z"}), 201, "")
	for _, ck := range []string{w.clientCookie, w.camCookie} {
		r := k.Get("/api/agenda/appointments?job="+b.Id, ck)
		if r.Get("total") != 1.0 || r.Str("appointments.0.job") != b.Id {
			t.Fatalf("one job's: %s", r.Raw)
		}
	}
	if r := k.Get("/api/agenda/appointments?job="+b.Id, w.strangerCookie); r.Get("total") != 0.0 {
		t.Fatalf("a stranger reads another's: %s", r.Raw)
	}
	expectField(t, k.Get("/api/agenda/appointments?job=bad.id", w.clientCookie), "job", "")
}
