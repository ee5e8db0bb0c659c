// Package session owns the sessions collection: opaque cookie sessions
// (create, revoke, the cookie), the middleware that turns a cookie into the
// request's user through an in-process cache, the same-origin check of
// cookie-authenticated writes, and the role guards of the routes.
package session

import (
	"camellos/internal/config"
	"camellos/internal/httpapi"
	"camellos/internal/writer"
	"camellos/modules/users"

	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Session constants of the contract.
const (
	SessionCookie   = "auth.session-token"
	SessionLifetime = 30 * 24 * time.Hour

	// Collection is the sessions collection, owned by this package.
	Collection = "sessions"
)

// hashToken is what the sessions table stores: never the token itself.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// CreateSession opens a server-side session for user and returns the opaque
// token for the cookie: 32 random bytes, base64url; only its SHA-256 is kept.
func CreateSession(app core.App, user *core.Record, ip, userAgent string) (string, error) {
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	token := base64.RawURLEncoding.EncodeToString(buf)
	col, err := app.FindCachedCollectionByNameOrId(Collection)
	if err != nil {
		return "", err
	}
	rec := core.NewRecord(col)
	rec.Set("user", user.Id)
	rec.Set("tokenHash", hashToken(token))
	rec.Set("userTokenKey", user.TokenKey())
	rec.Set("expiresAt", time.Now().Add(SessionLifetime).UTC())
	rec.Set("ip", truncate(ip, 64))
	rec.Set("userAgent", truncate(userAgent, 300))
	// In one transaction with a check of the user as read: an erasure, a
	// disabling or a new password committed since (while the password was
	// being checked) leaves no session behind.
	err = writer.Transaction(app, func(tx core.App) error {
		if !users.Current(tx, user.Id, user.TokenKey()) {
			return ErrUserChanged
		}
		return tx.Save(rec)
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// ErrUserChanged is CreateSession's answer when the user was disabled,
// erased or given a new password after it was read: no session is opened.
var ErrUserChanged = errors.New("session: the user changed since it was read")

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}

// RevokeSession deletes the session behind a token (logout).
// The session cache forgets it once the deletion commits.
func RevokeSession(app core.App, token string) error {
	hash := hashToken(token)
	_, err := app.DB().Delete(Collection, dbx.HashExp{"tokenHash": hash}).Execute()
	dropTokenHash(app, hash)
	return err
}

// RevokeUserSessions deletes every session of a user. The session cache
// forgets them once the deletion commits.
func RevokeUserSessions(app core.App, userID string) error {
	_, err := app.DB().Delete(Collection, dbx.HashExp{"user": userID}).Execute()
	dropUserSessions(app, userID)
	return err
}

// SessionToken returns the session cookie's value, if any.
func SessionToken(r *http.Request) string {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return ""
	}
	return c.Value
}

// SetSessionCookie writes the session cookie: HttpOnly, SameSite=Lax, Path=/,
// 30 days, Secure when the service is reached over https.
func SetSessionCookie(e *core.RequestEvent, token string) {
	e.SetCookie(&http.Cookie{
		Name:     SessionCookie,
		Value:    token,
		Path:     "/",
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
		Secure:   isHTTPS(e),
		MaxAge:   int(SessionLifetime / time.Second),
	})
}

// ClearSessionCookie expires the session cookie in the browser.
func ClearSessionCookie(e *core.RequestEvent) {
	e.SetCookie(&http.Cookie{
		Name: SessionCookie, Value: "", Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: isHTTPS(e), MaxAge: -1,
	})
}

func isHTTPS(e *core.RequestEvent) bool {
	if e.IsTLS() || strings.EqualFold(e.Request.Header.Get("X-Forwarded-Proto"), "https") {
		return true
	}
	return config.Of(e.App).HTTPS()
}

// sessionRow is what the middleware reads for a cookie in one query.
type sessionRow struct {
	ID           string `db:"id"`
	User         string `db:"user"`
	UserTokenKey string `db:"userTokenKey"`
	ExpiresAt    string `db:"expiresAt"`
}

// LoadSession is the global middleware that turns a valid session cookie
// into the request's authenticated user (e.Auth), read through the session
// cache (see sessioncache.go). An unknown, expired or revoked token, a
// disabled user, or one whose password changed since the session was
// opened is simply not authenticated.
//
// A request that may write (POST, PUT, PATCH, DELETE) gets a copy of its
// own, which its handler may change and save. A read (GET, HEAD, OPTIONS)
// gets the cached record itself, shared with the other reads of the
// session, and must not change it: copying a record is two maps per
// request, a tenth of a cached read's allocations. No read handler changes
// the user (TestReadsDoNotChangeTheSharedUser).
func LoadSession() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id:       "camellosLoadSession",
		Priority: apis.DefaultLoadAuthTokenMiddlewarePriority - 1,
		Func: func(e *core.RequestEvent) error {
			token := SessionToken(e.Request)
			if token == "" || len(token) > 100 {
				return e.Next()
			}
			s := lookupSession(e.App, hashToken(token))
			if s == nil {
				return e.Next()
			}
			if unsafeMethod(e.Request.Method) {
				e.Auth = s.user.Clone()
			} else {
				e.Auth = s.user
			}
			return e.Next()
		},
	}
}

// AuthUser returns the signed-in user of our users collection, or nil.
func AuthUser(e *core.RequestEvent) *core.Record {
	if e.Auth == nil || e.Auth.Collection().Name != users.Collection {
		return nil
	}
	return e.Auth
}

// HasRole reports whether the signed-in user has one of the roles.
func HasRole(e *core.RequestEvent, roles ...string) bool {
	u := AuthUser(e)
	if u == nil {
		return false
	}
	role := users.Wrap(u).Role()
	for _, r := range roles {
		if r == role {
			return true
		}
	}
	return false
}

// RequireSession answers 401 with msg when nobody is signed in.
func RequireSession(msg string) *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id: "camellosRequireSession",
		Func: func(e *core.RequestEvent) error {
			if AuthUser(e) == nil {
				return httpapi.Unauthorized(msg)
			}
			return e.Next()
		},
	}
}

// RequireAdmin answers 401 with msg401 when nobody is signed in and 403
// "Sin permisos de administrador" when the user is not an ADMIN.
func RequireAdmin(msg401 string) *hook.Handler[*core.RequestEvent] {
	return RequireRole(msg401, httpapi.MsgNotAdmin, users.RoleAdmin)
}

// RequireRole answers 401 (msg401) without a session and 403 (msg403) when
// the user has none of the roles.
func RequireRole(msg401, msg403 string, roles ...string) *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id: "camellosRequireRole",
		Func: func(e *core.RequestEvent) error {
			if AuthUser(e) == nil {
				return httpapi.Unauthorized(msg401)
			}
			if !HasRole(e, roles...) {
				return httpapi.Forbidden(msg403)
			}
			return e.Next()
		},
	}
}
