package jobs_test

import (
	"testing"
	"time"

	"camellos/modules/jobs"
)

// Completing a job closes its appointments: past ones COMPLETADA, future
// ones CANCELADA (no reminder for work already done, the slot is free).
func TestCompletingAJobClosesItsAppointments(t *testing.T) {
	w := newWorld(t)
	k := w.k
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	jobs.SetClock(k.App, func() time.Time { return now })
	job := w.job("EN_PROGRESO")
	past := appointment(t, k, job, now.Add(-3*time.Hour), "PROGRAMADA")
	future := appointment(t, k, job, now.Add(5*time.Hour), "PROGRAMADA")
	other := w.job("EN_PROGRESO")
	untouched := appointment(t, k, other, now.Add(6*time.Hour), "PROGRAMADA")

	r := k.Post("/api/jobs/"+job.Id+"/complete", w.camCookie, nil)
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
