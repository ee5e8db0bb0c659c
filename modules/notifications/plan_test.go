package notifications_test

import (
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/notifications"

	"github.com/pocketbase/dbx"
)

// TestPushClaimUsesTheIdIndex: the push worker's claim of a batch reaches
// each listed row through the id index, not through a range of the
// (status, nextAttemptAt) index, which holds every due row of a
// broadcast (100,000 rows read per claim of 500).
func TestPushClaimUsesTheIdIndex(t *testing.T) {
	k := testkit.New(t)
	var rows []struct {
		Detail string `db:"detail"`
	}
	err := k.App.DB().NewQuery("EXPLAIN QUERY PLAN " + notifications.ClaimPushQuery).Bind(dbx.Params{
		"until": "2026-11-28 12:00:00.000Z", "ids": `["a","b"]`, "pending": "PENDIENTE", "now": "2026-11-28 11:00:00.000Z",
	}).All(&rows)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range rows {
		lines = append(lines, r.Detail)
	}
	plan := strings.Join(lines, "\n")
	if !strings.Contains(plan, "(id=?)") {
		t.Errorf("the claim does not reach its rows by id:\n%s", plan)
	}
	if strings.Contains(plan, "idx_push_outbox_due") || strings.Contains(plan, "SCAN push_outbox") {
		t.Errorf("the claim walks the due rows:\n%s", plan)
	}
	t.Logf("plan:\n%s", plan)
}
