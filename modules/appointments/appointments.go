// Package appointments owns the appointments collection: its name, states,
// typed record, state machine and every write to it (book, reschedule,
// cancel, complete, the reminder claim). It sits below jobs and agenda:
// those decide when an appointment may be written (a free slot, a job in
// the right state) and call the functions here to write it; the parties of
// a new appointment are checked by whoever binds Events.Validate (jobs).
package appointments

import (
	"errors"
	"time"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Collection is the appointments collection.
const Collection = "appointments"

// Appointment states.
const (
	Scheduled = "PROGRAMADA"
	Cancelled = "CANCELADA"
	Completed = "COMPLETADA"
)

// Length is the length of every appointment (and of every slot).
const Length = 60 * time.Minute

// ErrSlotTaken: the camello already has a PROGRAMADA appointment at that
// start (the unique index idx_appointments_booked_slot refused the write).
var ErrSlotTaken = errors.New("appointments: slot taken")

// Appointment is a typed appointments record.
type Appointment struct {
	core.BaseRecordProxy
}

// Wrap returns rec as an Appointment.
func Wrap(rec *core.Record) *Appointment {
	a := &Appointment{}
	a.SetProxyRecord(rec)
	return a
}

// Find loads an appointment by id with app.
func Find(app core.App, id string) (*Appointment, error) {
	rec, err := app.FindRecordById(Collection, id)
	if err != nil {
		return nil, err
	}
	return Wrap(rec), nil
}

// JobID is the appointment's job.
func (a *Appointment) JobID() string { return a.GetString("job") }

// CamelloID is the appointment's camello (a camellos record).
func (a *Appointment) CamelloID() string { return a.GetString("camello") }

// ClientID is the appointment's client (a users record).
func (a *Appointment) ClientID() string { return a.GetString("client") }

// Start is when the appointment begins (UTC).
func (a *Appointment) Start() time.Time { return a.GetDateTime("start").Time() }

// End is when the appointment ends (UTC).
func (a *Appointment) End() time.Time { return a.GetDateTime("end").Time() }

// Status is PROGRAMADA, CANCELADA or COMPLETADA.
func (a *Appointment) Status() string { return a.GetString("status") }

// ReminderSentAt is when the reminder went out (zero until then).
func (a *Appointment) ReminderSentAt() types.DateTime { return a.GetDateTime("reminderSentAt") }

// Created is when the appointment was booked.
func (a *Appointment) Created() types.DateTime { return a.GetDateTime("created") }

// Updated is the appointment's last change.
func (a *Appointment) Updated() types.DateTime { return a.GetDateTime("updated") }

// dbTime formats t as PocketBase stores dates in text columns.
func dbTime(t time.Time) string {
	dt, _ := types.ParseDateTime(t.UTC())
	return dt.String()
}
