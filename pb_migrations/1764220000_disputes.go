package pb_migrations

import (
	"camellos/internal/bounds"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Completion and disputes of held payments (issue 23), owned by
// modules/payments: when the camello marks the job done the payment gets
// completedAt and disputeUntil (the client's window to confirm or dispute);
// a dispute (EN_DISPUTA) keeps who, when and why; an admin's resolution
// keeps its outcome, author, time and note; a refund we decide keeps its
// amount and, once Mercado Pago made it, when and its refund id.
//
//   - idx_payments_due: the release sweep's scan (RETENIDO past disputeUntil).
//   - idx_payments_refund_due: refunds decided and not yet made at Mercado Pago.
func init() {
	m.Register(func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("payments")
		if err != nil {
			return err
		}
		c.Fields.Add(
			&core.TextField{Name: "completedAt", Max: 30},
			&core.TextField{Name: "disputeUntil", Max: 30},
			&core.TextField{Name: "releasedBy", Max: 20},
			&core.TextField{Name: "disputedAt", Max: 30},
			&core.TextField{Name: "disputeReason", Max: bounds.DisputeReasonMax},
			&core.TextField{Name: "resolution", Max: 20},
			&core.TextField{Name: "resolvedBy", Max: 15},
			&core.TextField{Name: "resolvedAt", Max: 30},
			&core.TextField{Name: "resolutionNote", Max: bounds.ResolutionNoteMax},
			&core.NumberField{Name: "refundAmount", OnlyInt: true},
			&core.TextField{Name: "refundedAt", Max: 30},
			&core.TextField{Name: "gatewayRefundId", Max: 40},
		)
		c.AddIndex("idx_payments_due", false, "status, disputeUntil", "")
		c.AddIndex("idx_payments_refund_due", false, "refundedAt", "refundAmount > 0")
		return app.Save(c)
	}, func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("payments")
		if err != nil {
			return nil
		}
		for _, f := range []string{"completedAt", "disputeUntil", "releasedBy", "disputedAt", "disputeReason", "resolution",
			"resolvedBy", "resolvedAt", "resolutionNote", "refundAmount", "refundedAt", "gatewayRefundId"} {
			c.Fields.RemoveByName(f)
		}
		c.RemoveIndex("idx_payments_due")
		c.RemoveIndex("idx_payments_refund_due")
		return app.Save(c)
	})
}
