// Package registration is the provider registration area: endpoint 1,
// POST /api/register/camello (JSON or multipart with a photo), and the
// public photos under /uploads/camellos/.
package registration

import (
	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// Register binds the registration routes.
func Register(app core.App) {
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		// A provider registers: user (CAMELLOS) + camello (PENDIENTE) in one transaction.
		g := httpapi.API(se)
		g.POST("/register/camello", camelloRegister).Bind(ratelimit.AuthIPGuard())
		// A camello edits their own profile (not status, premium or notes).
		onlyCamellos := session.RequireRole(httpapi.MsgUnauthenticated, "Solo los camellos tienen perfil de camello", users.RoleCamello)
		g.PATCH("/me/camello", camelloSelfUpdate).Bind(onlyCamellos)
		// A camello sets where it works from (a barrio of the gazetteer or a map tap) and how far it travels.
		g.PUT("/me/camello/area", camelloAreaSet).Bind(onlyCamellos)
		// A camello removes its work area (out of the searches by distance).
		g.DELETE("/me/camello/area", camelloAreaClear).Bind(onlyCamellos)

		uploads := se.Router.Group("/uploads")
		uploads.Bind(httpapi.Envelope())
		// Anyone reads an ACTIVO camello's photo; other photos only their owner and admins.
		uploads.GET("/camellos/{file}", photoGet)
		// Any other path or method under /uploads: 404 or 405 in the envelope.
		httpapi.BindFallback(se.Router, uploads)
		return se.Next()
	})
}
