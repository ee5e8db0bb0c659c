// Package quotes is the marketplace's quoting area: the open-job board
// camellos browse, the quotes they send on open jobs, and the client's
// accept, reject and the camello's withdraw. It owns the quotes collection:
// its name, states, record hooks and every write to it.
package quotes

import (
	"time"

	"camellos/internal/clock"
	"camellos/internal/timefmt"
	"camellos/modules/camellos"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Collection is the quotes collection; a quote's states follow.
const (
	Collection = "quotes"

	StatusPending   = "PENDIENTE"
	StatusAccepted  = "ACEPTADA"
	StatusRejected  = "RECHAZADA"
	StatusWithdrawn = "RETIRADA"
	StatusExpired   = "VENCIDA"
)

// Bounds of a quote.
const (
	MinAmount       = 10000
	MaxAmount       = 100000000
	MaxMessageLen   = 1000
	MinValidDays    = 1
	MaxValidDays    = 30
	DefaultValidity = 7
)

// Spanish messages of the quotes area.
const (
	MsgQuoteNotFound    = "Cotización no encontrada"
	MsgOnlyCamellos     = "Solo los camellos pueden cotizar"
	MsgCamelloInactive  = "Tu perfil de camello no está activo"
	MsgCannotQuote      = "No puedes cotizar este trabajo"
	MsgJobNotPending    = "El trabajo no está pendiente"
	MsgAlreadyQuoted    = "Ya tienes una cotización pendiente en este trabajo"
	MsgOnlyJobClient    = "Solo el cliente del trabajo puede decidir sobre sus cotizaciones"
	MsgOnlyQuoteCamello = "Solo el camello que envió la cotización puede retirarla"
	MsgQuoteNotPending  = "La cotización ya no está pendiente"
	MsgQuoteExpired     = "La cotización venció"
	MsgOnlyActiveBoard  = "Solo los camellos activos ven los trabajos abiertos"
)

// Fields of a quote written by name.
const (
	FieldStatus  = "status"
	FieldUpdated = "updated"
)

// Quote is a typed view of a quotes record.
type Quote struct{ *core.Record }

// JobID is the quoted job.
func (q Quote) JobID() string { return q.GetString("job") }

// CamelloID is the camello who sent the quote.
func (q Quote) CamelloID() string { return q.GetString("camello") }

// Amount is the offered price in COP.
func (q Quote) Amount() int { return q.GetInt("amount") }

// ExpiresAt is when a PENDIENTE quote stops being acceptable.
func (q Quote) ExpiresAt() time.Time { return q.GetDateTime("expiresAt").Time() }

// Status is the quote's state as read at now: a PENDIENTE quote past its
// expiry reads VENCIDA even before the sweep marks it.
func (q Quote) Status(now time.Time) string {
	s := q.GetString("status")
	if s == StatusPending && !q.ExpiresAt().After(now) {
		return StatusExpired
	}
	return s
}

// Find loads a quote by id (nil when unknown).
func Find(app core.App, id string) *Quote {
	rec, err := app.FindRecordById(Collection, id)
	if err != nil {
		return nil
	}
	return &Quote{rec}
}

// JSON renders quotes as the API's Quote objects, loading their camellos in
// one query.
func JSON(app core.App, list []*core.Record) ([]map[string]any, error) {
	ids := []string{}
	seen := map[string]bool{}
	for _, r := range list {
		if c := r.GetString("camello"); !seen[c] {
			seen[c] = true
			ids = append(ids, c)
		}
	}
	cams := map[string]*core.Record{}
	if len(ids) > 0 {
		recs, err := app.FindRecordsByIds(camellos.Collection, ids)
		if err != nil {
			return nil, err
		}
		for _, c := range recs {
			cams[c.Id] = c
		}
	}
	now := clock.Now(app)
	out := make([]map[string]any, 0, len(list))
	for _, r := range list {
		out = append(out, render(r, cams[Quote{r}.CamelloID()], now))
	}
	return out, nil
}

// render is one quote as the API shows it at now, with its camello's
// record (nil when gone).
func render(r, cam *core.Record, now time.Time) map[string]any {
	q := Quote{r}
	camello := map[string]any{"id": q.CamelloID(), "name": "", "photo": "", "trades": []string{}, "ratingAvg": 0.0}
	if cam != nil && cam.Id == q.CamelloID() {
		camello = camellos.Summary(cam)
		camello["ratingAvg"] = camellos.Wrap(cam).Rating().Average
	}
	return quoteFields(q, camello, q.Status(now))
}

// quoteFields is a quote as the API shows it, with its camello and status
// (readmodel.Hole in the kept lists).
func quoteFields(q Quote, camello, status any) map[string]any {
	return map[string]any{
		"id":        q.Id,
		"jobId":     q.JobID(),
		"camello":   camello,
		"amount":    q.Amount(),
		"currency":  jobs.Currency,
		"message":   q.GetString("message"),
		"status":    status,
		"expiresAt": timefmt.ISO(q.ExpiresAt()),
		"createdAt": timefmt.ISO(q.GetDateTime("created").Time()),
	}
}

// one renders a single quote, reloaded.
func one(app core.App, id string) (map[string]any, error) {
	rec, err := app.FindRecordById(Collection, id)
	if err != nil {
		return nil, err
	}
	list, err := JSON(app, []*core.Record{rec})
	if err != nil {
		return nil, err
	}
	return list[0], nil
}

// HasQuote reports whether camelloID sent a quote (in any state) on jobID:
// the messages area lets such a camello talk with the client while the job
// is open. Outside a transaction it reads the job's cached quotes.
func HasQuote(app core.App, jobID, camelloID string) bool {
	if !app.IsTransactional() {
		if l, _, err := quoteLists.Get(app, jobID); err == nil {
			return l.has(camelloID)
		}
	}
	n, err := app.CountRecords(Collection, dbx.HashExp{"job": jobID, "camello": camelloID})
	return err == nil && n > 0
}

// QuotingCamellos lists the camellos with a quote on jobID.
func QuotingCamellos(app core.App, jobID string) ([]string, error) {
	var ids []string
	err := app.DB().Select("DISTINCT camello").From(Collection).Where(dbx.HashExp{"job": jobID}).Column(&ids)
	return ids, err
}

// HasLiveQuote reports whether camelloID has a quote on jobID that the
// client did not reject: a quoting camello writes in the job's
// conversation only while it has one.
func HasLiveQuote(app core.App, jobID, camelloID string) bool {
	n, err := app.CountRecords(Collection, dbx.HashExp{"job": jobID, "camello": camelloID},
		dbx.Not(dbx.HashExp{"status": StatusRejected}))
	return err == nil && n > 0
}
