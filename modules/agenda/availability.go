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
	"camellos/modules/appointments"
	"camellos/modules/jobs"
	"camellos/modules/notifications"

	"github.com/pocketbase/pocketbase/core"
)

// MsgNoProfile answers a CAMELLOS user without a camello profile.
const MsgNoProfile = "Perfil de camello no encontrado"

// myCamello is the signed-in user's camello profile (404 without one).
func myCamello(e *core.RequestEvent) (*core.Record, error) {
	c := jobs.CamelloOfUser(e.App, session.AuthUser(e).Id)
	if c == nil {
		return nil, httpapi.NotFound(MsgNoProfile)
	}
	return c, nil
}

// availabilityOut is the availability as answered; the booking rules come
// after the schedule's fields.
type availabilityOut struct {
	BlockedDates        []string      `json:"blockedDates"`
	Timezone            string        `json:"timezone"`
	UpdatedAt           *string       `json:"updatedAt"`
	Weekly              []WeeklyRange `json:"weekly"`
	MinNoticeMinutes    int           `json:"minNoticeMinutes"`
	BufferMinutes       int           `json:"bufferMinutes"`
	HorizonDays         int           `json:"horizonDays"`
	TravelBufferMinutes int           `json:"travelBufferMinutes"`
	WorksHolidays       bool          `json:"worksHolidays"`
}

func availabilityJSON(s Schedule, updated *core.Record) availabilityOut {
	out := availabilityOut{
		BlockedDates:        s.Blocked,
		Timezone:            s.Timezone,
		Weekly:              s.Weekly,
		MinNoticeMinutes:    s.Booking.MinNoticeMinutes,
		BufferMinutes:       s.Booking.BufferMinutes,
		HorizonDays:         s.Booking.HorizonDays,
		TravelBufferMinutes: s.Booking.TravelBufferMinutes,
		WorksHolidays:       s.WorksHolidays,
	}
	if updated != nil {
		at := timefmt.ISO(updated.GetDateTime("updated").Time())
		out.UpdatedAt = &at
	}
	return out
}

// availabilityGet handles GET /api/agenda/availability: the saved schedule,
// or an empty one in the camello's default zone.
func availabilityGet(e *core.RequestEvent) error {
	camello, err := myCamello(e)
	if err != nil {
		return err
	}
	rec := findAvailability(e.App, camello.Id)
	s := LoadSchedule(e.App, camello)
	return e.JSON(http.StatusOK, map[string]any{"availability": availabilityJSON(s, rec)})
}

type availabilityInput struct {
	Timezone            *string           `json:"timezone"`
	Weekly              *[]map[string]any `json:"weekly"`
	BlockedDates        *[]string         `json:"blockedDates"`
	MinNoticeMinutes    *float64          `json:"minNoticeMinutes"`
	BufferMinutes       *float64          `json:"bufferMinutes"`
	HorizonDays         *float64          `json:"horizonDays"`
	TravelBufferMinutes *float64          `json:"travelBufferMinutes"`
	WorksHolidays       *bool             `json:"worksHolidays"`
	CancelConflicts     *bool             `json:"cancelConflicts"`
}

// Messages of the conflicts of a new availability.
const (
	// MsgBlockedConflicts refuses blocking dates that hold appointments.
	MsgBlockedConflicts = "Hay citas programadas en las fechas bloqueadas: cancélalas o envía cancelConflicts: true"
	// MsgHolidayConflicts refuses to stop working festivos that hold
	// appointments.
	MsgHolidayConflicts = "Hay citas programadas en festivos: para dejar de trabajar en festivos cancélalas o envía cancelConflicts: true"
)

