package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Payments of jobs (issue 23), owned by modules/payments: one row per
// attempt to pay a job, written before the gateway is called (its id is
// the external_reference and the idempotency key sent to Mercado Pago).
//
//   - idx_payments_live: one live payment per job (every state but
//     REEMBOLSADO): of two racing "pay" requests one inserts, the
//     other finds the winner's row.
//   - idx_payments_gateway: a gateway payment id belongs to one payment.
//   - notifications get the kind PAYMENT (money events).
func init() {
	m.Register(func(app core.App) error {
		c := core.NewBaseCollection("payments")
		c.Fields.Add(
			&core.TextField{Name: "job", Required: true, Max: 15},
			&core.TextField{Name: "client", Required: true, Max: 15},
			&core.TextField{Name: "camello", Required: true, Max: 15},
			&core.NumberField{Name: "amount", Required: true, OnlyInt: true},
			&core.TextField{Name: "currency", Required: true, Max: 3},
			&core.TextField{Name: "method", Required: true, Max: 20},
			&core.TextField{Name: "status", Required: true, Max: 20},
			&core.TextField{Name: "preferenceId", Max: 100},
			&core.TextField{Name: "checkoutUrl", Max: 1000},
			&core.TextField{Name: "gatewayPaymentId", Max: 40},
			&core.TextField{Name: "gatewayStatus", Max: 40},
			&core.TextField{Name: "gatewayDetail", Max: 100},
			&core.NumberField{Name: "heldAmount", OnlyInt: true},
			&core.TextField{Name: "heldAt", Max: 30},
			&core.NumberField{Name: "commission", OnlyInt: true},
			&core.TextField{Name: "releasedAt", Max: 30},
			&core.TextField{Name: "checkedAt", Max: 30},
			&core.TextField{Name: "createdAt", Required: true, Max: 30},
			&core.TextField{Name: "updatedAt", Required: true, Max: 30},
		)
		c.AddIndex("idx_payments_live", true, "job", "status != 'REEMBOLSADO'")
		c.AddIndex("idx_payments_gateway", true, "gatewayPaymentId", "gatewayPaymentId != ''")
		c.AddIndex("idx_payments_job", false, "job, createdAt", "")
		c.AddIndex("idx_payments_open", false, "status, checkedAt", "")
		if err := app.Save(c); err != nil {
			return err
		}
		return addNotificationKinds(app, "PAYMENT")
	}, func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("payments")
		if err != nil {
			return nil
		}
		return app.Delete(c)
	})
}
