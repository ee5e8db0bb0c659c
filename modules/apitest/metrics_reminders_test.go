package apitest_test

import (
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/internal/timefmt"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Appointments reminded by the cron route show in camellos_reminders_sent_total.
func TestRemindersSentCounted(t *testing.T) {
	t.Setenv("METRICS_TOKEN", "tok")
	t.Setenv("CRON_SECRET", "cron-secreto")
	k := testkit.New(t)
	client := k.CreateUser(users.RoleClient)
	_, camello, _ := k.CreateCamello()
	job := k.CreateJob(testkit.JobOpts{Client: client, Provider: camello, Status: "ASIGNADO", Source: "PERFIL"})
	now := time.Now().UTC()
	for i := 1; i <= 3; i++ { // three appointments due within 24 h (test data, raw)
		start := now.Add(time.Duration(i) * time.Hour)
		if _, err := k.App.DB().Insert("appointments", dbx.Params{
			"id": core.GenerateDefaultRandomId(), "job": job.Id, "camello": camello.Id, "client": client.Id,
			"start": timefmt.DB(start), "end": timefmt.DB(start.Add(time.Hour)), "status": "PROGRAMADA",
			"reminderSentAt": "", "created": timefmt.DB(now), "updated": timefmt.DB(now),
		}).Execute(); err != nil {
			t.Fatal(err)
		}
	}
	r := k.Do(testkit.Req{Method: "POST", Path: "/api/cron/appointment-reminders", Headers: map[string]string{"Authorization": "Bearer cron-secreto"}})
	if r.Status != 200 {
		t.Fatalf("cron: %d %s", r.Status, r.Raw)
	}
	body := string(k.Do(testkit.Req{Method: "GET", Path: "/metrics", Headers: map[string]string{"Authorization": "Bearer tok"}}).Raw)
	if !strings.Contains(body, "camellos_reminders_sent_total 3\n") {
		t.Fatalf("reminders not counted: %s", r.Raw)
	}
}
