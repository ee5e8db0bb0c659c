package notifications_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"camellos/internal/pushtest"
	"camellos/internal/testkit"
	"camellos/modules/users"
)

// TestReminderSweepIsPushed: the appointment reminders written by the jobs
// module (endpoint 5) reach the client's and the camello's devices as
// high-urgency pushes with a 24 h TTL.
func TestReminderSweepIsPushed(t *testing.T) {
	t.Setenv("CRON_SECRET", "secreto-recordatorios")
	recv := newReceiver(t)
	k := newKit(t, recv)
	client, clientCookie := k.UserWithSession(users.RoleClient)
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
		_ = pushtest.Into(plain, &p)
		if p["kind"] != "APPOINTMENT_REMINDER" || p["title"] == "" || r.Header.Get("Urgency") != "high" || r.Header.Get("TTL") != "86400" {
			t.Errorf("%s: payload %v, Urgency %q, TTL %q", r.Path, p, r.Header.Get("Urgency"), r.Header.Get("TTL"))
		}
	}
}

// TestReminderSweepBulkPush: reminders written by the sweep's bulk path
// (NotifyMany, raw inserts that fire no record hook) are still pushed
// after the commit, decrypt fine and carry the id of the client's inbox
// row; the camello, without a subscription, gets the inbox rows only.
func TestReminderSweepBulkPush(t *testing.T) {
	t.Setenv("CRON_SECRET", "secreto-bulk")
	recv := newReceiver(t)
	k := newKit(t, recv)
	client, clientCookie := k.UserWithSession(users.RoleClient)
	camUser, camello, _ := k.CreateCamello()
	device := newBrowser(t)
	subscribeOK(t, k, clientCookie, device, recv.endpoint("client"))
	job := k.CreateJob(testkit.JobOpts{Client: client, Provider: camello, Status: "ASIGNADO"})
	base := time.Now().UTC().Add(time.Hour).Truncate(time.Minute)
	for i := 0; i < 3; i++ {
		start := base.Add(time.Duration(i) * 2 * time.Hour)
		k.CreateRecord("appointments", map[string]any{
			"job": job.Id, "camello": camello.Id, "client": client.Id,
			"start": start, "end": start.Add(time.Hour), "status": "PROGRAMADA",
		})
	}
	res := k.Do(testkit.Req{Method: http.MethodPost, Path: "/api/cron/appointment-reminders",
		Headers: map[string]string{"Authorization": "Bearer secreto-bulk"}})
	if res.Status != http.StatusOK || res.Get("sent") != 3.0 {
		t.Fatalf("sweep: %d %s", res.Status, res.Raw)
	}
	drain(t, k)
	inbox := map[string]bool{}
	recs, err := k.App.FindRecordsByFilter("notifications", "user = {:u}", "", 0, 0, map[string]any{"u": client.Id})
	if err != nil || len(recs) != 3 {
		t.Fatalf("client inbox: %d %v", len(recs), err)
	}
	for _, r := range recs {
		inbox[r.Id] = true
	}
	if n := k.Count("notifications", "user = {:u} AND kind = 'APPOINTMENT_REMINDER'", map[string]any{"u": camUser.Id}); n != 3 {
		t.Fatalf("camello inbox rows = %d, want 3", n)
	}
	got := recv.requests()
	if len(got) != 3 {
		t.Fatalf("pushes = %d, want 3 (the client's only)", len(got))
	}
	for _, r := range got {
		if r.Path != "/push/client" || r.Header.Get("Urgency") != "high" || r.Header.Get("TTL") != "86400" {
			t.Errorf("push %s Urgency %q TTL %q", r.Path, r.Header.Get("Urgency"), r.Header.Get("TTL"))
		}
		plain, err := device.decrypt(r.Body)
		if err != nil {
			t.Fatalf("decrypt: %v", err)
		}
		var p map[string]any
		if err := pushtest.Into(plain, &p); err != nil {
			t.Fatal(err)
		}
		id, _ := p["id"].(string)
		if !inbox[id] || p["kind"] != "APPOINTMENT_REMINDER" || p["title"] != "Recordatorio de cita" ||
			!strings.HasPrefix(p["body"].(string), "Tienes una cita el ") || p["url"] == "" {
			t.Errorf("payload %v", p)
		}
		delete(inbox, id) // each inbox row pushed once
	}
}
