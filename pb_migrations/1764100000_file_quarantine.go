package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// file_quarantine (issue 21): one row per stored file moved aside because
// it breaks the upload policy (internal/imagecheck), written by
// modules/files.Quarantine; superusers only (the dashboard).
func init() {
	m.Register(func(app core.App) error {
		q := closed(core.NewBaseCollection("file_quarantine", "camellos_filequar"))
		q.Fields.Add(text("sourceCollection", 1, 100, true))
		q.Fields.Add(text("sourceRecord", 1, 100, true))
		q.Fields.Add(text("field", 1, 100, true))
		q.Fields.Add(text("file", 1, 300, true))
		q.Fields.Add(text("violation", 1, 50, true))
		q.Fields.Add(text("storedAt", 1, 600, true))
		timestamps(q, false)
		q.AddIndex("idx_file_quarantine_record", false, "sourceCollection, sourceRecord", "")
		return app.Save(q)
	}, func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("file_quarantine")
		if err != nil {
			return nil
		}
		return app.Delete(c)
	})
}
