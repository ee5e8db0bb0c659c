package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Payouts to camellos (issue 23), owned by modules/payments: one row per
// camello per batch, written with the ledger's payout in the same
// transaction (the balance leaves the camello's account at once, so a
// second batch finds nothing to pay); PENDIENTE until an admin marks it
// PAGADO (the bank paid) or FALLIDO (the payout is reversed in the ledger
// and the balance is owed again).
//
//   - idx_payouts_batch: a batch's rows (the bank file).
//   - idx_payouts_camello: a camello's payouts.
func init() {
	m.Register(func(app core.App) error {
		c := core.NewBaseCollection("payouts")
		c.Fields.Add(
			&core.TextField{Name: "batch", Required: true, Max: 15},
			&core.TextField{Name: "camello", Required: true, Max: 15},
			&core.NumberField{Name: "amount", Required: true, OnlyInt: true},
			&core.TextField{Name: "status", Required: true, Max: 20},
			&core.TextField{Name: "ledgerTx", Max: 15},
			&core.TextField{Name: "createdBy", Max: 15},
			&core.TextField{Name: "createdAt", Required: true, Max: 30},
			&core.TextField{Name: "settledBy", Max: 15},
			&core.TextField{Name: "settledAt", Max: 30},
			&core.TextField{Name: "reference", Max: 100},
		)
		c.AddIndex("idx_payouts_batch", false, "batch, camello", "")
		c.AddIndex("idx_payouts_camello", false, "camello, createdAt", "")
		return app.Save(c)
	}, func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("payouts")
		if err != nil {
			return nil
		}
		return app.Delete(c)
	})
}
