package agenda

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"camellos/internal/clock"
	"camellos/internal/festivos"
	"camellos/internal/httpapi"
	"camellos/internal/timefmt"
	"camellos/internal/writer"
	"camellos/modules/appointments"
	"camellos/modules/camellos"
	"camellos/modules/jobs"
	"camellos/modules/notifications"

	"github.com/pocketbase/pocketbase/core"
)

// Messages of booking, series and rescheduling.
const (
	MsgSeriesTaken      = "Algunas fechas de la serie no están disponibles; no se agendó ninguna"
	MsgTooMany          = "Un trabajo puede tener como máximo 12 citas programadas a futuro"
	MsgRescheduleClosed = "Solo se reprograma una cita programada que no ha comenzado"
	// MsgHolidayClosed refuses a booking or a move onto a festivo the
	// camello does not work (the detail names the day).
	MsgHolidayClosed = "El camello no trabaja en festivos"
	// MsgSeriesAllHolidays refuses a series whose every date is such a festivo.
	MsgSeriesAllHolidays = "Todas las fechas de la serie caen en festivos y el camello no trabaja en festivos; no se agendó ninguna"
)

// SkippedHoliday is a date of a series left out because it is a festivo
// the camello does not work: the start asked for and the holiday.
type SkippedHoliday struct {
	Start string `json:"start"`
	festivos.Day
}

// closedHoliday returns the festivo start falls on (in the schedule's
// zone) when the camello does not work festivos, or nil.
func (b *agendaCheck) closedHoliday(start time.Time) *festivos.Day {
	if b.s.WorksHolidays {
		return nil
	}
	return festivos.DayOf(start.In(b.s.Location).Date())
}

// holidayRefusal is the 409 of a booking or a move onto a festivo the
// camello does not work: issues.conflicts holds the start and the holiday.
func holidayRefusal(start time.Time, loc *time.Location, day *festivos.Day) error {
	local := start.In(loc)
	detail := fmt.Sprintf("El %s %s es festivo: %s. Elige otro día.",
		strings.ToLower(day.Label[:strings.Index(day.Label, " ")]), local.Format("02/01/2006"), day.Name)
	return httpapi.ConflictWith(MsgHolidayClosed, []SkippedHoliday{{Start: timefmt.ISO(start), Day: *day}}).WithDetail(detail)
}

// Series repetitions: every week or every two weeks, 2–12 occurrences.
const (
	EveryWeek      = "WEEK"
	EveryTwoWeeks  = "2WEEKS"
	MinSeriesCount = 2
	MaxSeriesCount = 12
)

// agendaCheck is a camello's agenda as the booking checks read it inside
// the caller's transaction: its schedule and rules and the PROGRAMADA
// appointments that can block the starts asked about.
type agendaCheck struct {
	s       Schedule
	blocked map[string]bool
	rules   Rules
	spans   []appointments.Span
	places  map[string]string // job id → place, only with the travel rule
	now     time.Time
}

// loadBooking reads what checking starts in [from, to] needs.
func loadBooking(app core.App, camello *core.Record, from, to, now time.Time) (*agendaCheck, error) {
	s := LoadSchedule(app, camello)
	b := &agendaCheck{s: s, blocked: s.BlockedSet(), rules: s.Booking.Rules(), now: now}
	pad := b.rules.maxPad()
	spans, err := appointments.ScheduledOf(app, camello.Id, from.Add(-SlotLength-pad), to.Add(pad))
	if err != nil {
		return nil, err
	}
	b.spans = spans
	if !b.rules.uniform() {
		ids := make([]string, 0, len(spans))
		for _, sp := range spans {
			ids = append(ids, sp.Job)
		}
		sums, err := jobs.SummariesOf(app, ids)
		if err != nil {
			return nil, err
		}
		b.places = make(map[string]string, len(sums))
		for id, sum := range sums {
			b.places[id] = sum.Place
		}
	}
	return b, nil
}

// free lists the free slots in [from, to] for a booking at place; the
// appointment except (one being rescheduled) does not block.
func (b *agendaCheck) free(from, to time.Time, place, except string) []Interval {
	busy := make([]Interval, 0, len(b.spans))
	places := make([]string, 0, len(b.spans))
	for _, sp := range b.spans {
		if sp.ID == except {
			continue
		}
		busy = append(busy, Interval{Start: sp.Start, End: sp.End})
		places = append(places, b.places[sp.Job])
	}
	return FreeSlots(SlotQuery{Location: b.s.Location, Weekly: b.s.Ranges, Blocked: b.blocked,
		SkipHolidays: !b.s.WorksHolidays, Busy: busy, BusyPlaces: places, Place: place, Rules: b.rules, From: from, To: to, Now: b.now})
}

// isFree reports whether start is exactly one of the free slots.
func (b *agendaCheck) isFree(start time.Time, place, except string) bool {
	slots := b.free(start, start.Add(SlotLength), place, except)
	return len(slots) == 1 && slots[0].Start.Equal(start)
}

