package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Cancellation policies (issue 23).
//
//   - camello_policies, owned by modules/payments: the policy each camello
//     chose (FLEXIBLE, MODERADA, ESTRICTA); a camello without a row has the
//     default (MODERADA). One row per camello (unique index).
//   - jobs.cancelledBy (owned by modules/jobs): the user who cancelled a
//     job (jobs.Cancel writes it; the payments area reads it in the
//     cancellation's transaction to apply the policy).
func init() {
	m.Register(func(app core.App) error {
		c := core.NewBaseCollection("camello_policies")
		c.Fields.Add(
			&core.TextField{Name: "camello", Required: true, Max: 15},
			&core.TextField{Name: "policy", Required: true, Max: 20},
			&core.TextField{Name: "updatedAt", Required: true, Max: 30},
		)
		c.AddIndex("idx_camello_policies_camello", true, "camello", "")
		if err := app.Save(c); err != nil {
			return err
		}
		jobs, err := app.FindCollectionByNameOrId("jobs")
		if err != nil {
			return err
		}
		jobs.Fields.Add(&core.TextField{Name: "cancelledBy", Max: 15})
		return app.Save(jobs)
	}, func(app core.App) error {
		if c, err := app.FindCollectionByNameOrId("camello_policies"); err == nil {
			if err := app.Delete(c); err != nil {
				return err
			}
		}
		jobs, err := app.FindCollectionByNameOrId("jobs")
		if err != nil {
			return nil
		}
		jobs.Fields.RemoveByName("cancelledBy")
		return app.Save(jobs)
	})
}
