package notifications

import "github.com/pocketbase/pocketbase/core"

// Pending is how many deliveries of app are queued, running or waiting
// (tests only).
func Pending(app core.App) int {
	d := dispatcherOf(app)
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pending
}

// FlushMails mails the coalesced mails held back now, as the end of their
// windows would (tests only).
func FlushMails(app core.App) { dispatcherOf(app).flushMails() }

// QueuePushFor writes the push outbox rows of msg to userID's
// subscriptions as known read them, as the dispatcher does after a
// notification committed (tests only).
func QueuePushFor(app core.App, userID string, msg Message, known Recipients) error {
	var subs []subscription
	if r := known.users[userID]; r != nil {
		subs = r.subs
	}
	return queuePushes(app, job{UserID: userID, Kind: msg.Kind, Title: msg.Title, Body: msg.Body, Data: map[string]any{}}, subs)
}

// ClaimPushQuery is the push worker's claim of a batch (tests only).
const ClaimPushQuery = claimPushQuery
