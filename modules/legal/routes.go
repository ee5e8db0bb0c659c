// Package legal is the legal texts area: publication, public reading and consent.
package legal

import (
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/modules/auth"

	"github.com/pocketbase/pocketbase/core"
)

// Register binds the legal area's record hooks and routes.
func Register(app core.App) {
	bindHooks(app)
	// Sign-ups (client and camello) accept the current texts in their transaction.
	auth.ConsentRecorder = AcceptCurrent
	// GET /api/me tells whether the current texts are accepted: "legal": {terminos: {…}, privacidad: {…}}.
	auth.AddMeExtra("legal", func(app core.App, user *core.Record) (any, error) {
		return ConsentStatus(app, user.Id)
	})
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		g := httpapi.API(se)
		// GET /api/legal/{slug}: the published text (public).
		g.GET("/legal/{slug}", getDocument)
		// POST /api/legal/{slug}/accept: the signed-in user accepts the current version.
		g.POST("/legal/{slug}/accept", acceptDocument).Bind(session.RequireSession(httpapi.MsgUnauthorized))

		admin := g.Group("/admin")
		admin.Bind(session.RequireAdmin(httpapi.MsgUnauthenticated))
		// PUT /api/admin/legal-documents/{slug}: publish a new version (endpoint 2).
		admin.PUT("/legal-documents/{slug}", publishDocument)
		return se.Next()
	})
}
