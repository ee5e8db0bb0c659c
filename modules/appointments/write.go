package appointments

import (
	"time"

	"camellos/internal/records"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// New is what booking one appointment needs.
type New struct {
	Job, Camello, Client string
	Start                time.Time
}

// Create saves a PROGRAMADA appointment lasting Length with app (the
// caller's transaction, which has checked the slot is free); a booking
// the unique index refuses is ErrSlotTaken.
func Create(app core.App, n New) (*Appointment, error) {
	col, err := app.FindCachedCollectionByNameOrId(Collection)
	if err != nil {
		return nil, err
	}
	rec := core.NewRecord(col)
	rec.Set("job", n.Job)
	rec.Set("camello", n.Camello)
	rec.Set("client", n.Client)
	rec.Set("start", n.Start.UTC())
	rec.Set("end", n.Start.UTC().Add(Length))
	rec.Set("status", Scheduled)
	if err := app.Save(rec); err != nil {
		if records.IsUniqueViolation(err) {
			return nil, ErrSlotTaken
		}
		return nil, err
	}
	return Wrap(rec), nil
}

// Reschedule moves the PROGRAMADA appointment id, which must start after
// now, to start (same id, end = start + Length, reminderSentAt cleared) in
// one conditional UPDATE, and reports whether it moved it. The caller's
// transaction checks the new slot is free; a start the unique index
// refuses is ErrSlotTaken.
func Reschedule(app core.App, id string, start, now time.Time) (bool, error) {
	if err := moving(app, id, now, false); err != nil {
		return false, err
	}
	n, err := update(app, "start = {:start}, end = {:end}, reminderSentAt = ''",
		"id = {:id} AND status = '"+Scheduled+"' AND start > {:now}",
		dbx.Params{"id": id, "start": dbTime(start), "end": dbTime(start.Add(Length)), "now": dbTime(now)})
	if err != nil {
		if records.IsUniqueViolation(err) {
			return false, ErrSlotTaken
		}
		return false, err
	}
	return n == 1, nil
}

// Cancel moves the PROGRAMADA appointment id starting after now to
// CANCELADA in one conditional UPDATE, and reports whether it did.
func Cancel(app core.App, id string, now time.Time) (bool, error) {
	if err := moving(app, id, now, true); err != nil {
		return false, err
	}
	n, err := cancelWhere(app, "id", id, now)
	return n == 1, err
}

// moving fires Moving for appointment id (a listener's error refuses the
// move); an appointment that is gone or not PROGRAMADA fires nothing (the
// conditional UPDATE then changes nothing either).
func moving(app core.App, id string, now time.Time, cancel bool) error {
	a, err := Find(app, id)
	if err != nil || a.Status() != Scheduled {
		return nil
	}
	return EventsOf(app).Moving.Trigger(&MovingEvent{App: app, AppointmentID: id, JobID: a.JobID(),
		Start: a.Start(), Now: now, Cancel: cancel})
}

// CancelOfJob cancels the job's PROGRAMADA appointments starting after now
// (their slots free again) and returns how many.
func CancelOfJob(app core.App, jobID string, now time.Time) (int, error) {
	return cancelWhere(app, "job", jobID, now)
}

// cancelWhere is the one raw cancellation: the PROGRAMADA appointments
// starting after now whose column equals value become CANCELADA.
func cancelWhere(app core.App, column, value string, now time.Time) (int, error) {
	return update(app, "status = '"+Cancelled+"'",
		column+" = {:value} AND status = '"+Scheduled+"' AND start > {:now}",
		dbx.Params{"value": value, "now": dbTime(now)})
}

// CloseOfJob closes a completed job's PROGRAMADA appointments: those that
// started by now become COMPLETADA, later ones CANCELADA (their slots free
// again, no reminder is sent).
func CloseOfJob(app core.App, jobID string, now time.Time) error {
	if _, err := CancelOfJob(app, jobID, now); err != nil {
		return err
	}
	_, err := update(app, "status = '"+Completed+"'",
		"job = {:job} AND status = '"+Scheduled+"' AND start <= {:now}",
		dbx.Params{"job": jobID, "now": dbTime(now)})
	return err
}

// update is the one raw write of appointments that can change a camello's
// free slots: UPDATE … SET set, updated = {:now} WHERE where, returning
// the camellos of the rows it changed, for which it fires Changed once
// the write commits (also when it fails: listeners only drop caches).
// Every such write goes through here so none can forget its event
// (TestRawWritesSignalTheirChange reads this package's sources for it);
// params must hold "now". The reminder claim (claimDue) is the one other
// raw write: reminderSentAt changes no slot.
func update(app core.App, set, where string, params dbx.Params) (int, error) {
	var camellos []string
	err := app.DB().NewQuery("UPDATE " + Collection + " SET " + set + ", updated = {:now} WHERE " + where +
		" RETURNING camello").Bind(params).Column(&camellos)
	changed(app, camellos)
	if err != nil {
		return 0, err
	}
	return len(camellos), nil
}

// Due is a claimed appointment, as its reminder needs it.
type Due struct {
	ID      string `db:"id"`
	Job     string `db:"job"`
	Camello string `db:"camello"`
	Client  string `db:"client"`
	Start   string `db:"start"` // as stored
}

// claimDue marks up to {:limit} due appointments reminded and returns
// them. The inner SELECT repeats the partial index's WHERE (status =
// 'PROGRAMADA' AND reminderSentAt = ”) so SQLite walks
// idx_appointments_reminder_due by start, and picks rowids (which the
// index holds) so the UPDATE reaches each row directly instead of through
// the id index; the outer conditions make the claim atomic against a
// concurrent sweep.
const claimDue = "UPDATE " + Collection + " SET reminderSentAt = {:now}, updated = {:now} " +
	"WHERE rowid IN (SELECT rowid FROM " + Collection + " " +
	"WHERE status = '" + Scheduled + "' AND reminderSentAt = '' " +
	"AND start > {:now} AND start <= {:until} ORDER BY start LIMIT {:limit}) " +
	"AND reminderSentAt = '' AND status = '" + Scheduled + "' " +
	"RETURNING id, job, camello, client, start"

// ClaimDue marks up to limit PROGRAMADA appointments starting in (now,
// until] whose reminder was not sent as reminded, in one conditional
// UPDATE, and returns exactly those it changed: concurrent or repeated
// claims never return an appointment twice.
func ClaimDue(app core.App, now, until time.Time, limit int) ([]Due, error) {
	var due []Due
	err := app.DB().NewQuery(claimDue).
		Bind(dbx.Params{"now": dbTime(now), "until": dbTime(until), "limit": limit}).All(&due)
	return due, err
}
