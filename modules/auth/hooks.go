package auth

import (
	"net/http"

	"camellos/hooks"
	"camellos/modules/camellos"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// bindUserHooks keeps every path that saves a user (our routes, the CLI,
// the dashboard) consistent: e-mails normalised, passwords derived, and
// sessions revoked when a user is disabled or their password changes.
func bindUserHooks(app core.App) {
	app.OnRecordValidate(hooks.Users).BindFunc(func(e *core.RecordEvent) error {
		e.Record.SetEmail(NormalizeEmail(e.Record.Email()))
		if e.Record.GetString("role") == "" {
			e.Record.Set("role", hooks.RoleClient)
		}
		// The service always keeps one active administrator, whatever path
		// (route, dashboard) demotes or disables one.
		if !e.Record.IsNew() {
			stored := hooks.Stored(e.App, e.Record)
			wasAdmin := stored.GetString("role") == hooks.RoleAdmin && !stored.GetBool("disabled")
			isAdmin := e.Record.GetString("role") == hooks.RoleAdmin && !e.Record.GetBool("disabled")
			if wasAdmin && !isAdmin {
				others, err := e.App.CountRecords(hooks.Users, dbx.HashExp{"role": hooks.RoleAdmin, "disabled": false},
					dbx.Not(dbx.HashExp{"id": e.Record.Id}))
				if err != nil {
					return err
				}
				if others == 0 {
					return hooks.FieldRuleError("role", "Debe quedar al menos un administrador activo")
				}
			}
		}
		// A camello profile belongs to a CAMELLOS user: the role of a user with
		// a profile stays CAMELLOS, and a user without one cannot take it.
		if !e.Record.IsNew() {
			from, to := hooks.Stored(e.App, e.Record).GetString("role"), e.Record.GetString("role")
			if from != to && (from == hooks.RoleCamello || to == hooks.RoleCamello) {
				_, err := e.App.FindFirstRecordByData(camellos.Collection, "user", e.Record.Id)
				hasProfile := err == nil
				if from == hooks.RoleCamello && hasProfile {
					return hooks.FieldRuleError("role", "Un camello con perfil no puede cambiar de rol")
				}
				if to == hooks.RoleCamello && !hasProfile {
					return hooks.FieldRuleError("role", "El rol CAMELLOS requiere un perfil de camello (registro de camello)")
				}
			}
		}
		return e.Next()
	})

	// The dashboard (superusers through the generic API) sets plain
	// passwords: derive them like every other path, after checking the
	// confirmation ourselves.
	derive := func(e *core.RecordRequestEvent) error {
		pv, ok := e.Record.GetRaw(core.FieldNamePassword).(*core.PasswordFieldValue)
		if ok && pv != nil && pv.Plain != "" {
			info, err := e.RequestInfo()
			if err == nil {
				if confirm, ok := info.Body["passwordConfirm"].(string); ok && confirm != pv.Plain {
					return hooks.FieldRuleError("passwordConfirm", "Las contraseñas no coinciden")
				}
			}
			if n := hooks.Chars(pv.Plain); n < 8 || n > 128 {
				return hooks.FieldRuleError("password", "Debe tener entre 8 y 128 caracteres")
			}
			hooks.SetPassword(e.Record, pv.Plain)
		}
		return e.Next()
	}
	app.OnRecordCreateRequest(hooks.Users).BindFunc(derive)
	app.OnRecordUpdateRequest(hooks.Users).BindFunc(derive)

	// PocketBase's own e-mail flows of the users collection are not part of
	// the service: verification mail would go out on anyone's request (the
	// answer stays the same 204 PocketBase gives an unknown address, so
	// nothing is told and nothing is sent), and an e-mail change would go
	// around our routes.
	app.OnRecordRequestVerificationRequest(hooks.Users).BindFunc(func(e *core.RecordRequestVerificationRequestEvent) error {
		return e.NoContent(http.StatusNoContent)
	})
	app.OnRecordRequestEmailChangeRequest(hooks.Users).BindFunc(func(e *core.RecordRequestEmailChangeRequestEvent) error {
		return e.ForbiddenError("", nil)
	})

	app.OnRecordUpdate(hooks.Users).BindFunc(func(e *core.RecordEvent) error {
		orig := hooks.Stored(e.App, e.Record)
		if err := e.Next(); err != nil {
			return err
		}
		// The token key changes with the password (or e-mail) at save time.
		revoke := e.Record.GetBool("disabled") && !orig.GetBool("disabled") || e.Record.TokenKey() != orig.TokenKey()
		if revoke { // same transaction as the update, when there is one
			if err := hooks.RevokeUserSessions(e.App, e.Record.Id); err != nil {
				return err
			}
		}
		if e.Record.GetBool("disabled") && !orig.GetBool("disabled") {
			return suspendCamello(e.App, e.Record.Id)
		}
		return nil
	})
}

// suspendCamello takes a disabled user's ACTIVO camello out of the listing,
// the assignments and the bookings (an admin re-activates it later).
func suspendCamello(app core.App, userID string) error {
	cam, err := app.FindFirstRecordByData(camellos.Collection, "user", userID)
	if err != nil || cam.GetString("status") != camellos.StatusActive {
		return nil
	}
	cam.Set("status", camellos.StatusSuspended)
	return app.Save(cam)
}
