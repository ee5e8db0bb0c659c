package jobs

import (
	"net/http"

	"camellos/internal/httpapi"
	"camellos/internal/writer"
	"camellos/modules/camellos"
	"camellos/modules/notifications"

	"github.com/pocketbase/pocketbase/core"
)

// Messages of the camello's transitions.
const (
	MsgOnlyProvider    = "Solo el camello del trabajo puede hacer esto"
	MsgCamelloInactive = "El camello no está activo"
)

// step is one move of the camello along the state machine.
type step struct {
	from, to    string
	conflict    string // 409 message when the job is not in from
	title, body string // notification to the client
}

var (
	stepAccept = step{StatusPending, StatusAssigned, "Solo se acepta un trabajo pendiente",
		"Tu solicitud fue aceptada", "El camello aceptó tu trabajo: "}
	stepStart = step{StatusAssigned, StatusInProgress, "Solo se inicia un trabajo asignado",
		"Tu trabajo comenzó", "El camello inició tu trabajo: "}
	stepComplete = step{StatusInProgress, StatusCompleted, "Solo se completa un trabajo en progreso",
		"Tu trabajo fue completado", "El camello completó tu trabajo: "}
)

// jobAccept handles POST /api/jobs/{id}/accept.
func jobAccept(e *core.RequestEvent) error { return camelloStep(e, stepAccept) }

// jobStart handles POST /api/jobs/{id}/start.
func jobStart(e *core.RequestEvent) error { return camelloStep(e, stepStart) }

// jobComplete handles POST /api/jobs/{id}/complete.
func jobComplete(e *core.RequestEvent) error { return camelloStep(e, stepComplete) }

// camelloStep moves the path's job one step for its camello: 404 when the
// caller cannot see it, 403 when the caller is not its camello, 409 when
// the job is not in the step's starting state. The check and the write
// happen in one transaction, and the client is notified in it.
func camelloStep(e *core.RequestEvent, s step) error {
	job, party, err := VisibleJob(e)
	if err != nil {
		return err
	}
	if !party.Provider {
		return httpapi.Forbidden(MsgOnlyProvider)
	}
	err = writer.Transaction(e.App, func(txApp core.App) error {
		job, err := txApp.FindRecordById(Collection, job.Id)
		if err != nil {
			return err
		}
		if job.GetString("status") != s.from {
			return httpapi.Conflict(s.conflict)
		}
		if s.to == StatusAssigned {
			c, err := txApp.FindRecordById(camellos.Collection, job.GetString("provider"))
			if err != nil || c.GetString("status") != camellos.StatusActive {
				return httpapi.Conflict(MsgCamelloInactive)
			}
		}
		job.Set("status", s.to)
		if err := txApp.Save(job); err != nil {
			return err
		}
		if s.to == StatusAssigned {
			if err := providerSet(txApp, job.Id, job.GetString("provider")); err != nil {
				return err
			}
		}
		return notifyJob(txApp, job.GetString("client"), job, notifications.KindJobStatus,
			s.title, s.body+job.GetString("title"))
	})
	if err != nil {
		return err
	}
	return answerJob(e, http.StatusOK, job.Id)
}
