package appointments

import (
	"encoding/json"
	"math"
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
// params must hold "now". The reminder claim (claimListed) is the one other
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

// DueQuery selects, without claiming them, up to {:limit} PROGRAMADA
// appointments whose reminder was not sent, starting by {:until} and
// after the cursor ({:afterStart}, {:afterRow}) in (start, rowid) order:
// it walks idx_appointments_reminder_due (its WHERE repeated), whose
// entries are (start, rowid), from the cursor's start. Columns: the rowid
// as rid, then a.id, a.job, a.camello, a.client, a.start, then extra (the
// reader's own columns of the row a). A sweep reads its next batch with
// it (outside the writer) and claims what it read with ClaimListed.
func DueQuery(extra string) string {
	return "SELECT a.rowid AS rid, a.id AS id, a.job AS job, a.camello AS camello, a.client AS client, a.start AS start" + extra +
		" FROM " + Collection + " a WHERE a.status = '" + Scheduled + "' AND a.reminderSentAt = '' " +
		"AND a.start >= {:afterStart} AND a.start <= {:until} AND (a.start, a.rowid) > ({:afterStart}, {:afterRow}) " +
		"ORDER BY a.start, a.rowid LIMIT {:limit}"
}

// DueParams are the values of DueQuery's placeholders for the batch after
// the appointment (afterStart as stored, afterRow) or, when afterStart is
// empty, for the first batch: the appointments starting in (now, until].
func DueParams(now, until time.Time, afterStart string, afterRow int64, limit int) dbx.Params {
	if afterStart == "" { // every start after now: (start, rowid) > (now, the largest rowid)
		afterStart, afterRow = dbTime(now), math.MaxInt64
	}
	return dbx.Params{"until": dbTime(until), "afterStart": afterStart, "afterRow": afterRow, "limit": limit}
}

// claimListed marks the appointments of the rowids in {:rows} (a JSON
// array) reminded when they are still due and unreminded, and returns the
// ids of those it changed. The conditions repeat DueQuery's, so a row
// read as due but claimed meanwhile by another sweep, cancelled,
// completed or moved out of the window is not claimed; rowids reach each
// row without the id index.
const claimListed = "UPDATE " + Collection + " SET reminderSentAt = {:now}, updated = {:now} " +
	"WHERE rowid IN (SELECT value FROM json_each({:rows})) " +
	"AND status = '" + Scheduled + "' AND reminderSentAt = '' AND start > {:now} AND start <= {:until} " +
	"RETURNING id"

// ClaimListed marks the listed appointments (rowids read by DueQuery)
// that are still PROGRAMADA, unreminded and starting in (now, until] as
// reminded, in one conditional UPDATE, and returns the ids of exactly
// those it changed: concurrent or repeated claims never return an
// appointment twice. The ids, not the rowids, say which were claimed: a
// VACUUM may renumber rowids between the read and the claim, and a row
// claimed under a rowid that now names another due appointment is still
// claimed once, with its own id.
func ClaimListed(app core.App, rowids []int64, now, until time.Time) ([]string, error) {
	raw, _ := json.Marshal(rowids)
	var ids []string
	err := app.DB().NewQuery(claimListed).
		Bind(dbx.Params{"rows": string(raw), "now": dbTime(now), "until": dbTime(until)}).Column(&ids)
	return ids, err
}
