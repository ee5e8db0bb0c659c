package agenda

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"camellos/internal/clock"
	"camellos/internal/festivos"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/timefmt"
	"camellos/modules/camellos"
	"camellos/modules/jobs"

	"github.com/pocketbase/pocketbase/core"
)

// Window limits of the slots listing (endpoint 8).
const (
	DefaultWindow = 7 * 24 * time.Hour
	MaxWindow     = 31 * 24 * time.Hour
)

// slotJSON is a slot as answered: UTC ISO 8601 (appendSlotsJSON renders
// the same bytes without reflection; the test compares both).
type slotJSON struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// readWindow reads ?from&to (ISO 8601 with zone): default now → from+7
// days; to must be after from and at most 31 days later.
func readWindow(e *core.RequestEvent, now time.Time, def, max time.Duration) (time.Time, time.Time, error) {
	v := httpapi.NewValidation()
	q := e.Request.URL.Query()
	from, to := now, time.Time{}
	if s := q.Get("from"); s != "" {
		t, ok := timefmt.ParseTime(s)
		if !ok {
			v.Add("from", "Fecha inválida: usa ISO 8601, por ejemplo 2026-11-22T14:00:00Z")
		}
		from = t
	}
	if s := q.Get("to"); s != "" {
		t, ok := timefmt.ParseTime(s)
		if !ok {
			v.Add("to", "Fecha inválida: usa ISO 8601, por ejemplo 2026-11-29T14:00:00Z")
		}
		to = t
	} else {
		to = from.Add(def)
	}
	if v.OK() {
		switch {
		case !to.After(from):
			v.Add("to", "Debe ser posterior a from")
		case max > 0 && to.Sub(from) > max:
			v.Add("to", "El rango no puede superar 31 días")
		}
	}
	return from, to, v.Err()
}

// FreeSlotsOf lists the free slots of a camello within [from, to] at now,
// reading its schedule, rules and appointments with app, as the slots
// listing shows them (for a booking in an unknown place).
func FreeSlotsOf(app core.App, camello *core.Record, from, to, now time.Time) ([]Interval, error) {
	b, err := loadBooking(app, camello, from, to, now)
	if err != nil {
		return nil, err
	}
	return b.free(from, to, "", ""), nil
}

// slotsList handles GET /api/camellos/{id}/slots?from&to (endpoint 8),
// from the camello's agenda view (see view.go): {holidays, slots}, the
// festivos of the window named (holidaysIn) beside the free slots.
func slotsList(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	now := clock.Now(e.App)
	v, err := viewOf(e.App, id, now)
	if errors.Is(err, errNoCamello) || (err == nil && !v.active) {
		return httpapi.NotFound(jobs.MsgCamelloNotFound)
	}
	if err != nil {
		return httpapi.Internal(err)
	}
	from, to, err := readWindow(e, now, DefaultWindow, MaxWindow)
	if err != nil {
		return err
	}
	q := e.Request.URL.Query()
	var slots []Interval
	closed := v.closed
	if jobID := q.Get("job"); jobID != "" {
		slots, closed, err = slotsForJob(e, id, jobID, from, to, now)
		if err != nil {
			return err
		}
	} else if q.Get("from") != "" && q.Get("to") != "" && q.Get("fields") == "" {
		// A fixed window: its answer is kept while it cannot change.
		key := answerKey{camello: id, from: from.UnixNano(), to: to.UnixNano()}
		return httpapi.WriteJSONBytes(e, keptAnswer(e.App, key, v, now, func() *answer {
			slots, until := slotsAnswer(SlotQuery{Location: v.loc, Weekly: v.ranges, Blocked: v.blocked,
				SkipHolidays: v.closed, Rules: v.rules, From: from, To: to, Now: now}, v.busy)
			body := appendSlotsJSON(make([]byte, 0, 32+len(slots)*72), slots, holidaysIn(v.loc, from, to, v.closed))
			return &answer{v: v, body: body, at: now, until: until}
		}))
	} else {
		slots = freeSlots(SlotQuery{Location: v.loc, Weekly: v.ranges, Blocked: v.blocked,
			SkipHolidays: v.closed, Rules: v.rules, From: from, To: to, Now: now}, v.busy)
	}
	body := appendSlotsJSON(make([]byte, 0, 32+len(slots)*72), slots, holidaysIn(v.loc, from, to, closed))
	if q.Get("fields") != "" {
		var out any
		if err := json.Unmarshal(body, &out); err != nil {
			return httpapi.Internal(err)
		}
		return e.JSON(http.StatusOK, out)
	}
	return httpapi.WriteJSONBytes(e, body)
}

