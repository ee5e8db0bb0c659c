package notifications

import (
	"database/sql"
	"errors"
	"strings"

	"camellos/internal/httpapi"
	"camellos/modules/whatsapp"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// bindRecordHooks binds the area's invariants and the delivery trigger.
func bindRecordHooks(app core.App) {
	// Every inbox record, whoever writes it, is delivered on the other
	// channels once it committed (this hook fires after the commit) —
	// when its user can receive something at all: one indexed lookup skips
	// users without a push subscription while e-mail is off, so they never
	// take room in the queue. The queueing itself never blocks nor drops.
	app.OnRecordAfterCreateSuccess(colNotifications).BindFunc(func(e *core.RecordEvent) error {
		if reachable(e.App, e.Record.GetString("user")) {
			dispatcherOf(e.App).enqueue(jobFromRecord(e.Record))
		}
		if err := emitInbox(e.App, e.Record); err != nil {
			e.App.Logger().Error("notifications: inbox event", "error", err.Error())
		}
		return e.Next()
	})

	// A push subscription is always a deliverable one, whichever path saves it.
	app.OnRecordValidate(colSubscriptions).BindFunc(func(e *core.RecordEvent) error {
		v := httpapi.NewValidation()
		validateSubscription(v, e.Record.GetString("endpoint"), e.Record.GetString("p256dh"), e.Record.GetString("auth"))
		if !v.OK() {
			return v.Err()
		}
		return e.Next()
	})

	// Preferences hold only known kinds and channels, and never switch a
	// critical channel off.
	app.OnRecordValidate(colPreferences).BindFunc(func(e *core.RecordEvent) error {
		raw := strings.TrimSpace(e.Record.GetString("prefs"))
		if raw == "" || raw == "null" {
			return e.Next()
		}
		var prefs Preferences
		if err := e.Record.UnmarshalJSONField("prefs", &prefs); err != nil {
			return httpapi.FieldRuleError("prefs", "Preferencias inválidas")
		}
		for kind, chans := range prefs {
			if !isKind(kind) {
				return httpapi.FieldRuleError("prefs", "Tipo de notificación desconocido: "+kind)
			}
			for c, on := range chans {
				if !isChannel(c) {
					return httpapi.FieldRuleError("prefs", "Canal desconocido: "+c)
				}
				if !offers(kind, c) {
					return httpapi.FieldRuleError("prefs", msgNotOnWhatsApp+": "+kind)
				}
				if !on && isCritical(kind, c) {
					return httpapi.FieldRuleError("prefs", "Este aviso no se puede desactivar: "+kind+"."+c)
				}
			}
		}
		return e.Next()
	})
}

// reachable reports whether a user may get anything beyond the inbox:
// SMTP is enabled (the worker then checks the user's e-mail preference),
// or the user has a push subscription or a confirmed WhatsApp number. A
// failed lookup counts as reachable, so an error never loses a delivery.
func reachable(app core.App, userID string) bool {
	if app.Settings().SMTP.Enabled {
		return true
	}
	var one int
	q := "SELECT 1 FROM " + colSubscriptions + " WHERE user = {:user}"
	if whatsapp.Enabled(app) {
		q += " UNION ALL SELECT 1 FROM " + whatsapp.ContactsCollection + " WHERE user = {:user} AND status = {:confirmed}"
	}
	err := app.DB().NewQuery(q + " LIMIT 1").
		Bind(dbx.Params{"user": userID, "confirmed": whatsapp.ContactConfirmed}).Row(&one)
	return !errors.Is(err, sql.ErrNoRows)
}
