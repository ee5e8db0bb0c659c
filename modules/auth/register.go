package auth

import (
	"net/http"

	"camellos/internal/httpapi"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// ConsentRecorder records the acceptance of the current legal texts by a
// new user; the legal module sets it. It runs inside the sign-up
// transaction.
var ConsentRecorder func(app core.App, userID, ip, userAgent string) error

// registerClient creates a CLIENTE. It opens no session: the client signs
// in next (the web front does it at once).
func registerClient(e *core.RequestEvent) error {
	var in Account
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	v := httpapi.NewValidation()
	in.Validate(v, false)
	if err := v.Err(); err != nil {
		return err
	}
	if EmailTaken(e.App, in.Email) { // early answer; SaveNewUser re-checks in the transaction
		return httpapi.Conflict(MsgEmailTaken)
	}
	release, err := httpapi.HashSlot(e)
	if err != nil {
		return err
	}
	user, err := PrepareUser(e.App, &in, users.RoleClient)
	release()
	if err != nil {
		return err
	}
	err = e.App.RunInTransaction(func(tx core.App) error {
		if err := SaveNewUser(tx, user); err != nil {
			return err
		}
		if ConsentRecorder != nil {
			return ConsentRecorder(tx, user.Id, e.RealIP(), e.Request.UserAgent())
		}
		return nil
	})
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, map[string]any{"user": UserJSON(user)})
}
