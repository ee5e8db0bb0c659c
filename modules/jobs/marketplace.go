package jobs

import (
	"camellos/internal/cities"
	"net/http"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/privacy"
	"camellos/internal/records"
	"camellos/internal/session"
	"camellos/internal/text"
	"camellos/internal/timefmt"
	"camellos/internal/writer"
	"camellos/modules/camellos"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// What the marketplace loop adds to jobs (issue 11): the address only the
// job's parties see, the agreed price, the folded city of the open board,
// the client's edits, the assignment by an accepted quote, and the per-app
// event that tells other areas a job got its provider.

// Currency of every price and quote.
const Currency = "COP"

// Messages of the job edit and of the quote assignment.
const (
	MsgOnlyClientEdits = "Solo el cliente del trabajo puede editarlo"
	MsgFinalJob        = "Un trabajo completado o cancelado no se puede editar"
	MsgNoLongerPending = "El trabajo ya no está pendiente"
	MaxAddressLen      = bounds.JobAddressMax
	maxDescriptionLen  = bounds.JobDescriptionMax
)

// IsFinal reports whether a job state is final (COMPLETADO or CANCELADO).
func IsFinal(status string) bool { return status == StatusCompleted || status == StatusCancelled }

// ProviderSetEvent tells that a PENDIENTE job got its provider and moved to
// ASIGNADO (admin assignment, a camello accepting a direct request, or an
// accepted quote). App is the transaction of that write: handlers write
// with it, and an error rolls the whole assignment back.
type ProviderSetEvent struct {
	hook.Event
	App       core.App
	JobID     string
	CamelloID string
}

const providerSetKey = "camellos.jobs.providerSet"

// OnProviderSet is the app's hook fired inside the transaction that gives a
// job its provider. The quotes area binds it to reject the job's live
// quotes in the same transaction.
func OnProviderSet(app core.App) *hook.Hook[*ProviderSetEvent] {
	return app.Store().GetOrSet(providerSetKey, func() any {
		return &hook.Hook[*ProviderSetEvent]{}
	}).(*hook.Hook[*ProviderSetEvent])
}

// providerSet fires OnProviderSet with the transaction txApp.
func providerSet(txApp core.App, jobID, camelloID string) error {
	return OnProviderSet(txApp).Trigger(&ProviderSetEvent{App: txApp, JobID: jobID, CamelloID: camelloID})
}

// JobChange tells that a job was written and committed; Job is the record
// as written (for a conditional UPDATE, as read back in its transaction),
// ProviderUser the user behind its camello ("" without one); JobID, Status
// and ClientID are read from Job for the listeners, which need not call
// back into jobs. App may be a finished transaction: listeners read what
// they need from the event.
type JobChange struct {
	hook.Event
	App          core.App
	Job          *core.Record
	JobID        string
	Status       string
	ClientID     string
	ProviderUser string
}

// newJobChange is the change event of job.
func newJobChange(app core.App, job *core.Record, providerUser string) *JobChange {
	j := Wrap(job)
	return &JobChange{App: app, Job: job, JobID: job.Id, Status: j.Status(), ClientID: j.ClientID(), ProviderUser: providerUser}
}

// JobCancelled tells, inside the transaction that saves it, that a job
// moved to CANCELADO: a listener's error aborts the cancellation.
type JobCancelled struct {
	hook.Event
	App   core.App
	JobID string
	// By is the user who cancelled (Cancel records it in cancelledBy);
	// "" for a save that named nobody (the dashboard, a raw record save).
	By string
}

// JobCompleted tells, inside the transaction that saves it, that a job
// moved to COMPLETADO (the camello marked the work done): a listener's
// error aborts the completion.
type JobCompleted struct {
	hook.Event
	App   core.App
	JobID string
}

const (
	jobChangedKey   = "camellos.jobs.changed"
	jobCancelledKey = "camellos.jobs.cancelled"
	jobCompletedKey = "camellos.jobs.completed"
)

// OnJobCompleted is the app's event fired inside the transaction that
// completes a job (any path that saves it). The payments area starts the
// client's confirmation window with it.
func OnJobCompleted(app core.App) *hook.Hook[*JobCompleted] {
	return app.Store().GetOrSet(jobCompletedKey, func() any {
		return &hook.Hook[*JobCompleted]{}
	}).(*hook.Hook[*JobCompleted])
}

// OnJobChanged is the app's event fired after every committed write of a
// job: record saves (transitions, cancellation, edits) and the conditional
// assignments (admin assign, accepted quote). The live events stream
// relays it to the job's parties.
func OnJobChanged(app core.App) *hook.Hook[*JobChange] {
	return app.Store().GetOrSet(jobChangedKey, func() any {
		return &hook.Hook[*JobChange]{}
	}).(*hook.Hook[*JobChange])
}

// OnJobCancelled is the app's event fired inside the transaction that
// cancels a job (any path that saves it). The quotes area closes the job's
// live quotes with it.
func OnJobCancelled(app core.App) *hook.Hook[*JobCancelled] {
	return app.Store().GetOrSet(jobCancelledKey, func() any {
		return &hook.Hook[*JobCancelled]{}
	}).(*hook.Hook[*JobCancelled])
}

// changedAfterCommit fires OnJobChanged for a job written by a raw UPDATE
// in the transaction txApp, once it commits (no record hook sees such a
// write). providerUser is the user of the provider the UPDATE set, which
// the caller has read already (one read of the camello less per write).
// It returns the job as read back in the transaction (nil outside one or
// when the read failed): the event's record, which the caller may answer
// with but must not change.
func changedAfterCommit(txApp core.App, jobID, providerUser string) *core.Record {
	dropPartiesAfterCommit(txApp, jobID)
	tx := txApp.TxInfo()
	if tx == nil {
		boardOf(txApp).refreshJob(jobID)
		return nil
	}
	// The open board re-reads the job once the UPDATE has committed.
	tx.OnComplete(func(txErr error) error {
		if txErr == nil {
			boardOf(txApp).refreshJob(jobID)
		}
		return nil
	})
	job, err := txApp.FindRecordById(Collection, jobID)
	if err != nil {
		return nil
	}
	tx.OnComplete(func(txErr error) error {
		if txErr == nil {
			if err := OnJobChanged(txApp).Trigger(newJobChange(txApp, job, providerUser)); err != nil {
				txApp.Logger().Error("jobs: change event", "error", err.Error())
			}
		}
		return nil
	})
	return job
}

// AssignQuoted makes camelloID the provider of a PENDIENTE job at the
// agreed price, with one conditional UPDATE run with txApp (the caller's
// transaction): the job must still be PENDIENTE, without provider or
// requested from this very camello. Of racing assignments exactly one
// changes the row; the others get 409. The camello must be ACTIVO. It
// fires no OnProviderSet: the caller, the quotes owner, closes the job's
// other quotes itself in the same transaction (no call back into quotes).
func AssignQuoted(txApp core.App, jobID, camelloID string, amount int) error {
	_, _, err := AssignQuotedRecords(txApp, jobID, camelloID, amount)
	return err
}

// AssignQuotedRecords is AssignQuoted returning the job as read back in
// the transaction after its UPDATE and the camello it got.
func AssignQuotedRecords(txApp core.App, jobID, camelloID string, amount int) (job, camello *core.Record, err error) {
	c, err := txApp.FindRecordById(camellos.Collection, camelloID)
	if err != nil || camellos.Wrap(c).Status() != camellos.StatusActive {
		return nil, nil, httpapi.Conflict(MsgCamelloInactive)
	}
	res, err := txApp.DB().NewQuery(
		"UPDATE jobs SET provider = {:camello}, status = 'ASIGNADO', priceAmount = {:amount}, updated = {:now} " +
			"WHERE id = {:id} AND status = 'PENDIENTE' AND (provider = '' OR provider = {:camello})").
		Bind(dbx.Params{"camello": camelloID, "amount": amount, "now": timefmt.DB(clock.Now(txApp)), "id": jobID}).Execute()
	if err != nil {
		return nil, nil, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return nil, nil, httpapi.Conflict(MsgNoLongerPending)
	}
	job = changedAfterCommit(txApp, jobID, camellos.Wrap(c).UserID())
	if job == nil {
		if job, err = txApp.FindRecordById(Collection, jobID); err != nil {
			return nil, nil, err
		}
	}
	return job, c, nil
}

// bindMarketplaceHooks keeps the folded city of every saved job and emits
// the job events of record saves.
func bindMarketplaceHooks(app core.App) {
	app.OnRecordValidate(Collection).BindFunc(func(e *core.RecordEvent) error {
		e.Record.Set("city", cities.Canonical(e.Record.GetString("city"))) // one spelling per city (issue 24)
		e.Record.Set("cityKey", text.Fold(e.Record.GetString("city")))
		e.Record.Set("address", strings.TrimSpace(e.Record.GetString("address")))
		return e.Next()
	})
	app.OnRecordUpdate(Collection).BindFunc(func(e *core.RecordEvent) error {
		before := records.Stored(e.App, e.Record).GetString("status")
		if err := e.Next(); err != nil {
			return err
		}
		now := e.Record.GetString("status")
		if before != StatusCompleted && now == StatusCompleted {
			return OnJobCompleted(e.App).Trigger(&JobCompleted{App: e.App, JobID: e.Record.Id})
		}
		if before == StatusCancelled || now != StatusCancelled {
			return nil
		}
		return OnJobCancelled(e.App).Trigger(&JobCancelled{App: e.App, JobID: e.Record.Id, By: e.Record.GetString("cancelledBy")})
	})
	app.OnRecordAfterUpdateSuccess(Collection).BindFunc(func(e *core.RecordEvent) error {
		change := newJobChange(e.App, e.Record, ProviderUserID(e.App, e.Record))
		if err := OnJobChanged(e.App).Trigger(change); err != nil {
			e.App.Logger().Error("jobs: change event", "error", err.Error())
		}
		return e.Next()
	})
}

// PriceJSON is the price object of a job: {amount, currency} or nil.
func PriceJSON(rec *core.Record) any {
	if n := rec.GetInt("priceAmount"); n > 0 {
		return map[string]any{"amount": n, "currency": Currency}
	}
	return nil
}

// Relation is how user (with userCamello, its camello profile or nil)
// stands to job, for the visibility table of internal/privacy.
func Relation(user, job, userCamello *core.Record) privacy.Relation {
	if user == nil {
		return privacy.Relation{JobStatus: job.GetString("status")}
	}
	return privacy.Relation{
		Admin:     users.Wrap(user).Role() == users.RoleAdmin,
		Client:    job.GetString("client") == user.Id,
		Provider:  userCamello != nil && job.GetString("provider") == userCamello.Id,
		JobStatus: job.GetString("status"),
	}
}

// AddressVisible reports whether user may read the job's address: the
// rule privacy.JobAddress (its client, admins, and its camello while the
// job is ASIGNADO, EN_PROGRESO or COMPLETADO).
func AddressVisible(app core.App, user, job *core.Record, userCamello *core.Record) bool {
	return privacy.Visible(privacy.JobAddress, Relation(user, job, userCamello))
}

// Redact removes the address from the rendered jobs (list is JSON(recs),
// in the same order) that user may not read it in.
func Redact(app core.App, user *core.Record, recs []*core.Record, list []map[string]any) {
	var cam *core.Record
	if user != nil && users.Wrap(user).Role() == users.RoleCamello {
		cam = CamelloOfUser(app, user.Id)
	}
	for i, r := range recs {
		if !AddressVisible(app, user, r, cam) {
			delete(list[i], "address")
		}
	}
}

// redactFor is Redact for the signed-in user of a request.
func redactFor(e *core.RequestEvent, recs []*core.Record, list []map[string]any) {
	Redact(e.App, session.AuthUser(e), recs, list)
}

type editJobInput struct {
	Address     *string `json:"address"`
	Description *string `json:"description"`
}

// jobEdit handles PATCH /api/jobs/{id} {address?, description?}: the job's
// client edits a job that is not final. 404 for a job the caller cannot
// see, 403 for its camello or an admin, 409 when final.
func jobEdit(e *core.RequestEvent) error {
	job, party, err := VisibleJob(e)
	if err != nil {
		return err
	}
	if !party.Client {
		return httpapi.Forbidden(MsgOnlyClientEdits)
	}
	var in editJobInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	v := httpapi.NewValidation()
	if in.Address != nil {
		httpapi.CheckLength(v, "address", str(in.Address), 0, MaxAddressLen)
	}
	if in.Description != nil {
		httpapi.CheckLength(v, "description", str(in.Description), 0, maxDescriptionLen)
	}
	if err := v.Err(); err != nil {
		return err
	}
	err = writer.Transaction(e.App, func(txApp core.App) error {
		job, err := txApp.FindRecordById(Collection, job.Id)
		if err != nil {
			return err
		}
		if IsFinal(job.GetString("status")) {
			return httpapi.Conflict(MsgFinalJob)
		}
		if in.Address != nil {
			job.Set("address", str(in.Address))
		}
		if in.Description != nil {
			job.Set("description", str(in.Description))
		}
		return txApp.Save(job)
	})
	if err != nil {
		return err
	}
	return answerJob(e, http.StatusOK, job.Id)
}
