package users

import (
	"camellos/internal/cities"
	"net/http"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/records"
	"camellos/internal/text"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// bindHooks keeps every path that saves a user (our routes, the CLI,
// the dashboard) consistent: e-mails normalised, passwords derived, and
// sessions revoked when a user is disabled or their password changes;
// OnRoleChanging and OnDisabled let other owners act in the same save.
func bindHooks(app core.App) {
	app.OnRecordValidate(Collection).BindFunc(func(e *core.RecordEvent) error {
		e.Record.SetEmail(NormalizeEmail(e.Record.Email()))
		if c := e.Record.GetString(FieldCity); c != "" {
			e.Record.Set(FieldCity, cities.Canonical(c)) // one spelling per city (issue 24)
		}
		if name := e.Record.GetString("name"); name != "" && name != e.Record.Original().GetString("name") && !text.Visible(name) {
			return httpapi.FieldRuleError("name", httpapi.MsgNoVisibleLetter)
		}
		if e.Record.GetString("role") == "" {
			e.Record.Set("role", RoleClient)
		}
		// The service always keeps one active administrator, whatever path
		// (route, dashboard) demotes or disables one.
		if !e.Record.IsNew() {
			stored := records.Stored(e.App, e.Record)
			wasAdmin := stored.GetString("role") == RoleAdmin && !stored.GetBool("disabled")
			isAdmin := e.Record.GetString("role") == RoleAdmin && !e.Record.GetBool("disabled")
			if wasAdmin && !isAdmin {
				others, err := e.App.CountRecords(Collection, dbx.HashExp{"role": RoleAdmin, "disabled": false},
					dbx.Not(dbx.HashExp{"id": e.Record.Id}))
				if err != nil {
					return err
				}
				if others == 0 {
					return httpapi.FieldRuleError("role", "Debe quedar al menos un administrador activo")
				}
			}
		}
		// Other owners' rules on a role change (a camello profile belongs
		// to a CAMELLOS user: modules/camellos), in the same save.
		if !e.Record.IsNew() {
			from, to := records.Stored(e.App, e.Record).GetString("role"), e.Record.GetString("role")
			if from != to {
				ev := &RoleChange{App: e.App, User: Wrap(e.Record), From: from, To: to}
				if err := OnRoleChanging(e.App).Trigger(ev); err != nil {
					return err
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
					return httpapi.FieldRuleError("passwordConfirm", "Las contraseñas no coinciden")
				}
			}
			if n := text.Chars(pv.Plain); n < bounds.PasswordMin || n > bounds.PasswordMax {
				return httpapi.FieldRuleError("password", "Debe tener entre 8 y 128 caracteres")
			}
			SetPassword(e.Record, pv.Plain)
		}
		return e.Next()
	}
	app.OnRecordCreateRequest(Collection).BindFunc(derive)
	app.OnRecordUpdateRequest(Collection).BindFunc(derive)

	// PocketBase's own e-mail flows of the users collection are not part of
	// the service: verification mail would go out on anyone's request (the
	// answer stays the same 204 PocketBase gives an unknown address, so
	// nothing is told and nothing is sent), and an e-mail change would go
	// around our routes.
	app.OnRecordRequestVerificationRequest(Collection).BindFunc(func(e *core.RecordRequestVerificationRequestEvent) error {
		return e.NoContent(http.StatusNoContent)
	})
	app.OnRecordRequestEmailChangeRequest(Collection).BindFunc(func(e *core.RecordRequestEmailChangeRequestEvent) error {
		return e.ForbiddenError("", nil)
	})

	app.OnRecordUpdate(Collection).BindFunc(func(e *core.RecordEvent) error {
		orig := records.Stored(e.App, e.Record)
		if err := e.Next(); err != nil {
			return err
		}
		// The token key changes with the password (or e-mail) at save time.
		revoke := e.Record.GetBool("disabled") && !orig.GetBool("disabled") || e.Record.TokenKey() != orig.TokenKey()
		if revoke { // same transaction as the update, when there is one
			if err := OnSignedOutEverywhere(e.App).Trigger(&SignedOut{App: e.App, UserID: e.Record.Id}); err != nil {
				return err
			}
		}
		if e.Record.GetBool("disabled") && !orig.GetBool("disabled") {
			return OnDisabled(e.App).Trigger(&Disabled{App: e.App, User: Wrap(e.Record)})
		}
		return nil
	})
}
