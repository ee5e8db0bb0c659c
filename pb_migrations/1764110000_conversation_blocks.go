package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Blocks in a job's conversation (issue 21): a party of a job's
// conversation blocks another (the client a camello of the job, a camello
// the job's client); the blocked side can no longer write there until the
// blocker lifts it. Owned by modules/messages (the conversation's writers
// rule lives there); one row per job, blocker and blocked.
func init() {
	m.Register(func(app core.App) error {
		jobs, err := app.FindCollectionByNameOrId("jobs")
		if err != nil {
			return err
		}
		users, err := app.FindCollectionByNameOrId("users")
		if err != nil {
			return err
		}
		blocks := closed(core.NewBaseCollection("conversation_blocks", "camellos_conv_blocks"))
		blocks.Fields.Add(relation("job", jobs.Id, true, true))
		blocks.Fields.Add(relation("blocker", users.Id, true, true))
		blocks.Fields.Add(relation("blocked", users.Id, true, true))
		timestamps(blocks, false)
		blocks.AddIndex("idx_conversation_blocks_pair", true, "job, blocker, blocked", "")
		blocks.AddIndex("idx_conversation_blocks_blocked", false, "blocked", "")
		blocks.AddIndex("idx_conversation_blocks_created", false, "created", "")
		return app.Save(blocks)
	}, func(app core.App) error {
		if c, err := app.FindCollectionByNameOrId("conversation_blocks"); err == nil {
			return app.Delete(c)
		}
		return nil
	})
}
