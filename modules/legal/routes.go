// Package legal is the legal texts area: publication, public reading and consent.
package legal

import (
	"camellos/internal/bus"
	"camellos/internal/httpapi"
	"camellos/internal/session"

	"github.com/pocketbase/pocketbase/core"
)

// Register binds the legal area's record hooks and routes.
func Register(app core.App) {
	bindHooks(app)
	ev := bus.Of(app)
	bindDataRights(app)
	// Sign-ups (client and camello) accept the current texts in their transaction.
	ev.UserSignedUp.BindFunc(func(e *bus.SignUp) error {
		if err := AcceptCurrent(e.App, e.UserID, e.IP, e.UserAgent); err != nil {
			return err
		}
		return e.Next()
	})
	// GET /api/me tells whether the current texts are accepted: "legal": {terminos: {…}, privacidad: {…}}.
	ev.MeRendering.BindFunc(func(e *bus.Me) error {
		status, err := ConsentStatus(e.App, e.User.Id)
		if err != nil {
			return err
		}
		e.Body["legal"] = status
		return e.Next()
	})
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		g := httpapi.API(se)
		// GET /api/legal/{slug}: the published text (public).
		g.GET("/legal/{slug}", documentGet)
		// POST /api/legal/{slug}/accept: the signed-in user accepts the current version.
		g.POST("/legal/{slug}/accept", documentAccept).Bind(session.RequireSession(httpapi.MsgUnauthorized))

		admin := g.Group("/admin")
		admin.Bind(session.RequireAdmin(httpapi.MsgUnauthenticated))
		// PUT /api/admin/legal-documents/{slug}: publish a new version (endpoint 2).
		admin.PUT("/legal-documents/{slug}", documentPublish)
		return se.Next()
	})
}
