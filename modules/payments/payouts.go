package payments

import (
	"bytes"
	"camellos/internal/clock"
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"

	"camellos/internal/httpapi"
	"camellos/internal/privacy"
	"camellos/internal/session"
	"camellos/internal/writer"
	"camellos/modules/camellos"
	"camellos/modules/jobs"
	"camellos/modules/ledger"
	"camellos/modules/notifications"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Payouts (issue 23). An admin runs a batch: in ONE transaction, for every
// camello the platform owes money to, a payout row (PENDIENTE) for its
// whole balance and the ledger's payout (key payout:{payout}: camello →
// client_payments, the money leaving the platform's account). The balance
// is zero once the batch commits, and the writer runs transactions one at
// a time, so two admins running batches at once pay each balance once
// (the second batch finds nothing). The batch's CSV is the file for the
// bank; each payout is then marked PAGADO, or FALLIDO (the ledger's payout
// is reversed: the camello is owed the money again and the next batch
// pays it).
const (
	PayoutsCollection = "payouts"

	PayoutPending = "PENDIENTE"
	PayoutPaid    = "PAGADO"
	PayoutFailed  = "FALLIDO"

	// PayoutBatchMax bounds the camellos paid in one batch (the rest wait
	// for the next).
	PayoutBatchMax = 1000
)

// Messages of the payouts.
const (
	MsgNoBalances       = "No hay saldos por pagar"
	MsgPayoutNotFound   = "Pago a camello no encontrado"
	MsgPayoutNotPending = "Este pago a camello ya fue marcado"
	MsgBatchNotFound    = "Lote no encontrado"
)

// payoutRow is a payout with its camello's bank-file data.
type payoutRow struct {
	ID         string `db:"id" json:"id"`
	Batch      string `db:"batch" json:"batch"`
	CamelloID  string `db:"camello" json:"camelloId"`
	Name       string `db:"name" json:"name"`
	DocumentID string `db:"documentId" json:"documentId"`
	Phone      string `db:"phone" json:"phone"`
	Amount     int64  `db:"amount" json:"amount"`
	Status     string `db:"status" json:"status"`
	CreatedAt  string `db:"createdAt" json:"createdAt"`
	SettledAt  string `db:"settledAt" json:"settledAt"`
	Reference  string `db:"reference" json:"reference"`
}

// payoutSelect reads payouts; their camellos' bank data comes from the
// camellos' owner (camellos.Payees).
const payoutSelect = "SELECT p.id, p.batch, p.camello, p.amount, p.status, p.createdAt, p.settledAt, p.reference FROM payouts p "

// RunPayoutBatch pays every balance owed, in one transaction (see above).
// It answers the batch id and its rows; 409 when nothing is owed.
func RunPayoutBatch(app core.App, adminID string) (string, []payoutRow, error) {
	batch := core.GenerateDefaultRandomId()
	err := writer.Transaction(app, func(tx core.App) error {
		owed, err := ledger.CamellosOwed(tx, PayoutBatchMax)
		if err != nil {
			return err
		}
		if len(owed) == 0 {
			return httpapi.Conflict(MsgNoBalances)
		}
		now := dbTime(clock.Now(tx))
		for _, o := range owed {
			id := core.GenerateDefaultRandomId()
			txID, _, err := ledger.Post(tx, ledger.Movement{Kind: ledger.KindPayout, Key: "payout:" + id, Ref: id,
				Memo: "pago al camello, lote " + batch,
				Lines: []ledger.Line{
					{Account: ledger.AccountOfCamello(o.CamelloID), Amount: o.Balance},
					{Account: ledger.AccountClientPayments, Amount: -o.Balance},
				}})
			if err != nil {
				return err
			}
			if _, err := tx.DB().NewQuery("INSERT INTO payouts (id, batch, camello, amount, status, ledgerTx, createdBy, createdAt, settledBy, settledAt, reference) " +
				"VALUES ({:id}, {:batch}, {:camello}, {:amount}, 'PENDIENTE', {:tx}, {:by}, {:now}, '', '', '')").
				Bind(dbx.Params{"id": id, "batch": batch, "camello": o.CamelloID, "amount": o.Balance, "tx": txID, "by": adminID, "now": now}).
				Execute(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	rows, err := payoutsOf(app, "p.batch = {:batch}", dbx.Params{"batch": batch}, PayoutBatchMax, 0)
	return batch, rows, err
}

func payoutsOf(app core.App, where string, params dbx.Params, limit, offset int) ([]payoutRow, error) {
	out := []payoutRow{}
	params["limit"], params["offset"] = limit, offset
	err := app.DB().NewQuery(payoutSelect + "WHERE " + where + " ORDER BY p.createdAt DESC, p.id LIMIT {:limit} OFFSET {:offset}").
		Bind(params).All(&out)
	if err != nil {
		return out, err
	}
	ids := make([]any, 0, len(out))
	for _, p := range out {
		ids = append(ids, p.CamelloID)
	}
	payees, err := camellos.Payees(app, ids)
	// Every route that answers payouts is for admins; the bank needs the
	// camello's document and phone (privacy's table: self or admin).
	admin := privacy.Relation{Admin: true}
	for i := range out {
		c := payees[out[i].CamelloID]
		out[i].Name, out[i].DocumentID, out[i].Phone = c.Name, c.DocumentID, c.Phone
		if !privacy.Visible(privacy.DocumentID, admin) {
			out[i].DocumentID = ""
		}
		if !privacy.Visible(privacy.Phone, admin) {
			out[i].Phone = ""
		}
	}
	return out, err
}

// SettlePayout marks a PENDIENTE payout PAGADO (reference: the bank's) or
// FALLIDO (its ledger payout reversed, in the same transaction), with one
// conditional UPDATE: of racing marks exactly one wins, the others 409.
func SettlePayout(app core.App, id, adminID, status, reference string) error {
	return writer.Transaction(app, func(tx core.App) error {
		var ledgerTx string
		if err := tx.DB().NewQuery("SELECT ledgerTx FROM payouts WHERE id = {:id}").Bind(dbx.Params{"id": id}).Row(&ledgerTx); err != nil {
			return httpapi.NotFound(MsgPayoutNotFound)
		}
		now := dbTime(clock.Now(tx))
		res, err := tx.DB().NewQuery("UPDATE payouts SET status = {:status}, settledBy = {:by}, settledAt = {:now}, reference = {:ref} " +
			"WHERE id = {:id} AND status = 'PENDIENTE'").
			Bind(dbx.Params{"status": status, "by": adminID, "now": now, "ref": reference, "id": id}).Execute()
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return httpapi.Conflict(MsgPayoutNotPending)
		}
		if status == PayoutFailed {
			if _, _, err = ledger.Reverse(tx, ledgerTx, "payout-failed:"+id, "el banco no pagó el lote"); err != nil {
				return err
			}
		}
		return tellPayout(tx, id, status)
	})
}

// tellPayout tells the camello that its payout was paid by the bank or
// failed (owed again), in the marking's transaction.
func tellPayout(tx core.App, id, status string) error {
	var row struct {
		Camello string `db:"camello"`
		Amount  int64  `db:"amount"`
	}
	if err := tx.DB().NewQuery("SELECT camello, amount FROM payouts WHERE id = {:id}").Bind(dbx.Params{"id": id}).One(&row); err != nil {
		return err
	}
	c, err := camellos.Find(tx, row.Camello)
	if err != nil || c.UserID() == "" {
		return nil // an erased profile: nobody to tell
	}
	title, body := "Pago enviado a tu cuenta", "Camellos te pagó "+Pesos(row.Amount)+"."
	if status == PayoutFailed {
		title, body = "Pago no entregado", "El banco no pudo entregarte "+Pesos(row.Amount)+"; te lo pagamos en el próximo lote."
	}
	return notifications.NotifyMany(tx, []notifications.Addressed{{UserID: c.UserID(), Message: notifications.Message{
		Kind: notifications.KindPayment, Title: title, Body: body, URL: "/ganancias.html", Data: map[string]any{"payoutId": id}}}})
}

// payoutBatchRun handles POST /api/admin/payouts/batches (admins): 201
// {batch, payouts, total, csvUrl}; 409 when nothing is owed.
func payoutBatchRun(e *core.RequestEvent) error {
	batch, rows, err := RunPayoutBatch(e.App, session.AuthUser(e).Id)
	if err != nil {
		return err
	}
	var total int64
	for _, r := range rows {
		total += r.Amount
	}
	return e.JSON(http.StatusCreated, map[string]any{"batch": batch, "payouts": rows, "total": total,
		"csvUrl": "/api/admin/payouts/batches/" + batch + "/csv"})
}

// payoutBatchCSV handles GET /api/admin/payouts/batches/{id}/csv (admins):
// the bank file of a batch (UTF-8 CSV with a header row; cells that a
// spreadsheet would read as a formula are prefixed with an apostrophe).
func payoutBatchCSV(e *core.RequestEvent) error {
	batch, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	rows, err := payoutsOf(e.App, "p.batch = {:batch}", dbx.Params{"batch": batch}, PayoutBatchMax, 0)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return httpapi.NotFound(MsgBatchNotFound)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"pago", "camello", "nombre", "documento", "telefono", "monto_cop", "estado"})
	for _, r := range rows {
		_ = w.Write([]string{r.ID, r.CamelloID, cell(r.Name), cell(r.DocumentID), cell(r.Phone), strconv.FormatInt(r.Amount, 10), r.Status})
	}
	w.Flush()
	e.Response.Header().Set("Content-Disposition", `attachment; filename="pagos-`+batch+`.csv"`)
	e.Response.Header().Set("Cache-Control", "no-store")
	return e.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}

// cell keeps a spreadsheet from reading a text cell as a formula.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// payoutsList handles GET /api/admin/payouts?status&batch&page&perPage (admins).
func payoutsList(e *core.RequestEvent) error {
	page, err := httpapi.Paging(e)
	if err != nil {
		return err
	}
	q := e.Request.URL.Query()
	where, params := "1 = 1", dbx.Params{}
	if st := strings.ToUpper(q.Get("status")); st != "" {
		if st != PayoutPending && st != PayoutPaid && st != PayoutFailed {
			v := httpapi.NewValidation()
			v.Add("status", "Debe ser PENDIENTE, PAGADO o FALLIDO")
			return v.Err()
		}
		where += " AND p.status = {:status}"
		params["status"] = st
	}
	if b := q.Get("batch"); b != "" {
		where += " AND p.batch = {:batch}"
		params["batch"] = b
	}
	rows, err := payoutsOf(e.App, where, params, page.PerPage, int(page.Offset()))
	if err != nil {
		return err
	}
	var total int64
	if err := e.App.DB().NewQuery("SELECT COUNT(*) FROM payouts p WHERE " + where).Bind(params).Row(&total); err != nil {
		return err
	}
	return e.JSON(http.StatusOK, page.Answer("payouts", rows, total))
}

// payoutMark handles POST /api/admin/payouts/{id}/paid {reference?} and
// POST /api/admin/payouts/{id}/failed (admins).
func payoutMark(status string) func(e *core.RequestEvent) error {
	return func(e *core.RequestEvent) error {
		id, err := httpapi.PathID(e, "id")
		if err != nil {
			return err
		}
		var in struct {
			Reference *string `json:"reference"`
		}
		if err := httpapi.ReadJSON(e, &in); err != nil {
			return err
		}
		ref := ""
		if in.Reference != nil {
			ref = strings.TrimSpace(*in.Reference)
		}
		v := httpapi.NewValidation()
		httpapi.CheckLength(v, "reference", ref, 0, 100)
		if err := v.Err(); err != nil {
			return err
		}
		if err := SettlePayout(e.App, id, session.AuthUser(e).Id, status, ref); err != nil {
			return err
		}
		rows, err := payoutsOf(e.App, "p.id = {:id}", dbx.Params{"id": id}, 1, 0)
		if err != nil || len(rows) == 0 {
			return httpapi.NotFound(MsgPayoutNotFound)
		}
		return e.JSON(http.StatusOK, map[string]any{"payout": rows[0]})
	}
}

// Month is a camello's money in one month (UTC): earned (released to it),
// commission, paid out, and net (what its balance did).
type Month struct {
	Month      string `json:"month"`
	Earned     int64  `json:"earned"`
	Commission int64  `json:"commission"`
	PaidOut    int64  `json:"paidOut"`
	Net        int64  `json:"net"`
}

// earningsMonthly handles GET /api/me/earnings/monthly (camellos): newest
// month first.
func earningsMonthly(e *core.RequestEvent) error {
	cam := jobs.CamelloOfUser(e.App, session.AuthUser(e).Id)
	if cam == nil {
		return httpapi.Forbidden(MsgOnlyCamellosEarn)
	}
	rows, err := ledger.Monthly(e.App, ledger.AccountOfCamello(cam.Id))
	if err != nil {
		return err
	}
	months := []Month{}
	for _, r := range rows {
		if len(months) == 0 || months[len(months)-1].Month != r.Month {
			months = append(months, Month{Month: r.Month})
		}
		m := &months[len(months)-1]
		amount := -r.Amount // as it moved the balance
		switch r.Kind {
		case ledger.KindRelease:
			m.Earned += amount
		case ledger.KindCommission:
			m.Commission += -amount
		case ledger.KindPayout:
			m.PaidOut += -amount
		}
		m.Net += amount
	}
	earn, err := EarningsOf(e.App, cam.Id)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, map[string]any{"months": months, "balance": earn.Balance, "pending": earn.Pending, "currency": Currency})
}
