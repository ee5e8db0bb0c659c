// Package auth is the sessions and profile area: client sign-up, sign-in
// with the session cookie, sign-out, GET/PATCH /api/me, password
// recovery, verification, data rights and the CLI that creates
// administrators; every write of a user goes through modules/users.
package auth

import (
	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"

	"github.com/pocketbase/pocketbase/core"
)

// Register binds the auth and profile routes (the users' record hooks are
// their owner's: modules/users).
func Register(app core.App) {
	links := newLimiters()
	app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
		backgroundOf(e.App).stop()
		return e.Next()
	})
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		go dummyHash() // ready before the first unknown e-mail, off the start's path
		g := httpapi.API(se)
		// A client signs up (role CLIENTE); no session is opened.
		g.POST("/auth/register", clientRegister).Bind(ratelimit.AuthIPGuard())
		// Anyone signs in with e-mail and password; sets the session cookie.
		g.POST("/auth/login", sessionLogin()).Bind(ratelimit.AuthIPGuard())
		// The signed-in user signs out; the session is revoked server-side.
		g.POST("/auth/logout", sessionLogout)
		// The signed-in user reads their profile (and camello profile, if any).
		g.GET("/me", meGet).Bind(session.RequireSession(httpapi.MsgUnauthenticated))
		// The signed-in user updates name, phone, city or password.
		g.PATCH("/me", meUpdate).Bind(session.RequireSession(httpapi.MsgUnauthenticated))
		// Anyone asks for a password-reset link (202 for every well-formed address).
		g.POST("/auth/password/forgot", passwordForgot(links))
		// Anyone with a reset link sets a new password; every session is revoked.
		g.POST("/auth/password/reset", passwordReset(links)).Bind(ratelimit.AuthIPGuard())
		// Anyone with a verification link confirms the address.
		g.POST("/auth/verify", emailVerify(links))
		// The signed-in user asks for a new verification link.
		g.POST("/auth/verify/resend", verificationResend(links)).Bind(session.RequireSession(httpapi.MsgUnauthenticated))
		// The signed-in user downloads everything stored about them.
		g.GET("/me/export", meExport).Bind(session.RequireSession(httpapi.MsgUnauthenticated))
		// The signed-in user erases their account (password required).
		g.DELETE("/me", meDelete(links)).Bind(session.RequireSession(httpapi.MsgUnauthenticated), ratelimit.AuthIPGuard())
		return se.Next()
	})
}
