package agenda_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"camellos/internal/clock"
	"camellos/internal/testkit"
	"camellos/modules/agenda"
	"camellos/modules/jobs"
	"camellos/modules/users"
)

func TestSlotsEndpoint(t *testing.T) {
	w := newWorld(t)
	k := w.k
	path := "/api/camellos/" + w.camello.Id + "/slots"

	t.Run("errors", func(t *testing.T) {
		expect(t, k.Get(path, ""), 401, "No autorizado")
		expectField(t, k.Get("/api/camellos/bad.id/slots", w.clientCookie), "id", "Identificador")
		expect(t, k.Get("/api/camellos/nosuchcamello1/slots", w.clientCookie), 404, jobs.MsgCamelloNotFound)
		for _, st := range []string{"PENDIENTE", "SUSPENDIDO", "RECHAZADO"} {
			_, c, _ := k.CreateCamello(testkit.CamelloOpts{Status: st})
			expect(t, k.Get("/api/camellos/"+c.Id+"/slots", w.clientCookie), 404, jobs.MsgCamelloNotFound)
		}
		for _, c := range []struct{ q, field, msg string }{
			{"from=mañana", "from", "Fecha inválida: usa ISO 8601, por ejemplo 2026-11-22T14:00:00Z"},
			{"to=2026-11-24", "to", "Fecha inválida: usa ISO 8601, por ejemplo 2026-11-29T14:00:00Z"},
			{"from=2026-11-23T10:00:00", "from", "Fecha inválida"},
			{"from=2026-11-23T10:00:00Z&to=2026-11-23T10:00:00Z", "to", "Debe ser posterior a from"},
			{"from=2026-11-23T10:00:00Z&to=2026-11-23T09:00:00Z", "to", "Debe ser posterior a from"},
			{"from=2026-11-23T00:00:00Z&to=2026-12-24T00:00:01Z", "to", "El rango no puede superar 31 días"},
			{"from=2026-11-23T00:00:00Z&to=2026-12-24T01:00:01+01:00", "to", "El rango no puede superar 31 días"},
			{"to=2026-11-23T05:00:00Z", "to", "Debe ser posterior a from"}, // before the default from (now)
		} {
			r := k.Get(path+"?"+strings.ReplaceAll(c.q, "+", "%2B"), w.clientCookie)
			expectField(t, r, c.field, c.msg)
			if d, _ := r.Get("detail").(string); !strings.HasPrefix(d, c.field+": ") {
				t.Fatalf("detail %q", d)
			}
		}
	})

	t.Run("default window, any signed-in user", func(t *testing.T) {
		for _, cookie := range []string{w.clientCookie, w.camCookie, w.adminCookie, w.strangerCookie} {
			r := k.Get(path, cookie)
			expect(t, r, 200, "")
			s := slotStarts(r)
			if len(s) != 20 || s[0] != "2026-11-23T13:00:00.000Z" || s[19] != "2026-11-27T16:00:00.000Z" {
				t.Fatalf("default slots %v", s)
			}
			if r.Get("slots.0.end") != "2026-11-23T14:00:00.000Z" {
				t.Fatalf("slot end: %s", r.Raw)
			}
		}
	})

	t.Run("window", func(t *testing.T) {
		r := k.Get(path+"?from=2026-11-24T14:00:00Z&to=2026-11-24T16:00:00Z", w.clientCookie)
		if s := strings.Join(slotStarts(r), ","); s != "2026-11-24T14:00:00.000Z,2026-11-24T15:00:00.000Z" {
			t.Fatalf("clipped: %s", s)
		}
		// An offset is honoured: 09:30 in Bogotá is 14:30Z, so 14:00Z is clipped.
		r = k.Get(path+"?from=2026-11-24T09:30:00-05:00&to=2026-11-24T12:00:00-05:00", w.clientCookie)
		if s := strings.Join(slotStarts(r), ","); s != "2026-11-24T15:00:00.000Z,2026-11-24T16:00:00.000Z" {
			t.Fatalf("offset window: %s", s)
		}
		// Only from: seven days from it. The past is never offered.
		r = k.Get(path+"?from=2026-11-16T00:00:00Z", w.clientCookie)
		if s := slotStarts(r); len(s) != 0 {
			t.Fatalf("past window: %v", s)
		}
		r = k.Get(path+"?from=2026-11-20T00:00:00Z&to=2026-11-24T00:00:00Z", w.clientCookie)
		if s := slotStarts(r); len(s) != 4 || s[0] != "2026-11-23T13:00:00.000Z" {
			t.Fatalf("window starting in the past: %v", s)
		}
		r = k.Get(path+"?from=2026-11-23T00:00:00Z&to=2026-12-24T00:00:00Z", w.clientCookie)
		if s := slotStarts(r); r.Status != 200 || len(s) != 23*4 {
			t.Fatalf("31 days: %d slots (%d)", len(s), r.Status)
		}
	})

	t.Run("blocked dates and other zones", func(t *testing.T) {
		expect(t, k.Put("/api/agenda/availability", w.camCookie, map[string]any{
			"weekly":       []any{map[string]any{"weekday": 2, "start": "08:00", "end": "10:00"}},
			"blockedDates": []any{"2026-11-24"},
		}), 200, "")
		r := k.Get(path+"?from=2026-11-23T00:00:00Z&to=2026-12-03T00:00:00Z", w.clientCookie)
		if s := strings.Join(slotStarts(r), ","); s != "2026-12-01T13:00:00.000Z,2026-12-01T14:00:00.000Z" {
			t.Fatalf("blocked Tuesday: %s", s)
		}
		expect(t, k.Put("/api/agenda/availability", w.camCookie, map[string]any{"timezone": "Europe/Madrid", "blockedDates": []any{},
			"weekly": []any{map[string]any{"weekday": 2, "start": "08:00", "end": "10:00"}}}), 200, "")
		r = k.Get(path+"?from=2026-11-23T00:00:00Z&to=2026-11-25T00:00:00Z", w.clientCookie)
		if s := strings.Join(slotStarts(r), ","); s != "2026-11-24T07:00:00.000Z,2026-11-24T08:00:00.000Z" {
			t.Fatalf("Madrid Tuesday: %s", s)
		}
		_, bare, _ := k.CreateCamello()
		r = k.Get("/api/camellos/"+bare.Id+"/slots", w.clientCookie)
		if r.Status != 200 || strings.TrimSpace(string(r.Raw)) != `{"holidays":[],"slots":[]}` {
			t.Fatalf("no availability: %s", r.Raw)
		}
	})
}

