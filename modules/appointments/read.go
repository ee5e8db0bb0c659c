package appointments

import (
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Span is a PROGRAMADA appointment as the slot arithmetic needs it.
type Span struct {
	ID    string    `db:"id"`
	Job   string    `db:"job"`
	Start time.Time `db:"-"`
	End   time.Time `db:"-"`
}

// ScheduledOf lists the camello's PROGRAMADA appointments starting after
// after and before before (zero: no upper bound), by start. The literal
// status lets SQLite use the partial index idx_appointments_booked_slot
// (camello, start).
func ScheduledOf(app core.App, camelloID string, after, before time.Time) ([]Span, error) {
	q := "SELECT id, job, start, end FROM " + Collection +
		" WHERE camello = {:camello} AND status = '" + Scheduled + "' AND start > {:after}"
	params := dbx.Params{"camello": camelloID, "after": dbTime(after)}
	if !before.IsZero() {
		q += " AND start < {:before}"
		params["before"] = dbTime(before)
	}
	rows, err := app.DB().NewQuery(q + " ORDER BY start").Bind(params).Rows()
	if err != nil {
		return nil, err
	}
	return scanSpans(rows)
}

// FutureOfJob counts the job's PROGRAMADA appointments starting after now.
func FutureOfJob(app core.App, jobID string, now time.Time) (int, error) {
	return scheduledOfJob(app, jobID, now, ">")
}

// BegunOfJob counts the job's PROGRAMADA appointments starting at or
// before now (a visit due or under way: a no-show can be reported).
func BegunOfJob(app core.App, jobID string, now time.Time) (int, error) {
	return scheduledOfJob(app, jobID, now, "<=")
}

// scheduledOfJob counts the job's PROGRAMADA appointments whose start
// compares with now by op (">" or "<=", constants of this file only).
func scheduledOfJob(app core.App, jobID string, now time.Time, op string) (int, error) {
	var n int
	err := app.DB().NewQuery("SELECT COUNT(*) FROM " + Collection +
		" WHERE job = {:job} AND status = '" + Scheduled + "' AND start " + op + " {:now}").
		Bind(dbx.Params{"job": jobID, "now": dbTime(now)}).Row(&n)
	return n, err
}

// FutureSpansOfJob lists the job's PROGRAMADA appointments starting after
// now, by start (what completing the job would cancel).
func FutureSpansOfJob(app core.App, jobID string, now time.Time) ([]Span, error) {
	rows, err := app.DB().NewQuery("SELECT id, job, start, end FROM " + Collection +
		" WHERE job = {:job} AND status = '" + Scheduled + "' AND start > {:now} ORDER BY start").
		Bind(dbx.Params{"job": jobID, "now": dbTime(now)}).Rows()
	if err != nil {
		return nil, err
	}
	return scanSpans(rows)
}

// Party selects a user's appointments: as client, and as camello when
// CamelloID is set.
type Party struct {
	ClientID, CamelloID string
	Job                 string // when set, only that job's appointments
}

// ListOfParty returns one page (offset, limit) of the party's appointments
// whose start lies in [from, to) (a zero bound is open), by start, and how
// many there are in all.
func ListOfParty(app core.App, p Party, from, to time.Time, offset, limit int) ([]*Appointment, int, error) {
	mine := dbx.Expression(dbx.HashExp{"client": p.ClientID})
	if p.CamelloID != "" {
		mine = dbx.Or(mine, dbx.HashExp{"camello": p.CamelloID})
	}
	where := []dbx.Expression{mine}
	if p.Job != "" {
		where = append(where, dbx.HashExp{"job": p.Job})
	}
	if !from.IsZero() {
		where = append(where, dbx.NewExp("start >= {:from}", dbx.Params{"from": dbTime(from)}))
	}
	if !to.IsZero() {
		where = append(where, dbx.NewExp("start < {:to}", dbx.Params{"to": dbTime(to)}))
	}
	cond := dbx.And(where...)
	var total int
	if err := app.DB().Select("COUNT(*)").From(Collection).Where(cond).Row(&total); err != nil {
		return nil, 0, err
	}
	recs := []*core.Record{}
	err := app.RecordQuery(Collection).Where(cond).OrderBy("start ASC", "id ASC").
		Offset(int64(offset)).Limit(int64(limit)).All(&recs)
	if err != nil {
		return nil, 0, err
	}
	out := make([]*Appointment, len(recs))
	for i, r := range recs {
		out[i] = Wrap(r)
	}
	return out, total, nil
}

// scanSpans reads rows of (id, job, start, end) into spans and closes them.
func scanSpans(rows *dbx.Rows) ([]Span, error) {
	defer rows.Close()
	out := []Span{}
	var id, job, start, end string
	for rows.Next() {
		if err := rows.Scan(&id, &job, &start, &end); err != nil {
			return nil, err
		}
		s, err1 := time.Parse(types.DefaultDateLayout, start)
		e, err2 := time.Parse(types.DefaultDateLayout, end)
		if err1 == nil && err2 == nil {
			out = append(out, Span{ID: id, Job: job, Start: s, End: e})
		}
	}
	return out, rows.Err()
}
