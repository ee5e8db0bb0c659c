// Package registration is the registration area.
package registration

import "github.com/pocketbase/pocketbase/core"

// Register binds the registration area's record hooks and routes.
func Register(app core.App) {
	_ = app
}
