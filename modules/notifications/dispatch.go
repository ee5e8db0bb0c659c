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
	KindCamelloStatus       = "CAMELLO_STATUS"
	KindAdminMessage        = "ADMIN_MESSAGE"
)

// Message is what a module tells a user about an event.
type Message struct {
	Kind  string
	Title string
	Body  string
	URL   string         // relative link in the web front, e.g. /trabajos.html?id=...
	Data  map[string]any // related ids: jobId, appointmentId, camelloId...
}

// Notify records msg in the user's inbox using app, which may be a
// transaction: the inbox record commits or rolls back with the caller's
// write. Delivery on other channels happens after commit, off the request.
func Notify(app core.App, userID string, msg Message) error {
	col, err := app.FindCachedCollectionByNameOrId("notifications")
	if err != nil {
		return err
	}
	rec := core.NewRecord(col)
	rec.Set("user", userID)
	rec.Set("kind", msg.Kind)
	rec.Set("title", msg.Title)
	rec.Set("body", msg.Body)
	rec.Set("url", msg.URL)
	if msg.Data == nil {
		msg.Data = map[string]any{}
	}
	rec.Set("data", msg.Data)
	return app.Save(rec)
}
