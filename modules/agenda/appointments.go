package agenda

import (
	"fmt"
	"math"
	"net/http"
	"time"

	"camellos/internal/clock"
	"camellos/internal/festivos"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/timefmt"
	"camellos/internal/writer"
	"camellos/modules/appointments"
	"camellos/modules/camellos"
	"camellos/modules/jobs"
	"camellos/modules/notifications"
	"camellos/modules/users"

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
	a := appointments.Wrap(rec)
	return map[string]any{
		"id":             a.Id,
		"job":            a.JobID(),
		"camello":        a.CamelloID(),
		"client":         a.ClientID(),
		"start":          timefmt.ISO(a.Start()),
		"end":            timefmt.ISO(a.End()),
		"status":         a.Status(),
		"reminderSentAt": timefmt.ISODate(a.ReminderSentAt()),
		"createdAt":      timefmt.ISO(a.Created().Time()),
		"updatedAt":      timefmt.ISO(a.Updated().Time()),
	}
}

type bookInput struct {
	Start  *string         `json:"start"`
	Repeat *map[string]any `json:"repeat"`
}

// readStart reads a required ISO 8601 start.
func readStart(v *httpapi.Validation, s *string) time.Time {
	if s == nil || *s == "" {
		v.Add("start", "Es obligatorio")
		return time.Time{}
	}
	t, ok := timefmt.ParseTime(*s)
	if !ok {
		v.Add("start", "Fecha inválida: usa ISO 8601, por ejemplo 2026-11-22T14:00:00Z")
	}
	return t
}

// readRepeat reads {every: "WEEK"|"2WEEKS", count: 2–12} as weeks and count.
func readRepeat(v *httpapi.Validation, in map[string]any) (int, int) {
	weeks := 0
	switch in["every"] {
	case EveryWeek:
		weeks = 1
	case EveryTwoWeeks:
		weeks = 2
	case nil:
		v.Add("repeat.every", "Es obligatorio: WEEK o 2WEEKS")
	default:
		v.Add("repeat.every", "Debe ser WEEK o 2WEEKS")
	}
	count := 0
	switch n := in["count"].(type) {
	case float64:
		if n != math.Trunc(n) || n < MinSeriesCount || n > MaxSeriesCount {
			v.Add("repeat.count", fmt.Sprintf("Debe ser un número entero entre %d y %d", MinSeriesCount, MaxSeriesCount))
		}
		count = int(n)
	case nil:
		v.Add("repeat.count", "Es obligatorio")
	default:
		v.Add("repeat.count", fmt.Sprintf("Debe ser un número entero entre %d y %d", MinSeriesCount, MaxSeriesCount))
	}
	return weeks, count
}

// appointmentBook handles POST /api/jobs/{id}/appointments {start, repeat?}:
// the job's client books a free slot of the job's camello, or with repeat
// {every, count} a weekly or fortnightly series at the same local time,
// all or nothing. 404 when the caller cannot see the job, 403 for its
// other parties, 409 when the job is not ASIGNADO or EN_PROGRESO, would
// hold more than 12 future appointments, or a start is not exactly a free
// slot (a series lists them in issues.conflicts), or a single start falls
// on a festivo the camello does not work. 201 {appointment}, or
// {appointments, skippedHolidays} for a series (its festivos the camello
// does not work are skipped, see BookSeries); the camello is notified.
func appointmentBook(e *core.RequestEvent) error {
	job, err := clientJob(e)
	if err != nil {
		return err
	}
	var in bookInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	v := httpapi.NewValidation()
	start := readStart(v, in.Start)
	weeks, count := 0, 1
	if in.Repeat != nil {
		if *in.Repeat == nil {
			v.Add("repeat", "Debe ser un objeto {every, count}")
		} else {
			weeks, count = readRepeat(v, *in.Repeat)
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	if in.Repeat == nil {
		appt, err := Book(e.App, job.ID, start)
		if err != nil {
			return err
		}
		return e.JSON(http.StatusCreated, map[string]any{"appointment": AppointmentJSON(appt.Record)})
	}
	camello, err := e.App.FindRecordById(camellos.Collection, job.Provider)
	if err != nil {
		return httpapi.Conflict(MsgJobNotBookable)
	}
	loc := LoadSchedule(e.App, camello).Location
	list, skipped, err := BookSeries(e.App, job.ID, SeriesStarts(start, loc, weeks, count))
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(list))
	for i, a := range list {
		out[i] = AppointmentJSON(a.Record)
	}
	return e.JSON(http.StatusCreated, map[string]any{"appointments": out, "skippedHolidays": skipped})
}

// clientJob is the path's job when the caller is its client, checked on
// its parties (from memory: a job's client never changes; the booking
// reads the job again in its transaction). Anyone else gets what
// jobs.VisibleJob answers (404 for a job they may not see), or 403.
func clientJob(e *core.RequestEvent) (jobs.Parties, error) {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return jobs.Parties{}, err
	}
	if job, ok, err := jobs.PartiesOf(e.App, id); err == nil && ok && job.Client == session.AuthUser(e).Id {
		return job, nil
	}
	if _, _, err := jobs.VisibleJob(e); err != nil {
		return jobs.Parties{}, err
	}
	return jobs.Parties{}, httpapi.Forbidden(MsgOnlyJobClient)
}

