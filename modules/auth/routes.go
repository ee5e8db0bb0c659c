// Package auth is the sessions and profile area: client sign-up, sign-in
// with the session cookie, sign-out, GET/PATCH /api/me, the users record
// hooks, and the CLI that creates administrators.
package auth

import (
	"camellos/internal/httpapi"
	"camellos/internal/session"

	"github.com/pocketbase/pocketbase/core"
)

// Register binds the users record hooks and the auth and profile routes.
func Register(app core.App) {
	bindUserHooks(app)
	limiter := newLoginLimiter()
	links := newLimiters()
	app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
		backgroundOf(e.App).stop()
		return e.Next()
	})
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		g := httpapi.API(se)
		// A client signs up (role CLIENTE); no session is opened.
		g.POST("/auth/register", registerClient)
		// Anyone signs in with e-mail and password; sets the session cookie.
		g.POST("/auth/login", login(limiter))
		// The signed-in user signs out; the session is revoked server-side.
		g.POST("/auth/logout", logout)
		// The signed-in user reads their profile (and camello profile, if any).
		g.GET("/me", getMe).Bind(session.RequireSession(httpapi.MsgUnauthenticated))
		// The signed-in user updates name, phone, city or password.
		g.PATCH("/me", patchMe).Bind(session.RequireSession(httpapi.MsgUnauthenticated))
		// Anyone asks for a password-reset link (202 for every well-formed address).
		g.POST("/auth/password/forgot", forgotPassword(links))
		// Anyone with a reset link sets a new password; every session is revoked.
		g.POST("/auth/password/reset", resetPassword(links))
		// Anyone with a verification link confirms the address.
		g.POST("/auth/verify", verifyEmail(links))
		// The signed-in user asks for a new verification link.
		g.POST("/auth/verify/resend", resendVerification(links)).Bind(session.RequireSession(httpapi.MsgUnauthenticated))
		// The signed-in user downloads everything stored about them.
		g.GET("/me/export", exportMe).Bind(session.RequireSession(httpapi.MsgUnauthenticated))
		// The signed-in user erases their account (password required).
		g.DELETE("/me", deleteMe(links)).Bind(session.RequireSession(httpapi.MsgUnauthenticated))
		return se.Next()
	})
}