// slotsForJob lists the slots as a booking for the caller's job jobID
// would see them (read from the database): with the travel rule on, the
// job's neighbourhood decides the gap around each appointment. A job the
// caller is not a party of is 404.
func slotsForJob(e *core.RequestEvent, camelloID, jobID string, from, to, now time.Time) ([]Interval, bool, error) {
	if !httpapi.ValidID(jobID) {
		return nil, false, httpapi.FieldError("job", "Identificador inválido")
	}
	job, err := e.App.FindRecordById(jobs.Collection, jobID)
	if err != nil || !jobs.PartyOf(e.App, session.AuthUser(e), job).Any() {
		return nil, false, httpapi.NotFound(jobs.MsgJobNotFound)
	}
	camello, err := e.App.FindRecordById(camellos.Collection, camelloID)
	if err != nil {
		return nil, false, httpapi.NotFound(jobs.MsgCamelloNotFound)
	}
	check, err := loadBooking(e.App, camello, from, to, now)
	if err != nil {
		return nil, false, httpapi.Internal(err)
	}
	return check.free(from, to, jobs.Place(job), ""), !check.s.WorksHolidays, nil
}

// holidayJSON is a festivo of the slots window: its date in the camello's
// zone, name and label, and closed when the camello does not work it.
type holidayJSON struct {
	festivos.Day
	Closed bool `json:"closed"`
}

// holidaysIn lists the festivos whose date, in loc, holds some instant of
// [from, to).
func holidaysIn(loc *time.Location, from, to time.Time, closed bool) []holidayJSON {
	if loc == nil {
		loc = time.UTC
	}
	days := festivos.Between(from.In(loc), to.Add(-time.Nanosecond).In(loc))
	out := make([]holidayJSON, len(days))
	for i, d := range days {
		out[i] = holidayJSON{Day: d, Closed: closed}
	}
	return out
}

// appendSlotsJSON renders {"holidays":[...],"slots":[{"start","end"},...]}
// as e.JSON renders a map of holidayJSON and slotJSON, final newline
// included (a test compares both).
func appendSlotsJSON(buf []byte, slots []Interval, holidays []holidayJSON) []byte {
	buf = append(buf, `{"holidays":`...)
	if len(holidays) == 0 {
		buf = append(buf, "[]"...)
	} else {
		raw, _ := json.Marshal(holidays) // strings and a bool: cannot fail
		buf = append(buf, raw...)
	}
	buf = append(buf, `,"slots":[`...)
	for i, s := range slots {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"start":"`...)
		buf = appendISO(buf, s.Start)
		buf = append(buf, `","end":"`...)
		buf = appendISO(buf, s.End)
		buf = append(buf, `"}`...)
	}
	return append(buf, "]}\n"...)
}

// appendISO appends timefmt.ISO(t), digit by digit for years 0–9999.
func appendISO(buf []byte, t time.Time) []byte {
	t = t.UTC()
	y, m, d := t.Date()
	if y < 0 || y > 9999 {
		return t.AppendFormat(buf, timefmt.TimeLayout)
	}
	h, mi, s := t.Clock()
	ms := t.Nanosecond() / int(time.Millisecond)
	return append(buf,
		byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+int(m)/10), byte('0'+int(m)%10), '-', byte('0'+d/10), byte('0'+d%10), 'T',
		byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':',
		byte('0'+s/10), byte('0'+s%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}
