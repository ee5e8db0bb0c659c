package agenda

import (
	"database/sql"
	"errors"
	"sync"
	"time"

	"camellos/internal/memo"
	"camellos/modules/camellos"
	"camellos/modules/jobs"

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
// (see bindViewHooks): its status, its schedule and the sorted busy
// intervals of its PROGRAMADA appointments starting after since. Booking
// never reads it: the database stays the truth for writes.
type view struct {
	active  bool
	loc     *time.Location
	ranges  []Range
	blocked map[string]bool
	busy    busyIndex
	since   time.Time
}

// views is the app's agenda views, one memo.Cache per camello: one build
// at a time, and a build that raced a write is handed to its own reader
// only, never kept.
type views struct {
	mu sync.Mutex
	m  map[string]*memo.Cache[*view]
}

func viewsOf(app core.App) *views {
	return app.Store().GetOrSet(storeKeyViews, func() any {
		return &views{m: map[string]*memo.Cache[*view]{}}
	}).(*views)
}

// entry returns the cache of a camello's view, making it when needed.
func (v *views) entry(id string) *memo.Cache[*view] {
	v.mu.Lock()
	defer v.mu.Unlock()
	c := v.m[id]
	if c == nil {
		if len(v.m) >= maxViews {
			for _, old := range v.m {
				old.Invalidate()
			}
			v.m = map[string]*memo.Cache[*view]{}
		}
		c = &memo.Cache[*view]{MaxAge: viewMaxAge}
		v.m[id] = c
	}
	return c
}

// drop forgets the views of the camellos; call it after the commit of a
// write that can change them.
func (v *views) drop(ids ...string) {
	for _, id := range ids {
		v.mu.Lock()
		c := v.m[id]
		v.mu.Unlock()
		if c != nil {
			c.Invalidate()
		}
	}
}

// get returns the camello's view at now (errNoCamello when it does not
// exist).
func (v *views) get(app core.App, id string, now time.Time) (*view, error) {
	val, err := v.entry(id).Get(func() (*view, error) { return buildView(app, id, now) })
	if err == nil && val.since.After(now.Add(-SlotLength)) {
		// The clock went back (a test's clock): the kept bookings may
		// start too late, read them for this answer only.
		return buildView(app, id, now)
	}
	return val, err
}

// buildView reads a camello's status, profile zone and availability in
// one query and, for an ACTIVO camello, its PROGRAMADA appointments that
// can still hold a slot (starting after now − SlotLength) in another.
func buildView(app core.App, id string, now time.Time) (*view, error) {
	var row struct {
		Status      string `db:"status"`
		Timezone    string `db:"timezone"`
		HasSchedule bool   `db:"hasSchedule"`
		AvailZone   string `db:"availZone"`
		Weekly      string `db:"weekly"`
		Blocked     string `db:"blocked"`
	}
	err := app.DB().NewQuery("SELECT c.status AS status, c.timezone AS timezone, " +
		"a.id IS NOT NULL AS hasSchedule, IFNULL(a.timezone, '') AS availZone, " +
		"IFNULL(a.weekly, '') AS weekly, IFNULL(a.blockedDates, '') AS blocked " +
		"FROM " + camellos.Collection + " c LEFT JOIN " + AvailabilityCollection + " a ON a.camello = c.id " +
		"WHERE c.id = {:id} LIMIT 1").Bind(dbx.Params{"id": id}).One(&row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoCamello
	}
	if err != nil {
		return nil, err
	}
	if row.Status != camellos.StatusActive {
		return &view{since: now.Add(-SlotLength)}, nil
	}
	s := emptySchedule(defaultZoneOf(app, row.Timezone))
	if row.HasSchedule {
		s = scheduleOfJSON(row.AvailZone, row.Weekly, row.Blocked)
	}
	since := now.Add(-SlotLength)
	busy, err := scheduledSince(app, id, since)
	if err != nil {
		return nil, err
	}
	return &view{active: true, loc: s.Location, ranges: s.Ranges, blocked: s.BlockedSet(),
		busy: sortedBusy(busy), since: since}, nil
}

// scheduledSince loads the camello's PROGRAMADA appointments starting
// after since (the partial index on (camello, start) answers it).
func scheduledSince(app core.App, camelloID string, since time.Time) ([]Interval, error) {
	rows, err := app.DB().NewQuery("SELECT start, end FROM " + AppointmentsCollection +
		" WHERE camello = {:camello} AND status = '" + jobs.AppointmentScheduled + "' AND start > {:since}" +
		" ORDER BY start").
		Bind(dbx.Params{"camello": camelloID, "since": jobs.DBTimeOf(since)}).Rows()
	return scanIntervals(rows, err)
}

// bindViewHooks drops a camello's view after every committed write that
// can change its free slots: its appointments, its availability, the
// camello itself (status, zone), and the raw cancellations of
// jobs.CancelAppointments.
func bindViewHooks(app core.App) {
	byField := func(field string) func(e *core.RecordEvent) error {
		return func(e *core.RecordEvent) error {
			ids := []string{e.Record.GetString(field)}
			if o := e.Record.Original(); o != nil && o.GetString(field) != ids[0] {
				ids = append(ids, o.GetString(field))
			}
			viewsOf(e.App).drop(ids...)
			return e.Next()
		}
	}
	camello := func(e *core.RecordEvent) error {
		viewsOf(e.App).drop(e.Record.Id)
		return e.Next()
	}
	for col, fn := range map[string]func(*core.RecordEvent) error{
		AppointmentsCollection: byField("camello"),
		AvailabilityCollection: byField("camello"),
		camellos.Collection:    camello,
	} {
		app.OnRecordAfterCreateSuccess(col).BindFunc(fn)
		app.OnRecordAfterUpdateSuccess(col).BindFunc(fn)
		app.OnRecordAfterDeleteSuccess(col).BindFunc(fn)
	}
	jobs.OnAppointmentsCancelled(app, func(ids []string) { viewsOf(app).drop(ids...) })
}
