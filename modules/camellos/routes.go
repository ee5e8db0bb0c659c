// Package camellos is the camellos area.
package camellos

import "github.com/pocketbase/pocketbase/core"

// Register binds the camellos area's record hooks and routes.
func Register(app core.App) {
	_ = app
}
