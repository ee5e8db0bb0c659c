package jobs

import (
	"net/http"

	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/writer"
	"camellos/modules/appointments"
	"camellos/modules/notifications"

	"github.com/pocketbase/pocketbase/core"
)

// Conflict messages of the cancellation (endpoint 6).
const (
	MsgCompletedJob = "Un trabajo completado no se puede cancelar"
	MsgAlreadyDone  = "El trabajo ya está cancelado"
)

// jobCancel handles POST /api/jobs/{id}/cancel (endpoint 6): the job's
// client, its camello or an admin; anyone else 403 "No autorizado".
func jobCancel(e *core.RequestEvent) error {
	job, err := findJob(e.App, e)
	if err != nil {
		return err
	}
	user := session.AuthUser(e)
	party := PartyOf(e.App, user, job)
	if !party.Any() {
		return httpapi.Forbidden(httpapi.MsgUnauthorized)
	}
	if err := Cancel(e.App, job.Id, user.Id); err != nil {
		return err
	}
	return answerJob(e, http.StatusOK, job.Id)
}

// Cancel moves a job to CANCELADO on behalf of byUserID, cancels its future
// PROGRAMADA appointments (freeing their slots) and notifies the other
// party (both, when an admin cancels), all in one transaction. A COMPLETADO
// or already CANCELADO job is a 409.
func Cancel(app core.App, jobID, byUserID string) error {
	return writer.Transaction(app, func(txApp core.App) error {
		job, err := txApp.FindRecordById(Collection, jobID)
		if err != nil {
			return httpapi.NotFound(MsgJobNotFound)
		}
		switch job.GetString("status") {
		case StatusCompleted:
			return httpapi.Conflict(MsgCompletedJob)
		case StatusCancelled:
			return httpapi.Conflict(MsgAlreadyDone)
		}
		job.Set("status", StatusCancelled)
		job.Set("cancelledBy", byUserID)
		if err := txApp.Save(job); err != nil {
			return err
		}
		if _, err := appointments.CancelOfJob(txApp, job.Id, clock.Now(txApp)); err != nil {
			return err
		}
		title := job.GetString("title")
		for _, to := range []string{job.GetString("client"), ProviderUserID(txApp, job)} {
			if to == byUserID {
				continue
			}
			if err := notifyJob(txApp, to, job, notifications.KindJobCancelled,
				"Trabajo cancelado", "Se canceló el trabajo: "+title); err != nil {
				return err
			}
		}
		return nil
	})
}
