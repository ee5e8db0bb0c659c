// Package jobs is the jobs area: the job state machine, assignment, cancellation, reviews and reminders.
package jobs

import "github.com/pocketbase/pocketbase/core"

// Register binds the jobs area's record hooks and routes.
func Register(app core.App) {
	_ = app
}
