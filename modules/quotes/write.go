package quotes

import (
	"time"

	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/records"
	"camellos/internal/timefmt"
	"camellos/internal/writer"
	"camellos/modules/camellos"
	"camellos/modules/jobs"
	"camellos/modules/notifications"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Offer is what a camello sends on a job.
type Offer struct {
	Amount    int
	Message   string
	ValidDays int
}

// Create saves a PENDIENTE quote of the camello on the job in one
// transaction and tells the client (QUOTE_RECEIVED). 404 unknown job; 409
// job not PENDIENTE or a live quote of this camello already there; 403 when
// the camello may not quote on it. A quote of this camello that expired
// unseen is marked VENCIDA first, so it never blocks a new one.
func Create(app core.App, jobID string, cam *core.Record, o Offer) (string, error) {
	rec, _, err := create(app, jobID, cam.Id, o)
	if err != nil {
		return "", err
	}
	return rec.Id, nil
}

// checked is what Create read and checked before saving a quote: the
// quote's validate hook takes them instead of reading them again.
type checked struct{ job, cam *core.Record }

var inHand records.InHand[checked]

// create is Create of the camello camelloID, returning the quote as saved
// and the camello as read in its transaction.
func create(app core.App, jobID, camelloID string, o Offer) (rec, cam *core.Record, err error) {
	err = writer.Transaction(app, func(txApp core.App) error {
		job, err := txApp.FindRecordById(jobs.Collection, jobID)
		if err != nil {
			return httpapi.NotFound(jobs.MsgJobNotFound)
		}
		if cam, err = txApp.FindRecordById(camellos.Collection, camelloID); err != nil {
			return httpapi.Forbidden(MsgCamelloInactive)
		}
		switch msg := quoteRefusal(job, cam); msg {
		case "":
		case MsgJobNotPending:
			return httpapi.Conflict(msg)
		default:
			return httpapi.Forbidden(msg)
		}
		now := clock.Now(txApp)
		dropList(txApp, job.Id)
		if err := expire(txApp, dbx.HashExp{"job": job.Id, "camello": cam.Id}, now); err != nil {
			return err
		}
		// The state is written out, not bound: SQLite re-plans a statement
		// whose bound value decides a partial index (idx_quotes_live) at
		// every run.
		var live int
		if err := txApp.DB().NewQuery("SELECT COUNT(*) FROM " + Collection +
			" WHERE job = {:job} AND camello = {:camello} AND status = '" + StatusPending + "'").
			Bind(dbx.Params{"job": job.Id, "camello": cam.Id}).Row(&live); err != nil {
			return err
		}
		if live > 0 {
			return httpapi.Conflict(MsgAlreadyQuoted)
		}
		col, err := txApp.FindCachedCollectionByNameOrId(Collection)
		if err != nil {
			return err
		}
		rec = core.NewRecord(col)
		rec.Set("job", job.Id)
		rec.Set("camello", cam.Id)
		rec.Set("amount", o.Amount)
		rec.Set("currency", jobs.Currency)
		rec.Set("message", o.Message)
		rec.Set("status", StatusPending)
		rec.Set("expiresAt", now.Add(time.Duration(o.ValidDays)*24*time.Hour))
		err = func() error { // the hook takes the job and camello checked above
			defer inHand.Hold(rec, checked{job: job, cam: cam})()
			return txApp.Save(rec)
		}()
		if err != nil {
			if jobs.IsUniqueViolation(err) {
				return httpapi.Conflict(MsgAlreadyQuoted)
			}
			return err
		}
		return notifications.Notify(txApp, jobs.Wrap(job).ClientID(), notifications.Message{
			Kind:  notifications.KindQuoteReceived,
			Title: "Nueva cotización",
			Body:  camellos.Wrap(cam).Name() + " cotizó tu trabajo: " + jobs.Wrap(job).Title(),
			URL:   jobs.JobURL(job.Id),
			Data:  map[string]any{"jobId": job.Id, "quoteId": rec.Id, "camelloId": cam.Id},
		})
	})
	if err != nil {
		return nil, nil, err
	}
	return rec, cam, nil
}

// Accept is the client's acceptance of a quote, in one transaction of
// conditional writes: the quote goes PENDIENTE → ACEPTADA (only if still
// PENDIENTE and not expired), the job gets the quote's camello as provider,
// ASIGNADO and the price (only if still PENDIENTE; see jobs.AssignQuoted),
// and every other live quote of the job is rejected, all in one
// transaction (the quotes owner rejects them itself: jobs.AssignQuoted
// fires no OnProviderSet, so the accept never climbs back from jobs into
// quotes). Of concurrent accepts, or an accept racing an admin
// assignment, exactly one wins; the others change nothing and get 409.
func Accept(app core.App, quoteID string) error {
	return writer.Transaction(app, func(txApp core.App) error {
		q := Find(txApp, quoteID)
		if q == nil {
			return httpapi.NotFound(MsgQuoteNotFound)
		}
		_, err := acceptIn(txApp, q)
		return err
	})
}

// accepted is what an accept wrote: the job as read back in its
// transaction, the quote's camello, and the time of the accept.
type accepted struct {
	job, cam *core.Record
	now      time.Time
}

// accept is Accept of q, a quote as read before the transaction (its job,
// camello and amount never change; its state is the UPDATE's condition);
// q is left with its new state.
func accept(app core.App, q *Quote) (accepted, error) {
	var a accepted
	err := writer.Transaction(app, func(txApp core.App) error {
		var err error
		a, err = acceptIn(txApp, q)
		return err
	})
	if err != nil {
		return accepted{}, err
	}
	q.Set(FieldStatus, StatusAccepted)
	q.Set(FieldUpdated, a.now)
	return a, nil
}

func acceptIn(txApp core.App, q *Quote) (accepted, error) {
	now := clock.Now(txApp)
	if err := transition(txApp, q.Id, q.JobID(), StatusAccepted, now); err != nil {
		return accepted{}, err
	}
	job, cam, err := jobs.AssignQuotedRecords(txApp, q.JobID(), q.CamelloID(), q.Amount())
	if err != nil {
		return accepted{}, err
	}
	if err := closeLiveQuotes(txApp, q.JobID(), "El trabajo se asignó a otro camello: "); err != nil {
		return accepted{}, err
	}
	err = tellCamelloOf(txApp, q, cam, jobs.Wrap(job).Title(), notifications.KindQuoteAccepted, "Cotización aceptada",
		"El cliente aceptó tu cotización: ")
	return accepted{job: job, cam: cam, now: now}, err
}

// Reject is the client's refusal of a PENDIENTE quote (409 otherwise); the
// camello is told (QUOTE_REJECTED).
func Reject(app core.App, quoteID string) error {
	return writer.Transaction(app, func(txApp core.App) error {
		if err := transition(txApp, quoteID, "", StatusRejected, clock.Now(txApp)); err != nil {
			return err
		}
		q := Find(txApp, quoteID)
		if q == nil {
			return httpapi.NotFound(MsgQuoteNotFound)
		}
		return tellCamello(txApp, q, notifications.KindQuoteRejected, "Cotización rechazada",
			"El cliente rechazó tu cotización: ")
	})
}

// Withdraw is the camello's withdrawal of its PENDIENTE quote (409 otherwise).
func Withdraw(app core.App, quoteID string) error {
	return writer.Transaction(app, func(txApp core.App) error {
		return transition(txApp, quoteID, "", StatusWithdrawn, clock.Now(txApp))
	})
}

// transition moves a live quote (PENDIENTE, not expired at now) to status
// with one conditional UPDATE: 409 when it is no longer live. jobID is the
// quote's job when the caller knows it ("": read it).
func transition(txApp core.App, quoteID, jobID, status string, now time.Time) error {
	res, err := txApp.DB().NewQuery("UPDATE " + Collection + " SET status = {:status}, updated = {:now} " +
		"WHERE id = {:id} AND status = 'PENDIENTE' AND expiresAt > {:now}").
		Bind(dbx.Params{"status": status, "now": timefmt.DB(now), "id": quoteID}).Execute()
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 1 {
		if jobID == "" {
			if err := txApp.DB().Select("job").From(Collection).Where(dbx.HashExp{"id": quoteID}).Row(&jobID); err != nil {
				return err
			}
		}
		dropList(txApp, jobID)
		return nil
	}
	q := Find(txApp, quoteID)
	switch {
	case q == nil:
		return httpapi.NotFound(MsgQuoteNotFound)
	case q.Status(now) == StatusExpired:
		return httpapi.Conflict(MsgQuoteExpired)
	}
	return httpapi.Conflict(MsgQuoteNotPending)
}

// closeLiveQuotes ends the live quotes of a job that just got its provider
// or was cancelled: expired ones become VENCIDA, the others RECHAZADA (their
// camellos are told why).
func closeLiveQuotes(txApp core.App, jobID, why string) error {
	now := clock.Now(txApp)
	dropList(txApp, jobID)
	// One read of the job's PENDIENTE quotes; the UPDATEs run only when
	// there is something to mark (an accepted quote usually leaves none).
	var pending []*core.Record
	err := txApp.RecordQuery(Collection).
		Where(dbx.HashExp{"job": jobID}).AndWhere(dbx.NewExp("status = '" + StatusPending + "'")).All(&pending)
	if err != nil || len(pending) == 0 {
		return err
	}
	live := make([]*core.Record, 0, len(pending))
	expired := false
	for _, r := range pending {
		if (&Quote{r}).Status(now) == StatusExpired {
			expired = true
		} else {
			live = append(live, r)
		}
	}
	if expired {
		if err := expire(txApp, dbx.HashExp{"job": jobID}, now); err != nil {
			return err
		}
	}
	if len(live) == 0 {
		return nil
	}
	_, err = txApp.DB().NewQuery("UPDATE " + Collection + " SET status = 'RECHAZADA', updated = {:now} " +
		"WHERE job = {:job} AND status = 'PENDIENTE'").
		Bind(dbx.Params{"job": jobID, "now": timefmt.DB(now)}).Execute()
	if err != nil {
		return err
	}
	for _, r := range live {
		if err := tellCamello(txApp, &Quote{r}, notifications.KindQuoteRejected, "Cotización no elegida", why); err != nil {
			return err
		}
	}
	return nil
}

// expire marks the PENDIENTE quotes matching where whose expiry passed as VENCIDA.
func expire(app core.App, where dbx.Expression, now time.Time) error {
	// PENDIENTE is written out, not bound (see create): a bound state
	// makes SQLite prepare the statement again at every run.
	q := app.DB().Update(Collection, dbx.Params{"status": StatusExpired, "updated": timefmt.DB(now)},
		dbx.And(where, dbx.NewExp("status = '"+StatusPending+"'"), dbx.NewExp("expiresAt <= {:now}", dbx.Params{"now": timefmt.DB(now)})))
	_, err := q.Execute()
	return err
}

// ExpireDue is the sweep: every PENDIENTE quote past its expiry becomes
// VENCIDA. It returns how many it marked.
func ExpireDue(app core.App, now time.Time) (int64, error) {
	res, err := app.DB().NewQuery("UPDATE " + Collection + " SET status = 'VENCIDA', updated = {:now} " +
		"WHERE status = 'PENDIENTE' AND expiresAt <= {:now}").
		Bind(dbx.Params{"now": timefmt.DB(now)}).Execute()
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if n > 0 {
		quoteLists.DropWhere(app, func(string, *jobQuotes) bool { return true })
	}
	return n, err
}

// tellCamello notifies the camello of a quote about it.
func tellCamello(txApp core.App, q *Quote, kind, title, body string) error {
	cam, err := txApp.FindRecordById(camellos.Collection, q.CamelloID())
	if err != nil {
		return nil // camello gone: nobody to tell
	}
	job, err := txApp.FindRecordById(jobs.Collection, q.JobID())
	if err != nil {
		return err
	}
	return tellCamelloOf(txApp, q, cam, jobs.Wrap(job).Title(), kind, title, body)
}

// tellCamelloOf is tellCamello with the quote's camello and its job's
// title in hand.
func tellCamelloOf(txApp core.App, q *Quote, cam *core.Record, jobTitle, kind, title, body string) error {
	return notifications.Notify(txApp, camellos.Wrap(cam).UserID(), notifications.Message{
		Kind: kind, Title: title, Body: body + jobTitle, URL: jobs.JobURL(q.JobID()),
		Data: map[string]any{"jobId": q.JobID(), "quoteId": q.Id, "camelloId": cam.Id},
	})
}
