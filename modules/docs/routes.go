// Package docs serves the OpenAPI document of the service
// (GET /api/docs/openapi.json) and a page listing its operations (GET /api/docs).
package docs

import (
	"camellos/internal/httpapi"

	"github.com/pocketbase/pocketbase/core"
)

// Register binds the docs area's routes.
func Register(app core.App) {
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		g := httpapi.API(se).Group("/docs")
		// The operations rendered as a small HTML page (no scripts, no CDN).
		g.GET("", page)
		// The OpenAPI 3.0.3 document as JSON.
		g.GET("/openapi.json", openapiGet)
		return se.Next()
	})
}
