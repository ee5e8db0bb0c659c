package jobs

import (
	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/records"
	"camellos/modules/appointments"
	"camellos/modules/camellos"

	"github.com/pocketbase/pocketbase/core"
)

// nextStates is the job state machine: the states each state may move to.
// CANCELADO is reachable from every state but COMPLETADO; COMPLETADO and
// CANCELADO are final.
var nextStates = map[string][]string{
	StatusPending:    {StatusAssigned, StatusCancelled},
	StatusAssigned:   {StatusInProgress, StatusCancelled},
	StatusInProgress: {StatusCompleted, StatusCancelled},
}

// CanMove reports whether a job may go from one state to another (staying
// put is always allowed).
func CanMove(from, to string) bool {
	if from == to {
		return true
	}
	for _, s := range nextStates[from] {
		if s == to {
			return true
		}
	}
	return false
}

// needsProvider reports whether a state requires an assigned camello.
func needsProvider(status string) bool {
	return status == StatusAssigned || status == StatusInProgress || status == StatusCompleted
}

// bindHooks enforces the job invariants wherever a job is saved: our
// routes, the admin dashboard and the generic collection API.
func bindHooks(app core.App) {
	app.OnRecordValidate(Collection).BindFunc(func(e *core.RecordEvent) error {
		if err := validateJob(e.App, e.Record); err != nil {
			return err
		}
		return e.Next()
	})

	// A completed job has no appointments left to keep: in the same
	// transaction its past PROGRAMADA appointments become COMPLETADA and its
	// future ones CANCELADA (their slots free again, no reminder is sent).
	app.OnRecordUpdate(Collection).BindFunc(func(e *core.RecordEvent) error {
		before := records.Stored(e.App, e.Record).GetString("status")
		if err := e.Next(); err != nil {
			return err
		}
		if before == StatusCompleted || e.Record.GetString("status") != StatusCompleted {
			return nil
		}
		return appointments.CloseOfJob(e.App, e.Record.Id, clock.Now(e.App))
	})

	// A review counts only from a client whose job with that camello
	// really happened (issue 21): its job is COMPLETADO (by the camello's
	// steps: the state machine above admits no other way), the review's
	// client is the job's client and its camello the job's provider; one
	// per job (the reviews' unique index). Every path that saves a review
	// obeys it: our route, the dashboard, a record save.
	camellos.OnReviewValidate(app).BindFunc(func(e *camellos.ReviewValidateEvent) error {
		job, err := e.App.FindRecordById(Collection, e.JobID)
		if err != nil {
			return httpapi.FieldRuleError("job", "Trabajo inexistente")
		}
		if job.GetString("status") != StatusCompleted {
			return httpapi.FieldRuleError("job", MsgReviewNotDone)
		}
		if job.GetString("client") != e.ClientID {
			return httpapi.FieldRuleError("client", "La reseña debe ser del cliente del trabajo")
		}
		if job.GetString("provider") == "" || job.GetString("provider") != e.CamelloID {
			return httpapi.FieldRuleError("camello", "La reseña debe ser del camello que hizo el trabajo")
		}
		return e.Next()
	})

	// A new appointment belongs to its job's client and camello.
	appointments.EventsOf(app).Validate.BindFunc(func(e *appointments.ValidateEvent) error {
		job, ok, err := loadParties(e.App, e.Appointment.JobID()) // five columns, not the whole record
		if err != nil || !ok {
			return httpapi.FieldRuleError("job", "Trabajo inexistente")
		}
		if job.Provider != e.Appointment.CamelloID() || job.Client != e.Appointment.ClientID() {
			return httpapi.FieldRuleError("job", "La cita debe ser del cliente y del camello del trabajo")
		}
		return e.Next()
	})
}

// validateJob checks a job about to be saved against its stored original.
func validateJob(app core.App, rec *core.Record) error {
	status := rec.GetString("status")
	provider := rec.GetString("provider")
	if rec.IsNew() {
		if status != StatusPending {
			return httpapi.FieldRuleError("status", "Un trabajo nuevo empieza en PENDIENTE")
		}
		if provider != "" {
			return checkProviderActive(app, provider)
		}
		return nil
	}
	orig := records.Stored(app, rec)
	from := orig.GetString("status")
	if !CanMove(from, status) {
		return httpapi.FieldRuleError("status", "Transición no permitida: "+from+" → "+status)
	}
	if rec.GetString("client") != orig.GetString("client") {
		return httpapi.FieldRuleError("client", "El cliente de un trabajo no puede cambiar")
	}
	oldProvider := orig.GetString("provider")
	if provider != oldProvider && !takesProvider(from, oldProvider) {
		if oldProvider != "" {
			return httpapi.FieldRuleError("provider", "El proveedor de un trabajo no puede cambiar")
		}
		return httpapi.FieldRuleError("provider", "Solo se asigna un proveedor a un trabajo pendiente")
	}
	if provider != oldProvider {
		if err := checkProviderActive(app, provider); err != nil {
			return err
		}
	}
	if needsProvider(status) && provider == "" {
		return httpapi.FieldRuleError("provider", "El estado "+status+" requiere un proveedor asignado")
	}
	return nil
}

// takesProvider is the one statement of when a job may get its provider:
// while PENDIENTE and without one. The record hook and the conditional
// UPDATE of Assign (its WHERE) both follow it.
func takesProvider(status, provider string) bool { return status == StatusPending && provider == "" }

// assignable reports whether a camello may become a job's provider (ACTIVO).
func assignable(camello *core.Record) bool { return camellos.Wrap(camello).Active() }

func checkProviderActive(app core.App, provider string) error {
	c, err := app.FindRecordById(camellos.Collection, provider)
	if err != nil || !assignable(c) {
		return httpapi.FieldRuleError("provider", "El camello no existe o no está activo")
	}
	return nil
}
