// Package registration is the provider registration area: endpoint 1,
// POST /api/register/camello (JSON or multipart with a photo), and the
// public photos under /uploads/camellos/.
package registration

import (
	"camellos/hooks"
	"camellos/internal/ratelimit"

	"github.com/pocketbase/pocketbase/core"
)

// Register binds the registration routes.
func Register(app core.App) {
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		// A provider registers: user (CAMELLOS) + camello (PENDIENTE) in one transaction.
		g := hooks.API(se)
		g.POST("/register/camello", registerCamello).Bind(ratelimit.AuthIPGuard())
		// A camello edits their own profile (not status, premium or notes).
		g.PATCH("/me/camello", patchOwnCamello).
			Bind(hooks.RequireRole(hooks.MsgUnauthenticated, "Solo los camellos tienen perfil de camello", hooks.RoleCamello))

		uploads := se.Router.Group("/uploads")
		uploads.Bind(hooks.Envelope())
		// Anyone reads an ACTIVO camello's photo; other photos only their owner and admins.
		uploads.GET("/camellos/{file}", servePhoto)
		// Any other path or method under /uploads: 404 or 405 in the envelope.
		hooks.BindFallback(se.Router, uploads)
		return se.Next()
	})
}
