package agenda

import (
	"database/sql"
	"errors"
	"time"

	"camellos/internal/bus"
	"camellos/internal/memo"
	"camellos/internal/readmodel"
	"camellos/modules/appointments"
	"camellos/modules/camellos"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// viewMaxAge refreshes a camello's agenda view in the background at least
// this often, for writes made around the hooks (raw SQL, another process).
const viewMaxAge = time.Minute

// maxViews bounds the views kept: past it, all are dropped and rebuilt on
// demand.
const maxViews = 20000

// storeKeyViews is the app.Store key of the agenda views.
const storeKeyViews = "camellos.agenda.views"

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

// views is the app's agenda views by camello (a memo.Keyed: one build of
// a key at a time, a build that raced a drop handed to its own reader
// only, the least recently read dropped past maxViews, none served past
// viewMaxAge).
type views struct {
	byCamello *memo.Keyed[string, *view]
	// the slots answers rendered from them (answers.go)
	answers answers
}

func viewsOf(app core.App) *views {
	return app.Store().GetOrSet(storeKeyViews, func() any {
		return &views{byCamello: &memo.Keyed[string, *view]{MaxCost: maxViews, MaxAge: viewMaxAge}}
	}).(*views)
}

// drop forgets the views of the camellos; call it after the commit of a
// write that can change them.
func (v *views) drop(ids ...string) {
	for _, id := range ids {
		v.byCamello.Drop(id)
	}
}

// get returns the camello's view at now (errNoCamello when it does not
// exist).
func (v *views) get(app core.App, id string, now time.Time) (*view, error) {
	val, _, err := v.byCamello.Get(id, func() (*view, bool, error) {
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
	// A commit by another process to these tables can change any view.
	readmodel.Declare(app, readmodel.Projection{
		Name:   "agenda",
		Tables: []string{camellos.Collection, AvailabilityCollection, appointments.Collection},
		Bound:  "20,000 camellos' views (all dropped past it) and 16 MB of rendered answers",
		MaxAge: viewMaxAge,
		Drop:   viewsOf(app).byCamello.DropAll,
	})
	bus.Of(app).CamelloChanged.BindFunc(func(e *bus.Change) error {
		viewsOf(e.App).drop(e.Record.Id)
		return e.Next()
	})
	readmodel.OnWrite(app, AvailabilityCollection, func(w readmodel.Write) {
		ids := []string{w.Record.GetString("camello")}
		if o := w.Record.Original(); o != nil && o.GetString("camello") != ids[0] {
			ids = append(ids, o.GetString("camello"))
		}
		viewsOf(w.App).drop(ids...)
	})
	appointments.EventsOf(app).Changed.BindFunc(func(e *appointments.ChangedEvent) error {
		viewsOf(e.App).drop(e.CamelloIDs...)
		return e.Next()
	})
}
