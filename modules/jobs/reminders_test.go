package jobs_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"camellos/internal/clock"
	"camellos/internal/testkit"
	"camellos/internal/timefmt"
	"camellos/internal/writer"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

const cronPath = "/api/cron/appointment-reminders"

func cron(k *testkit.Kit, auth string) *testkit.Response {
	h := map[string]string{}
	if auth != "" {
		h["Authorization"] = auth
	}
	return k.Do(testkit.Req{Method: "POST", Path: cronPath, Headers: h})
}

// bulkAppointments inserts n PROGRAMADA appointments of job with raw SQL,
// starting at first and one minute apart.
func bulkAppointments(t *testing.T, k *testkit.Kit, job *core.Record, first time.Time, n int) {
	t.Helper()
	bulkAppointmentsTB(t, k, job, first, n, time.Minute)
}

func bulkAppointmentsTB(t testing.TB, k *testkit.Kit, job *core.Record, first time.Time, n int, step time.Duration) {
	t.Helper()
	err := k.App.RunInTransaction(func(tx core.App) error {
		for i := 0; i < n; i++ {
			start := first.Add(time.Duration(i) * step)
			_, err := tx.DB().Insert("appointments", dbx.Params{
				"id": core.GenerateDefaultRandomId(), "job": job.Id, "camello": job.GetString("provider"),
				"client": job.GetString("client"), "start": timefmt.DB(start),
				"end": timefmt.DB(start.Add(time.Hour)), "status": "PROGRAMADA", "reminderSentAt": "",
				"created": timefmt.DB(start), "updated": timefmt.DB(start),
			}).Execute()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRemindersEndpoint(t *testing.T) {
	// The configuration is read when the kit boots: the unconfigured case
	// has a kit of its own.
	t.Run("not configured", func(t *testing.T) {
		t.Setenv("CRON_SECRET", "")
		k := testkit.New(t)
		expect(t, cron(k, "Bearer x"), 503, jobs.MsgRemindersOff)
		expect(t, cron(k, ""), 503, jobs.MsgRemindersOff)
	})

	t.Setenv("CRON_SECRET", "s3cr3t-de-prueba")
	w := newWorld(t)
	k := w.k
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clock.Set(k.App, func() time.Time { return now })
	job := w.job("ASIGNADO")
	t.Run("unauthorised", func(t *testing.T) {
		for _, auth := range []string{"", "Bearer", "Bearer ", "Bearer wrong", "Bearer s3cr3t-de-prueb", "Bearer s3cr3t-de-pruebaX",
			"bearer s3cr3t-de-prueba", "Basic s3cr3t-de-prueba", "s3cr3t-de-prueba"} {
			expect(t, cron(k, auth), 401, "No autorizado")
		}
		// A session (even an admin's) is no substitute for the secret.
		expect(t, k.Do(testkit.Req{Method: "POST", Path: cronPath, Cookie: w.adminCookie}), 401, "No autorizado")
	})

	t.Run("window and once", func(t *testing.T) {
		due := map[string]time.Time{
			"in a minute": now.Add(time.Minute), "in 23h": now.Add(23 * time.Hour), "at 24h": now.Add(24 * time.Hour),
		}
		notDue := map[string]time.Time{
			"now": now, "past": now.Add(-time.Hour), "24h and 1s": now.Add(24*time.Hour + time.Second), "in 2 days": now.Add(48 * time.Hour),
		}
		recs := map[string]*core.Record{}
		for name, start := range due {
			recs[name] = appointment(t, k, job, start, "PROGRAMADA")
		}
		for name, start := range notDue {
			recs[name] = appointment(t, k, job, start, "PROGRAMADA")
		}
		cancelled := appointment(t, k, job, now.Add(2*time.Hour), "PROGRAMADA")
		cancelled.Set("status", "CANCELADA")
		if err := k.App.Save(cancelled); err != nil {
			t.Fatal(err)
		}
		r := cron(k, "Bearer s3cr3t-de-prueba")
		expect(t, r, 200, "")
		if r.Get("sent") != 3.0 {
			t.Fatalf("sent %v, want 3: %s", r.Get("sent"), r.Raw)
		}
		for name := range due {
			if reload(t, k, recs[name]).GetDateTime("reminderSentAt").Time() != now {
				t.Errorf("%s: reminderSentAt not set to now", name)
			}
		}
		for name := range notDue {
			if !reload(t, k, recs[name]).GetDateTime("reminderSentAt").IsZero() {
				t.Errorf("%s: reminded", name)
			}
		}
		if w.notifications(w.client, "APPOINTMENT_REMINDER") != 3 || w.notifications(w.camUser, "APPOINTMENT_REMINDER") != 3 {
			t.Fatal("client and camello must each get one reminder per appointment")
		}
		n, err := k.App.FindFirstRecordByFilter("notifications", "user = {:u} && kind = 'APPOINTMENT_REMINDER'", dbx.Params{"u": w.client.Id})
		if err != nil || n.GetString("title") != "Recordatorio de cita" || !strings.Contains(n.GetString("body"), "America/Bogota") {
			t.Fatalf("reminder notification: %v %v", n, err)
		}
		// Repeated sweeps remind nothing twice.
		r = cron(k, "Bearer s3cr3t-de-prueba")
		if r.Status != 200 || r.Get("sent") != 0.0 {
			t.Fatalf("second sweep: %s", r.Raw)
		}
		// Time passes: the appointment two days out becomes due.
		later := now.Add(25 * time.Hour)
		clock.Set(k.App, func() time.Time { return later })
		defer clock.Set(k.App, func() time.Time { return now })
		if r := cron(k, "Bearer s3cr3t-de-prueba"); r.Get("sent") != 1.0 {
			t.Fatalf("later sweep: %s", r.Raw)
		}
	})
}

// TestRemindersConcurrentSweeps runs 10 sweeps at once over more
// appointments than one batch holds: each is reminded exactly once.
func TestRemindersConcurrentSweeps(t *testing.T) {
	t.Setenv("CRON_SECRET", "otro-secreto")
	w := newWorld(t)
	k := w.k
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clock.Set(k.App, func() time.Time { return now })
	const n = 1234
	bulkAppointments(t, k, w.job("ASIGNADO"), now.Add(time.Minute), n)

	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	start := make(chan struct{})
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r := cron(k, "Bearer otro-secreto")
			if r.Status != 200 {
				t.Errorf("sweep: %d %s", r.Status, r.Raw)
				return
			}
			mu.Lock()
			total += int(r.Get("sent").(float64))
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	if total != n {
		t.Fatalf("sweeps sent %d in total, want %d", total, n)
	}
	if got := k.Count("notifications", "kind = 'APPOINTMENT_REMINDER'"); got != 2*n {
		t.Fatalf("%d reminder notifications, want %d", got, 2*n)
	}
	if got := k.Count("appointments", "reminderSentAt = ''"); got != 0 {
		t.Fatalf("%d appointments not reminded", got)
	}
}

// TestRemindersConcurrentSweepsAcrossBatches: the cron route and direct
// sweeps (what the CLI runs) at once over more than two batches of due
// appointments: each is reminded exactly once, none is left.
func TestRemindersConcurrentSweepsAcrossBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds more than two batches of appointments")
	}
	t.Setenv("CRON_SECRET", "otro-secreto")
	w := newWorld(t)
	k := w.k
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clock.Set(k.App, func() time.Time { return now })
	n := 2*jobs.ReminderBatch + 321
	bulkAppointmentsTB(t, k, w.job("ASIGNADO"), now.Add(time.Second), n, 86000*time.Second/time.Duration(n))

	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	add := func(sent int) {
		mu.Lock()
		total += sent
		mu.Unlock()
	}
	start := make(chan struct{})
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if i%2 == 0 {
				r := cron(k, "Bearer otro-secreto")
				if r.Status != 200 {
					t.Errorf("sweep: %d %s", r.Status, r.Raw)
					return
				}
				add(int(r.Get("sent").(float64)))
				return
			}
			sent, err := jobs.SendReminders(k.App, now)
			if err != nil {
				t.Errorf("sweep: %v", err)
			}
			add(sent)
		}()
	}
	close(start)
	wg.Wait()
	if total != n {
		t.Fatalf("sweeps sent %d in total, want %d", total, n)
	}
	if got := k.Count("notifications", "kind = 'APPOINTMENT_REMINDER'"); got != 2*n {
		t.Fatalf("%d reminder notifications, want %d", got, 2*n)
	}
	if got := k.Count("appointments", "reminderSentAt = ''"); got != 0 {
		t.Fatalf("%d appointments not reminded", got)
	}
	// The overlapping sweeps held the writer's checkpoints
	// (writer.DeferCheckpoints); the last one done gave them back.
	var autocheckpoint int
	if err := writer.Transaction(k.App, func(txApp core.App) error {
		return txApp.DB().NewQuery("PRAGMA wal_autocheckpoint").Row(&autocheckpoint)
	}); err != nil {
		t.Fatal(err)
	}
	if autocheckpoint != 1000 {
		t.Fatalf("the writer's wal_autocheckpoint after the sweeps = %d, want SQLite's 1000", autocheckpoint)
	}
}

