package events

import (
	"fmt"

	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"
	"camellos/modules/jobs"
	"camellos/modules/notifications"

	"github.com/pocketbase/pocketbase/core"
)

// Register binds the live events stream and the sources it relays: every
// inbox item, and every change of a job (to its client and its camello).
func Register(app core.App) {
	h := hubOf(app)
	app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
		h.close()
		return e.Next()
	})

	// Inbox items, once committed, reach their user's streams.
	notifications.OnInbox(app).BindFunc(func(e *notifications.InboxItem) error {
		Publish(e.App, Event{ID: fmt.Sprint(e.Item["id"]), Name: Notification, Data: e.Item}, e.UserID)
		return e.Next()
	})
	// A committed change of a job reaches its client's and its camello's streams.
	jobs.OnJobChanged(app).BindFunc(func(e *jobs.JobChange) error {
		Publish(e.App, jobEvent(e.JobID, e.Status), e.ClientID, e.ProviderUser)
		return e.Next()
	})

	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		api := httpapi.API(se)
		// The signed-in user's own live events (Server-Sent Events).
		api.GET("/events", eventsStream).Bind(session.RequireSession(httpapi.MsgUnauthorized), ratelimit.Guard("events"))
		return se.Next()
	})
}

// jobEvent is the job event: which job changed and its state (clients
// fetch the job itself, so nobody reads more than GET /api/jobs/{id} shows).
func jobEvent(id, status string) Event {
	return Event{Name: Job, Data: map[string]any{"id": id, "status": status}}
}
