// Package agenda is the agenda area: weekly availability, free slots and appointments.
package agenda

import "github.com/pocketbase/pocketbase/core"

// Register binds the agenda area's record hooks and routes.
func Register(app core.App) {
	_ = app
}
