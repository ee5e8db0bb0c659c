package payments

import (
	"camellos/internal/clock"
	"database/sql"
	"errors"
	"strings"

	"camellos/internal/config"
	"camellos/internal/httpapi"
	"camellos/internal/writer"
	"camellos/modules/ledger"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Who settled a held payment (releasedBy).
const (
	ByAdmin   = "ADMIN"       // an admin's release
	ByClient  = "CLIENTE"     // the client confirmed the work
	ByWindow  = "VENCIMIENTO" // the dispute window ended in silence
	ByDispute = "DISPUTA"     // an admin resolved a dispute
	ByCancel  = "CANCELACION" // the job was cancelled (the cancellation policy)
)

// settlement is how a held payment ends: Refund pesos go back to the
// client, the rest is released to the camello minus the commission.
type settlement struct {
	// From are the states the payment may be in (the conditional UPDATE's guard).
	From []string
	// Where adds a condition to that guard (SQL over the payments row,
	// with {:now} bound): "completedAt != ''", "disputeUntil <= {:now}".
	Where string
	// Refund is what goes back to the client (0 to everything held).
	Refund int64
	// Everything refunds all that is held, whatever it is.
	Everything bool
	By         string
	// Resolution, ResolvedBy, Note: an admin's resolution of a dispute.
	Resolution, ResolvedBy, Note string
	// Conflict is the 409 message when the guard does not hold.
	Conflict string
	// tell writes the notifications (in the transaction).
	tell func(tx core.App, p *Payment, released, fee, refund int64) error
}

// settle ends the held payment p in the transaction tx with one
// conditional UPDATE (its guard: s.From and s.Where), so of racing
// settlements (a confirmation and the window's sweep, two admins) exactly
// one changes the row and writes the ledger; the others get 409. In the
// same transaction the ledger gets:
//
//   - refund (key refund:{payment}): the refunded part, held → client:<user>
//     (owed back to the client; refundMade books its leaving through
//     Mercado Pago once the gateway refunded it);
//   - release (key release:{payment}): the rest, held → camello:<id>;
//   - commission (key commission:{payment}): COMMISSION_PERCENT of the
//     released part, camello → platform_revenue.
//
// The payment becomes LIBERADO (nothing refunded), REEMBOLSADO (everything
// refunded) or DIVIDIDO (both).
func settle(tx core.App, p *Payment, s settlement) (*Payment, error) {
	held, err := ledger.Balance(tx, ledger.AccountOfHeld(p.Id))
	if err != nil {
		return nil, err
	}
	amount := -held
	if s.Everything {
		s.Refund = amount
	}
	release := amount - s.Refund
	fee := Commission(release, config.Of(tx).CommissionPercent)
	status := StatusReleased
	switch {
	case release == 0:
		status = StatusRefunded
	case s.Refund > 0:
		status = StatusSplit
	}
	now := dbTime(clock.Now(tx))
	from := make([]string, len(s.From))
	for i, st := range s.From {
		from[i] = "'" + st + "'" // constants of this package
	}
	guard := "id = {:id} AND status IN (" + strings.Join(from, ", ") + ")"
	if s.Where != "" {
		guard += " AND " + s.Where
	}
	releasedAt := ""
	if release > 0 {
		releasedAt = now
	}
	res, err := tx.DB().NewQuery("UPDATE payments SET status = {:status}, commission = {:fee}, releasedAt = {:releasedAt}, " +
		"releasedBy = {:by}, refundAmount = {:refund}, resolution = {:resolution}, resolvedBy = {:resolvedBy}, " +
		"resolvedAt = {:resolvedAt}, resolutionNote = {:note}, updatedAt = {:now} WHERE " + guard).
		Bind(dbx.Params{"status": status, "fee": fee, "releasedAt": releasedAt, "by": s.By, "refund": s.Refund,
			"resolution": s.Resolution, "resolvedBy": s.ResolvedBy, "resolvedAt": map[bool]string{true: now}[s.Resolution != ""],
			"note": s.Note, "now": now, "id": p.Id}).Execute()
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n != 1 || amount <= 0 {
		return nil, httpapi.Conflict(s.Conflict)
	}
	if s.Refund < 0 || s.Refund > amount {
		v := httpapi.NewValidation()
		v.Add("refundAmount", "Debe estar entre 0 y "+Pesos(amount))
		return nil, v.Err()
	}
	heldAcc := ledger.AccountOfHeld(p.Id)
	if s.Refund > 0 {
		if _, _, err := ledger.Post(tx, ledger.Movement{Kind: ledger.KindRefund, Key: "refund:" + p.Id, Ref: p.Id,
			Memo:  "devolución al cliente",
			Lines: []ledger.Line{{Account: heldAcc, Amount: s.Refund}, {Account: ledger.AccountOfClient(p.ClientID()), Amount: -s.Refund}}}); err != nil {
			return nil, err
		}
	}
	cam := ledger.AccountOfCamello(p.CamelloID())
	if release > 0 {
		if _, _, err := ledger.Post(tx, ledger.Movement{Kind: ledger.KindRelease, Key: "release:" + p.Id, Ref: p.Id,
			Memo:  "trabajo " + p.JobID(),
			Lines: []ledger.Line{{Account: heldAcc, Amount: release}, {Account: cam, Amount: -release}}}); err != nil {
			return nil, err
		}
	}
	if fee > 0 {
		if _, _, err := ledger.Post(tx, ledger.Movement{Kind: ledger.KindCommission, Key: "commission:" + p.Id, Ref: p.Id,
			Memo:  "comisión de la plataforma",
			Lines: []ledger.Line{{Account: cam, Amount: fee}, {Account: ledger.AccountPlatformRevenue, Amount: -fee}}}); err != nil {
			return nil, err
		}
	}
	out, err := Find(tx, p.Id)
	if err != nil {
		return nil, err
	}
	tellFn := s.tell
	if tellFn == nil {
		tellFn = tellSettled
	}
	return out, tellFn(tx, p, release, fee, s.Refund)
}

// tellSettled tells both parties how a payment ended.
func tellSettled(tx core.App, p *Payment, released, fee, refund int64) error {
	toCamello, toClient := "", ""
	if released > 0 {
		toCamello = "Te liberamos " + Pesos(released-fee) + " por el trabajo (" + Pesos(released) + " menos la comisión de " + Pesos(fee) + ")."
		toClient = "Liberamos " + Pesos(released) + " de tu pago al camello."
	}
	if refund > 0 {
		toClient = strings.TrimSpace(toClient + " Te devolvemos " + Pesos(refund) + " por Mercado Pago.")
		toCamello = strings.TrimSpace(toCamello + " Se devolvieron " + Pesos(refund) + " al cliente.")
	}
	title := "Pago liberado"
	switch {
	case released == 0:
		title = "Pago reembolsado"
	case refund > 0:
		title = "Pago dividido"
	}
	return tell(tx, p, title, toClient, toCamello)
}

// settleByID settles payment id in a transaction of its own, then has
// Mercado Pago make the refund it decided (refundMade; a failure is left
// to the sweep).
func settleByID(app core.App, id string, s settlement) (*Payment, error) {
	var out *Payment
	err := writer.Transaction(app, func(tx core.App) error {
		p, err := Find(tx, id)
		if errors.Is(err, sql.ErrNoRows) {
			return httpapi.NotFound(MsgPaymentNotFound)
		}
		if err != nil {
			return err
		}
		out, err = settle(tx, p, s)
		return err
	})
	if err != nil {
		return nil, err
	}
	return afterSettle(app, out), nil
}

// afterSettle makes the refund p decided at Mercado Pago now and answers
// p as it stands then.
func afterSettle(app core.App, p *Payment) *Payment {
	if p.GetInt("refundAmount") <= 0 {
		return p
	}
	if err := MakeRefund(app, p.Id); err != nil {
		app.Logger().Warn("payments: refund left for the sweep", "payment", p.Id, "error", err.Error())
		return p
	}
	if fresh, err := Find(app, p.Id); err == nil {
		return fresh
	}
	return p
}
