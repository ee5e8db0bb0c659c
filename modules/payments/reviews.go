package payments

import (
	"time"

	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/writer"
	"camellos/modules/camellos"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Reviews of paid jobs and the client's confirmation of a cash payment
// (issue 23; docs/api/reviews.md and docs/api/payments.md).

// ReviewWindow is how long after the completion both sides may review a
// job paid through the platform; a sealed review is published at its end.
const ReviewWindow = 7 * 24 * time.Hour

// Fields of payments read and written here.
const (
	FieldMethod          = "method"
	FieldCompletedAt     = "completedAt"
	FieldReleasedAt      = "releasedAt"
	FieldCashConfirmedAt = "cashConfirmedAt"
)

// Messages of the reviews of paid jobs and of the cash confirmation.
const (
	MsgReviewNotSettled     = "Solo se califica un trabajo pagado cuando su pago fue liberado al camello"
	MsgReviewRefunded       = "Un trabajo reembolsado no se califica"
	MsgReviewCashUnconfirmd = "El cliente aún no confirmó el pago en efectivo"
	MsgReviewWindowOver     = "El plazo de 7 días para calificar este trabajo terminó"
	MsgOnlyClientCash       = "Solo el cliente del trabajo confirma un pago en efectivo"
	MsgNotCash              = "Este trabajo no tiene un pago en efectivo por confirmar"
	MsgCashConfirmed        = "El pago en efectivo ya fue confirmado"
)

// Method is MERCADOPAGO or EFECTIVO.
func (p *Payment) Method() string { return p.GetString(FieldMethod) }

// CompletedAt is when the job was completed with this payment live ("" before).
func (p *Payment) CompletedAt() string { return p.GetString(FieldCompletedAt) }

// CashConfirmedAt is when the client confirmed a cash payment ("" before).
func (p *Payment) CashConfirmedAt() string { return p.GetString(FieldCashConfirmedAt) }

// ReviewTerms answers whether the job is under the double-blind rule and
// until when: no payment row, not (the interface's rule); a live payment
// LIBERADO or DIVIDIDO (a cash one confirmed by the client) within
// ReviewWindow of its completion, yes; anything else is refused with 409.
func ReviewTerms(app core.App, jobID string) (blind bool, until time.Time, err error) {
	n, err := app.CountRecords(Collection, dbx.HashExp{"job": jobID})
	if err != nil || n == 0 {
		return false, time.Time{}, err
	}
	p, err := liveOf(app, jobID)
	if err != nil {
		return false, time.Time{}, err
	}
	if p == nil {
		return false, time.Time{}, httpapi.Conflict(MsgReviewRefunded)
	}
	if p.Method() == MethodCash && p.CashConfirmedAt() == "" {
		return false, time.Time{}, httpapi.Conflict(MsgReviewCashUnconfirmd)
	}
	if p.Status() != StatusReleased && p.Status() != StatusSplit {
		return false, time.Time{}, httpapi.Conflict(MsgReviewNotSettled)
	}
	start, ok := parseDB(p.CompletedAt())
	if !ok {
		// settled before the completion was stamped (a payment released by
		// an admin, or recorded before this rule): from its release.
		if start, ok = parseDB(p.GetString(FieldReleasedAt)); !ok {
			return false, time.Time{}, httpapi.Conflict(MsgReviewNotSettled)
		}
	}
	until = start.Add(ReviewWindow)
	if !clock.Now(app).Before(until) {
		return false, time.Time{}, httpapi.Conflict(MsgReviewWindowOver)
	}
	return true, until, nil
}

// parseDB reads a stored payments date.
func parseDB(s string) (time.Time, bool) {
	t, err := time.Parse(DBTime, s)
	return t, err == nil
}

// bindReviewTerms answers camellos.OnReviewTerms in every review's
// creation.
func bindReviewTerms(app core.App) {
	camellos.OnReviewTerms(app).BindFunc(func(e *camellos.ReviewTermsEvent) error {
		blind, until, err := ReviewTerms(e.App, e.JobID)
		if err != nil {
			return err
		}
		e.Blind, e.Until = blind, until
		return e.Next()
	})
}

// stampCompletion records the completion on a job's settled payment
// (released or split before the job was completed: an admin's release, a
// cash payment), once: the review window starts there.
func stampCompletion(tx core.App, jobID string) error {
	_, err := tx.DB().NewQuery("UPDATE payments SET completedAt = {:now}, updatedAt = {:now} " +
		"WHERE job = {:job} AND status IN ('LIBERADO', 'DIVIDIDO') AND completedAt = ''").
		Bind(dbx.Params{"now": dbTime(clock.Now(tx)), "job": jobID}).Execute()
	return err
}

// ConfirmCash records the client's confirmation of the cash payment the
// camello recorded: one conditional UPDATE (cashConfirmedAt set once; a
// second or racing confirmation is 409). The ledger wrote the commission
// the camello owes when it recorded the payment (its own word that it was
// paid); the confirmation writes no movement. It makes the job reviewable
// under the double-blind rule (from the completion).
func ConfirmCash(app core.App, jobID, userID string) (*Payment, error) {
	var out *Payment
	err := writer.Transaction(app, func(tx core.App) error {
		job, err := jobs.Find(tx, jobID)
		if err != nil {
			return httpapi.NotFound(MsgJobNotFound)
		}
		if job.ClientID() != userID {
			return httpapi.Forbidden(MsgOnlyClientCash)
		}
		p, err := liveOf(tx, jobID)
		if err != nil {
			return err
		}
		if p == nil || p.Method() != MethodCash {
			return httpapi.Conflict(MsgNotCash)
		}
		now := dbTime(clock.Now(tx))
		res, err := tx.DB().NewQuery("UPDATE payments SET cashConfirmedAt = {:now}, updatedAt = {:now} " +
			"WHERE id = {:id} AND method = 'EFECTIVO' AND status = 'LIBERADO' AND cashConfirmedAt = ''").
			Bind(dbx.Params{"now": now, "id": p.Id}).Execute()
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return httpapi.Conflict(MsgCashConfirmed)
		}
		if out, err = Find(tx, p.Id); err != nil {
			return err
		}
		return tell(tx, out, "Pago en efectivo confirmado", "",
			"El cliente confirmó que te pagó "+Pesos(out.Amount())+" en efectivo.")
	})
	return out, err
}

// paymentCashConfirm handles POST /api/jobs/{id}/payment/cash/confirm (the
// job's client).
func paymentCashConfirm(e *core.RequestEvent) error {
	jobID, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	p, err := ConfirmCash(e.App, jobID, session.AuthUser(e).Id)
	if err != nil {
		return err
	}
	return answer(e, p, jobs.Party{Client: true})
}
