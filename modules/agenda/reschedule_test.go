package agenda_test

import (
	"sync"
	"testing"
	"time"

	"camellos/internal/clock"
	"camellos/internal/testkit"
	"camellos/modules/agenda"
	"camellos/modules/jobs"
	"camellos/modules/users"
)

func TestReschedule(t *testing.T) {
	w := newWorld(t)
	k := w.k
	expect(t, w.putRules(t, map[string]any{"bufferMinutes": 60}), 200, "")
	job := w.job("ASIGNADO")
	r := w.book(job.Id, "2026-11-24T14:00:00Z")
	expect(t, r, 201, "")
	id := r.Str("appointment.id")
	path := func(id string) string { return "/api/appointments/" + id + "/reschedule" }
	to := func(start string) map[string]any { return map[string]any{"start": start} }

	t.Run("errors", func(t *testing.T) {
		expect(t, k.Post(path(id), "", to("2026-11-24T15:00:00Z")), 401, "No autorizado")
		expectField(t, k.Post(path("bad.id"), w.clientCookie, to("2026-11-24T15:00:00Z")), "id", "Identificador")
		expect(t, k.Post(path("nosuchappoint1"), w.clientCookie, to("2026-11-24T15:00:00Z")), 404, agenda.MsgAppointmentNotFound)
		expect(t, k.Post(path(id), w.strangerCookie, to("2026-11-24T15:00:00Z")), 403, "No autorizado")
		expect(t, k.Post(path(id), w.adminCookie, to("2026-11-24T15:00:00Z")), 403, "No autorizado")
		expectField(t, k.Post(path(id), w.clientCookie, map[string]any{}), "start", "obligatorio")
		expectField(t, k.Post(path(id), w.clientCookie, to("mañana")), "start", "ISO 8601")
		for _, start := range []string{
			"2026-11-24T15:30:00Z", // not a slot start
			"2026-11-28T14:00:00Z", // Saturday
			"2026-11-23T05:00:00Z", // past
			"2027-03-01T14:00:00Z", // past the 60-day horizon
			"0001-01-01T00:00:00Z", "9999-12-31T23:00:00Z",
		} {
			expect(t, k.Post(path(id), w.clientCookie, to(start)), 409, agenda.MsgSlotTaken)
		}
		// Another appointment's slot and its buffer are taken.
		other := w.job("ASIGNADO")
		expect(t, w.book(other.Id, "2026-11-25T14:00:00Z"), 201, "")
		for _, start := range []string{"2026-11-25T14:00:00Z", "2026-11-25T13:00:00Z", "2026-11-25T15:00:00Z"} {
			expect(t, k.Post(path(id), w.clientCookie, to(start)), 409, agenda.MsgSlotTaken)
		}
		if a := recordOf(t, k, id); a.GetString("start") != "2026-11-24 14:00:00.000Z" {
			t.Fatalf("refused moves changed the appointment: %v", a.GetString("start"))
		}
	})

	t.Run("moves, same id, reminder re-armed, other party told", func(t *testing.T) {
		// The reminder went out already.
		if n, err := jobs.SendReminders(k.App, time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)); err != nil || n != 1 {
			t.Fatalf("reminders sent: %d %v", n, err)
		}
		told := func() int {
			return k.Count("notifications", "user = {:u} AND kind = 'APPOINTMENT_RESCHEDULED'", map[string]any{"u": w.camUser.Id})
		}
		before := told()
		// Its own time and buffer do not block it: one hour later.
		r := k.Post(path(id), w.clientCookie, to("2026-11-24T10:00:00-05:00"))
		expect(t, r, 200, "")
		if r.Str("appointment.id") != id || r.Str("appointment.start") != "2026-11-24T15:00:00.000Z" ||
			r.Str("appointment.end") != "2026-11-24T16:00:00.000Z" || r.Get("appointment.reminderSentAt") != nil ||
			r.Str("appointment.status") != "PROGRAMADA" {
			t.Fatalf("moved: %s", r.Raw)
		}
		if told() != before+1 {
			t.Fatalf("camello not told")
		}
		if n := k.Count("notifications", "user = {:u} AND kind = 'APPOINTMENT_RESCHEDULED'", map[string]any{"u": w.client.Id}); n != 0 {
			t.Fatalf("the mover was told %d times", n)
		}
		// The old slot is free again, the new one is taken.
		if s := w.slotsOn(t, "2026-11-24"); s != "2026-11-24T13:00:00.000Z" {
			t.Fatalf("slots after the move: %s", s)
		}
		// The camello moves it back; the client is told.
		expect(t, k.Post(path(id), w.camCookie, to("2026-11-24T14:00:00Z")), 200, "")
		if n := k.Count("notifications", "user = {:u} AND kind = 'APPOINTMENT_RESCHEDULED'", map[string]any{"u": w.client.Id}); n != 1 {
			t.Fatalf("client told %d times", n)
		}
		// The reminder is sent again for the new time.
		if n, err := jobs.SendReminders(k.App, time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)); err != nil || n != 1 {
			t.Fatalf("re-armed reminders sent: %d %v", n, err)
		}
	})

	t.Run("cancelled, started or of a closed job", func(t *testing.T) {
		j := w.job("ASIGNADO")
		r := w.book(j.Id, "2026-11-27T13:00:00Z")
		expect(t, r, 201, "")
		cid := r.Str("appointment.id")
		expect(t, k.Post("/api/appointments/"+cid+"/cancel", w.clientCookie, nil), 200, "")
		expect(t, k.Post(path(cid), w.clientCookie, to("2026-11-27T14:00:00Z")), 409, agenda.MsgRescheduleClosed)

		r = w.book(j.Id, "2026-11-27T15:00:00Z")
		expect(t, r, 201, "")
		sid := r.Str("appointment.id")
		clock.Set(k.App, func() time.Time { return time.Date(2026, 11, 27, 15, 30, 0, 0, time.UTC) })
		expect(t, k.Post(path(sid), w.clientCookie, to("2026-12-01T14:00:00Z")), 409, agenda.MsgRescheduleClosed)
		clock.Set(k.App, func() time.Time { return monday })
	})
}

