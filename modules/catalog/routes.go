// Package catalog is the catalog area: categories and services, public and admin.
package catalog

import "github.com/pocketbase/pocketbase/core"

// Register binds the catalog area's record hooks and routes.
func Register(app core.App) {
	_ = app
}
