package auth

import (
	"database/sql"
	"errors"
	"net/http"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/bus"
	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"
	"camellos/internal/writer"
	"camellos/modules/camellos"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

func meBody(app core.App, user *core.Record) (map[string]any, error) {
	body := map[string]any{"user": UserJSON(user), "camello": nil}
	rec, err := app.FindFirstRecordByData(camellos.Collection, "user", user.Id)
	switch {
	case err == nil:
		cam, err := camellos.One(app, rec, camellos.PrivateFor(user, rec))
		if err != nil {
			return nil, err
		}
		body["camello"] = cam
	case !errors.Is(err, sql.ErrNoRows):
		return nil, err
	}
	// Other modules add their parts (e.g. "legal": the consent status).
	if err := bus.Of(app).MeRendering.Trigger(&bus.Me{App: app, User: user, Body: body}); err != nil {
		return nil, err
	}
	return body, nil
}

// meGet answers {user, camello|null} for the signed-in user.
func meGet(e *core.RequestEvent) error {
	body, err := meBody(e.App, session.AuthUser(e))
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, body)
}

type patchMeInput struct {
	Name            *string `json:"name"`
	Phone           *string `json:"phone"`
	City            *string `json:"city"`
	Password        *string `json:"password"`
	ConfirmPassword *string `json:"confirmPassword"`
	CurrentPassword *string `json:"currentPassword"`
}

// meUpdate updates the signed-in user's name, phone, city and password. A
// password change needs the current password, revokes every session of
// the user (the record hook) and opens a fresh one for this client.
func meUpdate(e *core.RequestEvent) error {
	var in patchMeInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	user := session.AuthUser(e)
	v := httpapi.NewValidation()
	if in.Name != nil {
		*in.Name = strings.TrimSpace(*in.Name)
		httpapi.CheckName(v, "name", *in.Name, bounds.NameMin, bounds.NameMax)
	}
	if in.Phone != nil {
		*in.Phone = strings.TrimSpace(*in.Phone)
		CheckPhone(v, "phone", *in.Phone, false)
	}
	if in.City != nil {
		*in.City = strings.TrimSpace(*in.City)
		if *in.City != "" {
			httpapi.CheckLength(v, "city", *in.City, bounds.CityMin, bounds.CityMax)
		}
	}
	changePassword := in.Password != nil
	if changePassword {
		confirm := ""
		if in.ConfirmPassword != nil {
			confirm = *in.ConfirmPassword
		}
		CheckNewPassword(v, "password", *in.Password, "confirmPassword", confirm)
		if in.CurrentPassword == nil || *in.CurrentPassword == "" {
			v.Add("currentPassword", "Es obligatorio")
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	if changePassword {
		// A password check: counted per IP (AUTH_IP_LIMIT) and, when wrong,
		// against the sign-in throttle of the user's e-mail.
		if err := ratelimit.AuthIP(e); err != nil {
			return err
		}
		ok, err := checkPassword(e, throttleKey(e, user.Email()), user, *in.CurrentPassword)
		if err != nil {
			return err
		}
		if !ok {
			return httpapi.FieldError("currentPassword", "La contraseña actual no es correcta")
		}
	}

	if changePassword {
		release, err := httpapi.HashSlot(e)
		if err != nil {
			return err
		}
		users.SetPassword(user, *in.Password)
		release()
	}
	err := writer.Transaction(e.App, func(tx core.App) error {
		return users.Update(tx, users.Wrap(user), users.Change{Name: in.Name, Phone: in.Phone, City: in.City})
	})
	if err != nil {
		return err
	}
	if changePassword {
		token, err := session.CreateSession(e.App, user, e.RealIP(), e.Request.UserAgent())
		if errors.Is(err, session.ErrUserChanged) { // erased or another new password meanwhile
			session.ClearSessionCookie(e)
			return httpapi.Unauthorized(httpapi.MsgUnauthenticated)
		}
		if err != nil {
			return httpapi.Internal(err)
		}
		session.SetSessionCookie(e, token)
	}
	body, err := meBody(e.App, user)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, body)
}
