package quotes_test

import (
	"strings"
	"testing"

	"camellos/internal/testkit"
)

// TestQueryPlans: the board, the quotes of a job and a job's messages are
// read through their indexes, never a scan of the whole table.
func TestQueryPlans(t *testing.T) {
	k := testkit.New(t)
	plans := map[string]string{
		"SELECT id FROM jobs INDEXED BY idx_jobs_open WHERE service IN ('a','b') AND status = 'PENDIENTE' AND provider = '' ORDER BY created DESC, id DESC LIMIT 20": "idx_jobs_open",
		"SELECT * FROM quotes WHERE job = 'x' ORDER BY created DESC, id DESC":                                                                                        "idx_quotes_job",
		"SELECT * FROM messages WHERE job = 'x' ORDER BY created ASC, id ASC LIMIT 20":                                                                               "idx_messages_job",
		"SELECT * FROM messages WHERE job = 'x' AND camello = 'c' ORDER BY created ASC, id ASC LIMIT 20":                                                             "idx_messages_thread",
	}
	for q, index := range plans {
		var rows []struct {
			Detail string `db:"detail"`
		}
		if err := k.App.DB().NewQuery("EXPLAIN QUERY PLAN " + q).All(&rows); err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, r := range rows {
			all = append(all, r.Detail)
		}
		plan := strings.Join(all, " | ")
		if !strings.Contains(plan, index) {
			t.Errorf("%s\n  plan: %s (want %s)", q, plan, index)
		}
	}
}
