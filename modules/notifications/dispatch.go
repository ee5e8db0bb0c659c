// Package notifications is the notifications area: the one dispatcher every
// module calls, the inbox, preferences and Web Push delivery.
package notifications

import (
	"github.com/pocketbase/pocketbase/core"
)

// Notification kinds.
const (
	KindJobAssigned         = "JOB_ASSIGNED"
	KindJobCancelled        = "JOB_CANCELLED"
	KindJobStatus           = "JOB_STATUS"
	KindAppointmentBooked   = "APPOINTMENT_BOOKED"
	KindAppointmentReminder = "APPOINTMENT_REMINDER"
	// KindAppointmentRescheduled: the other party moved an appointment.
	KindAppointmentRescheduled = "APPOINTMENT_RESCHEDULED"
	KindCamelloStatus          = "CAMELLO_STATUS"
	KindAdminMessage           = "ADMIN_MESSAGE"
	KindQuoteReceived          = "QUOTE_RECEIVED"
	KindQuoteAccepted          = "QUOTE_ACCEPTED"
	KindQuoteRejected          = "QUOTE_REJECTED"
	KindMessage                = "MESSAGE"
	// KindPayment: money moved on one of the user's jobs (held, released,
	// refunded, paid in cash).
	KindPayment = "PAYMENT"
)

// Kinds lists every notification kind, in the order preferences are shown.
var Kinds = []string{
	KindJobAssigned, KindJobCancelled, KindJobStatus, KindAppointmentBooked,
	KindAppointmentReminder, KindCamelloStatus, KindAdminMessage, KindAppointmentRescheduled,
	KindQuoteReceived, KindQuoteAccepted, KindQuoteRejected, KindMessage,
	KindPayment,
}

// Collection names of this area.
const (
	colNotifications = "notifications"
	colPreferences   = "notification_preferences"
	colSubscriptions = "push_subscriptions"
	colKV            = "app_kv"
	colPushOutbox    = "push_outbox"
)

// Message is what a module tells a user about an event.
type Message struct {
	Kind  string
	Title string
	Body  string
	URL   string         // relative link in the web front, e.g. /trabajos.html?id=...
	Data  map[string]any // related ids: jobId, appointmentId, camelloId...
}

// Notify tells a user about an event, honouring the user's preferences.
//
// The inbox row is written with app, which may be a transaction: it
// commits or rolls back with the caller's write (outside one, Notify runs
// in its own). When the user switched the in-app channel off for this
// kind, no inbox row is written (reminders are critical and always reach
// the inbox). Web Push and e-mail are delivered after the write commits,
// by the background dispatcher, so they never block or fail the request
// that caused them. A disabled (or erased) user gets nothing.
//
// The row is written as NotifyMany writes it, with one raw INSERT instead
// of a record save: the same checks, row, event and deliveries, at a
// fraction of the cost inside the single writer's transaction (a record
// save of a notification was its field validation, a relation lookup, the
// hooks and, after the commit, one more lookup of the user's
// subscriptions).
func Notify(app core.App, userID string, msg Message) error {
	if msg.Data == nil {
		msg.Data = map[string]any{}
	}
	// Outside a transaction NotifyMany opens its own: the user is checked
	// (not erased) in the same transaction as the inbox row is written.
	return NotifyMany(app, []Addressed{{UserID: userID, Message: msg}})
}

// isKind reports whether kind is a known notification kind.
func isKind(kind string) bool {
	for _, k := range Kinds {
		if k == kind {
			return true
		}
	}
	return false
}