// readRules applies the request's rules over current: an absent rule keeps
// its value; a present one must be an integer within its bounds.
func readRules(v *httpapi.Validation, in availabilityInput, current BookingRules) BookingRules {
	out := current
	for _, r := range []struct {
		field string
		in    *float64
		dst   *int
	}{
		{"minNoticeMinutes", in.MinNoticeMinutes, &out.MinNoticeMinutes},
		{"bufferMinutes", in.BufferMinutes, &out.BufferMinutes},
		{"horizonDays", in.HorizonDays, &out.HorizonDays},
		{"travelBufferMinutes", in.TravelBufferMinutes, &out.TravelBufferMinutes},
	} {
		if r.in == nil {
			continue
		}
		n := *r.in
		if n != math.Trunc(n) || n < math.MinInt32 || n > math.MaxInt32 {
			*r.dst = -1 // out of every bound: Check reports it
			continue
		}
		*r.dst = int(n)
	}
	out.Check(v)
	return out
}

// blockedConflict is a PROGRAMADA appointment on a blocked date, or on a
// festivo the camello stops working (Holiday names it; null otherwise).
type blockedConflict struct {
	AppointmentID string  `json:"appointmentId"`
	JobID         string  `json:"jobId"`
	Date          string  `json:"date"`
	Start         string  `json:"start"`
	End           string  `json:"end"`
	Holiday       *string `json:"holiday"`
	client        string
	local         string // the start on the camello's clock
}

// blockedConflicts lists the camello's PROGRAMADA appointments starting
// after now on a date s blocks (in s's zone), or, with holidaysOff, on a
// festivo s does not work, by start.
func blockedConflicts(app core.App, camelloID string, s Schedule, now time.Time, holidaysOff bool) ([]blockedConflict, error) {
	out := []blockedConflict{}
	holidaysOff = holidaysOff && !s.WorksHolidays
	if len(s.Blocked) == 0 && !holidaysOff {
		return out, nil
	}
	spans, err := appointments.ScheduledOf(app, camelloID, now, time.Time{})
	if err != nil {
		return nil, err
	}
	blocked := s.BlockedSet()
	for _, sp := range spans {
		date := sp.Start.In(s.Location).Format(DateLayout)
		var holiday *string
		if name, ok := festivos.On(sp.Start.In(s.Location)); ok && holidaysOff && !blocked[date] {
			holiday = &name
		}
		if !blocked[date] && holiday == nil {
			continue
		}
		a, err := appointments.Find(app, sp.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, blockedConflict{AppointmentID: sp.ID, JobID: sp.Job, Date: date, Holiday: holiday,
			Start: timefmt.ISO(sp.Start), End: timefmt.ISO(sp.End), client: a.ClientID(),
			local: sp.Start.In(s.Location).Format("02/01/2006 15:04") + " (" + s.Timezone + ")"})
	}
	return out, nil
}

