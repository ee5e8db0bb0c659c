package agenda_test

import (
	"strings"
	"testing"
	"time"

	"camellos/internal/clock"
	"camellos/modules/agenda"
	"camellos/modules/appointments"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// TestSlotsSeeEveryWrite checks that the slots answer, served from the
// camello's in-memory agenda view, shows every kind of write on the very
// next request, and always equals FreeSlotsOf read from the database.
func TestSlotsSeeEveryWrite(t *testing.T) {
	w := newWorld(t)
	k := w.k
	window := "?from=2026-11-24T00:00:00Z&to=2026-11-26T00:00:00Z"
	from, to := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	path := "/api/camellos/" + w.camello.Id + "/slots" + window
	get := func(step string) string {
		t.Helper()
		r := k.Get(path, w.strangerCookie)
		expect(t, r, 200, "")
		got := strings.Join(slotStarts(r), ",")
		fresh := reload(t, k, w.camello)
		truth, err := agenda.FreeSlotsOf(k.App, fresh, from, to, monday)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{}
		for _, s := range truth {
			want = append(want, s.Start.Format("2006-01-02T15:04:05.000Z"))
		}
		if got != strings.Join(want, ",") {
			t.Fatalf("%s: answered %s, database says %s", step, got, strings.Join(want, ","))
		}
		return got
	}
	has := func(s, start string) bool { return strings.Contains(s, start) }
	book := func(jobID, start string) string {
		t.Helper()
		r := k.Post("/api/jobs/"+jobID+"/appointments", w.clientCookie, map[string]any{"start": start})
		expect(t, r, 201, "")
		return r.Str("appointment.id")
	}

	all := get("warm")
	if n := len(strings.Split(all, ",")); n != 8 {
		t.Fatalf("two weekdays of 4 slots: %s", all)
	}
	job := w.job("ASIGNADO")
	id := book(job.Id, "2026-11-24T13:00:00Z")
	if s := get("booked"); has(s, "2026-11-24T13:00") {
		t.Fatalf("booked slot still offered: %s", s)
	}
	expect(t, k.Post("/api/appointments/"+id+"/cancel", w.clientCookie, nil), 200, "")
	if s := get("appointment cancelled"); !has(s, "2026-11-24T13:00") {
		t.Fatalf("cancelled slot not back: %s", s)
	}

	j2 := w.job("ASIGNADO")
	book(j2.Id, "2026-11-24T14:00:00Z")
	book(j2.Id, "2026-11-25T15:00:00Z")
	if s := get("two booked"); has(s, "2026-11-24T14:00") || has(s, "2026-11-25T15:00") {
		t.Fatalf("booked slots offered: %s", s)
	}
	expect(t, k.Post("/api/jobs/"+j2.Id+"/cancel", w.camCookie, nil), 200, "")
	if s := get("job cancelled"); s != all {
		t.Fatalf("job cancel did not free its slots: %s", s)
	}

	// appointments.CancelOfJob inside a caller's transaction: the view is
	// dropped after the commit, not before.
	j3 := w.job("ASIGNADO")
	book(j3.Id, "2026-11-25T13:00:00Z")
	get("booked in j3")
	err := k.App.RunInTransaction(func(tx core.App) error {
		n, err := appointments.CancelOfJob(tx, j3.Id, monday)
		if err != nil || n != 1 {
			t.Fatalf("cancelled %d: %v", n, err)
		}
		// a read between the UPDATE and the commit (outside the transaction)
		// keeps the slot busy and must not be cached past the commit
		get("inside the transaction")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if s := get("after the commit"); s != all {
		t.Fatalf("slot not back after the commit: %s", s)
	}

	// An appointment record saved directly (dashboard, hooks) counts too.
	appt := k.CreateRecord("appointments", map[string]any{"job": j3.Id, "camello": w.camello.Id, "client": w.client.Id,
		"start": "2026-11-25T16:00:00.000Z", "end": "2026-11-25T17:00:00.000Z", "status": "PROGRAMADA"})
	if s := get("record created"); has(s, "2026-11-25T16:00") {
		t.Fatalf("saved appointment not busy: %s", s)
	}
	appt.Set("status", "COMPLETADA")
	if err := k.App.Save(appt); err != nil {
		t.Fatal(err)
	}
	get("record completed")

	// Availability.
	expect(t, k.Put("/api/agenda/availability", w.camCookie, map[string]any{
		"weekly":       []any{map[string]any{"weekday": 2, "start": "08:00", "end": "10:00"}},
		"blockedDates": []any{},
	}), 200, "")
	if s := get("availability"); s != "2026-11-24T13:00:00.000Z,2026-11-24T14:00:00.000Z" {
		t.Fatalf("new availability: %s", s)
	}
	expect(t, k.Put("/api/agenda/availability", w.camCookie, map[string]any{
		"weekly": []any{map[string]any{"weekday": 2, "start": "08:00", "end": "10:00"}}, "blockedDates": []any{"2026-11-24"},
	}), 200, "")
	if s := get("blocked date"); s != "" {
		t.Fatalf("blocked Tuesday: %s", s)
	}
	expect(t, k.Put("/api/agenda/availability", w.camCookie, map[string]any{"timezone": "Europe/Madrid", "blockedDates": []any{},
		"weekly": []any{map[string]any{"weekday": 2, "start": "08:00", "end": "10:00"}}}), 200, "")
	if s := get("zone"); s != "2026-11-24T07:00:00.000Z,2026-11-24T08:00:00.000Z" {
		t.Fatalf("Madrid: %s", s)
	}
	av, err := k.App.FindFirstRecordByData("availability", "camello", w.camello.Id)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.App.Delete(av); err != nil {
		t.Fatal(err)
	}
	if s := get("availability deleted"); s != "" {
		t.Fatalf("no availability: %s", s)
	}

	// The camello: suspended is a 404 at once, active again answers again.
	c := reload(t, k, w.camello)
	c.Set("status", "SUSPENDIDO")
	if err := k.App.Save(c); err != nil {
		t.Fatal(err)
	}
	expect(t, k.Get(path, w.strangerCookie), 404, jobs.MsgCamelloNotFound)
	c.Set("status", "ACTIVO")
	if err := k.App.Save(c); err != nil {
		t.Fatal(err)
	}
	get("active again")

	// The clock going back before the view's bookings: read again.
	expect(t, k.Put("/api/agenda/availability", w.camCookie, map[string]any{"timezone": "America/Bogota",
		"weekly": []any{map[string]any{"weekday": 1, "start": "00:00", "end": "24:00"}}}), 200, "")
	clock.Set(k.App, func() time.Time { return monday.Add(72 * time.Hour) })
	r := k.Get("/api/camellos/"+w.camello.Id+"/slots?from=2026-11-30T05:00:00Z&to=2026-12-01T05:00:00Z", w.strangerCookie)
	expect(t, r, 200, "")
	if n := len(slotStarts(r)); n != 24 {
		t.Fatalf("Monday 30: %d slots", n)
	}
	// a PROGRAMADA appointment on Monday 23 at 07:00Z, written around the
	// hooks while the clock is three days ahead; it cannot reach the view
	if _, err := k.App.DB().Update("appointments", dbx.Params{"start": "2026-11-23 07:00:00.000Z", "end": "2026-11-23 08:00:00.000Z", "status": "PROGRAMADA"},
		dbx.HashExp{"id": appt.Id}).Execute(); err != nil {
		t.Fatal(err)
	}
	clock.Set(k.App, func() time.Time { return monday })
	r = k.Get("/api/camellos/"+w.camello.Id+"/slots?from=2026-11-23T05:00:00Z&to=2026-11-24T05:00:00Z", w.strangerCookie)
	if s := strings.Join(slotStarts(r), ","); has(s, "2026-11-23T07:00") || !has(s, "2026-11-23T08:00") {
		t.Fatalf("clock back: %s", s)
	}
}

// A fixed window's answer is kept between requests, and the clock alone
// changes it when it must: a slot that falls inside the notice is gone on
// the next request, and with the clock back it is offered again.
func TestSlotsFollowTheClock(t *testing.T) {
	w := newWorld(t)
	k := w.k
	from, to := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	path := "/api/camellos/" + w.camello.Id + "/slots?from=2026-11-24T00:00:00Z&to=2026-11-26T00:00:00Z"
	at := func(now time.Time) []string {
		t.Helper()
		clock.Set(k.App, func() time.Time { return now })
		r := k.Get(path, w.strangerCookie)
		expect(t, r, 200, "")
		got := slotStarts(r)
		truth, err := agenda.FreeSlotsOf(k.App, reload(t, k, w.camello), from, to, now)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{}
		for _, s := range truth {
			want = append(want, s.Start.Format("2006-01-02T15:04:05.000Z"))
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("at %v: answered %v, database says %v", now, got, want)
		}
		return got
	}
	all := at(monday)
	if len(all) < 3 {
		t.Fatalf("too few slots to follow: %v", all)
	}
	at(monday) // the kept answer
	first, _ := time.Parse("2006-01-02T15:04:05.000Z", all[0])
	second, _ := time.Parse("2006-01-02T15:04:05.000Z", all[1])
	for _, now := range []time.Time{first.Add(-25 * time.Hour), first.Add(-2 * time.Hour), first.Add(-time.Minute), first,
		first.Add(time.Nanosecond), first.Add(time.Minute), second.Add(-time.Minute), second.Add(time.Minute), monday} {
		got := at(now)
		if now.After(first) && len(got) > 0 && got[0] == all[0] {
			t.Fatalf("at %v the slot %s is still offered", now, all[0])
		}
	}
}

// Completing a job during its visit closes the visit (COMPLETADA): the
// time it held, widened by the camello's buffer, is free again on the very
// next slots request (issue 22, leak 1: CloseOfJob's second UPDATE did not
// signal the change and the view kept the slot busy until its max age).
func TestSlotsSeeAVisitClosedByCompletion(t *testing.T) {
	w := newWorld(t)
	k := w.k
	expect(t, k.Put("/api/agenda/availability", w.camCookie, map[string]any{"minNoticeMinutes": 0, "bufferMinutes": 60,
		"weekly": []any{map[string]any{"weekday": 2, "start": "08:00", "end": "12:00"}}}), 200, "")
	from, to := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	path := "/api/camellos/" + w.camello.Id + "/slots?from=2026-11-24T00:00:00Z&to=2026-11-25T00:00:00Z"
	now := time.Date(2026, 11, 24, 13, 30, 0, 0, time.UTC) // half way through the 13:00Z visit
	get := func(step string) string {
		t.Helper()
		r := k.Get(path, w.strangerCookie)
		expect(t, r, 200, "")
		got := strings.Join(slotStarts(r), ",")
		truth, err := agenda.FreeSlotsOf(k.App, reload(t, k, w.camello), from, to, now)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{}
		for _, s := range truth {
			want = append(want, s.Start.Format("2006-01-02T15:04:05.000Z"))
		}
		if got != strings.Join(want, ",") {
			t.Fatalf("%s: answered %s, database says %s", step, got, strings.Join(want, ","))
		}
		return got
	}
	job := w.job("EN_PROGRESO")
	k.CreateRecord("appointments", map[string]any{"job": job.Id, "camello": w.camello.Id, "client": w.client.Id,
		"start": "2026-11-24T13:00:00.000Z", "end": "2026-11-24T14:00:00.000Z", "status": "PROGRAMADA"})
	clock.Set(k.App, func() time.Time { return now })
	if s := get("during the visit"); s != "2026-11-24T15:00:00.000Z,2026-11-24T16:00:00.000Z" {
		t.Fatalf("the visit and its buffer should hold 14:00Z: %s", s)
	}
	expect(t, k.Post("/api/jobs/"+job.Id+"/complete", w.camCookie, nil), 200, "")
	if s := get("job completed"); !strings.Contains(s, "2026-11-24T14:00") {
		t.Fatalf("the closed visit still holds 14:00Z: %s", s)
	}
}
