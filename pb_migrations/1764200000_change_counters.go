package pb_migrations

import (
	"camellos/internal/readmodel"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Per-table change counters (issue 22): a table change_counters(tbl, n)
// and, on every table a projection is built from, AFTER INSERT, UPDATE and
// DELETE triggers that add one to its row. They fire for raw SQL of any
// process and replicate with the data, so a commit by another process
// drops only the in-memory projections of the tables it touched
// (internal/readmodel, internal/dbwatch). Not a collection: no API, no
// records. The service puts missing triggers back at every start (a later
// migration that makes PocketBase rebuild a table drops its triggers).
func init() {
	m.Register(func(app core.App) error {
		return readmodel.Install(app, readmodel.CountedTables)
	}, func(app core.App) error {
		var names []string
		if err := app.DB().NewQuery("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name GLOB 'change_counter_*'").
			Column(&names); err != nil {
			return err
		}
		for _, n := range names {
			if _, err := app.DB().NewQuery("DROP TRIGGER IF EXISTS " + n).Execute(); err != nil {
				return err
			}
		}
		_, err := app.DB().NewQuery("DROP TABLE IF EXISTS change_counters").Execute()
		return err
	})
}
