package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Accounts people can keep: the outbox of mails waiting to leave, the
// single-use tokens of password recovery and e-mail verification, and the
// fields an erased account may leave empty.
func init() {
	m.Register(func(app core.App) error {
		users, err := app.FindCollectionByNameOrId("users")
		if err != nil {
			return err
		}
		// An erased account keeps its record (the other party's history
		// points at it) but no e-mail: the unique index skips ''.
		if f, ok := users.Fields.GetByName("email").(*core.EmailField); ok {
			f.Required = false
		}
		if err := app.Save(users); err != nil {
			return err
		}

		// An erased camello keeps its record (jobs and reviews point at it)
		// but no phone.
		cams, err := app.FindCollectionByNameOrId("camellos")
		if err != nil {
			return err
		}
		if f, ok := cams.Fields.GetByName("phone").(*core.TextField); ok {
			f.Required = false
			f.Min = 0
		}
		if err := app.Save(cams); err != nil {
			return err
		}

		tokens := closed(core.NewBaseCollection("account_tokens", "camellos_account_tokens"))
		tokens.Fields.Add(relation("user", users.Id, true, true))
		tokens.Fields.Add(&core.SelectField{Name: "purpose", Values: []string{"RESET", "VERIFY"}, MaxSelect: 1, Required: true})
		tokens.Fields.Add(&core.TextField{Name: "tokenHash", Required: true, Max: 64, Hidden: true})
		tokens.Fields.Add(&core.DateField{Name: "expiresAt", Required: true})
		tokens.Fields.Add(&core.DateField{Name: "usedAt"})
		timestamps(tokens, false)
		tokens.AddIndex("idx_account_tokens_hash", true, "tokenHash", "")
		tokens.AddIndex("idx_account_tokens_user", false, "user, purpose", "")
		if err := app.Save(tokens); err != nil {
			return err
		}

		outbox := closed(core.NewBaseCollection("mail_outbox", "camellos_mail_outbox"))
		outbox.Fields.Add(relation("user", users.Id, false, true))
		outbox.Fields.Add(text("kind", 0, 50, false))
		outbox.Fields.Add(&core.TextField{Name: "toAddress", Max: 254, Presentable: true})
		outbox.Fields.Add(text("toName", 0, 200, false))
		outbox.Fields.Add(text("subject", 0, 500, false))
		outbox.Fields.Add(&core.TextField{Name: "html", Max: 500_000, Hidden: true})
		outbox.Fields.Add(&core.TextField{Name: "text", Max: 200_000, Hidden: true})
		outbox.Fields.Add(&core.JSONField{Name: "headers", MaxSize: 16 << 10})
		outbox.Fields.Add(&core.SelectField{Name: "status", Values: []string{"PENDIENTE", "ENVIADO", "FALLIDO"}, MaxSelect: 1, Required: true})
		outbox.Fields.Add(number("attempts", nil, nil, true))
		outbox.Fields.Add(&core.DateField{Name: "nextAttemptAt"})
		outbox.Fields.Add(&core.DateField{Name: "sentAt"})
		outbox.Fields.Add(text("lastError", 0, 1000, false))
		timestamps(outbox, true)
		outbox.AddIndex("idx_mail_outbox_due", false, "status, nextAttemptAt", "")
		outbox.AddIndex("idx_mail_outbox_user", false, "user", "")
		return app.Save(outbox)
	}, func(app core.App) error {
		for _, name := range []string{"mail_outbox", "account_tokens"} {
			if c, err := app.FindCollectionByNameOrId(name); err == nil {
				if err := app.Delete(c); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
