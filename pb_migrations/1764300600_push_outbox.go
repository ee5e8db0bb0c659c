package pb_migrations

import (
	"camellos/internal/bounds"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// push_outbox (issue 27), owned by modules/notifications: with
// PUSH_DELIVERY=worker every Web Push is a row here, written in the
// transaction of the notification it delivers, and `camellos push work`
// (a process apart from the web one, on the same data dir) claims due rows
// with internal/outbox's conditional UPDATE and sends them. One row is one
// push of one notification to one subscription (the subscription is read
// when the row is sent: one deleted meanwhile is not pushed).
// idx_push_outbox_due serves the claim's query; sent rows are purged after
// a day.
func init() {
	m.Register(func(app core.App) error {
		users, err := app.FindCollectionByNameOrId("users")
		if err != nil {
			return err
		}
		out := closed(core.NewBaseCollection("push_outbox", "camellos_push_outbox"))
		out.Fields.Add(relation("user", users.Id, true, true))
		out.Fields.Add(text("subscription", 1, 15, true))
		out.Fields.Add(text("notification", 0, 15, false))
		out.Fields.Add(text("kind", 1, 50, true))
		out.Fields.Add(hiddenText("title", bounds.NotificationTitleMax))
		out.Fields.Add(hiddenText("body", bounds.NotificationBodyMax))
		out.Fields.Add(hiddenText("url", bounds.URLMax))
		out.Fields.Add(&core.JSONField{Name: "data", MaxSize: 16 << 10, Hidden: true})
		out.Fields.Add(&core.SelectField{Name: "status", Values: []string{"PENDIENTE", "ENVIADO", "FALLIDO"}, MaxSelect: 1, Required: true})
		out.Fields.Add(number("attempts", nil, nil, true))
		out.Fields.Add(&core.DateField{Name: "nextAttemptAt"})
		out.Fields.Add(&core.DateField{Name: "doneAt"})
		out.Fields.Add(text("outcome", 0, 20, false))
		timestamps(out, false)
		out.AddIndex("idx_push_outbox_due", false, "status, nextAttemptAt", "")
		out.AddIndex("idx_push_outbox_user", false, "user", "")
		return app.Save(out)
	}, func(app core.App) error {
		if c, err := app.FindCollectionByNameOrId("push_outbox"); err == nil {
			return app.Delete(c)
		}
		return nil
	})
}
