package auth

import (
	"net/http"
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// Failed sign-ins are throttled per e-mail and IP: after loginMaxFailures
// failures within loginWindow, further attempts get 429 until the oldest
// failure leaves the window. Wrong current passwords on PATCH /api/me
// count the same way.
const (
	loginMaxFailures = 10
	loginWindow      = 15 * time.Minute
)

// MsgThrottled answers an e-mail and IP past the failed sign-in limit.
const MsgThrottled = "Demasiados intentos fallidos, inténtalo más tarde"

// loginThrottle is the app's window of failed sign-ins.
func loginThrottle(app core.App) *ratelimit.Window {
	return ratelimit.Of(app, "login", loginMaxFailures, loginWindow)
}

// throttleKey is the key of an e-mail signing in from the request's IP.
func throttleKey(e *core.RequestEvent, email string) string {
	return NormalizeEmail(email) + "|" + e.RealIP()
}

// checkPassword checks plain against user's password (dummy work when user
// is nil) as one counted attempt of key: the failure is reserved before
// the check, atomically, so parallel attempts cannot all pass the limit
// (at most loginMaxFailures are ever checked); a right password forgets
// the failures of key. The hashing runs on the bounded pool. It answers
// 429 with Retry-After past the limit, 503 when the pool stays full.
func checkPassword(e *core.RequestEvent, key string, user *core.Record, plain string) (bool, error) {
	w := loginThrottle(e.App)
	res, wait, ok := w.Reserve(key)
	if !ok {
		ratelimit.Tarpit(e)
		return false, httpapi.TooMany(e, http.StatusTooManyRequests, MsgThrottled, wait)
	}
	release, err := httpapi.HashSlot(e)
	if err != nil {
		res.Cancel() // not checked, not counted
		return false, err
	}
	defer release()
	if user == nil {
		users.CheckPassword(dummyHash(), plain)
		return false, nil
	}
	if !users.CheckPassword(user, plain) {
		return false, nil
	}
	w.Reset(key)
	return true, nil
}
