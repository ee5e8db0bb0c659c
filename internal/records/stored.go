// Package records holds helpers over PocketBase records shared by the
// owners of collections.
package records

import "github.com/pocketbase/pocketbase/core"

// Stored is the record as the database holds it before this save, read
// with app (the caller's transaction). PocketBase's Original() is only
// refreshed when a record is loaded, so a record object saved twice (or
// made with NewRecord and saved) would compare against stale data; the
// row is the truth. Original() is the fallback when the row cannot be read.
func Stored(app core.App, rec *core.Record) *core.Record {
	if id, _ := rec.LastSavedPK().(string); id != "" {
		if row, err := app.FindRecordById(rec.Collection(), id); err == nil {
			return row
		}
	}
	return rec.Original()
}
