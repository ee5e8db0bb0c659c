package auth

import (
	"net/http"

	"camellos/internal/bus"
	"camellos/internal/httpapi"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// clientRegister creates a CLIENTE. It opens no session: the client signs
// in next (the web front does it at once).
func clientRegister(e *core.RequestEvent) error {
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
		return SignedUp(tx, user.Id, e)
	})
	if err != nil {
		return err
	}
	SendVerification(e.App, user)
	return e.JSON(http.StatusCreated, map[string]any{"user": UserJSON(user)})
}

// SignedUp emits UserSignedUp for a new user inside its sign-up
// transaction tx (the legal module records the consent to the current
// texts); a listener's error aborts the sign-up.
func SignedUp(tx core.App, userID string, e *core.RequestEvent) error {
	return bus.Of(tx).UserSignedUp.Trigger(&bus.SignUp{
		App: tx, UserID: userID, IP: e.RealIP(), UserAgent: e.Request.UserAgent(),
	})
}
