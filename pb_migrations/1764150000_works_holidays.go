package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Festivos (issue 26): whether a camello works on Colombian public
// holidays. false (the default, and every saved availability's value
// after this migration) means no slots and no bookings on a festivo; the
// agenda owns the field and its rules.
func init() {
	m.Register(func(app core.App) error {
		availability, err := app.FindCollectionByNameOrId("availability")
		if err != nil {
			return err
		}
		availability.Fields.Add(&core.BoolField{Name: "worksHolidays"})
		return app.Save(availability)
	}, func(app core.App) error {
		availability, err := app.FindCollectionByNameOrId("availability")
		if err != nil {
			return err
		}
		availability.Fields.RemoveByName("worksHolidays")
		return app.Save(availability)
	})
}
