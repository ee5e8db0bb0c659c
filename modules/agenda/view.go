package agenda

import (
	"database/sql"
	"errors"
	"time"

	"camellos/internal/bus"
	"camellos/internal/readmodel"
	"camellos/modules/appointments"
	"camellos/modules/camellos"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// errNoCamello: the camello of a view does not exist (never cached).
var errNoCamello = errors.New("agenda: camello not found")

// view is what the slots listing needs of one camello, read from the
// database in two queries and kept in memory until a write can change it
// (see bindViewHooks): its status, its schedule and booking rules, and the
// busy intervals of its PROGRAMADA appointments starting after since,
// widened by the gap the listing keeps around them (the booker's place is
// unknown there, so the travel buffer, when larger, applies to all).
// Booking never reads it: the database stays the truth for writes.
type view struct {
	active  bool
	loc     *time.Location
	ranges  []Range
	blocked map[string]bool
	closed  bool // no slot on festivos (the camello does not work them)
	rules   Rules
	busy    busyIndex // widened for a booking in an unknown place
	since   time.Time
}

// views keeps the agenda views of the camellos most recently read (each
// built again at least every minute, for writes made around the hooks).
// Load is not set: a view is built at the request's instant (viewOf).
var views = readmodel.Keyed[string, *view]{
	Name: "agenda", Tables: []string{camellos.Collection, AvailabilityCollection, appointments.Collection},
	Bound:   "20,000 camellos' views (LRU) and 16 MB of rendered answers (4,096 at most)",
	MaxCost: 20000, MaxAge: time.Minute,
}

// viewOf returns the camello's view at now (errNoCamello when it does not
// exist).
func viewOf(app core.App, id string, now time.Time) (*view, error) {
	val, _, err := views.Of(app).Get(id, func() (*view, bool, error) {
		x, err := buildView(app, id, now)
		return x, err == nil, err
	})
	if err == nil && val.since.After(now.Add(-SlotLength-val.rules.maxPad())) {
		// The clock went back (a test's clock): the kept bookings may
		// start too late, read them for this answer only.
		return buildView(app, id, now)
	}
	return val, err
}

// buildView reads a camello's status, profile zone and availability in
// one query and, for an ACTIVO camello, its PROGRAMADA appointments that
// can still block a slot (starting after now − SlotLength − the largest
// pad) in another.
func buildView(app core.App, id string, now time.Time) (*view, error) {
	status, zone, err := camellos.StatusAndZone(app, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoCamello
	}
	if err != nil {
		return nil, err
	}
	if status != camellos.StatusActive {
		return &view{since: now.Add(-SlotLength)}, nil
	}
	var row struct {
		HasSchedule bool   `db:"hasSchedule"`
		AvailZone   string `db:"availZone"`
		Weekly      string `db:"weekly"`
		Blocked     string `db:"blocked"`
		MinNotice   int    `db:"minNotice"`
		Buffer      int    `db:"buffer"`
		Horizon     int    `db:"horizon"`
		Travel      int    `db:"travel"`
		Holidays    bool   `db:"holidays"`
	}
	err = app.DB().NewQuery("SELECT 1 AS hasSchedule, IFNULL(timezone, '') AS availZone, IFNULL(weekly, '') AS weekly, " +
		"IFNULL(blockedDates, '') AS blocked, IFNULL(minNoticeMinutes, -1) AS minNotice, IFNULL(bufferMinutes, -1) AS buffer, " +
		"IFNULL(horizonDays, -1) AS horizon, IFNULL(travelBufferMinutes, -1) AS travel, IFNULL(worksHolidays, 0) AS holidays " +
		"FROM " + AvailabilityCollection + " WHERE camello = {:id} LIMIT 1").Bind(dbx.Params{"id": id}).One(&row)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	s := emptySchedule(defaultZoneOf(app, zone))
	if row.HasSchedule {
		s = scheduleOfJSON(row.AvailZone, row.Weekly, row.Blocked,
			BookingRules{row.MinNotice, row.Buffer, row.Horizon, row.Travel}, row.Holidays)
	}
	v := &view{active: true, loc: s.Location, ranges: s.Ranges, blocked: s.BlockedSet(), closed: !s.WorksHolidays,
		rules: s.Booking.Rules()}
	v.since = now.Add(-SlotLength - v.rules.maxPad())
	spans, err := appointments.ScheduledOf(app, id, v.since, time.Time{})
	if err != nil {
		return nil, err
	}
	busy := make([]Interval, len(spans))
	for i, sp := range spans {
		busy[i] = Interval{Start: sp.Start, End: sp.End}
	}
	v.busy = blocking(v.rules, busy, nil, "")
	return v, nil
}

// bindViewHooks drops a camello's view after every committed write that
// can change its free slots: its appointments (appointments.Events.Changed,
// record saves and raw updates alike), its availability and the camello
// itself (status, zone).
func bindViewHooks(app core.App) {
	views.Declare(app)
	bus.Of(app).CamelloChanged.BindFunc(func(e *bus.Change) error {
		views.Drop(e.App, e.Record.Id)
		return e.Next()
	})
	readmodel.OnWrite(app, AvailabilityCollection, func(w readmodel.Write) {
		views.Drop(w.App, w.Record.GetString("camello"))
		if o := w.Record.Original(); o != nil {
			views.Drop(w.App, o.GetString("camello"))
		}
	})
	appointments.EventsOf(app).Changed.BindFunc(func(e *appointments.ChangedEvent) error {
		for _, id := range e.CamelloIDs { // after commit, on the transaction's app
			views.Of(e.App).Drop(id)
		}
		return e.Next()
	})
}
