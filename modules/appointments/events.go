package appointments

import (
	"time"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// storeKeyEvents is the app.Store key of the app's appointment events.
const storeKeyEvents = "camellos.appointments.events"

// ChangedEvent tells which camellos' appointments changed in a committed
// write (a record save or one of this package's raw updates).
type ChangedEvent struct {
	hook.Event
	App        core.App
	CamelloIDs []string
}

// ValidateEvent asks the listeners whether a new appointment may be saved
// (the jobs module checks it belongs to its job's client and camello).
// A listener refuses by returning an error.
type ValidateEvent struct {
	hook.Event
	App         core.App
	Appointment *Appointment
}

// MovingEvent asks the listeners, inside the write's transaction and
// before it, whether one PROGRAMADA appointment may be rescheduled or
// cancelled on its own (Reschedule, Cancel): the payments area refuses it
// inside the late window of the job's cancellation policy. A listener
// refuses by returning an error.
type MovingEvent struct {
	hook.Event
	App           core.App
	AppointmentID string
	JobID         string
	Start         time.Time // the appointment's current start
	Now           time.Time
	Cancel        bool // a cancellation (else a reschedule)
}

// Events are the appointment events of one app.
type Events struct {
	// Moving fires before one appointment is rescheduled or cancelled.
	Moving *hook.Hook[*MovingEvent]
	// Changed fires once a write that can change a camello's free slots
	// has committed (also after a rollback of a raw update: listeners only
	// drop caches). The agenda drops those camellos' views with it.
	Changed *hook.Hook[*ChangedEvent]
	// Validate fires when a new appointment is validated, inside the save.
	Validate *hook.Hook[*ValidateEvent]
}

// EventsOf returns the appointment events of app.
func EventsOf(app core.App) *Events {
	return app.Store().GetOrSet(storeKeyEvents, func() any {
		return &Events{Changed: &hook.Hook[*ChangedEvent]{}, Validate: &hook.Hook[*ValidateEvent]{}, Moving: &hook.Hook[*MovingEvent]{}}
	}).(*Events)
}

// changed fires Changed for the camellos once app's write is committed
// (right away outside a transaction).
func changed(app core.App, camelloIDs []string) {
	if len(camelloIDs) == 0 {
		return
	}
	fire := func() {
		_ = EventsOf(app).Changed.Trigger(&ChangedEvent{App: app, CamelloIDs: camelloIDs})
	}
	if tx := app.TxInfo(); tx != nil {
		tx.OnComplete(func(error) error { fire(); return nil })
		return
	}
	fire()
}
