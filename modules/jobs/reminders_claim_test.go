package jobs_test

import (
	"sort"
	"testing"
	"time"

	"camellos/internal/timefmt"
	"camellos/modules/appointments"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// TestReminderClaimOfWhatWasRead: the sweep reads a batch before the
// writer claims it; the claim changes, and the sweep reminds, only the
// read appointments still due and unreminded at the claim, each once,
// described as they are; an appointment claimed under a rowid that now
// names it although it was not read (a VACUUM renumbering rowids between
// the read and the claim) is reminded with its own columns.
func TestReminderClaimOfWhatWasRead(t *testing.T) {
	w := newWorld(t)
	k := w.k
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	until := now.Add(jobs.ReminderWindow)
	job := w.job("ASIGNADO")
	bulkAppointments(t, k, job, now.Add(time.Minute), 6)
	read, err := jobs.ReadDueBatch(k.App, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(read) != 6 {
		t.Fatalf("read %d due appointments, want 6", len(read))
	}
	for i := 1; i < len(read); i++ {
		if read[i-1].Start > read[i].Start {
			t.Fatalf("batch not in start order: %v", read)
		}
	}
	exec := func(sql string, params dbx.Params) {
		t.Helper()
		if _, err := k.App.DB().NewQuery(sql).Bind(params).Execute(); err != nil {
			t.Fatal(err)
		}
	}
	// After the read and before the claim, each of the first four changes.
	changes := []struct {
		name string
		do   func(id string)
	}{
		{"cancelled", func(id string) {
			if ok, err := appointments.Cancel(k.App, id, now); err != nil || !ok {
				t.Fatalf("cancel: %v %v", ok, err)
			}
		}},
		{"reminded by another sweep", func(id string) {
			exec("UPDATE appointments SET reminderSentAt = {:now} WHERE id = {:id}", dbx.Params{"now": timefmt.DB(now), "id": id})
		}},
		{"moved out of the window", func(id string) {
			if ok, err := appointments.Reschedule(k.App, id, until.Add(time.Hour), now); err != nil || !ok {
				t.Fatalf("reschedule: %v %v", ok, err)
			}
		}},
		{"started already", func(id string) {
			exec("UPDATE appointments SET start = {:start} WHERE id = {:id}", dbx.Params{"start": timefmt.DB(now.Add(-time.Minute)), "id": id})
		}},
	}
	for i, c := range changes {
		c.do(read[i].ID)
	}
	// read[5]'s rowid now names an appointment of the window that was not read.
	var unread []jobs.DueAppointment
	bulkAppointments(t, k, job, now.Add(2*time.Hour), 1)
	if err := k.App.DB().NewQuery("SELECT rowid AS rid, id, job, camello, client, start FROM appointments WHERE start = {:s}").
		Bind(dbx.Params{"s": timefmt.DB(now.Add(2 * time.Hour))}).All(&unread); err != nil || len(unread) != 1 {
		t.Fatalf("unread appointment: %v %v", unread, err)
	}
	renumbered := read[5]
	read[5].RowID = unread[0].RowID
	title := "Pintar la sala"
	exec("UPDATE jobs SET title = {:t} WHERE id = {:id}", dbx.Params{"t": title, "id": job.Id})

	rowids := make([]int64, len(read))
	for i, a := range read {
		rowids[i] = a.RowID
	}
	var due []jobs.DueAppointment
	err = k.App.RunInTransaction(func(tx core.App) error {
		ids, err := appointments.ClaimListed(tx, rowids, now, until)
		if err != nil {
			return err
		}
		due, err = jobs.ClaimedDue(tx, read, ids)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, a := range due {
		got = append(got, a.ID)
	}
	want := []string{read[4].ID, unread[0].ID}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("claimed %v, want %v (in start order)", got, want)
	}
	if due[1].Title != title || due[1].Start != unread[0].Start || due[1].Client != job.GetString("client") {
		t.Fatalf("the unread appointment is not described as it is: %+v", due[1])
	}
	if due[1].CamelloInfo == "" {
		t.Fatalf("the unread appointment has no camello: %+v", due[1])
	}
	// The appointment whose rowid was taken is still due: the next sweep
	// reminds it, and nothing else is left.
	sent, err := jobs.SendReminders(k.App, now)
	if err != nil {
		t.Fatal(err)
	}
	if sent != 1 {
		t.Fatalf("next sweep sent %d, want 1 (%s)", sent, renumbered.ID)
	}
	var left []string
	if err := k.App.DB().NewQuery("SELECT id FROM appointments WHERE reminderSentAt = '' AND status = 'PROGRAMADA' AND start > {:now} AND start <= {:until}").
		Bind(dbx.Params{"now": timefmt.DB(now), "until": timefmt.DB(until)}).Column(&left); err != nil {
		t.Fatal(err)
	}
	sort.Strings(left)
	if len(left) != 0 {
		t.Fatalf("left unreminded: %v", left)
	}
}
