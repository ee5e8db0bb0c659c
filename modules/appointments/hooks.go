package appointments

import (
	"camellos/internal/httpapi"
	"camellos/internal/records"

	"github.com/pocketbase/pocketbase/core"
)

// next is the appointment state machine: PROGRAMADA moves to CANCELADA or
// COMPLETADA; both are final.
var next = map[string][]string{
	Scheduled: {Cancelled, Completed},
}

// CanMove reports whether an appointment may go from one state to another
// (staying put is always allowed).
func CanMove(from, to string) bool {
	if from == to {
		return true
	}
	for _, s := range next[from] {
		if s == to {
			return true
		}
	}
	return false
}

// Register binds the appointment record hooks: the state machine on every
// save, and Events.Changed after every committed save or delete.
func Register(app core.App) {
	app.OnRecordValidate(Collection).BindFunc(func(e *core.RecordEvent) error {
		if err := validate(e.App, e.Record); err != nil {
			return err
		}
		return e.Next()
	})
	after := func(e *core.RecordEvent) error {
		ids := []string{e.Record.GetString("camello")}
		if o := e.Record.Original(); o != nil && o.GetString("camello") != "" && o.GetString("camello") != ids[0] {
			ids = append(ids, o.GetString("camello"))
		}
		changed(e.App, ids)
		return e.Next()
	}
	app.OnRecordAfterCreateSuccess(Collection).BindFunc(after)
	app.OnRecordAfterUpdateSuccess(Collection).BindFunc(after)
	app.OnRecordAfterDeleteSuccess(Collection).BindFunc(after)
}

// validate: a new appointment is PROGRAMADA, lasts Length and passes the
// Validate listeners (its job's parties); afterwards only PROGRAMADA moves
// (to CANCELADA or COMPLETADA) and the parties and times stay (Reschedule
// moves a time, in its own conditional update).
func validate(app core.App, rec *core.Record) error {
	start, end := rec.GetDateTime("start").Time(), rec.GetDateTime("end").Time()
	if !end.Equal(start.Add(Length)) {
		return httpapi.FieldRuleError("end", "Una cita dura exactamente 60 minutos")
	}
	if rec.IsNew() {
		if rec.GetString("status") != Scheduled {
			return httpapi.FieldRuleError("status", "Una cita nueva empieza PROGRAMADA")
		}
		return EventsOf(app).Validate.Trigger(&ValidateEvent{App: app, Appointment: Wrap(rec)})
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
	if !CanMove(from, to) {
		return httpapi.FieldRuleError("status", "Transición no permitida: "+from+" → "+to)
	}
	return nil
}
