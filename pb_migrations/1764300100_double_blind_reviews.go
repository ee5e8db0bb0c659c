package pb_migrations

import (
	"camellos/internal/bounds"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Two-way double-blind reviews (issue 23), owned by modules/camellos.
//
//   - reviews gains sealed and publishAt: a client's review of a job paid
//     through the platform is written sealed (hidden from the listing, the
//     rating and the search text) until the camello reviews the client too
//     or publishAt (7 days after the completion) passes. Existing reviews
//     and reviews of jobs with no payment stay unsealed: published at once.
//   - client_reviews: the camello's review of the client, same shape, read
//     only by its author and, once published, by the client it is about.
//   - idx_*_due: the publication sweep's scan (sealed past publishAt).
//   - payments gains cashConfirmedAt (the client confirmed a cash payment
//     the camello recorded) and duplicateDue (a second approved gateway
//     payment for one checkout is to be refunded; the sweep retries it),
//     owned by modules/payments.
func init() {
	m.Register(func(app core.App) error {
		reviews, err := app.FindCollectionByNameOrId("reviews")
		if err != nil {
			return err
		}
		reviews.Fields.Add(&core.BoolField{Name: "sealed"}, &core.TextField{Name: "publishAt", Max: 30})
		reviews.AddIndex("idx_reviews_due", false, "publishAt", "sealed = TRUE")
		if err := app.Save(reviews); err != nil {
			return err
		}
		jobs, err := app.FindCollectionByNameOrId("jobs")
		if err != nil {
			return err
		}
		users, err := app.FindCollectionByNameOrId("users")
		if err != nil {
			return err
		}
		camellos, err := app.FindCollectionByNameOrId("camellos")
		if err != nil {
			return err
		}
		one, five := 1.0, 5.0
		cr := core.NewBaseCollection("client_reviews", "camellos_clientrv")
		cr.Fields.Add(
			&core.RelationField{Name: "job", CollectionId: jobs.Id, MaxSelect: 1, Required: true, CascadeDelete: true},
			&core.RelationField{Name: "camello", CollectionId: camellos.Id, MaxSelect: 1, Required: true, CascadeDelete: true},
			&core.RelationField{Name: "client", CollectionId: users.Id, MaxSelect: 1, Required: true, CascadeDelete: true},
			&core.NumberField{Name: "rating", Min: &one, Max: &five, OnlyInt: true, Required: true},
			&core.TextField{Name: "comment", Max: bounds.ReviewCommentMax},
			&core.BoolField{Name: "sealed"},
			&core.TextField{Name: "publishAt", Max: 30},
			&core.AutodateField{Name: "created", OnCreate: true},
		)
		cr.AddIndex("idx_client_reviews_job", true, "job", "")
		cr.AddIndex("idx_client_reviews_client", false, "client, created", "")
		cr.AddIndex("idx_client_reviews_due", false, "publishAt", "sealed = TRUE")
		if err := app.Save(cr); err != nil {
			return err
		}
		payments, err := app.FindCollectionByNameOrId("payments")
		if err != nil {
			return err
		}
		payments.Fields.Add(&core.TextField{Name: "cashConfirmedAt", Max: 30}, &core.BoolField{Name: "duplicateDue"})
		payments.AddIndex("idx_payments_duplicate_due", false, "duplicateDue", "duplicateDue = TRUE")
		return app.Save(payments)
	}, func(app core.App) error {
		if c, err := app.FindCollectionByNameOrId("client_reviews"); err == nil {
			if err := app.Delete(c); err != nil {
				return err
			}
		}
		if c, err := app.FindCollectionByNameOrId("payments"); err == nil {
			c.Fields.RemoveByName("cashConfirmedAt")
			c.Fields.RemoveByName("duplicateDue")
			c.RemoveIndex("idx_payments_duplicate_due")
			if err := app.Save(c); err != nil {
				return err
			}
		}
		c, err := app.FindCollectionByNameOrId("reviews")
		if err != nil {
			return nil
		}
		c.Fields.RemoveByName("sealed")
		c.Fields.RemoveByName("publishAt")
		c.RemoveIndex("idx_reviews_due")
		return app.Save(c)
	})
}
