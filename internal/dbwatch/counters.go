package dbwatch

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// The per-table change counters. internal/readmodel installs, on every
// table a projection is built from, the triggers change_counter_<table>_<op>
// (AFTER INSERT, UPDATE, DELETE) that add one to change_counters for any
// writer of any process. Each of this process's connections adds, for each
// of them, a TEMP trigger change_own_<table>_<op> on the same event (the
// same WHEN and UPDATE OF) that adds one to this process's row of
// change_own. A TEMP trigger lives in its connection only, so another
// process's writes move change_counters alone: n - own is the count of
// foreign writes per table, read in one statement (one snapshot).
//
// Without the tables, or with fewer counter triggers than three per
// counted table (a migration that rebuilt a table drops its triggers until
// readmodel puts them back), the tables are unknown: every projection is
// dropped.

// counters is one reading of the foreign counts per table (nil: unknown).
type counters map[string]int64

// countersQuery reads the global and own counts and the schema version
// (kind 0, 1, 2); prepared once on the probe.
const countersQuery = "SELECT 0, tbl, n FROM change_counters UNION ALL " +
	"SELECT 1, tbl, n FROM change_own WHERE proc = ? UNION ALL " +
	"SELECT 2, '', schema_version FROM pragma_schema_version"

// triggersQuery counts the counter triggers (read again when the schema
// version moved).
const triggersQuery = "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name GLOB 'change_counter_*'"

// changed is the tables whose foreign counts differ between old and now
// (nil: unknown, every table).
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

// installOwn puts the TEMP triggers of c in place, one per counter trigger
// (its event and condition copied from the stored text, up to BEGIN),
// after dropping those it had: a counter trigger may have been replaced.
func installOwn(c driver.Conn, proc string) error {
	q := c.(driver.QueryerContext)
	rows, err := q.QueryContext(context.Background(), "SELECT 'DROP TRIGGER temp.' || name FROM sqlite_temp_master "+
		"WHERE type = 'trigger' AND name GLOB 'change_own_*' UNION ALL SELECT sql FROM sqlite_master WHERE type = 'trigger' "+
		"AND name GLOB 'change_counter_*' AND EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'change_own')", nil)
	if err != nil {
		return err
	}
	var stmts []string
	vals := make([]driver.Value, 1)
	for rows.Next(vals) == nil {
		s, _ := vals[0].(string)
		if strings.HasPrefix(s, "DROP ") {
			stmts = append(stmts, s)
			continue
		}
		// CREATE TRIGGER change_counter_<table>_<op> <event> BEGIN ...
		name, rest, _ := strings.Cut(strings.TrimPrefix(s, "CREATE TRIGGER change_counter_"), " ")
		event, _, ok := strings.Cut(rest, " BEGIN ")
		i := strings.LastIndexByte(name, '_')
		if !ok || i < 0 || strings.ContainsAny(name, "'\"`") {
			rows.Close()
			return errors.New("dbwatch: unexpected counter trigger: " + s)
		}
		stmts = append(stmts, fmt.Sprintf("CREATE TEMP TRIGGER change_own_%s %s BEGIN INSERT INTO change_own (proc, tbl, n) "+
			"VALUES ('%s', '%s', 1) ON CONFLICT (proc, tbl) DO UPDATE SET n = n + 1; END", name, event, proc, name[:i]))
	}
	rows.Close()
	for _, s := range stmts {
		if _, err := c.(driver.ExecerContext).ExecContext(context.Background(), s, nil); err != nil {
			return err
		}
	}
	return nil
}