// SeriesStarts lays count starts from start, every weeks weeks, at the
// same wall time in loc (09:00 stays 09:00 local across a DST change; a
// wall time that does not exist that day moves as WallTime says).
func SeriesStarts(start time.Time, loc *time.Location, weeks, count int) []time.Time {
	l := start.In(loc)
	y, m, d := l.Date()
	minutes := l.Hour()*60 + l.Minute()
	rest := time.Duration(l.Second())*time.Second + time.Duration(l.Nanosecond())
	out := make([]time.Time, 0, count)
	for k := 0; k < count; k++ {
		out = append(out, WallTime(y, m, d+7*weeks*k, minutes, loc).Add(rest))
	}
	return out
}

// Bookable reports whether a job can take appointments: ASIGNADO or
// EN_PROGRESO, or a direct request (PENDIENTE naming its camello, source
// PERFIL) whose client holds a time while the camello answers; declining
// (cancelling) the request cancels the held time with it.
func Bookable(job *core.Record) bool {
	switch jobs.Wrap(job).Status() {
	case jobs.StatusAssigned, jobs.StatusInProgress:
		return true
	case jobs.StatusPending:
		return jobs.Wrap(job).ProviderID() != "" && jobs.Wrap(job).Source() == jobs.SourceProfile
	}
	return false
}

// bookableJob loads a job that can take appointments, and its camello.
func bookableJob(app core.App, jobID string) (*core.Record, *core.Record, error) {
	job, err := app.FindRecordById(jobs.Collection, jobID)
	if err != nil {
		return nil, nil, httpapi.NotFound(jobs.MsgJobNotFound)
	}
	if !Bookable(job) {
		return nil, nil, httpapi.Conflict(MsgJobNotBookable)
	}
	camello, err := app.FindRecordById(camellos.Collection, jobs.Wrap(job).ProviderID())
	if err != nil || camellos.Wrap(camello).Status() != camellos.StatusActive {
		return nil, nil, httpapi.Conflict(jobs.MsgCamelloInactive)
	}
	return job, camello, nil
}

// Book creates a PROGRAMADA appointment of the job at start (see
// BookSeries); a start on a festivo the camello does not work is refused
// (409 MsgHolidayClosed, the day in the detail and issues.conflicts).
func Book(app core.App, jobID string, start time.Time) (*appointments.Appointment, error) {
	list, _, err := bookStarts(app, jobID, []time.Time{start}, false)
	if err != nil {
		return nil, err
	}
	return list[0], nil
}

// BookSeries creates PROGRAMADA appointments of the job at every start, all
// or none, in one transaction: the job must be ASIGNADO or EN_PROGRESO with
// an ACTIVO camello, hold at most MaxFutureAppointments future ones
// afterwards (else 409), and every start must be exactly one of the
// camello's free slots for the job's place at that moment (else 409; with
// several starts, issues.conflicts lists those that are not). Transactions
// are serialised, and the unique index on (camello, start) of PROGRAMADA
// appointments backs it. The camello is notified once.
//
// Festivos: when the camello does not work them, the starts falling on one
// (in the camello's zone) are skipped, not replaced (the series keeps its
// weeks and has fewer appointments), and returned; a series whose every
// start is skipped is refused (409 MsgSeriesAllHolidays).
func BookSeries(app core.App, jobID string, starts []time.Time) ([]*appointments.Appointment, []SkippedHoliday, error) {
	return bookStarts(app, jobID, starts, true)
}

