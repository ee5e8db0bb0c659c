package payments

import (
	"database/sql"
	"errors"

	"camellos/internal/clock"
	"camellos/internal/writer"
	"camellos/modules/jobs"
	"camellos/modules/ledger"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Gateway payment statuses (Mercado Pago's status field).
const (
	gwApproved    = "approved"
	gwRefunded    = "refunded"
	gwChargedBack = "charged_back"
)

// Outcome is what applying a gateway payment changed.
type Outcome string

// Outcomes of Apply.
const (
	OutcomeHeld      Outcome = "held"      // RETENIDO now, charge and hold written
	OutcomeRefunded  Outcome = "refunded"  // REEMBOLSADO now, refund written
	OutcomePending   Outcome = "pending"   // still waiting (status detail recorded)
	OutcomeDuplicate Outcome = "duplicate" // a second approved gateway payment: charged to the client's account, to be refunded
	OutcomeNone      Outcome = "none"      // nothing to change (seen before, or stale)
)

// Apply brings our payment in line with the gateway's payment gp, read
// from the gateway itself (a webhook only tells which payment changed).
// The webhook, the client's return and the sweep all call it; each
// transition is one conditional UPDATE in the transaction that writes the
// ledger movements (keyed by payment: charge and hold once, refund once),
// so duplicated, reordered, late or racing deliveries change things once
// and never move a payment backwards.
func Apply(app core.App, gp gatewayPayment) (Outcome, error) {
	out := OutcomeNone
	err := writer.Transaction(app, func(tx core.App) error {
		out = OutcomeNone
		p, err := Find(tx, gp.ExternalReference)
		if err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return errNotOurs
			}
			return err
		}
		now := dbTime(clock.Now(tx))
		params := dbx.Params{"id": p.Id, "gw": gp.ID, "status": gp.Status, "detail": gp.StatusDetail, "amount": gp.Amount, "now": now}
		switch gp.Status {
		case gwApproved:
			res, err := tx.DB().NewQuery("UPDATE payments SET status = 'RETENIDO', gatewayPaymentId = {:gw}, gatewayStatus = {:status}, " +
				"gatewayDetail = {:detail}, heldAmount = {:amount}, heldAt = {:now}, updatedAt = {:now} " +
				"WHERE id = {:id} AND status IN ('INICIADO', 'PENDIENTE')").Bind(params).Execute()
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				out = OutcomeHeld
				if err := hold(tx, p, gp); err != nil {
					return err
				}
				if err := openWindowIfDone(tx, p.JobID()); err != nil {
					return err
				}
				if job, err := jobs.Find(tx, p.JobID()); err == nil && job.Status() == jobs.StatusCancelled {
					// Paid for a job already cancelled (a cancellation racing
					// the payment): everything goes back.
					if _, err := settle(tx, p, settlement{From: []string{StatusHeld}, Everything: true, By: ByCancel,
						Conflict: MsgNotConfirmable}); err != nil {
						return err
					}
					refundAfterCommit(tx, p.Id)
				}
				return tell(tx, p, "Pago recibido",
					"Recibimos tu pago de "+Pesos(gp.Amount)+". Camellos lo guarda hasta que el trabajo esté hecho.",
					"El cliente pagó "+Pesos(gp.Amount)+". Camellos guarda el dinero y te lo entrega al terminar el trabajo.")
			}
			if p2, err := Find(tx, p.Id); err == nil && p2.GetString("gatewayPaymentId") != gp.ID {
				// The client paid twice in one checkout: the money arrived, so
				// it is charged (once, by gateway id) and owed back to the client.
				if _, fresh, err := charge(tx, p, gp); err != nil || !fresh {
					return err
				}
				out = OutcomeDuplicate
				tx.Logger().Warn("payments: a second approved payment for one payment, to be refunded", "payment", p.Id, "gateway", gp.ID)
				if _, err := tx.DB().NewQuery("UPDATE payments SET duplicateDue = TRUE WHERE id = {:id}").
					Bind(dbx.Params{"id": p.Id}).Execute(); err != nil {
					return err
				}
				duplicateRefundAfterCommit(tx, p.Id)
			}
			return nil
		case gwRefunded, gwChargedBack:
			res, err := tx.DB().NewQuery("UPDATE payments SET status = 'REEMBOLSADO', gatewayStatus = {:status}, gatewayDetail = {:detail}, " +
				"updatedAt = {:now} WHERE id = {:id} AND status IN ('RETENIDO', 'EN_DISPUTA') AND gatewayPaymentId = {:gw}").Bind(params).Execute()
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				out = OutcomeRefunded
				if err := refund(tx, p); err != nil {
					return err
				}
				return tell(tx, p, "Pago reembolsado",
					"Mercado Pago reembolsó tu pago de "+Pesos(gp.Amount)+".",
					"El pago del trabajo fue reembolsado al cliente.")
			}
			return nil
		default: // pending, in_process, authorized, in_mediation, rejected, cancelled…
			res, err := tx.DB().NewQuery("UPDATE payments SET status = 'PENDIENTE', gatewayStatus = {:status}, gatewayDetail = {:detail}, " +
				"updatedAt = {:now} WHERE id = {:id} AND status IN ('INICIADO', 'PENDIENTE') " +
				"AND (gatewayStatus != {:status} OR gatewayDetail != {:detail})").Bind(params).Execute()
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				out = OutcomePending
			}
			return nil
		}
	})
	return out, err
}

// charge writes the arrival of gateway payment gp (keyed by its gateway
// id): client_payments → the client's account.
func charge(tx core.App, p *Payment, gp gatewayPayment) (string, bool, error) {
	return ledger.Post(tx, ledger.Movement{Kind: ledger.KindCharge, Key: "charge:mp:" + gp.ID, Ref: p.Id,
		Memo: "Mercado Pago " + gp.ID,
		Lines: []ledger.Line{
			{Account: ledger.AccountClientPayments, Amount: gp.Amount},
			{Account: ledger.AccountOfClient(p.ClientID()), Amount: -gp.Amount},
		}})
}

// hold writes the charge of gp and its hold for the job.
func hold(tx core.App, p *Payment, gp gatewayPayment) error {
	if _, _, err := charge(tx, p, gp); err != nil {
		return err
	}
	_, _, err := ledger.Post(tx, ledger.Movement{Kind: ledger.KindHold, Key: "hold:" + p.Id, Ref: p.Id,
		Memo: "trabajo " + p.JobID(),
		Lines: []ledger.Line{
			{Account: ledger.AccountOfClient(p.ClientID()), Amount: gp.Amount},
			{Account: ledger.AccountOfHeld(p.Id), Amount: -gp.Amount},
		}})
	return err
}

// refund writes the return of everything still held for p.
func refund(tx core.App, p *Payment) error {
	held, err := ledger.Balance(tx, ledger.AccountOfHeld(p.Id))
	if err != nil || held >= 0 {
		return err
	}
	_, _, err = ledger.Post(tx, ledger.Movement{Kind: ledger.KindRefund, Key: "refund:" + p.Id, Ref: p.Id,
		Memo: "reembolso en Mercado Pago",
		Lines: []ledger.Line{
			{Account: ledger.AccountOfHeld(p.Id), Amount: -held},
			{Account: ledger.AccountClientPayments, Amount: held},
		}})
	return err
}
