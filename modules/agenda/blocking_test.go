package agenda_test

import (
	"testing"
	"time"

	"camellos/internal/clock"
	"camellos/modules/agenda"
	"camellos/modules/appointments"
)

// TestBlockingDatesWithAppointments: blocking a date that holds
// PROGRAMADA appointments is refused with the conflicts listed, or, with
// cancelConflicts, cancels them in the same write and tells each client.
func TestBlockingDatesWithAppointments(t *testing.T) {
	w := newWorld(t)
	k := w.k
	job := w.job("ASIGNADO")
	// Wednesday 25 at 08:00 and 11:00 Bogotá; Thursday 26 at 08:00.
	a := w.book(job.Id, "2026-11-25T13:00:00Z").Str("appointment.id")
	b := w.book(job.Id, "2026-11-25T16:00:00Z").Str("appointment.id")
	c := w.book(job.Id, "2026-11-26T13:00:00Z").Str("appointment.id")
	block := func(dates []any, extra map[string]any) map[string]any {
		body := map[string]any{"weekly": weekdays(), "blockedDates": dates}
		for key, v := range extra {
			body[key] = v
		}
		return body
	}
	told := func() int {
		return k.Count("notifications", "user = {:u} AND kind = 'JOB_STATUS' AND title = 'Cita cancelada'", map[string]any{"u": w.client.Id})
	}

	r := k.Put("/api/agenda/availability", w.camCookie, block([]any{"2026-11-25", "2026-11-27"}, nil))
	expect(t, r, 409, agenda.MsgBlockedConflicts)
	conflicts, _ := r.Get("issues.conflicts").([]any)
	if len(conflicts) != 2 || r.Str("issues.conflicts.0.appointmentId") != a || r.Str("issues.conflicts.1.appointmentId") != b ||
		r.Str("issues.conflicts.0.date") != "2026-11-25" || r.Str("issues.conflicts.0.start") != "2026-11-25T13:00:00.000Z" ||
		r.Str("issues.conflicts.0.jobId") != job.Id {
		t.Fatalf("conflicts: %s", r.Raw)
	}
	if got := k.Get("/api/agenda/availability", w.camCookie); len(got.Get("availability.blockedDates").([]any)) != 0 {
		t.Fatalf("a refused PUT saved: %s", got.Raw)
	}
	expect(t, k.Put("/api/agenda/availability", w.camCookie, block([]any{"2026-11-25"}, map[string]any{"cancelConflicts": false})), 409, agenda.MsgBlockedConflicts)
	expectField(t, k.Put("/api/agenda/availability", w.camCookie, block([]any{"2026-11-25"}, map[string]any{"cancelConflicts": "sí"})), "cancelConflicts", "verdadero o falso")

	before := told()
	r = k.Put("/api/agenda/availability", w.camCookie, block([]any{"2026-11-25"}, map[string]any{"cancelConflicts": true}))
	expect(t, r, 200, "")
	if list, _ := r.Get("cancelled").([]any); len(list) != 2 {
		t.Fatalf("cancelled: %s", r.Raw)
	}
	for _, id := range []string{a, b} {
		if s := recordOf(t, k, id).GetString("status"); s != "CANCELADA" {
			t.Fatalf("%s is %s", id, s)
		}
	}
	if s := recordOf(t, k, c).GetString("status"); s != "PROGRAMADA" {
		t.Fatalf("c is %s", s)
	}
	if told() != before+2 {
		t.Fatalf("client told %d times, want 2", told()-before)
	}
	if s := w.slotsOn(t, "2026-11-25"); s != "" {
		t.Fatalf("blocked Wednesday offers %s", s)
	}

	// The date is the camello's, in the zone of the PUT: 2026-11-26T02:00Z
	// is the 25th in Bogotá and the 26th in Madrid.
	late := k.CreateRecord("appointments", map[string]any{"job": job.Id, "camello": w.camello.Id, "client": w.client.Id,
		"start": "2026-11-26 02:00:00.000Z", "end": "2026-11-26 03:00:00.000Z", "status": "PROGRAMADA"})
	r = k.Put("/api/agenda/availability", w.camCookie, block([]any{"2026-11-26"}, map[string]any{"timezone": "Europe/Madrid"}))
	expect(t, r, 409, agenda.MsgBlockedConflicts)
	if r.Str("issues.conflicts.0.appointmentId") != late.Id || r.Str("issues.conflicts.1.appointmentId") != c {
		t.Fatalf("Madrid conflicts: %s", r.Raw)
	}
	r = k.Put("/api/agenda/availability", w.camCookie, block([]any{"2026-11-24", "2026-11-25"}, map[string]any{"timezone": "America/Bogota"}))
	expect(t, r, 409, agenda.MsgBlockedConflicts)
	if list, _ := r.Get("issues.conflicts").([]any); len(list) != 1 || r.Str("issues.conflicts.0.appointmentId") != late.Id {
		t.Fatalf("Bogotá conflicts: %s", r.Raw)
	}
	if _, err := appointments.Cancel(k.App, late.Id, monday); err != nil {
		t.Fatal(err)
	}

	// A past appointment on a blocked date is no conflict.
	clock.Set(k.App, func() time.Time { return time.Date(2026, 11, 26, 14, 30, 0, 0, time.UTC) })
	expect(t, k.Put("/api/agenda/availability", w.camCookie, block([]any{"2026-11-25", "2026-11-26"}, nil)), 200, "")
	if s := recordOf(t, k, c).GetString("status"); s != "PROGRAMADA" {
		t.Fatalf("a started appointment was touched: %s", s)
	}
}
