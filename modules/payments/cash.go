package payments

import (
	"net/http"
	"strings"

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

// MethodCash is a job paid in cash, straight to the camello.
const MethodCash = "EFECTIVO"

// Messages of the cash payment.
const (
	MsgOnlyCamelloCash = "Solo el camello del trabajo registra un pago en efectivo"
	MsgPaymentLive     = "El trabajo ya tiene un pago en curso o registrado"
)

// RecordCash records that the job's camello was paid the agreed price in
// cash: a payment row EFECTIVO, LIBERADO at once (the money is already
// with the camello), and in the same transaction the commission the
// camello now owes the platform (camello → platform_revenue: the
// camello's balance goes negative by it). A job with a live payment
// (online under way, held, or already recorded) is refused with 409; the
// unique index makes racing records one.
func RecordCash(app core.App, jobID, userID string) (*Payment, error) {
	percent := config.Of(app).CommissionPercent
	var out *Payment
	err := writer.Transaction(app, func(tx core.App) error {
		job, err := jobs.Find(tx, jobID)
		if err != nil {
			return httpapi.NotFound(MsgJobNotFound)
		}
		cam := jobs.CamelloOfUser(tx, userID)
		if cam == nil || job.ProviderID() == "" || cam.Id != job.ProviderID() {
			return httpapi.Forbidden(MsgOnlyCamelloCash)
		}
		price := int64(job.PriceAmount())
		switch job.Status() {
		case jobs.StatusAssigned, jobs.StatusInProgress, jobs.StatusCompleted:
		default:
			return httpapi.Conflict(MsgNotPayable)
		}
		if price <= 0 {
			return httpapi.Conflict(MsgNotPayable)
		}
		if live, err := liveOf(tx, jobID); err != nil || live != nil {
			if err != nil {
				return err
			}
			return httpapi.Conflict(MsgPaymentLive)
		}
		id := core.GenerateDefaultRandomId()
		fee := Commission(price, percent)
		now := dbTime(clock.Now(tx))
		completed := "" // the review window starts at the completion (now, when the job is done already)
		if job.Status() == jobs.StatusCompleted {
			completed = now
		}
		_, err = tx.DB().NewQuery("INSERT INTO payments (id, job, client, camello, amount, currency, method, status, commission, releasedAt, completedAt, createdAt, updatedAt, checkedAt) " +
			"VALUES ({:id}, {:job}, {:client}, {:camello}, {:amount}, 'COP', 'EFECTIVO', 'LIBERADO', {:fee}, {:now}, {:completed}, {:now}, {:now}, {:now})").
			Bind(dbx.Params{"id": id, "job": jobID, "client": job.ClientID(), "camello": cam.Id, "amount": price, "fee": fee, "now": now, "completed": completed}).Execute()
		if err != nil {
			if strings.Contains(err.Error(), "UNIQUE") {
				return httpapi.Conflict(MsgPaymentLive)
			}
			return err
		}
		if fee > 0 {
			if _, _, err := ledger.Post(tx, ledger.Movement{Kind: ledger.KindCommission, Key: "commission:" + id, Ref: id,
				Memo:  "comisión de un trabajo pagado en efectivo",
				Lines: []ledger.Line{{Account: ledger.AccountOfCamello(cam.Id), Amount: fee}, {Account: ledger.AccountPlatformRevenue, Amount: -fee}}}); err != nil {
				return err
			}
		}
		if out, err = Find(tx, id); err != nil {
			return err
		}
		return tell(tx, out, "Pago en efectivo registrado",
			"El camello registró que le pagaste "+Pesos(price)+" en efectivo. Confírmalo en la página del pago.",
			"Registraste un pago en efectivo de "+Pesos(price)+"; debes a Camellos la comisión de "+Pesos(fee)+".")
	})
	return out, err
}

// paymentCash handles POST /api/jobs/{id}/payment/cash (the job's camello).
func paymentCash(e *core.RequestEvent) error {
	jobID, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	p, err := RecordCash(e.App, jobID, session.AuthUser(e).Id)
	if err != nil {
		return err
	}
	moves, err := ledger.ByRef(e.App, p.Id)
	if err != nil {
		return err
	}
	out := JSON(p, false)
	out["movements"] = moves
	return e.JSON(http.StatusCreated, map[string]any{"payment": out})
}
