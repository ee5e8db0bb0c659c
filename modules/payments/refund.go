package payments

import (
	"camellos/internal/clock"
	"context"

	"camellos/internal/writer"
	"camellos/modules/ledger"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// RefundBatch bounds the refunds one sweep retries.
const RefundBatch = 100

// MakeRefund has Mercado Pago refund what settle decided to give back for
// payment id (refundAmount), once: the gateway call carries the
// idempotency key refund:{payment}, so a retry after a crash or a timeout
// is the same refund at Mercado Pago; then one conditional UPDATE
// (refundedAt still empty) stamps it and, in the same transaction, the
// ledger's refund (key refund:mp:{payment}) moves the money out:
// client:<user> → client_payments. A refund already made, or none
// decided, does nothing. On failure nothing is written here: the sweep
// (RefundsDue) tries again.
func MakeRefund(app core.App, id string) error {
	p, err := Find(app, id)
	if err != nil {
		return err
	}
	amount := int64(p.GetInt("refundAmount"))
	if amount <= 0 || p.GetString("refundedAt") != "" {
		return nil
	}
	gw, err := gatewayOf(app)
	if err != nil {
		return err
	}
	whole := amount == int64(p.GetInt("heldAmount"))
	refundID, err := gw.refund(context.Background(), p.GetString("gatewayPaymentId"), amount, whole, "refund:"+p.Id)
	if err != nil {
		return err
	}
	return writer.Transaction(app, func(tx core.App) error {
		now := dbTime(clock.Now(tx))
		res, err := tx.DB().NewQuery("UPDATE payments SET refundedAt = {:now}, gatewayRefundId = {:rid}, updatedAt = {:now} " +
			"WHERE id = {:id} AND refundAmount > 0 AND refundedAt = ''").
			Bind(dbx.Params{"now": now, "rid": refundID, "id": p.Id}).Execute()
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil // another sweep or request got there first
		}
		_, _, err = ledger.Post(tx, ledger.Movement{Kind: ledger.KindRefund, Key: "refund:mp:" + p.Id, Ref: p.Id,
			Memo: "reembolso por Mercado Pago " + refundID,
			Lines: []ledger.Line{
				{Account: ledger.AccountOfClient(p.ClientID()), Amount: amount},
				{Account: ledger.AccountClientPayments, Amount: -amount},
			}})
		return err
	})
}

// RefundDuplicates has Mercado Pago refund, in full, every approved
// gateway payment of payment id other than the one it holds (a client who
// paid twice in one checkout: Apply charged the second to the client's
// account and set duplicateDue). Mercado Pago is asked for the payment's
// gateway payments (the source of truth, so a crash anywhere is retried
// by the sweep); each refund carries the idempotency key
// refund:dup:{gateway payment}, and its ledger movement (key
// refund:mp:dup:{gateway payment}: client:<user> → client_payments, with
// the charge written first if it was not yet) is written once. When every
// duplicate is refunded, duplicateDue is cleared.
func RefundDuplicates(app core.App, id string) error {
	p, err := Find(app, id)
	if err != nil {
		return err
	}
	gw, err := gatewayOf(app)
	if err != nil {
		return err
	}
	found, err := gw.paymentsOf(context.Background(), id)
	if err != nil {
		return err
	}
	held := p.GetString("gatewayPaymentId")
	for _, gp := range found {
		if gp.ID == held || gp.ExternalReference != p.Id || (gp.Status != gwApproved && gp.Status != gwRefunded) {
			continue
		}
		if gp.Status == gwApproved {
			if _, err := gw.refund(context.Background(), gp.ID, gp.Amount, true, "refund:dup:"+gp.ID); err != nil {
				return err
			}
		}
		err := writer.Transaction(app, func(tx core.App) error {
			if _, _, err := charge(tx, p, gp); err != nil {
				return err
			}
			_, fresh, err := ledger.Post(tx, ledger.Movement{Kind: ledger.KindRefund, Key: "refund:mp:dup:" + gp.ID, Ref: p.Id,
				Memo: "reembolso de un pago repetido, Mercado Pago " + gp.ID,
				Lines: []ledger.Line{
					{Account: ledger.AccountOfClient(p.ClientID()), Amount: gp.Amount},
					{Account: ledger.AccountClientPayments, Amount: -gp.Amount},
				}})
			if err != nil || !fresh {
				return err
			}
			return tell(tx, p, "Pago repetido reembolsado",
				"Pagaste dos veces el mismo trabajo: Mercado Pago te devuelve "+Pesos(gp.Amount)+" del segundo pago.", "")
		})
		if err != nil {
			return err
		}
	}
	return writer.Transaction(app, func(tx core.App) error {
		_, err := tx.DB().NewQuery("UPDATE payments SET duplicateDue = FALSE WHERE id = {:id}").Bind(dbx.Params{"id": p.Id}).Execute()
		return err
	})
}

// duplicateRefundAfterCommit runs RefundDuplicates for payment id once tx
// commits (the sweep retries it on failure).
func duplicateRefundAfterCommit(tx core.App, id string) {
	afterCommit(tx, id, "duplicate refund", RefundDuplicates)
}

// RefundsDue retries every refund decided and not yet made at Mercado
// Pago (a gateway outage, a crash after the decision); it answers how
// many were made now.
func RefundsDue(app core.App) (int, error) {
	var ids []string
	err := app.DB().NewQuery("SELECT id FROM payments WHERE refundAmount > 0 AND refundedAt = '' AND gatewayPaymentId != '' LIMIT {:n}").
		Bind(dbx.Params{"n": RefundBatch}).Column(&ids)
	if err != nil {
		return 0, err
	}
	made := 0
	for _, id := range ids {
		if err := MakeRefund(app, id); err != nil {
			app.Logger().Warn("payments: refund still due", "payment", id, "error", err.Error())
			continue
		}
		made++
	}
	var dups []string
	if err := app.DB().NewQuery("SELECT id FROM payments WHERE duplicateDue = TRUE LIMIT {:n}").
		Bind(dbx.Params{"n": RefundBatch}).Column(&dups); err != nil {
		return made, err
	}
	for _, id := range dups {
		if err := RefundDuplicates(app, id); err != nil {
			app.Logger().Warn("payments: duplicate refund still due", "payment", id, "error", err.Error())
			continue
		}
		made++
	}
	return made, nil
}
