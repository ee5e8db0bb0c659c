package payments

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"camellos/internal/clock"
	"camellos/internal/config"
	"camellos/internal/httpapi"
	"camellos/internal/writer"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Start makes the client's payment of a job (an ASIGNADO or EN_PROGRESO
// job with a provider and an agreed price): it answers the job's live
// payment when there is one (the same checkout for every attempt, so a
// double click or two tabs never make two payments), else writes a new
// INICIADO row and commits it BEFORE calling Mercado Pago. The checkout is
// then created with the payment's id as idempotency key and stored with
// one conditional UPDATE (INICIADO → PENDIENTE). A crash between the
// gateway's answer and that UPDATE leaves an INICIADO row: the next Start
// asks again with the same key and Mercado Pago answers the same
// checkout. created tells whether this call wrote the row.
func Start(app core.App, jobID, userID string) (p *Payment, created bool, err error) {
	var title string
	err = writer.Transaction(app, func(tx core.App) error {
		job, err := jobs.Find(tx, jobID)
		if err != nil {
			return httpapi.NotFound(MsgJobNotFound)
		}
		if job.ClientID() != userID {
			return httpapi.Forbidden(MsgOnlyClientPays)
		}
		title = job.Title()
		if _, err := gatewayOf(tx); err != nil {
			return httpapi.NewError(http.StatusServiceUnavailable, MsgDisabled)
		}
		if p, err = liveOf(tx, jobID); err != nil {
			return err
		}
		if p != nil {
			if p.Status() != StatusStarted && p.Status() != StatusPending {
				return httpapi.Conflict(MsgAlreadyPaid)
			}
			return nil
		}
		price := job.PriceAmount()
		if (job.Status() != jobs.StatusAssigned && job.Status() != jobs.StatusInProgress) || price <= 0 || job.ProviderID() == "" {
			return httpapi.Conflict(MsgNotPayable)
		}
		id := core.GenerateDefaultRandomId()
		now := dbTime(clock.Now(tx))
		_, err = tx.DB().NewQuery("INSERT INTO payments (id, job, client, camello, amount, currency, method, status, createdAt, updatedAt, checkedAt) " +
			"VALUES ({:id}, {:job}, {:client}, {:camello}, {:amount}, 'COP', 'MERCADOPAGO', 'INICIADO', {:now}, {:now}, {:now})").
			Bind(dbx.Params{"id": id, "job": jobID, "client": userID, "camello": job.ProviderID(), "amount": price, "now": now}).Execute()
		if err != nil {
			if strings.Contains(err.Error(), "UNIQUE") { // another process's payment won the race
				return httpapi.Conflict(MsgAlreadyPaid)
			}
			return err
		}
		created = true
		p, err = Find(tx, id)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	if p.GetString("checkoutUrl") != "" || (p.Status() != StatusStarted && p.Status() != StatusPending) {
		return p, created, nil
	}
	gw, err := gatewayOf(app)
	if err != nil {
		return nil, false, err
	}
	co, err := gw.createCheckout(context.Background(), config.Of(app).AppURL, p, title)
	if err != nil {
		app.Logger().Warn("payments: checkout not created", "payment", p.Id, "error", err.Error())
		return nil, false, httpapi.NewError(http.StatusBadGateway, MsgGatewayDown)
	}
	err = writer.Transaction(app, func(tx core.App) error {
		_, err := tx.DB().NewQuery("UPDATE payments SET status = 'PENDIENTE', preferenceId = {:pref}, checkoutUrl = {:url}, updatedAt = {:now} " +
			"WHERE id = {:id} AND status IN ('INICIADO', 'PENDIENTE') AND checkoutUrl = ''").
			Bind(dbx.Params{"pref": co.PreferenceID, "url": co.URL, "now": dbTime(clock.Now(tx)), "id": p.Id}).Execute()
		if err != nil {
			return err
		}
		// Zero rows: a racing Start stored the same checkout, or an approval
		// arrived first; either way the row as it is now is the answer.
		p, err = Find(tx, p.Id)
		return err
	})
	return p, created, err
}

// errNotOurs marks a gateway payment whose external_reference is not one
// of our payments (another integration of the same account).
var errNotOurs = errors.New("payments: not one of our payments")