func TestBooking(t *testing.T) {
	w := newWorld(t)
	k := w.k
	job := w.job("ASIGNADO")
	book := func(jobID, cookie string, body any) *testkit.Response {
		return k.Post("/api/jobs/"+jobID+"/appointments", cookie, body)
	}
	slot := map[string]any{"start": "2026-11-24T13:00:00Z"}

	t.Run("errors", func(t *testing.T) {
		expect(t, book(job.Id, "", slot), 401, "No autorizado")
		expect(t, book("nosuchjob00001", w.clientCookie, slot), 404, jobs.MsgJobNotFound)
		expect(t, book(job.Id, w.strangerCookie, slot), 404, jobs.MsgJobNotFound)
		expect(t, book(job.Id, w.camCookie, slot), 403, agenda.MsgOnlyJobClient)
		expect(t, book(job.Id, w.adminCookie, slot), 403, agenda.MsgOnlyJobClient)
		expectField(t, book(job.Id, w.clientCookie, map[string]any{}), "start", "obligatorio")
		expectField(t, book(job.Id, w.clientCookie, map[string]any{"start": 5}), "start", "texto")
		expectField(t, book(job.Id, w.clientCookie, map[string]any{"start": "martes 8am"}), "start", "ISO 8601")
		for _, st := range []string{"PENDIENTE", "COMPLETADO", "CANCELADO"} {
			expect(t, book(w.job(st).Id, w.clientCookie, slot), 409, agenda.MsgJobNotBookable)
		}
		for _, start := range []string{
			"2026-11-24T13:30:00Z",     // inside a slot, not its start
			"2026-11-24T13:00:00.001Z", // a millisecond late
			"2026-11-28T13:00:00Z",     // Saturday: no availability
			"2026-11-24T17:00:00Z",     // the range ends at 12:00 Bogotá
			"2026-11-23T05:00:00Z",     // past
		} {
			expect(t, book(job.Id, w.clientCookie, map[string]any{"start": start}), 409, agenda.MsgSlotTaken)
		}
		if n := k.Count("appointments", ""); n != 0 {
			t.Fatalf("refused bookings wrote %d appointments", n)
		}
	})

	t.Run("book, slot gone, cancel, slot back", func(t *testing.T) {
		r := book(job.Id, w.clientCookie, map[string]any{"start": "2026-11-24T08:00:00-05:00"})
		expect(t, r, http.StatusCreated, "")
		a := r.JSON["appointment"].(map[string]any)
		for key, want := range map[string]any{"job": job.Id, "camello": w.camello.Id, "client": w.client.Id,
			"start": "2026-11-24T13:00:00.000Z", "end": "2026-11-24T14:00:00.000Z", "status": "PROGRAMADA", "reminderSentAt": nil} {
			if a[key] != want {
				t.Errorf("appointment.%s = %v, want %v", key, a[key], want)
			}
		}
		if a["id"] == "" || !strings.HasSuffix(a["createdAt"].(string), "Z") {
			t.Errorf("appointment id/createdAt: %s", r.Raw)
		}
		if n := k.Count("notifications", "user = {:u} AND kind = 'APPOINTMENT_BOOKED'", map[string]any{"u": w.camUser.Id}); n != 1 {
			t.Fatalf("camello notified %d times", n)
		}
		expect(t, book(job.Id, w.clientCookie, slot), 409, agenda.MsgSlotTaken)
		other := w.job("EN_PROGRESO")
		expect(t, book(other.Id, w.clientCookie, slot), 409, agenda.MsgSlotTaken)
		slots := k.Get("/api/camellos/"+w.camello.Id+"/slots?from=2026-11-24T00:00:00Z&to=2026-11-25T00:00:00Z", w.strangerCookie)
		if s := strings.Join(slotStarts(slots), ","); strings.Contains(s, "2026-11-24T13:00") || len(slotStarts(slots)) != 3 {
			t.Fatalf("booked slot still offered: %s", s)
		}
		// The appointment's client cancels it: the slot is free again.
		id := a["id"].(string)
		c := k.Post("/api/appointments/"+id+"/cancel", w.clientCookie, nil)
		expect(t, c, 200, "")
		if c.Str("appointment.status") != "CANCELADA" {
			t.Fatalf("cancelled: %s", c.Raw)
		}
		expect(t, book(other.Id, w.clientCookie, slot), 201, "")
	})

	t.Run("job cancel frees its slots", func(t *testing.T) {
		j := w.job("ASIGNADO")
		start := map[string]any{"start": "2026-11-25T15:00:00Z"}
		expect(t, book(j.Id, w.clientCookie, start), 201, "")
		expect(t, k.Post("/api/jobs/"+j.Id+"/cancel", w.camCookie, nil), 200, "")
		expect(t, book(w.job("ASIGNADO").Id, w.clientCookie, start), 201, "")
	})

	t.Run("inactive camello", func(t *testing.T) {
		j := w.job("ASIGNADO")
		c := reload(t, k, w.camello)
		c.Set("status", "SUSPENDIDO")
		if err := k.App.Save(c); err != nil {
			t.Fatal(err)
		}
		expect(t, book(j.Id, w.clientCookie, map[string]any{"start": "2026-11-26T13:00:00Z"}), 409, jobs.MsgCamelloInactive)
	})
}

