package notifications_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"camellos/hooks"
	"camellos/internal/testkit"
)

// TestReminderSweepIsPushed: the appointment reminders written by the jobs
// module (endpoint 5) reach the client's and the camello's devices as
// high-urgency pushes with a 24 h TTL.
func TestReminderSweepIsPushed(t *testing.T) {
	t.Setenv("CRON_SECRET", "secreto-recordatorios")
	recv := newReceiver(t)
	k := newKit(t, recv)
	client, clientCookie := k.UserWithSession(hooks.RoleClient)
	_, camello, camCookie := k.CreateCamello()
	devices := map[string]*browser{"/push/client": newBrowser(t), "/push/camello": newBrowser(t)}
	subscribeOK(t, k, clientCookie, devices["/push/client"], recv.endpoint("client"))
	subscribeOK(t, k, camCookie, devices["/push/camello"], recv.endpoint("camello"))

	job := k.CreateJob(testkit.JobOpts{Client: client, Provider: camello, Status: "ASIGNADO"})
	start := time.Now().UTC().Add(2 * time.Hour).Truncate(time.Minute)
	k.CreateRecord("appointments", map[string]any{
		"job": job.Id, "camello": camello.Id, "client": client.Id,
		"start": start, "end": start.Add(time.Hour), "status": "PROGRAMADA",
	})
	res := k.Do(testkit.Req{Method: http.MethodPost, Path: "/api/cron/appointment-reminders",
		Headers: map[string]string{"Authorization": "Bearer secreto-recordatorios"}})
	if res.Status != http.StatusOK || res.Get("sent") != 1.0 {
		t.Fatalf("sweep: %d %s", res.Status, res.Raw)
	}
	drain(t, k)
	got := recv.requests()
	if len(got) != 2 {
		t.Fatalf("pushes = %d, want 2", len(got))
	}
	for _, r := range got {
		b := devices[r.Path]
		if b == nil {
			t.Fatalf("push to %s", r.Path)
		}
		plain, err := b.decrypt(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		_ = json.Unmarshal(plain, &p)
		if p["kind"] != "APPOINTMENT_REMINDER" || p["title"] == "" || r.Header.Get("Urgency") != "high" || r.Header.Get("TTL") != "86400" {
			t.Errorf("%s: payload %v, Urgency %q, TTL %q", r.Path, p, r.Header.Get("Urgency"), r.Header.Get("TTL"))
		}
	}
}