// TestRescheduleConcurrent: two clients move their appointments onto one
// slot at once: exactly one 200.
func TestRescheduleConcurrent(t *testing.T) {
	w := newWorld(t)
	k := w.k
	type party struct{ id, cookie string }
	parties := []party{}
	for _, start := range []string{"2026-11-24T13:00:00Z", "2026-11-24T14:00:00Z", "2026-11-25T13:00:00Z", "2026-11-25T14:00:00Z"} {
		client, cookie := k.UserWithSession(users.RoleClient)
		j := k.CreateJob(testkit.JobOpts{Client: client, Provider: w.camello, Status: "ASIGNADO"})
		r := k.Post("/api/jobs/"+j.Id+"/appointments", cookie, map[string]any{"start": start})
		expect(t, r, 201, "")
		parties = append(parties, party{r.Str("appointment.id"), cookie})
	}
	for round, target := range []string{"2026-11-26T15:00:00Z", "2026-11-27T16:00:00Z"} {
		statuses := make([]int, len(parties))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, p := range parties {
			wg.Add(1)
			go func(i int, p party) {
				defer wg.Done()
				<-start
				statuses[i] = k.Post("/api/appointments/"+p.id+"/reschedule", p.cookie, map[string]any{"start": target}).Status
			}(i, p)
		}
		close(start)
		wg.Wait()
		won := 0
		for i, s := range statuses {
			switch s {
			case 200:
				won++
			case 409:
			default:
				t.Fatalf("round %d: move %d answered %d", round, i, s)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d moves won, want 1 (%v)", round, won, statuses)
		}
		startDB := target[:10] + " " + target[11:19] + ".000Z"
		if n := k.Count("appointments", "status = 'PROGRAMADA' AND start = {:s}", map[string]any{"s": startDB}); n != 1 {
			t.Fatalf("round %d: %d appointments at %s", round, n, target)
		}
		if n := k.Count("appointments", "status = 'PROGRAMADA'"); n != len(parties) {
			t.Fatalf("round %d: %d PROGRAMADA, want %d", round, n, len(parties))
		}
	}
}
