// Package legal is the legal texts area: publication, public reading and consent.
package legal

import "github.com/pocketbase/pocketbase/core"

// Register binds the legal area's record hooks and routes.
func Register(app core.App) {
	_ = app
}
