package pb_migrations

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// A calendar feed dies with its owner's credentials (issue 21): the feed
// keeps the SHA-256 of the owner's token key (which PocketBase renews on
// every password change or reset) as it was when the feed was issued, and
// answers only while it still matches (modules/agenda, feedCredential).
// Feeds issued before this migration take their owner's current key, so
// their URLs keep working until the next password change.
func init() {
	m.Register(func(app core.App) error {
		feeds, err := app.FindCollectionByNameOrId("calendar_feeds")
		if err != nil {
			return err
		}
		feeds.Fields.Add(hiddenText("credential", 64))
		if err := app.Save(feeds); err != nil {
			return err
		}
		var rows []struct {
			ID       string `db:"id"`
			TokenKey string `db:"tokenKey"`
		}
		err = app.DB().Select("calendar_feeds.id AS id", "users.tokenKey AS tokenKey").From("calendar_feeds").
			InnerJoin("users", dbx.NewExp("users.id = calendar_feeds.user")).All(&rows)
		if err != nil {
			return err
		}
		for _, r := range rows {
			sum := sha256.Sum256([]byte("calendar-feed:" + r.TokenKey))
			if _, err := app.DB().Update("calendar_feeds", dbx.Params{"credential": hex.EncodeToString(sum[:])},
				dbx.HashExp{"id": r.ID}).Execute(); err != nil {
				return err
			}
		}
		return nil
	}, func(app core.App) error {
		feeds, err := app.FindCollectionByNameOrId("calendar_feeds")
		if err != nil {
			return err
		}
		feeds.Fields.RemoveByName("credential")
		return app.Save(feeds)
	})
}
