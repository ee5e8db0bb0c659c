package agenda

import (
	"camellos/internal/httpapi"
	"camellos/internal/records"
	"camellos/modules/jobs"

	"github.com/pocketbase/pocketbase/core"
)

// bindHooks keeps availability and appointments valid whatever saves them,
// and drops the agenda views after the writes that change them.
func bindHooks(app core.App) {
	bindViewHooks(app)
	app.OnRecordValidate(AvailabilityCollection).BindFunc(func(e *core.RecordEvent) error {
		if err := validateAvailability(e.Record); err != nil {
			return err
		}
		return e.Next()
	})
	app.OnRecordValidate(AppointmentsCollection).BindFunc(func(e *core.RecordEvent) error {
		if err := validateAppointment(e.App, e.Record); err != nil {
			return err
		}
		return e.Next()
	})
}

// validateAvailability applies CheckSchedule to a record: bad JSON or any
// invalid range, overlap, date or zone is refused with the first message.
func validateAvailability(rec *core.Record) error {
	var weekly []WeeklyRange
	var blocked []string
	if err := decodeJSONField(rec, "weekly", &weekly); err != nil {
		return httpapi.FieldRuleError("weekly", "Debe ser una lista de rangos {weekday, start, end}")
	}
	if err := decodeJSONField(rec, "blockedDates", &blocked); err != nil {
		return httpapi.FieldRuleError("blockedDates", "Debe ser una lista de fechas AAAA-MM-DD")
	}
	v := httpapi.NewValidation()
	CheckSchedule(v, rec.GetString("timezone"), weekly, blocked)
	if err := v.Err(); err != nil {
		issues := httpapi.ToError(err).Issues
		for field, msgs := range issues.FieldErrors {
			return httpapi.FieldRuleError(field, msgs[0])
		}
	}
	return nil
}

// appointmentNext is the appointment state machine.
var appointmentNext = map[string][]string{
	jobs.AppointmentScheduled: {jobs.AppointmentCancelled, jobs.AppointmentCompleted},
}

// validateAppointment: a new appointment is PROGRAMADA, lasts one slot and
// belongs to its job's client and provider; afterwards only PROGRAMADA
// moves (to CANCELADA or COMPLETADA) and the parties and times stay.
func validateAppointment(app core.App, rec *core.Record) error {
	start, end := rec.GetDateTime("start").Time(), rec.GetDateTime("end").Time()
	if !end.Equal(start.Add(SlotLength)) {
		return httpapi.FieldRuleError("end", "Una cita dura exactamente 60 minutos")
	}
	if rec.IsNew() {
		if rec.GetString("status") != jobs.AppointmentScheduled {
			return httpapi.FieldRuleError("status", "Una cita nueva empieza PROGRAMADA")
		}
		job, err := app.FindRecordById(jobs.Collection, rec.GetString("job"))
		if err != nil {
			return httpapi.FieldRuleError("job", "Trabajo inexistente")
		}
		if job.GetString("provider") != rec.GetString("camello") || job.GetString("client") != rec.GetString("client") {
			return httpapi.FieldRuleError("job", "La cita debe ser del cliente y del camello del trabajo")
		}
		return nil
	}
	orig := records.Stored(app, rec)
	for _, f := range []string{"job", "camello", "client"} {
		if rec.GetString(f) != orig.GetString(f) {
			return httpapi.FieldRuleError(f, "No se puede cambiar")
		}
	}
	if !rec.GetDateTime("start").Equal(orig.GetDateTime("start")) {
		return httpapi.FieldRuleError("start", "No se puede cambiar; cancela y agenda otra cita")
	}
	from, to := orig.GetString("status"), rec.GetString("status")
	if from == to {
		return nil
	}
	for _, s := range appointmentNext[from] {
		if s == to {
			return nil
		}
	}
	return httpapi.FieldRuleError("status", "Transición no permitida: "+from+" → "+to)
}
