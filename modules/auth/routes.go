// Package auth is the sessions and profile area: client sign-up, sign-in
// with the session cookie, sign-out, GET/PATCH /api/me, the users record
// hooks, and the CLI that creates administrators.
package auth

import (
	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"

	"github.com/pocketbase/pocketbase/core"
)

// Register binds the users record hooks and the auth and profile routes.
func Register(app core.App) {
	bindUserHooks(app)
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		g := httpapi.API(se)
		// A client signs up (role CLIENTE); no session is opened.
		g.POST("/auth/register", registerClient).Bind(ratelimit.AuthIPGuard())
		// Anyone signs in with e-mail and password; sets the session cookie.
		g.POST("/auth/login", login()).Bind(ratelimit.AuthIPGuard())
		// The signed-in user signs out; the session is revoked server-side.
		g.POST("/auth/logout", logout)
		// The signed-in user reads their profile (and camello profile, if any).
		g.GET("/me", getMe).Bind(session.RequireSession(httpapi.MsgUnauthenticated))
		// The signed-in user updates name, phone, city or password.
		g.PATCH("/me", patchMe).Bind(session.RequireSession(httpapi.MsgUnauthenticated))
		return se.Next()
	})
}
