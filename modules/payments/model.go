// Package payments owns the payments collection (issue 23): a client pays
// the agreed price of a job through Mercado Pago's checkout, and the money
// is held by the platform (modules/ledger) until the work is done.
//
// A payment's life (every transition is one conditional UPDATE in the
// transaction that also writes its ledger movements, so each happens once):
//
//	INICIADO   the row is written before the gateway is called (its id is the
//	           external_reference and the idempotency key sent to Mercado Pago)
//	PENDIENTE  the checkout exists; the client pays, or a PSE / Efecty payment
//	           waits, or a card was rejected and the client may try again
//	RETENIDO   Mercado Pago approved it: charge and hold are in the ledger
//	LIBERADO   released to the camello by an admin (Release): release and
//	           commission in the ledger
//	REEMBOLSADO Mercado Pago refunded it (or a chargeback): the held money
//	           went back out (refund in the ledger)
//
// INICIADO → PENDIENTE (checkout created) → RETENIDO (approved) →
// REEMBOLSADO (refunded at the gateway). INICIADO → RETENIDO too (an
// approval seen before the checkout was stored: a crash in between).
// RETENIDO → LIBERADO (Release). A cash payment (method EFECTIVO,
// RecordCash) is written LIBERADO at once, with the commission owed. The client's confirmation and the dispute
// window that will call Release are still to come.
package payments

import (
	"errors"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Collection and states.
const (
	Collection = "payments"

	StatusStarted  = "INICIADO"
	StatusPending  = "PENDIENTE"
	StatusHeld     = "RETENIDO"
	StatusReleased = "LIBERADO"
	StatusRefunded = "REEMBOLSADO"
	StatusDisputed = "EN_DISPUTA"
	StatusSplit    = "DIVIDIDO"

	MethodMercadoPago = "MERCADOPAGO"
	Currency          = "COP"

	// WebhookPath receives Mercado Pago's notifications.
	WebhookPath = "/api/payments/webhook"
)

// Statuses lists every payment state, in the order of the state machine.
var Statuses = []string{StatusStarted, StatusPending, StatusHeld, StatusDisputed, StatusReleased, StatusSplit, StatusRefunded}

// Spanish messages of the payments area.
const (
	MsgDisabled       = "Los pagos en línea no están disponibles"
	MsgOnlyClientPays = "Solo el cliente del trabajo puede pagarlo"
	MsgNotPayable     = "El trabajo se paga cuando tiene camello asignado y precio acordado"
	MsgAlreadyPaid    = "Este trabajo ya está pagado"
	MsgGatewayDown    = "No pudimos comunicarnos con Mercado Pago; intenta de nuevo en unos minutos"
	MsgNoPayment      = "Este trabajo no tiene pagos"
	MsgNotParty       = "Solo las partes del trabajo ven su pago"
	MsgBadSignature   = "Notificación rechazada: firma inválida"
	MsgReadOnly       = "Los pagos solo cambian con su máquina de estados"
	MsgJobNotFound    = "Trabajo no encontrado"
)

// ErrDisabled is gatewayOf's answer without MERCADOPAGO_ACCESS_TOKEN.
var ErrDisabled = errors.New("payments: Mercado Pago is not configured")

// DBTime is how the payments' dates are stored.
const DBTime = "2006-01-02 15:04:05.000Z"

func dbTime(t time.Time) string { return t.UTC().Format(DBTime) }

// Payment is a typed payments record.
type Payment struct {
	core.BaseRecordProxy
}

// JobID is the job paid.
func (p *Payment) JobID() string { return p.GetString("job") }

// ClientID is the user who pays.
func (p *Payment) ClientID() string { return p.GetString("client") }

// CamelloID is the job's camello when the payment started.
func (p *Payment) CamelloID() string { return p.GetString("camello") }

// Amount is the agreed price in COP pesos.
func (p *Payment) Amount() int64 { return int64(p.GetInt("amount")) }

// Status is one of Statuses.
func (p *Payment) Status() string { return p.GetString("status") }

// Find loads a payment by id with app.
func Find(app core.App, id string) (*Payment, error) {
	rec, err := app.FindRecordById(Collection, id)
	if err != nil {
		return nil, err
	}
	p := &Payment{}
	p.SetProxyRecord(rec)
	return p, nil
}

// liveOf is the job's live payment (any state but REEMBOLSADO: the
// unique index idx_payments_live keeps it one), nil without one.
func liveOf(app core.App, jobID string) (*Payment, error) {
	recs, err := app.FindRecordsByFilter(Collection, "job = {:job} && status != 'REEMBOLSADO'",
		"", 1, 0, dbx.Params{"job": jobID})
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	p := &Payment{}
	p.SetProxyRecord(recs[0])
	return p, nil
}

// latestOf is the job's live payment, else its most recent one.
func latestOf(app core.App, jobID string) (*Payment, error) {
	if p, err := liveOf(app, jobID); p != nil || err != nil {
		return p, err
	}
	recs, err := app.FindRecordsByFilter(Collection, "job = {:job}", "-createdAt", 1, 0, dbx.Params{"job": jobID})
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	p := &Payment{}
	p.SetProxyRecord(recs[0])
	return p, nil
}

// JSON is the payment as its parties see it; the checkout link only to
// the client who pays.
func JSON(p *Payment, forClient bool) map[string]any {
	out := map[string]any{
		"id":                 p.Id,
		"job":                p.JobID(),
		"amount":             p.Amount(),
		"currency":           p.GetString("currency"),
		"method":             p.GetString("method"),
		"status":             p.Status(),
		"gatewayStatus":      p.GetString("gatewayStatus"),
		"gatewayDetail":      p.GetString("gatewayDetail"),
		"heldAmount":         p.GetInt("heldAmount"),
		"heldAt":             nullable(p.GetString("heldAt")),
		"commission":         p.GetInt("commission"),
		"releasedAt":         nullable(p.GetString("releasedAt")),
		"releasedBy":         nullable(p.GetString("releasedBy")),
		"completedAt":        nullable(p.GetString("completedAt")),
		FieldCashConfirmedAt: nullable(p.CashConfirmedAt()),
		"disputeUntil":       nullable(p.GetString("disputeUntil")),
		"dispute":            disputeJSON(p),
		"refundAmount":       p.RefundAmount(),
		"refundedAt":         nullable(p.GetString("refundedAt")),
		"createdAt":          p.GetString("createdAt"),
		"updatedAt":          p.GetString("updatedAt"),
	}
	if forClient && p.Status() == StatusPending {
		out["checkoutUrl"] = p.GetString("checkoutUrl")
	}
	return out
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// disputeJSON is the payment's dispute, nil without one.
func disputeJSON(p *Payment) any {
	if p.GetString("disputedAt") == "" {
		return nil
	}
	return map[string]any{
		"openedAt":   p.GetString("disputedAt"),
		"reason":     p.GetString("disputeReason"),
		"resolution": nullable(p.GetString("resolution")),
		"resolvedAt": nullable(p.GetString("resolvedAt")),
		"note":       p.GetString("resolutionNote"),
	}
}

// RefundAmount is what was refunded to the client in COP (0 when nothing).
func (p *Payment) RefundAmount() int64 { return int64(p.GetInt("refundAmount")) }
