package jobs

import (
	"net/http"
	"strings"

	"camellos/internal/clock"
	"camellos/internal/config"
	"camellos/internal/httpapi"
	"camellos/internal/timefmt"
	"camellos/internal/writer"
	"camellos/modules/appointments"
	"camellos/modules/camellos"
	"camellos/modules/notifications"

	"github.com/pocketbase/pocketbase/core"
)

// Messages of the camello's transitions.
const (
	MsgOnlyProvider    = "Solo el camello del trabajo puede hacer esto"
	MsgCamelloInactive = "El camello no está activo"
	MsgFutureVisits    = "El trabajo tiene citas futuras programadas: confirma que se cancelan (endFutureVisits) para completarlo"
)

// step is one move of the camello along the state machine.
type step struct {
	from, to    string
	conflict    string // 409 message when the job is not in from
	title, body string // notification to the client
	endFuture   bool   // completion: the camello confirmed ending future visits
}

var (
	stepAccept = step{StatusPending, StatusAssigned, "Solo se acepta un trabajo pendiente",
		"Tu solicitud fue aceptada", "El camello aceptó tu trabajo: ", false}
	stepStart = step{StatusAssigned, StatusInProgress, "Solo se inicia un trabajo asignado",
		"Tu trabajo comenzó", "El camello inició tu trabajo: ", false}
	stepComplete = step{StatusInProgress, StatusCompleted, "Solo se completa un trabajo en progreso",
		"Tu trabajo fue completado", "El camello completó tu trabajo: ", false}
)

// jobAccept handles POST /api/jobs/{id}/accept.
func jobAccept(e *core.RequestEvent) error { return camelloStep(e, stepAccept) }

// jobStart handles POST /api/jobs/{id}/start.
func jobStart(e *core.RequestEvent) error { return camelloStep(e, stepStart) }

// jobComplete handles POST /api/jobs/{id}/complete, body optional
// {endFutureVisits}: a job that still has future PROGRAMADA appointments
// is a 409 listing them in issues.conflicts, unless endFutureVisits is
// true; then they are cancelled with the completion, named in the client's
// notification and in the answer's cancelledAppointments.
func jobComplete(e *core.RequestEvent) error {
	var body struct {
		EndFutureVisits *bool `json:"endFutureVisits"`
	}
	if err := httpapi.ReadJSON(e, &body); err != nil {
		return err
	}
	s := stepComplete
	s.endFuture = body.EndFutureVisits != nil && *body.EndFutureVisits
	return camelloStep(e, s)
}

// futureVisit is a PROGRAMADA appointment that completing a job ends.
type futureVisit struct {
	AppointmentID string `json:"appointmentId"`
	JobID         string `json:"jobId"`
	Start         string `json:"start"`
	End           string `json:"end"`
}

// futureVisits reads the job's future PROGRAMADA appointments (in the
// completion's transaction) and the sentence naming them for the client,
// on the camello's clock.
func futureVisits(txApp core.App, job *core.Record) ([]futureVisit, string, error) {
	spans, err := appointments.FutureSpansOfJob(txApp, job.Id, clock.Now(txApp))
	if err != nil || len(spans) == 0 {
		return []futureVisit{}, "", err
	}
	zone := ""
	if c, err := txApp.FindRecordById(camellos.Collection, job.GetString("provider")); err == nil {
		zone = camellos.Wrap(c).Timezone()
	}
	loc := ReminderLocation(zone, config.Of(txApp).Timezone)
	out := make([]futureVisit, len(spans))
	when := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = futureVisit{AppointmentID: sp.ID, JobID: job.Id, Start: timefmt.ISO(sp.Start), End: timefmt.ISO(sp.End)}
		when[i] = sp.Start.In(loc).Format("02/01/2006 15:04")
	}
	return out, ". Se cancelaron sus citas futuras: " + strings.Join(when, ", ") + " (" + loc.String() + ")", nil
}

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
	var cancelled []futureVisit
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
			if err != nil || camellos.Wrap(c).Status() != camellos.StatusActive {
				return httpapi.Conflict(MsgCamelloInactive)
			}
		}
		note := ""
		if s.to == StatusCompleted {
			// The job's hook cancels its future visits with the completion
			// (appointments.CloseOfJob): only when the camello said so.
			if cancelled, note, err = futureVisits(txApp, job); err != nil {
				return err
			}
			if len(cancelled) > 0 && !s.endFuture {
				return httpapi.ConflictWith(MsgFutureVisits, cancelled)
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
			s.title, s.body+job.GetString("title")+note)
	})
	if err != nil {
		return err
	}
	if s.to == StatusCompleted {
		return answerJob(e, http.StatusOK, job.Id, map[string]any{"cancelledAppointments": cancelled})
	}
	return answerJob(e, http.StatusOK, job.Id)
}
