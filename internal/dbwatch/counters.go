package dbwatch

import (
	"context"
	"database/sql/driver"
	"io"
	"sort"
)

// The per-table change counters (table change_counters, kept by SQLite
// triggers: internal/readmodel installs them) say which tables a foreign
// commit touched, so the registry drops only the projections built from
// them. The watcher keeps S, the counters as read before the reading that
// last settled who committed what:
//
//   - a fire drops the tables whose counters differ between S and a reading
//     taken after the detection (so it covers every commit up to it), and S
//     becomes the reading taken before the detection: a commit between the
//     two is counted again at the next fire (an extra drop, never a miss);
//   - an own commit that finds no foreign commit advances S to the reading
//     taken before its probe: every foreign commit before that reading was
//     fired already (dbwatch's rule), so nothing is hidden by it.
//
// Without the table, or with fewer triggers than counted tables (a
// migration that rebuilt a table drops its triggers until readmodel puts
// them back), the tables are unknown: every projection is dropped.

// countersQuery reads the counters and how many counter triggers exist.
const countersQuery = "SELECT tbl, n FROM change_counters UNION ALL " +
	"SELECT '', COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name GLOB 'change_counter_*'"

// counters is one reading (nil: unknown).
type counters map[string]int64

// readCounters reads the counters on a driver connection; nil when they
// cannot tell (no table, missing triggers, an error).
func readCounters(c driver.Conn) counters {
	q, ok := c.(driver.QueryerContext)
	if !ok || c == nil {
		return nil
	}
	rows, err := q.QueryContext(context.Background(), countersQuery, nil)
	if err != nil {
		return nil
	}
	defer rows.Close()
	out := counters{}
	triggers := int64(-1)
	vals := make([]driver.Value, 2)
	for {
		if err := rows.Next(vals); err != nil {
			if err != io.EOF {
				return nil
			}
			break
		}
		name, _ := vals[0].(string)
		n, _ := vals[1].(int64)
		if name == "" {
			triggers = n
			continue
		}
		out[name] = n
	}
	if len(out) == 0 || triggers < 3*int64(len(out)) {
		return nil
	}
	return out
}

// changed is the tables whose counters differ between old and now (nil:
// unknown, every table).
func changed(old, now counters) []string {
	if old == nil || now == nil {
		return nil
	}
	out := []string{}
	for t, n := range now {
		if o, ok := old[t]; !ok || o != n {
			out = append(out, t)
		}
	}
	for t := range old {
		if _, ok := now[t]; !ok {
			return nil // a counter went away: unknown
		}
	}
	sort.Strings(out)
	return out
}
