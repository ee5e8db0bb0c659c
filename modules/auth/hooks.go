package auth

import (
	"net/http"

	"camellos/hooks"

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
			return hooks.RevokeUserSessions(e.App, e.Record.Id)
		}
		return nil
	})
}
