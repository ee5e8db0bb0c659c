package pb_migrations

import (
	"camellos/internal/bounds"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Issue 24: an admin rejecting a camello gives a reason, stored on the
// camello (rejectionReason, owned by modules/camellos) and mailed to it.
func init() {
	m.Register(func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("camellos")
		if err != nil {
			return err
		}
		c.Fields.Add(&core.TextField{Name: "rejectionReason", Max: bounds.RejectionReasonMax})
		return app.Save(c)
	}, func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("camellos")
		if err != nil {
			return err
		}
		c.Fields.RemoveByName("rejectionReason")
		return app.Save(c)
	})
}
