package appointments_test

import (
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/internal/timefmt"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
)

// TestReminderClaimLeavesTheChangeCounter: the appointments table's
// UPDATE change counter (the foreign-commit signal of the projections,
// issue 22) counts a change of every column but reminderSentAt and
// updated (migration 1764400400: the reminder claim writes only those, per
// row), whichever column a later migration adds; raw SQL of any column
// else still counts, once per row.
func TestReminderClaimLeavesTheChangeCounter(t *testing.T) {
	k := testkit.New(t)
	var cols []string
	if err := k.App.DB().NewQuery("SELECT name FROM pragma_table_info('appointments')").Column(&cols); err != nil {
		t.Fatal(err)
	}
	var sql string
	if err := k.App.DB().NewQuery("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'change_counter_appointments_UPDATE'").Row(&sql); err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(sql, " ON appointments")
	for _, c := range cols {
		listed := strings.Contains(head, "`"+c+"`")
		if want := c != "reminderSentAt" && c != "updated"; listed != want {
			t.Errorf("column %s listed %v in the counter's trigger, want %v: %s", c, listed, want, sql)
		}
	}

	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	_, camello, _ := k.CreateCamello()
	job := k.CreateJob(testkit.JobOpts{Client: k.CreateUser(users.RoleClient), Provider: camello, Status: "ASIGNADO"})
	for i := 0; i < 3; i++ {
		start := now.Add(time.Duration(i+1) * time.Hour)
		_, err := k.App.DB().Insert("appointments", dbx.Params{
			"id": "apptcounter000" + string(rune('a'+i)), "job": job.Id, "camello": job.GetString("provider"),
			"client": job.GetString("client"), "start": timefmt.DB(start), "end": timefmt.DB(start.Add(time.Hour)),
			"status": "PROGRAMADA", "reminderSentAt": "", "created": timefmt.DB(now), "updated": timefmt.DB(now),
		}).Execute()
		if err != nil {
			t.Fatal(err)
		}
	}
	counter := func() int {
		var n int
		if err := k.App.DB().NewQuery("SELECT n FROM change_counters WHERE tbl = 'appointments'").Row(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	cases := []struct {
		name string
		set  string
		want int // added to the counter by the UPDATE of the three rows
	}{
		{"the reminder claim's columns", "reminderSentAt = {:now}, updated = {:now}", 0},
		{"updated alone", "updated = {:now}", 0},
		{"status", "status = 'CANCELADA'", 3},
		{"start with updated", "start = {:now}, updated = {:now}", 3},
		{"reminderSentAt with end", "reminderSentAt = '', end = {:now}", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := counter()
			if _, err := k.App.DB().NewQuery("UPDATE appointments SET " + c.set + " WHERE id GLOB 'apptcounter000*'").
				Bind(dbx.Params{"now": timefmt.DB(now)}).Execute(); err != nil {
				t.Fatal(err)
			}
			if got := counter() - before; got != c.want {
				t.Fatalf("counter moved by %d, want %d", got, c.want)
			}
		})
	}
}
