package auth

import (
	"net/http"

	"camellos/internal/bus"
	"camellos/internal/httpapi"
	"camellos/internal/writer"
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
	user, err := SignUp(e, &in, users.RoleClient, nil)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, map[string]any{"user": UserJSON(user.Record)})
}

// SignUp is the one sign-up sequence of every role, for a validated
// account: an e-mail already registered is a 409 at once; the password is
// hashed within httpapi.HashSlot, outside the write; then one write
// transaction (internal/writer) creates the user (users.Create), runs
// then with it (the camello profile of a camello's sign-up; nil: nothing)
// and emits UserSignedUp (the legal consent), so nothing is left behind
// when a step fails; after the commit the verification link is mailed.
func SignUp(e *core.RequestEvent, acc *Account, role string, then func(tx core.App, user *users.User) error) (*users.User, error) {
	if users.EmailTaken(e.App, acc.Email) { // early answer; users.Create re-checks in the transaction
		return nil, httpapi.Conflict(MsgEmailTaken)
	}
	release, err := httpapi.HashSlot(e)
	if err != nil {
		return nil, err
	}
	user, err := users.Prepare(e.App, users.New{
		Email: acc.Email, Name: acc.Name, Phone: acc.Phone, City: acc.City, Role: role, Password: acc.Password,
	})
	release()
	if err != nil {
		return nil, httpapi.Internal(err)
	}
	err = writer.Transaction(e.App, func(tx core.App) error {
		if err := users.Create(tx, user); err != nil {
			return err
		}
		if then != nil {
			if err := then(tx, user); err != nil {
				return err
			}
		}
		return SignedUp(tx, user.Id, e)
	})
	if err != nil {
		return nil, err
	}
	SendVerification(e.App, user.Record)
	return user, nil
}

// SignedUp emits UserSignedUp for a new user inside its sign-up
// transaction tx (the legal module records the consent to the current
// texts); a listener's error aborts the sign-up.
func SignedUp(tx core.App, userID string, e *core.RequestEvent) error {
	return bus.Of(tx).UserSignedUp.Trigger(&bus.SignUp{
		App: tx, UserID: userID, IP: e.RealIP(), UserAgent: e.Request.UserAgent(),
	})
}
