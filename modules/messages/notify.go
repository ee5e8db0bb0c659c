package messages

import (
	"camellos/modules/jobs"
	"camellos/modules/notifications"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// previewLen is how much of a message its notification shows.
const previewLen = 140

// notify tells the recipient about a new message (inbox and push; the
// notifications area coalesces MESSAGE pushes per recipient and job).
func notify(txApp core.App, recipient string, author, job, msg *core.Record, body string) error {
	if recipient == "" {
		return nil
	}
	preview := []rune(body)
	text := string(preview)
	if len(preview) > previewLen {
		text = string(preview[:previewLen]) + "…"
	}
	if text == "" {
		text = "Te envió una foto"
	}
	return notifications.Notify(txApp, recipient, notifications.Message{
		Kind:  notifications.KindMessage,
		Title: "Mensaje de " + users.Wrap(author).Name(),
		Body:  text,
		URL:   jobs.JobURL(job.Id),
		Data:  map[string]any{"jobId": job.Id, "messageId": msg.Id, "camelloId": msg.GetString("camello")},
	})
}
