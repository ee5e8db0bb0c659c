package agenda

import (
	"net/http"
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/timefmt"
	"camellos/modules/camellos"
	"camellos/modules/jobs"
	"camellos/modules/notifications"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Messages of the appointments.
const (
	MsgAppointmentNotFound = "Cita no encontrada"
	MsgOnlyJobClient       = "Solo el cliente del trabajo puede agendar citas"
	MsgJobNotBookable      = "Solo se agenda una cita en un trabajo asignado o en progreso"
	MsgSlotTaken           = "El horario no está disponible"
	MsgNotScheduled        = "La cita no está programada"
	MsgAlreadyStarted      = "No se puede cancelar una cita que ya comenzó"
)

// AppointmentJSON renders an appointment: {id, job, camello, client, start,
// end, status, reminderSentAt, createdAt, updatedAt} (job, camello and
// client are ids; reminderSentAt is null until the reminder is sent).
func AppointmentJSON(rec *core.Record) map[string]any {
	return map[string]any{
		"id":             rec.Id,
		"job":            rec.GetString("job"),
		"camello":        rec.GetString("camello"),
		"client":         rec.GetString("client"),
		"start":          timefmt.ISO(rec.GetDateTime("start").Time()),
		"end":            timefmt.ISO(rec.GetDateTime("end").Time()),
		"status":         rec.GetString("status"),
		"reminderSentAt": timefmt.ISODate(rec.GetDateTime("reminderSentAt")),
		"createdAt":      timefmt.ISO(rec.GetDateTime("created").Time()),
		"updatedAt":      timefmt.ISO(rec.GetDateTime("updated").Time()),
	}
}

type bookInput struct {
	Start *string `json:"start"`
}

// appointmentBook handles POST /api/jobs/{id}/appointments {start}: the
// job's client books a free slot of the job's camello. 404 when the caller
// cannot see the job, 403 for its other parties, 409 when the job is not
// ASIGNADO or EN_PROGRESO or start is not exactly a free slot. 201
// {appointment}; the camello is notified.
func appointmentBook(e *core.RequestEvent) error {
	job, party, err := jobs.VisibleJob(e)
	if err != nil {
		return err
	}
	if !party.Client {
		return httpapi.Forbidden(MsgOnlyJobClient)
	}
	var in bookInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	if in.Start == nil || *in.Start == "" {
		return httpapi.FieldError("start", "Es obligatorio")
	}
	start, ok := timefmt.ParseTime(*in.Start)
	if !ok {
		return httpapi.FieldError("start", "Fecha inválida: usa ISO 8601, por ejemplo 2026-11-22T14:00:00Z")
	}
	appt, err := Book(e.App, job.Id, start)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, map[string]any{"appointment": AppointmentJSON(appt)})
}

// Book creates a PROGRAMADA appointment of the job at start in one
// transaction: the job must be ASIGNADO or EN_PROGRESO with an ACTIVO
// camello, and start must be exactly one of the camello's free slots at
// that moment. Transactions are serialised, and the unique index on
// (camello, start) of PROGRAMADA appointments backs it: a double booking
// is a 409 either way.
func Book(app core.App, jobID string, start time.Time) (*core.Record, error) {
	var appt *core.Record
	err := app.RunInTransaction(func(txApp core.App) error {
		job, err := txApp.FindRecordById(jobs.Collection, jobID)
		if err != nil {
			return httpapi.NotFound(jobs.MsgJobNotFound)
		}
		if s := job.GetString("status"); s != jobs.StatusAssigned && s != jobs.StatusInProgress {
			return httpapi.Conflict(MsgJobNotBookable)
		}
		camello, err := txApp.FindRecordById(camellos.Collection, job.GetString("provider"))
		if err != nil || camello.GetString("status") != camellos.StatusActive {
			return httpapi.Conflict(jobs.MsgCamelloInactive)
		}
		end := start.Add(SlotLength)
		slots, err := FreeSlotsOf(txApp, camello, start, end, jobs.Now(txApp))
		if err != nil {
			return err
		}
		if len(slots) != 1 || !slots[0].Start.Equal(start) {
			return httpapi.Conflict(MsgSlotTaken)
		}
		col, err := txApp.FindCachedCollectionByNameOrId(AppointmentsCollection)
		if err != nil {
			return err
		}
		appt = core.NewRecord(col)
		appt.Set("job", job.Id)
		appt.Set("camello", camello.Id)
		appt.Set("client", job.GetString("client"))
		appt.Set("start", start)
		appt.Set("end", end)
		appt.Set("status", jobs.AppointmentScheduled)
		if err := txApp.Save(appt); err != nil {
			if jobs.IsUniqueViolation(err) {
				return httpapi.Conflict(MsgSlotTaken)
			}
			return err
		}
		return notifications.Notify(txApp, camello.GetString("user"), notifications.Message{
			Kind:  notifications.KindAppointmentBooked,
			Title: "Nueva cita agendada",
			Body:  "Cita para el trabajo: " + job.GetString("title"),
			URL:   jobs.JobURL(job.Id),
			Data:  map[string]any{"appointmentId": appt.Id, "jobId": job.Id, "camelloId": camello.Id},
		})
	})
	if err != nil {
		return nil, err
	}
	return appt, nil
}

