package events

import (
	"camellos/internal/httpapi"
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
	app.OnRecordAfterCreateSuccess(notifications.Collection).BindFunc(func(e *core.RecordEvent) error {
		Publish(e.App, Event{ID: e.Record.Id, Name: Notification, Data: notifications.InboxJSON(e.Record)}, e.Record.GetString("user"))
		return e.Next()
	})
	// A job saved through a record (transitions, cancel, edits)...
	app.OnRecordAfterUpdateSuccess(jobs.Collection).BindFunc(func(e *core.RecordEvent) error {
		Publish(e.App, jobEvent(e.Record.Id, e.Record.GetString("status")), jobParties(e.App, e.Record)...)
		return e.Next()
	})
	// ...or assigned by a conditional UPDATE (admin assign, accepted quote).
	jobs.OnProviderSet(app).BindFunc(func(e *jobs.ProviderSetEvent) error {
		if job, err := e.App.FindRecordById(jobs.Collection, e.JobID); err == nil {
			PublishAfterCommit(e.App, jobEvent(job.Id, jobs.StatusAssigned), jobParties(e.App, job)...)
		}
		return e.Next()
	})

	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		api := httpapi.API(se)
		// The signed-in user's own live events (Server-Sent Events).
		api.GET("/events", stream).Bind(session.RequireSession(httpapi.MsgUnauthorized))
		return se.Next()
	})
}

// jobEvent is the job event: which job changed and its state (clients
// fetch the job itself, so nobody reads more than GET /api/jobs/{id} shows).
func jobEvent(id, status string) Event {
	return Event{Name: Job, Data: map[string]any{"id": id, "status": status}}
}

// jobParties are the users told about a job: its client and its camello.
func jobParties(app core.App, job *core.Record) []string {
	return []string{job.GetString("client"), jobs.ProviderUserID(app, job)}
}
