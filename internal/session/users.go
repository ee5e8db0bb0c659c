package session

import (
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// BindUserEvents ends a user's sessions when their owner says so
// (users.OnSignedOutEverywhere: the user was disabled, changed password or
// e-mail, or was erased), in the same transaction as the user's save.
func BindUserEvents(app core.App) {
	users.OnSignedOutEverywhere(app).BindFunc(func(e *users.SignedOut) error {
		if err := RevokeUserSessions(e.App, e.UserID); err != nil {
			return err
		}
		return e.Next()
	})
}
