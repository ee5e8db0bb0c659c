package appointments_test

import (
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/internal/timefmt"
	"camellos/modules/appointments"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
)

// TestReminderClaimUsesPartialIndex: the sweep's claim walks the partial
// index of due appointments instead of scanning the table.
func TestReminderClaimUsesPartialIndex(t *testing.T) {
	k := testkit.New(t)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var plan []struct {
		Detail string `db:"detail"`
	}
	err := k.App.DB().NewQuery("EXPLAIN QUERY PLAN " + appointments.ClaimDueQuery).Bind(dbx.Params{
		"now": timefmt.DB(now), "until": timefmt.DB(now.Add(jobs.ReminderWindow)), "limit": 1000,
	}).All(&plan)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, p := range plan {
		lines = append(lines, p.Detail)
	}
	all := strings.Join(lines, "\n")
	if !strings.Contains(all, "idx_appointments_reminder_due") {
		t.Fatalf("claim does not use idx_appointments_reminder_due:\n%s", all)
	}
	if strings.Contains(all, "TEMP B-TREE") {
		t.Errorf("claim sorts instead of walking the index in start order:\n%s", all)
	}
	t.Logf("plan:\n%s", all)
}