func TestRemindersCommandAndSchedule(t *testing.T) {
	w := newWorld(t)
	k := w.k
	now := time.Now().UTC()
	job := w.job("ASIGNADO")
	appointment(t, k, job, now.Add(3*time.Hour).Truncate(time.Second), "PROGRAMADA")
	appointment(t, k, job, now.Add(5*time.Hour).Truncate(time.Second), "PROGRAMADA")

	cmd := jobs.RemindersCommand(k.App)
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"send"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != "Recordatorios enviados: 2" {
		t.Fatalf("command printed %q", got)
	}
	out.Reset()
	cmd.SetArgs([]string{"send"})
	_ = cmd.Execute()
	if got := strings.TrimSpace(out.String()); got != "Recordatorios enviados: 0" {
		t.Fatalf("second run printed %q", got)
	}

	// The built-in schedule is registered with the default expression.
	found := false
	for _, j := range k.App.Cron().Jobs() {
		if j.Id() == "appointmentReminders" {
			found = j.Expression() == jobs.DefaultReminderSchedule
		}
	}
	if !found {
		t.Fatal("appointmentReminders cron job missing or not every 15 minutes")
	}
}

func TestRemindersScheduleOff(t *testing.T) {
	t.Setenv("REMINDERS_SCHEDULE", "off")
	k := testkit.New(t)
	for _, j := range k.App.Cron().Jobs() {
		if j.Id() == "appointmentReminders" {
			t.Fatal("schedule registered although off")
		}
	}
	t.Setenv("REMINDERS_SCHEDULE", "0 * * * *")
	k2 := testkit.New(t)
	for _, j := range k2.App.Cron().Jobs() {
		if j.Id() == "appointmentReminders" && j.Expression() != "0 * * * *" {
			t.Fatalf("expression %s", j.Expression())
		}
	}
}

// TestRemindersInternalError: a failing sweep is a 500 in the envelope,
// leaking no SQL.
func TestRemindersInternalError(t *testing.T) {
	t.Setenv("CRON_SECRET", "x")
	k := testkit.New(t)
	if _, err := k.App.DB().NewQuery("ALTER TABLE appointments RENAME TO appointments_gone").Execute(); err != nil {
		t.Fatal(err)
	}
	r := cron(k, "Bearer x")
	expect(t, r, 500, "Error interno del servidor")
	if strings.Contains(string(r.Raw), "appointments") || strings.Contains(string(r.Raw), "SQL") {
		t.Fatalf("leaked: %s", r.Raw)
	}
}
