package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// WhatsApp as a notification channel (issue 26), owned by modules/whatsapp:
//
//   - whatsapp_contacts: one row per user who gave a phone number, with the
//     confirmation code (hashed), its expiry and the attempts spent on it;
//     the channel is on for the user only once the row is CONFIRMADO.
//   - whatsapp_outbox: every WhatsApp message, written before the Graph API
//     is called (the claim and retry rules of mail_outbox, internal/outbox),
//     then followed by the webhook's statuses (idx_whatsapp_outbox_wamid:
//     a message id of Meta's names one row).
func init() {
	m.Register(func(app core.App) error {
		users, err := app.FindCollectionByNameOrId("users")
		if err != nil {
			return err
		}
		contacts := closed(core.NewBaseCollection("whatsapp_contacts", "camellos_wa_contacts"))
		contacts.Fields.Add(relation("user", users.Id, true, true))
		contacts.Fields.Add(text("phone", 8, 15, true))
		contacts.Fields.Add(&core.SelectField{Name: "status", Values: []string{"PENDIENTE", "CONFIRMADO"}, MaxSelect: 1, Required: true})
		contacts.Fields.Add(hiddenText("codeHash", 64))
		contacts.Fields.Add(&core.DateField{Name: "codeExpiresAt"})
		contacts.Fields.Add(number("codeAttempts", nil, nil, true))
		contacts.Fields.Add(&core.DateField{Name: "codeSentAt"})
		contacts.Fields.Add(&core.DateField{Name: "confirmedAt"})
		timestamps(contacts, true)
		contacts.AddIndex("idx_whatsapp_contacts_user", true, "user", "")
		if err := app.Save(contacts); err != nil {
			return err
		}

		out := closed(core.NewBaseCollection("whatsapp_outbox", "camellos_wa_outbox"))
		out.Fields.Add(relation("user", users.Id, false, true))
		out.Fields.Add(text("kind", 0, 50, false))
		out.Fields.Add(text("notification", 0, 15, false))
		out.Fields.Add(text("phone", 8, 15, true))
		out.Fields.Add(text("template", 1, 100, true))
		out.Fields.Add(text("language", 1, 10, true))
		out.Fields.Add(&core.JSONField{Name: "params", MaxSize: 8 << 10, Hidden: true})
		out.Fields.Add(&core.BoolField{Name: "fallback"})
		out.Fields.Add(hiddenText("title", 200))
		out.Fields.Add(hiddenText("body", 2000))
		out.Fields.Add(hiddenText("url", 2048))
		out.Fields.Add(&core.SelectField{Name: "status", Values: []string{
			"PENDIENTE", "ACEPTADO", "ENVIADO", "ENTREGADO", "LEIDO", "FALLIDO"}, MaxSelect: 1, Required: true})
		out.Fields.Add(number("attempts", nil, nil, true))
		out.Fields.Add(&core.DateField{Name: "nextAttemptAt"})
		out.Fields.Add(text("wamid", 0, 200, false))
		out.Fields.Add(&core.DateField{Name: "acceptedAt"})
		out.Fields.Add(&core.DateField{Name: "sentAt"})
		out.Fields.Add(&core.DateField{Name: "deliveredAt"})
		out.Fields.Add(&core.DateField{Name: "readAt"})
		out.Fields.Add(&core.DateField{Name: "failedAt"})
		out.Fields.Add(number("errorCode", nil, nil, true))
		out.Fields.Add(text("lastError", 0, 1000, false))
		out.Fields.Add(&core.BoolField{Name: "fellBack"})
		timestamps(out, true)
		out.AddIndex("idx_whatsapp_outbox_due", false, "status, nextAttemptAt", "")
		out.AddIndex("idx_whatsapp_outbox_user", false, "user", "")
		out.AddIndex("idx_whatsapp_outbox_wamid", true, "wamid", "wamid != ''")
		return app.Save(out)
	}, func(app core.App) error {
		for _, name := range []string{"whatsapp_outbox", "whatsapp_contacts"} {
			if c, err := app.FindCollectionByNameOrId(name); err == nil {
				if err := app.Delete(c); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