// appointmentsMine handles GET /api/agenda/appointments?from&to&page&perPage:
// the caller's appointments as client or as camello, by start; from/to
// bound the start (both optional).
func appointmentsMine(e *core.RequestEvent) error {
	v := httpapi.NewValidation()
	p := jobs.ReadPage(e, v)
	q := e.Request.URL.Query()
	where := []dbx.Expression{}
	user := session.AuthUser(e)
	mine := dbx.Expression(dbx.HashExp{"client": user.Id})
	if c := jobs.CamelloOfUser(e.App, user.Id); c != nil {
		mine = dbx.Or(dbx.HashExp{"client": user.Id}, dbx.HashExp{"camello": c.Id})
	}
	where = append(where, mine)
	for _, bound := range []struct{ param, op string }{{"from", ">="}, {"to", "<"}} {
		if s := q.Get(bound.param); s != "" {
			t, ok := timefmt.ParseTime(s)
			if !ok {
				v.Add(bound.param, "Fecha inválida: usa ISO 8601")
				continue
			}
			where = append(where, dbx.NewExp("start "+bound.op+" {:"+bound.param+"}",
				dbx.Params{bound.param: jobs.DBTimeOf(t)}))
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	cond := dbx.And(where...)
	var total int
	if err := e.App.DB().Select("COUNT(*)").From(AppointmentsCollection).Where(cond).Row(&total); err != nil {
		return httpapi.Internal(err)
	}
	recs := []*core.Record{}
	err := e.App.RecordQuery(AppointmentsCollection).Where(cond).OrderBy("start ASC", "id ASC").
		Offset(p.Offset()).Limit(int64(p.PerPage)).All(&recs)
	if err != nil {
		return httpapi.Internal(err)
	}
	out := make([]map[string]any, 0, len(recs))
	for _, r := range recs {
		out = append(out, AppointmentJSON(r))
	}
	return e.JSON(http.StatusOK, map[string]any{"appointments": out, "page": p.Page, "perPage": p.PerPage, "total": total})
}

// appointmentCancel handles POST /api/appointments/{id}/cancel: its client,
// its camello or an admin (others 403 "No autorizado"); only a PROGRAMADA
// appointment that has not started (else 409). The slot is free again and
// the other party is notified. 200 {appointment}.
func appointmentCancel(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	appt, err := e.App.FindRecordById(AppointmentsCollection, id)
	if err != nil {
		return httpapi.NotFound(MsgAppointmentNotFound)
	}
	user := session.AuthUser(e)
	camello, _ := e.App.FindRecordById(camellos.Collection, appt.GetString("camello"))
	camelloUser := ""
	if camello != nil {
		camelloUser = camello.GetString("user")
	}
	isClient, isCamello := appt.GetString("client") == user.Id, camelloUser == user.Id
	if !isClient && !isCamello && !session.HasRole(e, users.RoleAdmin) {
		return httpapi.Forbidden(httpapi.MsgUnauthorized)
	}
	err = e.App.RunInTransaction(func(txApp core.App) error {
		n, err := jobs.CancelAppointments(txApp, "id", appt.Id, jobs.Now(txApp))
		if err != nil {
			return err
		}
		if n != 1 {
			fresh, err := txApp.FindRecordById(AppointmentsCollection, appt.Id)
			if err == nil && fresh.GetString("status") == jobs.AppointmentScheduled {
				return httpapi.Conflict(MsgAlreadyStarted)
			}
			return httpapi.Conflict(MsgNotScheduled)
		}
		for _, to := range []string{appt.GetString("client"), camelloUser} {
			if to == "" || to == user.Id {
				continue
			}
			err := notifications.Notify(txApp, to, notifications.Message{
				Kind:  notifications.KindJobStatus,
				Title: "Cita cancelada",
				Body:  "Se canceló la cita del " + timefmt.ISO(appt.GetDateTime("start").Time()),
				URL:   jobs.JobURL(appt.GetString("job")),
				Data:  map[string]any{"appointmentId": appt.Id, "jobId": appt.GetString("job")},
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fresh, err := e.App.FindRecordById(AppointmentsCollection, appt.Id)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, map[string]any{"appointment": AppointmentJSON(fresh)})
}
