package jobs_test

import (
	"testing"
	"time"

	"camellos/internal/clock"
	"camellos/internal/testkit"
	"camellos/modules/jobs"

	"github.com/pocketbase/pocketbase/core"
)

// appointment saves an appointment of a job directly.
func appointment(t *testing.T, k *testkit.Kit, job *core.Record, start time.Time, status string) *core.Record {
	t.Helper()
	return k.CreateRecord("appointments", map[string]any{
		"job": job.Id, "camello": job.GetString("provider"), "client": job.GetString("client"),
		"start": start, "end": start.Add(time.Hour), "status": status,
	})
}

func TestCancel(t *testing.T) {
	w := newWorld(t)
	k := w.k
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clock.Set(k.App, func() time.Time { return now })
	path := func(id string) string { return "/api/jobs/" + id + "/cancel" }

	t.Run("errors", func(t *testing.T) {
		job := w.job("ASIGNADO")
		expect(t, k.Post(path(job.Id), "", nil), 401, "No autorizado")
		expect(t, k.Post(path(job.Id), w.strangerCookie, nil), 403, "No autorizado")
		expect(t, k.Post(path(job.Id), w.otherCamCookie, nil), 403, "No autorizado")
		expect(t, k.Post(path("nosuchjob00001"), w.clientCookie, nil), 404, jobs.MsgJobNotFound)
		expectField(t, k.Post(path("bad.id"), w.clientCookie, nil), "id", "Identificador")
		expect(t, k.Post(path(w.job("COMPLETADO").Id), w.clientCookie, nil), 409, jobs.MsgCompletedJob)
		expect(t, k.Post(path(w.job("CANCELADO").Id), w.adminCookie, nil), 409, jobs.MsgAlreadyDone)
		if reload(t, k, job).GetString("status") != "ASIGNADO" {
			t.Fatal("refused cancel changed the job")
		}
	})

	t.Run("who may cancel", func(t *testing.T) {
		cases := []struct {
			name, state, cookie         string
			notifyClient, notifyCamello int
		}{
			{"client, open", "PENDIENTE", w.clientCookie, 0, 0},
			{"client, assigned", "ASIGNADO", w.clientCookie, 0, 1},
			{"camello, in progress", "EN_PROGRESO", w.camCookie, 1, 0},
			{"admin, assigned", "ASIGNADO", w.adminCookie, 1, 1},
			{"admin, open", "PENDIENTE", w.adminCookie, 1, 0},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				job := w.job(c.state)
				cl, ca := w.notifications(w.client, "JOB_CANCELLED"), w.notifications(w.camUser, "JOB_CANCELLED")
				r := k.Post(path(job.Id), c.cookie, nil)
				expect(t, r, 200, "")
				if r.Str("job.status") != "CANCELADO" || r.Str("job.id") != job.Id {
					t.Fatalf("cancelled job: %s", r.Raw)
				}
				if got := w.notifications(w.client, "JOB_CANCELLED") - cl; got != c.notifyClient {
					t.Errorf("client notified %d, want %d", got, c.notifyClient)
				}
				if got := w.notifications(w.camUser, "JOB_CANCELLED") - ca; got != c.notifyCamello {
					t.Errorf("camello notified %d, want %d", got, c.notifyCamello)
				}
				expect(t, k.Post(path(job.Id), c.cookie, nil), 409, jobs.MsgAlreadyDone)
			})
		}
		// The camello named by a direct request may decline it.
		direct := k.CreateJob(testkit.JobOpts{Client: w.client, Provider: w.camello, Source: "PERFIL"})
		expect(t, k.Post(path(direct.Id), w.camCookie, nil), 200, "")
	})

	t.Run("future appointments are cancelled", func(t *testing.T) {
		job := w.job("ASIGNADO")
		past := appointment(t, k, job, now.Add(-2*time.Hour), "PROGRAMADA")
		future := appointment(t, k, job, now.Add(26*time.Hour), "PROGRAMADA")
		done := appointment(t, k, job, now.Add(-30*time.Hour), "PROGRAMADA")
		done.Set("status", "COMPLETADA")
		if err := k.App.Save(done); err != nil {
			t.Fatal(err)
		}
		expect(t, k.Post(path(job.Id), w.clientCookie, nil), 200, "")
		for rec, want := range map[*core.Record]string{past: "PROGRAMADA", future: "CANCELADA", done: "COMPLETADA"} {
			if got := reload(t, k, rec).GetString("status"); got != want {
				t.Errorf("appointment at %s: %s, want %s", rec.GetString("start"), got, want)
			}
		}
		// The slot is free again: the same start can be booked by another job.
		other := w.job("ASIGNADO")
		appointment(t, k, other, now.Add(26*time.Hour), "PROGRAMADA")
	})

}
