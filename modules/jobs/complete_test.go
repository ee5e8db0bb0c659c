package jobs_test

import (
	"strings"
	"testing"
	"time"

	"camellos/internal/clock"
	"camellos/modules/jobs"
)

// Completing a job closes its appointments: past ones COMPLETADA, future
// ones CANCELADA (no reminder for work already done, the slot is free).
func TestCompletingAJobClosesItsAppointments(t *testing.T) {
	w := newWorld(t)
	k := w.k
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clock.Set(k.App, func() time.Time { return now })
	job := w.job("EN_PROGRESO")
	past := appointment(t, k, job, now.Add(-3*time.Hour), "PROGRAMADA")
	future := appointment(t, k, job, now.Add(5*time.Hour), "PROGRAMADA")
	other := w.job("EN_PROGRESO")
	untouched := appointment(t, k, other, now.Add(6*time.Hour), "PROGRAMADA")

	r := k.Post("/api/jobs/"+job.Id+"/complete", w.camCookie, map[string]any{"endFutureVisits": true})
	if r.Status != 200 || r.Str("job.status") != "COMPLETADO" {
		t.Fatalf("complete: %d %s", r.Status, r.Raw)
	}
	for rec, want := range map[string]string{past.Id: "COMPLETADA", future.Id: "CANCELADA", untouched.Id: "PROGRAMADA"} {
		fresh, err := k.App.FindRecordById("appointments", rec)
		if err != nil || fresh.GetString("status") != want {
			t.Fatalf("appointment %s: %s, want %s", rec, fresh.GetString("status"), want)
		}
	}
	if n, err := jobs.SendReminders(k.App, now); err != nil || n != 1 {
		t.Fatalf("reminders after completion: %d %v (only the other job's)", n, err)
	}
}

// Safe completion (issue 24, API.md "Third phase"): completing a job that
// still has future PROGRAMADA appointments (a weekly series) is refused
// with them listed, unless the request confirms ending them with
// endFutureVisits: true; then they are cancelled and the client's
// notification names them. Before, they were cancelled without a word.
func TestCompletingWithFutureVisitsNeedsConfirmation(t *testing.T) {
	w := newWorld(t)
	k := w.k
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clock.Set(k.App, func() time.Time { return now })
	path := func(id string) string { return "/api/jobs/" + id + "/complete" }

	job := w.job("EN_PROGRESO")
	past := appointment(t, k, job, now.Add(-3*time.Hour), "PROGRAMADA")
	series := []string{}
	for week := 1; week <= 3; week++ { // a weekly series, Mondays 08:00 Bogotá
		series = append(series, appointment(t, k, job, time.Date(2026, 11, 23+7*week, 13, 0, 0, 0, time.UTC), "PROGRAMADA").Id)
	}
	status := func(id string) string {
		rec, err := k.App.FindRecordById("appointments", id)
		if err != nil {
			t.Fatal(err)
		}
		return rec.GetString("status")
	}
	for _, body := range []any{nil, map[string]any{}, map[string]any{"endFutureVisits": false}} {
		r := k.Post(path(job.Id), w.camCookie, body)
		expect(t, r, 409, jobs.MsgFutureVisits)
		conflicts, _ := r.Get("issues.conflicts").([]any)
		if len(conflicts) != 3 || r.Str("issues.conflicts.0.appointmentId") != series[0] ||
			r.Str("issues.conflicts.0.start") != "2026-11-30T13:00:00.000Z" || r.Str("issues.conflicts.0.end") != "2026-11-30T14:00:00.000Z" ||
			r.Str("issues.conflicts.2.appointmentId") != series[2] || r.Str("issues.conflicts.0.jobId") != job.Id {
			t.Fatalf("body %v: conflicts %s", body, r.Raw)
		}
		if reload(t, k, job).GetString("status") != "EN_PROGRESO" || status(series[0]) != "PROGRAMADA" || status(past.Id) != "PROGRAMADA" {
			t.Fatalf("a refused completion changed something (body %v)", body)
		}
	}
	expectField(t, k.Post(path(job.Id), w.camCookie, map[string]any{"endFutureVisits": "sí"}), "endFutureVisits", "verdadero o falso")
	expect(t, k.Post(path(job.Id), w.clientCookie, map[string]any{"endFutureVisits": true}), 403, jobs.MsgOnlyProvider)

	before := w.notifications(w.client, "JOB_STATUS")
	r := k.Post(path(job.Id), w.camCookie, map[string]any{"endFutureVisits": true})
	if r.Status != 200 || r.Str("job.status") != "COMPLETADO" {
		t.Fatalf("confirmed completion: %d %s", r.Status, r.Raw)
	}
	if got, _ := r.Get("cancelledAppointments").([]any); len(got) != 3 || r.Str("cancelledAppointments.1.appointmentId") != series[1] {
		t.Fatalf("cancelledAppointments: %s", r.Raw)
	}
	for _, id := range series {
		if s := status(id); s != "CANCELADA" {
			t.Fatalf("future visit %s: %s", id, s)
		}
	}
	if s := status(past.Id); s != "COMPLETADA" {
		t.Fatalf("past visit: %s", s)
	}
	if w.notifications(w.client, "JOB_STATUS") != before+1 {
		t.Fatal("the client was not notified once")
	}
	var note struct {
		Body string `db:"body"`
	}
	if err := k.App.DB().NewQuery("SELECT body FROM notifications WHERE user = {:u} AND kind = 'JOB_STATUS' ORDER BY created DESC, rowid DESC LIMIT 1").
		Bind(map[string]any{"u": w.client.Id}).One(&note); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"30/11/2026 08:00", "07/12/2026 08:00", "14/12/2026 08:00", "America/Bogota", "cancel"} {
		if !strings.Contains(note.Body, want) {
			t.Fatalf("notification %q does not name %q", note.Body, want)
		}
	}

	// Without future visits nothing needs confirming: no appointment at all
	// (the contract's review flow), or only visits that already started.
	for _, withPast := range []bool{false, true} {
		j := w.job("EN_PROGRESO")
		if withPast {
			appointment(t, k, j, now.Add(-time.Hour), "PROGRAMADA")
		}
		r := k.Post(path(j.Id), w.camCookie, nil)
		if r.Status != 200 || r.Str("job.status") != "COMPLETADO" {
			t.Fatalf("completion without future visits (past %v): %d %s", withPast, r.Status, r.Raw)
		}
		if got, _ := r.Get("cancelledAppointments").([]any); len(got) != 0 {
			t.Fatalf("cancelledAppointments: %s", r.Raw)
		}
	}
}