// bookStarts is Book (series false: a festivo refuses) and BookSeries
// (series true: festivos are skipped).
func bookStarts(app core.App, jobID string, starts []time.Time, series bool) ([]*appointments.Appointment, []SkippedHoliday, error) {
	var out []*appointments.Appointment
	var skipped []SkippedHoliday
	err := writer.Transaction(app, func(txApp core.App) error {
		out, skipped = out[:0], []SkippedHoliday{}
		job, camello, err := bookableJob(txApp, jobID)
		if err != nil {
			return err
		}
		now := clock.Now(txApp)
		first, last := starts[0], starts[0]
		for _, s := range starts {
			if s.Before(first) {
				first = s
			}
			if s.After(last) {
				last = s
			}
		}
		check, err := loadBooking(txApp, camello, first, last.Add(SlotLength), now)
		if err != nil {
			return err
		}
		kept := make([]time.Time, 0, len(starts))
		for _, s := range starts {
			day := check.closedHoliday(s)
			switch {
			case day == nil:
				kept = append(kept, s)
			case !series:
				return holidayRefusal(s, check.s.Location, day)
			default:
				skipped = append(skipped, SkippedHoliday{Start: timefmt.ISO(s), Day: *day})
			}
		}
		if len(kept) == 0 {
			return httpapi.ConflictWith(MsgSeriesAllHolidays, skipped)
		}
		starts := kept
		held, err := appointments.FutureOfJob(txApp, job.Id, now)
		if err != nil {
			return err
		}
		if held+len(starts) > MaxFutureAppointments {
			return httpapi.Conflict(MsgTooMany)
		}
		place := jobs.Place(job)
		conflicts := []string{}
		for _, s := range starts {
			if !check.isFree(s, place, "") {
				conflicts = append(conflicts, timefmt.ISO(s))
			}
		}
		if len(conflicts) > 0 {
			if !series {
				return httpapi.Conflict(MsgSlotTaken)
			}
			return httpapi.ConflictWith(MsgSeriesTaken, conflicts)
		}
		for _, s := range starts {
			a, err := appointments.Create(txApp, appointments.New{
				Job: job.Id, Camello: camello.Id, Client: jobs.Wrap(job).ClientID(), Start: s})
			if errors.Is(err, appointments.ErrSlotTaken) {
				if !series {
					return httpapi.Conflict(MsgSlotTaken)
				}
				return httpapi.ConflictWith(MsgSeriesTaken, []string{timefmt.ISO(s)})
			}
			if err != nil {
				return err
			}
			out = append(out, a)
		}
		msg := notifications.Message{
			Kind:  notifications.KindAppointmentBooked,
			Title: "Nueva cita agendada",
			Body:  "Cita para el trabajo: " + jobs.Wrap(job).Title(),
			URL:   jobs.JobURL(job.Id),
			Data:  map[string]any{"appointmentId": out[0].Id, "jobId": job.Id, "camelloId": camello.Id},
		}
		if len(out) > 1 {
			ids := make([]string, len(out))
			for i, a := range out {
				ids[i] = a.Id
			}
			msg.Title = "Nuevas citas agendadas"
			msg.Body = fmt.Sprintf("%d citas para el trabajo: %s", len(out), jobs.Wrap(job).Title())
			msg.Data["appointmentIds"] = ids
		}
		return notifications.Notify(txApp, camellos.Wrap(camello).UserID(), msg)
	})
	if err != nil {
		return nil, nil, err
	}
	return out, skipped, nil
}

// Reschedule moves the appointment id to start on behalf of byUserID (its
// client or its camello's user), in one transaction: it must be PROGRAMADA
// and not started, its job bookable, and start exactly a free slot for the
// job's place with the appointment's own time not blocking it (else 409).
// Same id, new start and end, reminderSentAt cleared; the other party is
// notified (APPOINTMENT_RESCHEDULED). Concurrent moves onto one slot: the
// serialised transactions and the unique index leave exactly one winner.
func Reschedule(app core.App, id string, start time.Time, byUserID string) (*appointments.Appointment, error) {
	var moved *appointments.Appointment
	err := writer.Transaction(app, func(txApp core.App) error {
		appt, err := appointments.Find(txApp, id)
		if err != nil {
			return httpapi.NotFound(MsgAppointmentNotFound)
		}
		now := clock.Now(txApp)
		if appt.Status() != appointments.Scheduled || !appt.Start().After(now) {
			return httpapi.Conflict(MsgRescheduleClosed)
		}
		job, camello, err := bookableJob(txApp, appt.JobID())
		if err != nil {
			return err
		}
		check, err := loadBooking(txApp, camello, start, start.Add(SlotLength), now)
		if err != nil {
			return err
		}
		if day := check.closedHoliday(start); day != nil {
			return holidayRefusal(start, check.s.Location, day)
		}
		if !check.isFree(start, jobs.Place(job), appt.Id) {
			return httpapi.Conflict(MsgSlotTaken)
		}
		ok, err := appointments.Reschedule(txApp, appt.Id, start, now)
		if errors.Is(err, appointments.ErrSlotTaken) {
			return httpapi.Conflict(MsgSlotTaken)
		}
		if err != nil {
			return err
		}
		if !ok {
			return httpapi.Conflict(MsgRescheduleClosed)
		}
		moved, err = appointments.Find(txApp, appt.Id)
		if err != nil {
			return err
		}
		for _, to := range []string{appt.ClientID(), camellos.Wrap(camello).UserID()} {
			if to == "" || to == byUserID {
				continue
			}
			local := func(t time.Time) string {
				return t.In(check.s.Location).Format("02/01/2006 15:04") + " (" + check.s.Location.String() + ")"
			}
			err := notifications.Notify(txApp, to, notifications.Message{
				Kind:  notifications.KindAppointmentRescheduled,
				Title: "Cita reprogramada",
				Body: "La cita del trabajo " + jobs.Wrap(job).Title() + " pasó del " +
					local(appt.Start()) + " al " + local(start),
				URL: jobs.JobURL(job.Id),
				Data: map[string]any{"appointmentId": appt.Id, "jobId": job.Id, "camelloId": camello.Id,
					"previousStart": timefmt.ISO(appt.Start()), "start": timefmt.ISO(start)},
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return moved, nil
}
