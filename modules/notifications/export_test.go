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
