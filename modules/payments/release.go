package payments

import (
	"net/http"

	"camellos/internal/httpapi"
	"camellos/internal/session"
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

// Release pays a held payment out to its camello at an admin's word:
// RETENIDO → LIBERADO (see settle). Of racing releases exactly one
// changes the row; the others get 409.
func Release(app core.App, paymentID string) (*Payment, error) {
	return settleByID(app, paymentID, settlement{From: []string{StatusHeld}, By: ByAdmin, Conflict: MsgNotHeld})
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
	err = app.DB().NewQuery("SELECT COALESCE(SUM(heldAmount), 0) FROM payments WHERE camello = {:c} AND status IN ('RETENIDO', 'EN_DISPUTA')").
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