// TestBookingConcurrent books one slot from 10 jobs at once: one wins.
func TestBookingConcurrent(t *testing.T) {
	w := newWorld(t)
	k := w.k
	const n = 10
	type party struct{ job, cookie string }
	parties := make([]party, n)
	for i := range parties {
		client, cookie := k.UserWithSession(users.RoleClient)
		j := k.CreateJob(testkit.JobOpts{Client: client, Provider: w.camello, Status: "ASIGNADO"})
		parties[i] = party{j.Id, cookie}
	}
	statuses := make([]int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range parties {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			statuses[i] = k.Post("/api/jobs/"+parties[i].job+"/appointments", parties[i].cookie,
				map[string]any{"start": "2026-11-24T15:00:00Z"}).Status
		}(i)
	}
	close(start)
	wg.Wait()
	won := 0
	for i, s := range statuses {
		switch s {
		case 201:
			won++
		case 409:
		default:
			t.Fatalf("booking %d answered %d", i, s)
		}
	}
	if won != 1 {
		t.Fatalf("%d bookings won, want 1 (%v)", won, statuses)
	}
	if c := k.Count("appointments", "status = 'PROGRAMADA'"); c != 1 {
		t.Fatalf("%d PROGRAMADA appointments", c)
	}
}

func TestAppointmentsListAndCancel(t *testing.T) {
	w := newWorld(t)
	k := w.k
	job := w.job("ASIGNADO")
	ids := []string{}
	for _, s := range []string{"2026-11-24T13:00:00Z", "2026-11-23T13:00:00Z", "2026-11-26T16:00:00Z"} {
		r := k.Post("/api/jobs/"+job.Id+"/appointments", w.clientCookie, map[string]any{"start": s})
		expect(t, r, 201, "")
		ids = append(ids, r.Str("appointment.id"))
	}
	list := func(q, cookie string) []string {
		r := k.Get("/api/agenda/appointments"+q, cookie)
		expect(t, r, 200, "")
		out := []string{}
		for _, a := range r.Get("appointments").([]any) {
			out = append(out, a.(map[string]any)["id"].(string))
		}
		return out
	}

	t.Run("list", func(t *testing.T) {
		expect(t, k.Get("/api/agenda/appointments", ""), 401, "No autorizado")
		want := strings.Join([]string{ids[1], ids[0], ids[2]}, ",")
		if got := strings.Join(list("", w.clientCookie), ","); got != want {
			t.Fatalf("client: %s, want %s", got, want)
		}
		if got := strings.Join(list("", w.camCookie), ","); got != want {
			t.Fatalf("camello: %s, want %s", got, want)
		}
		if got := list("", w.strangerCookie); len(got) != 0 {
			t.Fatalf("stranger: %v", got)
		}
		if got := strings.Join(list("?from=2026-11-24T00:00:00Z&to=2026-11-26T16:00:00Z", w.clientCookie), ","); got != ids[0] {
			t.Fatalf("from/to: %s", got)
		}
		r := k.Get("/api/agenda/appointments?perPage=1&page=2", w.clientCookie)
		if r.Get("total") != 3.0 || r.Str("appointments.0.id") != ids[0] {
			t.Fatalf("paging: %s", r.Raw)
		}
		expectField(t, k.Get("/api/agenda/appointments?from=ayer", w.clientCookie), "from", "ISO")
	})

	t.Run("cancel", func(t *testing.T) {
		path := func(id string) string { return "/api/appointments/" + id + "/cancel" }
		expect(t, k.Post(path(ids[0]), "", nil), 401, "No autorizado")
		expectField(t, k.Post(path("bad.id"), w.clientCookie, nil), "id", "Identificador")
		expect(t, k.Post(path("nosuchappoint1"), w.clientCookie, nil), 404, agenda.MsgAppointmentNotFound)
		expect(t, k.Post(path(ids[0]), w.strangerCookie, nil), 403, "No autorizado")
		notified := func() int {
			return k.Count("notifications", "user = {:u} AND kind = 'JOB_STATUS'", map[string]any{"u": w.client.Id})
		}
		before := notified()
		r := k.Post(path(ids[0]), w.camCookie, nil)
		expect(t, r, 200, "")
		if r.Str("appointment.status") != "CANCELADA" || notified() != before+1 {
			t.Fatalf("camello cancel: %s", r.Raw)
		}
		expect(t, k.Post(path(ids[0]), w.clientCookie, nil), 409, agenda.MsgNotScheduled)
		expect(t, k.Post(path(ids[2]), w.adminCookie, nil), 200, "")
		// Once it has started it can no longer be cancelled.
		clock.Set(k.App, func() time.Time { return monday.Add(8 * time.Hour) })
		expect(t, k.Post(path(ids[1]), w.clientCookie, nil), 409, agenda.MsgAlreadyStarted)
	})
}

