// Package admin is the admin area.
package admin

import "github.com/pocketbase/pocketbase/core"

// Register binds the admin area's record hooks and routes.
func Register(app core.App) {
	_ = app
}
