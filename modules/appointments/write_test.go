package appointments_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/appointments"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// TestWrites drives every write of the owner directly: create (a double
// booking is ErrSlotTaken), reschedule, cancel, close, and the Changed
// event, which fires once the write has committed.
func TestWrites(t *testing.T) {
	k := testkit.New(t)
	client := k.CreateUser(users.RoleClient)
	_, camello, _ := k.CreateCamello()
	job := k.CreateJob(testkit.JobOpts{Client: client, Provider: camello, Status: "ASIGNADO"})
	now := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	at := func(h int) time.Time { return time.Date(2026, 11, 24, h, 0, 0, 0, time.UTC) }
	var mu sync.Mutex
	changed := []string{}
	appointments.EventsOf(k.App).Changed.BindFunc(func(e *appointments.ChangedEvent) error {
		mu.Lock()
		changed = append(changed, e.CamelloIDs...)
		mu.Unlock()
		return e.Next()
	})
	seen := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := len(changed)
		changed = changed[:0]
		return n
	}
	n := appointments.New{Job: job.Id, Camello: camello.Id, Client: client.Id, Start: at(13)}

	a, err := appointments.Create(k.App, n)
	if err != nil || a.Status() != appointments.Scheduled || !a.End().Equal(at(14)) || a.JobID() != job.Id {
		t.Fatalf("create: %v %v", a, err)
	}
	if seen() != 1 {
		t.Fatal("create did not fire Changed")
	}
	if _, err := appointments.Create(k.App, n); !errors.Is(err, appointments.ErrSlotTaken) {
		t.Fatalf("double booking: %v", err)
	}
	// A stranger's appointment on the job is refused by the jobs listener.
	other := k.CreateUser(users.RoleClient)
	if _, err := appointments.Create(k.App, appointments.New{Job: job.Id, Camello: camello.Id, Client: other.Id, Start: at(15)}); err == nil {
		t.Fatal("foreign client saved")
	}
	seen()

	// Reschedule inside a transaction: Changed fires after the commit.
	err = k.App.RunInTransaction(func(tx core.App) error {
		ok, err := appointments.Reschedule(tx, a.Id, at(16), now)
		if err != nil || !ok {
			t.Fatalf("reschedule: %v %v", ok, err)
		}
		if seen() != 0 {
			t.Fatal("Changed fired before the commit")
		}
		return nil
	})
	if err != nil || seen() != 1 {
		t.Fatalf("after commit: %v", err)
	}
	moved, _ := appointments.Find(k.App, a.Id)
	if !moved.Start().Equal(at(16)) || !moved.End().Equal(at(17)) || !moved.ReminderSentAt().IsZero() {
		t.Fatalf("moved: %v %v", moved.Start(), moved.End())
	}
	// A move onto a booked start is ErrSlotTaken; a started one does not move.
	b, err := appointments.Create(k.App, appointments.New{Job: job.Id, Camello: camello.Id, Client: client.Id, Start: at(13)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := appointments.Reschedule(k.App, a.Id, at(13), now); !errors.Is(err, appointments.ErrSlotTaken) {
		t.Fatalf("onto a booked start: %v", err)
	}
	if ok, err := appointments.Reschedule(k.App, a.Id, at(15), at(16).Add(time.Minute)); ok || err != nil {
		t.Fatalf("started moved: %v %v", ok, err)
	}

	// Cancel one, then close the job: past → COMPLETADA, future → CANCELADA.
	if ok, err := appointments.Cancel(k.App, b.Id, now); !ok || err != nil {
		t.Fatalf("cancel: %v %v", ok, err)
	}
	if ok, _ := appointments.Cancel(k.App, b.Id, now); ok {
		t.Fatal("cancelled twice")
	}
	c, err := appointments.Create(k.App, appointments.New{Job: job.Id, Camello: camello.Id, Client: client.Id, Start: at(13)})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := appointments.FutureOfJob(k.App, job.Id, now); n != 2 {
		t.Fatalf("future of job: %d", n)
	}
	seen()
	if err := appointments.CloseOfJob(k.App, job.Id, at(14)); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{a.Id: appointments.Cancelled, b.Id: appointments.Cancelled, c.Id: appointments.Completed} {
		if got, _ := appointments.Find(k.App, id); got.Status() != want {
			t.Fatalf("%s is %s, want %s", id, got.Status(), want)
		}
	}
	if seen() == 0 {
		t.Fatal("close did not fire Changed")
	}
	// The state machine: a closed appointment stays closed.
	rec, _ := appointments.Find(k.App, c.Id)
	rec.Set("status", appointments.Scheduled)
	if err := k.App.Save(rec.Record); err == nil {
		t.Fatal("COMPLETADA → PROGRAMADA saved")
	}
	if appointments.CanMove(appointments.Cancelled, appointments.Completed) || !appointments.CanMove(appointments.Scheduled, appointments.Completed) {
		t.Fatal("CanMove")
	}
}
