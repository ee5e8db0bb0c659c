package payments

import (
	"database/sql"
	"errors"
	"net/http"

	"camellos/internal/clock"
	"camellos/internal/config"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/writer"
	"camellos/modules/jobs"
	"camellos/modules/ledger"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Messages of the release and the earnings.
const (
	MsgNotHeld          = "Solo un pago retenido se puede liberar"
	MsgPaymentNotFound  = "Pago no encontrado"
	MsgOnlyCamellosEarn = "Solo los camellos tienen ganancias"
)

// Commission is the platform's cut of amount at percent, in whole pesos
// rounded half up (10 % of 180,005 is 18,001).
func Commission(amount int64, percent int) int64 {
	return (amount*int64(percent) + 50) / 100
}

// Release pays a RETENIDO payment out to its camello: RETENIDO → LIBERADO
// with one conditional UPDATE, and in the same transaction the ledger's
// release (everything held → the camello's balance) and commission
// (COMMISSION_PERCENT of it → platform revenue). Of racing releases
// exactly one changes the row; the others get 409. Today an admin calls
// it (POST /api/payments/{id}/release); the client's confirmation and the
// dispute window will call it later.
func Release(app core.App, paymentID string) (*Payment, error) {
	percent := config.Of(app).CommissionPercent
	var out *Payment
	err := writer.Transaction(app, func(tx core.App) error {
		p, err := Find(tx, paymentID)
		if errors.Is(err, sql.ErrNoRows) {
			return httpapi.NotFound(MsgPaymentNotFound)
		}
		if err != nil {
			return err
		}
		held, err := ledger.Balance(tx, ledger.AccountOfHeld(p.Id))
		if err != nil {
			return err
		}
		amount := -held
		fee := Commission(amount, percent)
		now := dbTime(clock.Now(tx))
		res, err := tx.DB().NewQuery("UPDATE payments SET status = 'LIBERADO', commission = {:fee}, releasedAt = {:now}, updatedAt = {:now} " +
			"WHERE id = {:id} AND status = 'RETENIDO'").Bind(dbx.Params{"fee": fee, "now": now, "id": p.Id}).Execute()
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 || amount <= 0 {
			return httpapi.Conflict(MsgNotHeld)
		}
		cam := ledger.AccountOfCamello(p.CamelloID())
		if _, _, err := ledger.Post(tx, ledger.Movement{Kind: ledger.KindRelease, Key: "release:" + p.Id, Ref: p.Id,
			Memo:  "trabajo " + p.JobID(),
			Lines: []ledger.Line{{Account: ledger.AccountOfHeld(p.Id), Amount: amount}, {Account: cam, Amount: -amount}}}); err != nil {
			return err
		}
		if fee > 0 {
			if _, _, err := ledger.Post(tx, ledger.Movement{Kind: ledger.KindCommission, Key: "commission:" + p.Id, Ref: p.Id,
				Memo:  "comisión de la plataforma",
				Lines: []ledger.Line{{Account: cam, Amount: fee}, {Account: ledger.AccountPlatformRevenue, Amount: -fee}}}); err != nil {
				return err
			}
		}
		if out, err = Find(tx, p.Id); err != nil {
			return err
		}
		return tell(tx, p, "Pago liberado", "",
			"Te liberamos "+Pesos(amount-fee)+" por el trabajo ("+Pesos(amount)+" menos la comisión de "+Pesos(fee)+").")
	})
	return out, err
}

// paymentRelease handles POST /api/payments/{id}/release (admins).
func paymentRelease(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	p, err := Release(e.App, id)
	if err != nil {
		return err
	}
	return answer(e, p, jobs.Party{Admin: true})
}

// Earnings is a camello's money: Balance earned and not paid out (after
// commission; negative when it owes commission), Pending held for its
// jobs and not released yet.
type Earnings struct {
	Balance int64 `json:"balance"`
	Pending int64 `json:"pending"`
}

// EarningsOf reads a camello's earnings.
func EarningsOf(app core.App, camelloID string) (Earnings, error) {
	var e Earnings
	bal, err := ledger.Balance(app, ledger.AccountOfCamello(camelloID))
	if err != nil {
		return e, err
	}
	e.Balance = -bal
	err = app.DB().NewQuery("SELECT COALESCE(SUM(heldAmount), 0) FROM payments WHERE camello = {:c} AND status = 'RETENIDO'").
		Bind(dbx.Params{"c": camelloID}).Row(&e.Pending)
	return e, err
}

// earningsView handles GET /api/me/earnings: the signed-in camello's
// balance, pending funds and history (newest first, paginated); each
// movement's amount is what it did to the camello's balance (positive:
// earned, negative: commission, payout).
func earningsView(e *core.RequestEvent) error {
	page, err := httpapi.Paging(e)
	if err != nil {
		return err
	}
	cam := jobs.CamelloOfUser(e.App, session.AuthUser(e).Id)
	if cam == nil {
		return httpapi.Forbidden(MsgOnlyCamellosEarn)
	}
	earn, err := EarningsOf(e.App, cam.Id)
	if err != nil {
		return err
	}
	account := ledger.AccountOfCamello(cam.Id)
	items, err := ledger.History(e.App, account, page.PerPage, int(page.Offset()))
	if err != nil {
		return err
	}
	for i := range items {
		items[i].Amount = -items[i].Amount
	}
	total, err := ledger.CountOf(e.App, account)
	if err != nil {
		return err
	}
	out := page.Answer("movements", items, total)
	out["balance"] = earn.Balance
	out["pending"] = earn.Pending
	out["currency"] = Currency
	return e.JSON(http.StatusOK, out)
}
