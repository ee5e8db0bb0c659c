package jobs

import (
	"camellos/modules/notifications"

	"github.com/pocketbase/pocketbase/core"
)

// KindRequest is the notification kind of a direct request to a camello.
const KindRequest = notifications.KindJobStatus

// notifyJob writes a notification about job to userID with app (the
// caller's transaction), linking the job. An empty userID is skipped.
func notifyJob(app core.App, userID string, job *core.Record, kind, title, body string) error {
	if userID == "" {
		return nil
	}
	return notifications.Notify(app, userID, notifications.Message{
		Kind:  kind,
		Title: title,
		Body:  body,
		URL:   JobURL(job.Id),
		Data:  map[string]any{"jobId": job.Id, "camelloId": job.GetString("provider")},
	})
}