type rescheduleInput struct {
	Start *string `json:"start"`
}

// appointmentReschedule handles POST /api/appointments/{id}/reschedule
// {start}: its client or its camello (others 403 "No autorizado") moves a
// PROGRAMADA appointment that has not started to a free slot (else 409).
// 200 {appointment}, same id; the other party is notified.
func appointmentReschedule(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	appt, err := appointments.Find(e.App, id)
	if err != nil {
		return httpapi.NotFound(MsgAppointmentNotFound)
	}
	user := session.AuthUser(e)
	camelloUser := ""
	if c, err := camellos.Find(e.App, appt.CamelloID()); err == nil {
		camelloUser = c.UserID()
	}
	if appt.ClientID() != user.Id && camelloUser != user.Id {
		return httpapi.Forbidden(httpapi.MsgUnauthorized)
	}
	var in rescheduleInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	v := httpapi.NewValidation()
	start := readStart(v, in.Start)
	if err := v.Err(); err != nil {
		return err
	}
	moved, err := Reschedule(e.App, appt.Id, start, user.Id)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, map[string]any{"appointment": AppointmentJSON(moved.Record)})
}

// appointmentsMine handles GET /api/agenda/appointments?from&to&page&perPage:
// the caller's appointments as client or as camello, by start; from/to
// bound the start (both optional). Each carries holiday: the festivo its
// start falls on in its camello's zone, or null.
func appointmentsMine(e *core.RequestEvent) error {
	v := httpapi.NewValidation()
	p := httpapi.ReadPage(e, v)
	q := e.Request.URL.Query()
	user := session.AuthUser(e)
	party := appointments.Party{ClientID: user.Id}
	if c := jobs.CamelloOfUser(e.App, user.Id); c != nil {
		party.CamelloID = c.Id
	}
	if job := q.Get("job"); job != "" {
		if !httpapi.ValidID(job) {
			v.Add("job", "Identificador inválido")
		}
		party.Job = job
	}
	var bounds [2]time.Time
	for i, param := range []string{"from", "to"} {
		if s := q.Get(param); s != "" {
			t, ok := timefmt.ParseTime(s)
			if !ok {
				v.Add(param, "Fecha inválida: usa ISO 8601")
				continue
			}
			bounds[i] = t
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	list, total, err := appointments.ListOfParty(e.App, party, bounds[0], bounds[1], int(p.Offset()), p.PerPage)
	if err != nil {
		return httpapi.Internal(err)
	}
	out := make([]map[string]any, 0, len(list))
	zones := map[string]*time.Location{} // camello id → its zone
	for _, a := range list {
		j := AppointmentJSON(a.Record)
		loc, ok := zones[a.CamelloID()]
		if !ok {
			loc, _ = LoadZone(DefaultTimezone)
			if c, err := e.App.FindRecordById(camellos.Collection, a.CamelloID()); err == nil {
				loc = LoadSchedule(e.App, c).Location
			}
			zones[a.CamelloID()] = loc
		}
		j["holiday"] = festivos.DayOf(a.Start().In(loc).Date())
		out = append(out, j)
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
	appt, err := appointments.Find(e.App, id)
	if err != nil {
		return httpapi.NotFound(MsgAppointmentNotFound)
	}
	user := session.AuthUser(e)
	camello, _ := camellos.Find(e.App, appt.CamelloID())
	camelloUser := ""
	if camello != nil {
		camelloUser = camello.UserID()
	}
	isClient, isCamello := appt.ClientID() == user.Id, camelloUser == user.Id
	if !isClient && !isCamello && !session.HasRole(e, users.RoleAdmin) {
		return httpapi.Forbidden(httpapi.MsgUnauthorized)
	}
	err = writer.Transaction(e.App, func(txApp core.App) error {
		ok, err := appointments.Cancel(txApp, appt.Id, clock.Now(txApp))
		if err != nil {
			return err
		}
		if !ok {
			fresh, err := appointments.Find(txApp, appt.Id)
			if err == nil && fresh.Status() == appointments.Scheduled {
				return httpapi.Conflict(MsgAlreadyStarted)
			}
			return httpapi.Conflict(MsgNotScheduled)
		}
		for _, to := range []string{appt.ClientID(), camelloUser} {
			if to == "" || to == user.Id {
				continue
			}
			err := notifications.Notify(txApp, to, notifications.Message{
				Kind:  notifications.KindJobStatus,
				Title: "Cita cancelada",
				Body:  "Se canceló la cita del " + timefmt.ISO(appt.Start()),
				URL:   jobs.JobURL(appt.JobID()),
				Data:  map[string]any{"appointmentId": appt.Id, "jobId": appt.JobID()},
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
	fresh, err := appointments.Find(e.App, appt.Id)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, map[string]any{"appointment": AppointmentJSON(fresh.Record)})
}
