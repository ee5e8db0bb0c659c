package payments

import (
	"camellos/internal/bus"
	"camellos/modules/jobs"
	"camellos/modules/ledger"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

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
}
