package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// idx_users_disabled holds the disabled (erased) users only (issue 27):
// the erasure check of a batch of recipients (the reminder sweep's 10,000
// users a batch, a broadcast's) probes it instead of reading every
// recipient's users row, and it stays as small as the number of disabled
// accounts.
func init() {
	m.Register(func(app core.App) error {
		users, err := app.FindCollectionByNameOrId("users")
		if err != nil {
			return err
		}
		users.AddIndex("idx_users_disabled", false, "id", "disabled = TRUE")
		return app.Save(users)
	}, func(app core.App) error {
		users, err := app.FindCollectionByNameOrId("users")
		if err != nil {
			return err
		}
		users.RemoveIndex("idx_users_disabled")
		return app.Save(users)
	})
}
