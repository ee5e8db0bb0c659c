package jobs

import (
	"net/http"

	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/timefmt"
	"camellos/internal/writer"
	"camellos/modules/camellos"
	"camellos/modules/notifications"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Conflict messages of the assignment (endpoint 4).
const (
	MsgNotPending  = "El trabajo no está pendiente"
	MsgHasProvider = "El trabajo ya tiene un proveedor asignado"
)

type assignInput struct {
	CamelloID *string `json:"camelloId"`
}

// jobAssign handles POST /api/admin/jobs/{id}/assign {camelloId} (endpoint
// 4): 400 invalid body, 404 unknown job or camello, 409 job not PENDIENTE,
// already with a provider, or camello not ACTIVO; 200 {job} ASIGNADO.
func jobAssign(e *core.RequestEvent) error {
	jobID, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	var in assignInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	switch {
	case in.CamelloID == nil || *in.CamelloID == "":
		return httpapi.FieldError("camelloId", "Es obligatorio")
	case !httpapi.ValidID(*in.CamelloID):
		return httpapi.FieldError("camelloId", "Identificador inválido")
	}
	err = Assign(e.App, jobID, *in.CamelloID)
	if err != nil {
		return err
	}
	return answerJob(e, http.StatusOK, jobID)
}

// Assign makes camelloID the provider of a free PENDIENTE job and moves it
// to ASIGNADO with one conditional UPDATE, in a transaction that also
// notifies the client and the camello: of many concurrent assigns exactly
// one changes a row, the others get 409.
func Assign(app core.App, jobID, camelloID string) error {
	return writer.Transaction(app, func(txApp core.App) error {
		job, err := txApp.FindRecordById(Collection, jobID)
		if err != nil {
			return httpapi.NotFound(MsgJobNotFound)
		}
		camello, err := txApp.FindRecordById(camellos.Collection, camelloID)
		if err != nil {
			return httpapi.NotFound(MsgCamelloNotFound)
		}
		if err := assignConflict(job, camello); err != nil {
			return err
		}
		res, err := txApp.DB().NewQuery(
			"UPDATE jobs SET provider = {:provider}, status = 'ASIGNADO', updated = {:now} " +
				"WHERE id = {:id} AND status = 'PENDIENTE' AND provider = ''").
			Bind(dbx.Params{"provider": camello.Id, "now": timefmt.DB(clock.Now(txApp)), "id": job.Id}).Execute()
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			// Someone moved the job since it was read: report its new state.
			if fresh, ferr := txApp.FindRecordById(Collection, jobID); ferr == nil {
				if cerr := assignConflict(fresh, camello); cerr != nil {
					return cerr
				}
			}
			return httpapi.Conflict(MsgNotPending)
		}
		job.Set("provider", camello.Id)
		changedAfterCommit(txApp, job.Id, camellos.Wrap(camello).UserID())
		if err := providerSet(txApp, job.Id, camello.Id); err != nil {
			return err
		}
		title := Wrap(job).Title()
		if err := notifyJob(txApp, Wrap(job).ClientID(), job, notifications.KindJobAssigned,
			"Tu trabajo fue asignado", camellos.Wrap(camello).Name()+" atenderá tu trabajo: "+title); err != nil {
			return err
		}
		return notifyJob(txApp, camellos.Wrap(camello).UserID(), job, notifications.KindJobAssigned,
			"Te asignaron un trabajo", "Nuevo trabajo asignado: "+title)
	})
}

// assignConflict is the 409 of an assignment the job's or the camello's
// state forbids (takesProvider, assignable), or nil.
func assignConflict(job, camello *core.Record) error {
	status, provider := Wrap(job).Status(), Wrap(job).ProviderID()
	switch {
	case !takesProvider(status, provider) && status != StatusPending:
		return httpapi.Conflict(MsgNotPending)
	case !takesProvider(status, provider):
		return httpapi.Conflict(MsgHasProvider)
	case !assignable(camello):
		return httpapi.Conflict(MsgCamelloInactive)
	}
	return nil
}
