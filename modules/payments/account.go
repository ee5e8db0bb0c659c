package payments

import (
	"camellos/internal/bus"
	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/modules/jobs"
	"camellos/modules/ledger"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// MsgPaymentUnderWay refuses an erasure while money of the person moves.
const MsgPaymentUnderWay = "Tienes un pago en curso: espera a que se libere o se reembolse antes de eliminar tu cuenta"

// underWay is the condition of a payment (or payout) still moving: a
// checkout open (started within SweepMaxAge: older ones are no longer
// reconciled), money held or in dispute, a refund decided and not yet made
// at Mercado Pago.
const underWay = "(status IN ('INICIADO', 'PENDIENTE') AND createdAt > {:since}) OR status IN ('RETENIDO', 'EN_DISPUTA') " +
	"OR (refundAmount > 0 AND refundedAt = '' AND method = 'MERCADOPAGO')"

// maxExportedLines bounds the ledger lines of one account in an export.
const maxExportedLines = 100_000

// bindDataRights adds a person's payments (as client or as camello) and the
// ledger lines of their accounts to their export. Erasure keeps both: the
// ledger is append-only and the law keeps accounting records (payments
// hold ids and amounts only; the person's name and contact go with the
// user's own erasure). See docs/api/payments.md.
func bindDataRights(app core.App) {
	bus.Of(app).UserExporting.BindFunc(func(e *bus.Export) error {
		where := dbx.Expression(dbx.HashExp{"client": e.User.Id})
		accounts := []string{ledger.AccountOfClient(e.User.Id)}
		if cam := jobs.CamelloOfUser(e.App, e.User.Id); cam != nil {
			where = dbx.Or(where, dbx.HashExp{"camello": cam.Id})
			accounts = append(accounts, ledger.AccountOfCamello(cam.Id))
		}
		recs, err := e.App.FindAllRecords(Collection, where)
		if err != nil {
			return err
		}
		list := make([]map[string]any, 0, len(recs))
		for _, r := range recs {
			p := &Payment{}
			p.SetProxyRecord(r)
			list = append(list, JSON(p, false))
		}
		e.Data["payments"] = list
		lines := map[string]any{}
		for _, acc := range accounts {
			h, err := ledger.History(e.App, acc, maxExportedLines, 0)
			if err != nil {
				return err
			}
			lines[acc] = h
		}
		e.Data["ledger"] = lines
		return e.Next()
	})
	// An erasure waits for the person's payments to settle, as it waits for
	// its jobs: the refund or release still to come needs the person (a
	// camello's payout reads its name and document).
	bus.Of(app).UserErasing.BindFunc(func(e *bus.Erase) error {
		since := dbTime(clock.Now(e.App).Add(-SweepMaxAge))
		where := dbx.Expression(dbx.HashExp{"client": e.User.Id})
		var camID string
		if cam := jobs.CamelloOfUser(e.App, e.User.Id); cam != nil {
			camID = cam.Id
			where = dbx.Or(where, dbx.HashExp{"camello": camID})
		}
		n, err := e.App.CountRecords(Collection, where, dbx.NewExp(underWay, dbx.Params{"since": since}))
		if err != nil {
			return err
		}
		if n == 0 && camID != "" {
			n, err = e.App.CountRecords(PayoutsCollection, dbx.HashExp{"camello": camID, "status": PayoutPending})
			if err != nil {
				return err
			}
		}
		if n > 0 {
			return httpapi.Conflict(MsgPaymentUnderWay)
		}
		return e.Next()
	})
}
