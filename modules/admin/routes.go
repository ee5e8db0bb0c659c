// Package admin is the administration area for users and camellos (the
// catalog, legal texts, job assignment and broadcast notifications live with
// their own areas, under the same /api/admin prefix).
package admin

import (
	"camellos/internal/httpapi"
	"camellos/internal/session"

	"github.com/pocketbase/pocketbase/core"
)

// Register binds the admin area's routes.
func Register(app core.App) {
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		g := httpapi.API(se).Group("/admin")
		g.Bind(session.RequireAdmin(httpapi.MsgUnauthenticated))
		bindCamellos(g)
		bindUsers(g)
		return se.Next()
	})
}
