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

// TestReminderQueriesUseTheirIndexes: the sweep's read of the next due
// batch walks the partial index of due appointments in (start, rowid)
// order from its cursor, without a sort or a table scan, and its claim
// reaches each listed row by rowid.
func TestReminderQueriesUseTheirIndexes(t *testing.T) {
	k := testkit.New(t)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	until := now.Add(jobs.ReminderWindow)
	plan := func(t *testing.T, query string, params dbx.Params) string {
		t.Helper()
		var rows []struct {
			Detail string `db:"detail"`
		}
		if err := k.App.DB().NewQuery("EXPLAIN QUERY PLAN " + query).Bind(params).All(&rows); err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, p := range rows {
			lines = append(lines, p.Detail)
		}
		return strings.Join(lines, "\n")
	}
	cases := []struct {
		name   string
		query  string
		params dbx.Params
		want   string
	}{
		{"first batch", appointments.DueQuery(""), appointments.DueParams(now, until, "", 0, 1000), "idx_appointments_reminder_due"},
		{"batch after a cursor", appointments.DueQuery(""), appointments.DueParams(now, until, timefmt.DB(now.Add(time.Hour)), 1234, 1000), "idx_appointments_reminder_due"},
		{"claim", appointments.ClaimListedQuery, dbx.Params{"rows": "[1,2,3]", "now": timefmt.DB(now), "until": timefmt.DB(until)}, "INTEGER PRIMARY KEY"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			all := plan(t, c.query, c.params)
			if !strings.Contains(all, c.want) {
				t.Fatalf("plan does not use %s:\n%s", c.want, all)
			}
			if strings.Contains(all, "TEMP B-TREE") {
				t.Errorf("plan sorts instead of walking the index in order:\n%s", all)
			}
			if strings.Contains(all, "SCAN a\n") || strings.HasSuffix(all, "SCAN a") || strings.Contains(all, "SCAN appointments") {
				t.Errorf("plan scans the table:\n%s", all)
			}
			t.Logf("plan:\n%s", all)
		})
	}
}