// TestAppointmentHook saves appointment records directly.
func TestAppointmentHook(t *testing.T) {
	w := newWorld(t)
	k := w.k
	job := w.job("ASIGNADO")
	start := time.Date(2026, 11, 30, 13, 0, 0, 0, time.UTC)
	col, err := k.App.FindCollectionByNameOrId("appointments")
	if err != nil {
		t.Fatal(err)
	}
	fields := func(over map[string]any) map[string]any {
		f := map[string]any{"job": job.Id, "camello": w.camello.Id, "client": w.client.Id,
			"start": start, "end": start.Add(time.Hour), "status": "PROGRAMADA"}
		for key, v := range over {
			f[key] = v
		}
		return f
	}
	first := newRecord(col, fields(nil))
	if err := k.App.Save(first); err != nil {
		t.Fatal(err)
	}
	// The unique index refuses a double booking whatever path writes it,
	// with an error the booking route maps to 409.
	if err := k.App.Save(newRecord(col, fields(nil))); err == nil || !jobs.IsUniqueViolation(err) {
		t.Fatalf("double booking: %v", err)
	}
	_, other, _ := k.CreateCamello()
	for name, over := range map[string]map[string]any{
		"two hours":          {"start": start.Add(time.Hour), "end": start.Add(3 * time.Hour)},
		"new and cancelled":  {"start": start.Add(time.Hour), "end": start.Add(2 * time.Hour), "status": "CANCELADA"},
		"not the job's pair": {"start": start.Add(time.Hour), "end": start.Add(2 * time.Hour), "camello": other.Id},
	} {
		if err := k.App.Save(newRecord(col, fields(over))); err == nil {
			t.Errorf("%s: saved", name)
		}
	}
	rec := reload(t, k, first)
	rec.Set("status", "CANCELADA")
	if err := k.App.Save(rec); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	rec = reload(t, k, first)
	rec.Set("status", "PROGRAMADA")
	if err := k.App.Save(rec); err == nil {
		t.Fatal("CANCELADA → PROGRAMADA saved")
	}
	// The slot of a cancelled appointment can be booked again.
	if err := k.App.Save(newRecord(col, fields(nil))); err != nil {
		t.Fatalf("rebook: %v", err)
	}
}
