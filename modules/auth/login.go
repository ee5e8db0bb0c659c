package auth

import (
	"errors"
	"net/http"
	"sync"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/text"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// MsgBadCredentials is the one answer for a wrong e-mail or password.
const MsgBadCredentials = "Credenciales inválidas"

// dummyHash gives unknown e-mails the same bcrypt work as known ones, so
// timing does not tell which addresses exist. Hashed once per process,
// when the service starts serving (warmDummyHash), not at init: every CLI
// command and test binary paid its bcrypt at the default cost (~70 ms of
// CPU) at start-up.
var dummyHash = sync.OnceValue(func() *core.Record {
	col := core.NewAuthCollection("_dummy")
	r := core.NewRecord(col)
	users.SetPassword(r, "camellos-dummy-password")
	return r
})

type loginInput struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

func sessionLogin() func(e *core.RequestEvent) error {
	return func(e *core.RequestEvent) error {
		var in loginInput
		if err := httpapi.ReadJSON(e, &in); err != nil {
			return err
		}
		in.Email = NormalizeEmail(in.Email)
		v := httpapi.NewValidation()
		if in.Email == "" {
			v.Add("email", "Es obligatorio")
		}
		if in.Password == "" {
			v.Add("password", "Es obligatorio")
		} else if text.Chars(in.Password) > bounds.PasswordMax {
			v.Add("password", "Debe tener como máximo 128 caracteres")
		}
		if err := v.Err(); err != nil {
			return err
		}

		user, err := users.FindByEmail(e.App, in.Email)
		if err != nil {
			user = nil // unknown e-mail: the same work and answer as a wrong password
		}
		ok, err := checkPassword(e, throttleKey(e, in.Email), user, in.Password)
		if err != nil {
			return err
		}
		if !ok {
			return httpapi.Unauthorized(MsgBadCredentials)
		}
		if users.Wrap(user).Disabled() {
			return httpapi.Forbidden("Tu cuenta está deshabilitada")
		}
		token, err := session.CreateSession(e.App, user, e.RealIP(), e.Request.UserAgent())
		if errors.Is(err, session.ErrUserChanged) { // erased, disabled or a new password meanwhile
			return httpapi.Unauthorized(MsgBadCredentials)
		}
		if err != nil {
			return httpapi.Internal(err)
		}
		session.SetSessionCookie(e, token)
		return e.JSON(http.StatusOK, map[string]any{"user": UserJSON(user)})
	}
}

// sessionLogout revokes the current session (if any) and clears the cookie; it
// always answers 200 so a client can sign out blindly.
func sessionLogout(e *core.RequestEvent) error {
	if token := session.SessionToken(e.Request); token != "" {
		if err := session.RevokeSession(e.App, token); err != nil {
			return httpapi.Internal(err)
		}
	}
	session.ClearSessionCookie(e)
	return e.JSON(http.StatusOK, map[string]any{"ok": true})
}
