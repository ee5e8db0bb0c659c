package readmodel

import (
	"fmt"
	"regexp"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// CountedTables are the tables the projections are built from, as the
// migration 1764200000 installs their counters; a projection that
// declares another table gets its counter at the next start (Install).
var CountedTables = []string{
	SchemaTable, "appointments", "availability", "camellos", "categories", "jobs",
	"messages", "quotes", "reviews", "services", "sessions", "users",
}

var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Install creates the change_counters table when missing and, for each
// table that exists, its row and the three triggers (AFTER INSERT, UPDATE,
// DELETE; FOR EACH ROW) that add one to it: raw SQL of any process counts
// as much as a record save. Idempotent; it writes only what is missing.
func Install(app core.App, tables []string) error {
	db := app.NonconcurrentDB()
	if _, err := db.NewQuery("CREATE TABLE IF NOT EXISTS change_counters (" +
		"tbl TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID").Execute(); err != nil {
		return err
	}
	// Each process's own writes, counted by TEMP triggers of its
	// connections (internal/dbwatch).
	if _, err := db.NewQuery("CREATE TABLE IF NOT EXISTS change_own (proc TEXT NOT NULL, tbl TEXT NOT NULL, " +
		"n INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (proc, tbl)) WITHOUT ROWID").Execute(); err != nil {
		return err
	}
	var have []string
	if err := db.NewQuery("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name GLOB 'change_counter_*'").
		Column(&have); err != nil {
		return err
	}
	exists := map[string]bool{}
	for _, h := range have {
		exists[h] = true
	}
	for _, t := range tables {
		if !tableName.MatchString(t) {
			return fmt.Errorf("readmodel: bad table name %q", t)
		}
		var n int
		if err := db.NewQuery("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = {:t}").
			Bind(dbx.Params{"t": t}).Row(&n); err != nil {
			return err
		}
		if n == 0 {
			continue // not created yet: its migration comes later
		}
		if _, err := db.NewQuery("INSERT OR IGNORE INTO change_counters (tbl, n) VALUES ({:t}, 0)").
			Bind(dbx.Params{"t": t}).Execute(); err != nil {
			return err
		}
		for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
			name := fmt.Sprintf("change_counter_%s_%s", t, op)
			if exists[name] {
				continue
			}
			q := fmt.Sprintf("CREATE TRIGGER IF NOT EXISTS %s AFTER %s ON %s FOR EACH ROW BEGIN "+
				"UPDATE change_counters SET n = n + 1 WHERE tbl = '%s'; END", name, op, t, t)
			if _, err := db.NewQuery(q).Execute(); err != nil {
				return err
			}
		}
	}
	return nil
}