// availabilityPut handles PUT /api/agenda/availability {timezone?, weekly,
// blockedDates?, minNoticeMinutes?, bufferMinutes?, horizonDays?,
// travelBufferMinutes?, worksHolidays?, cancelConflicts?}: weekly is
// required and replaces the saved ranges; an absent timezone,
// blockedDates, rule or worksHolidays keeps the saved value (or the
// default). Blocked dates that hold PROGRAMADA appointments yet to start
// are refused (409, issues.conflicts), and so is turning worksHolidays off
// while festivos hold some; unless cancelConflicts is true: then they are
// cancelled in the same transaction and each client is notified.
// 200 {availability, cancelled}.
func availabilityPut(e *core.RequestEvent) error {
	camello, err := myCamello(e)
	if err != nil {
		return err
	}
	var in availabilityInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	current := LoadSchedule(e.App, camello)
	tz, blocked := current.Timezone, current.Blocked
	if in.Timezone != nil {
		tz = *in.Timezone
	}
	if in.BlockedDates != nil {
		blocked = *in.BlockedDates
	}
	v := httpapi.NewValidation()
	var weekly []WeeklyRange
	if in.Weekly == nil {
		v.Add("weekly", "Es obligatorio (una lista, puede estar vacía)")
	} else {
		weekly = readRanges(v, *in.Weekly)
	}
	if !v.OK() {
		return v.Err()
	}
	s := CheckSchedule(v, tz, weekly, blocked)
	s.Booking = readRules(v, in, current.Booking)
	if err := v.Err(); err != nil {
		return err
	}
	s.WorksHolidays = current.WorksHolidays
	if in.WorksHolidays != nil {
		s.WorksHolidays = *in.WorksHolidays
	}
	// Festivos' appointments conflict only when this request stops
	// working them: those booked while the camello worked them (or
	// before festivos existed) never block an unrelated change.
	holidaysOff := current.WorksHolidays && !s.WorksHolidays
	cancelConflicts := in.CancelConflicts != nil && *in.CancelConflicts
	var saved *core.Record
	cancelled := []string{}
	err = e.App.RunInTransaction(func(txApp core.App) error {
		now := clock.Now(txApp)
		conflicts, err := blockedConflicts(txApp, camello.Id, s, now, holidaysOff)
		if err != nil {
			return err
		}
		if len(conflicts) > 0 && !cancelConflicts {
			msg := MsgHolidayConflicts
			for _, c := range conflicts {
				if c.Holiday == nil {
					msg = MsgBlockedConflicts
				}
			}
			return httpapi.ConflictWith(msg, conflicts)
		}
		rec := findAvailability(txApp, camello.Id)
		if rec == nil {
			col, err := txApp.FindCachedCollectionByNameOrId(AvailabilityCollection)
			if err != nil {
				return err
			}
			rec = core.NewRecord(col)
			rec.Set("camello", camello.Id)
		}
		rec.Set("timezone", s.Timezone)
		rec.Set("weekly", s.Weekly)
		rec.Set("blockedDates", s.Blocked)
		setRules(rec, s.Booking)
		rec.Set("worksHolidays", s.WorksHolidays)
		saved = rec
		if err := txApp.Save(rec); err != nil {
			return err
		}
		for _, c := range conflicts {
			ok, err := appointments.Cancel(txApp, c.AppointmentID, now)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			cancelled = append(cancelled, c.AppointmentID)
			body := "El camello bloqueó ese día y se canceló tu cita del " + c.local
			if c.Holiday != nil {
				body = "El camello ya no trabaja en festivos y se canceló tu cita del " + c.local + ", " + *c.Holiday
			}
			err = notifications.Notify(txApp, c.client, notifications.Message{
				Kind:  notifications.KindJobStatus,
				Title: "Cita cancelada",
				Body:  body,
				URL:   jobs.JobURL(c.JobID),
				Data:  map[string]any{"appointmentId": c.AppointmentID, "jobId": c.JobID, "camelloId": camello.Id},
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
	return e.JSON(http.StatusOK, map[string]any{"availability": availabilityJSON(s, saved), "cancelled": cancelled})
}

// readRanges turns the request's range objects into WeeklyRange values,
// with a field error for each member of the wrong type.
func readRanges(v *httpapi.Validation, list []map[string]any) []WeeklyRange {
	out := make([]WeeklyRange, 0, len(list))
	for i, item := range list {
		field := fmt.Sprintf("weekly.%d", i)
		if item == nil {
			v.Add(field, "Debe ser un objeto {weekday, start, end}")
			continue
		}
		var w WeeklyRange
		switch n := item["weekday"].(type) {
		case float64:
			if n != math.Trunc(n) {
				v.Add(field+".weekday", "Debe ser un número entero de 0 a 6")
			}
			w.Weekday = int(n)
		case nil:
			v.Add(field+".weekday", "Es obligatorio")
		default:
			v.Add(field+".weekday", "Debe ser un número entero de 0 a 6")
		}
		for _, key := range []string{"start", "end"} {
			s, ok := item[key].(string)
			switch {
			case item[key] == nil:
				v.Add(field+"."+key, "Es obligatorio")
			case !ok:
				v.Add(field+"."+key, "Debe ser un texto HH:MM")
			case key == "start":
				w.Start = s
			default:
				w.End = s
			}
		}
		out = append(out, w)
	}
	return out
}
