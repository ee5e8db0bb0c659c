package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Booking rules (issue 12): the camello's notice, buffers and horizon on
// its availability, the calendar feeds, and the APPOINTMENT_RESCHEDULED
// notification kind.
func init() {
	m.Register(func(app core.App) error {
		availability, err := app.FindCollectionByNameOrId("availability")
		if err != nil {
			return err
		}
		zero, notice, buffer, horizon := 0.0, 10080.0, 240.0, 365.0
		availability.Fields.Add(number("minNoticeMinutes", &zero, &notice, true))
		availability.Fields.Add(number("bufferMinutes", &zero, &buffer, true))
		// 0 only on a record saved without the rules; the agenda's create
		// hook fills the defaults in.
		availability.Fields.Add(number("horizonDays", &zero, &horizon, true))
		availability.Fields.Add(number("travelBufferMinutes", &zero, &buffer, true))
		if err := app.Save(availability); err != nil {
			return err
		}
		// Saved schedules get the defaults: 120 minutes of notice, no
		// buffer, 60 days ahead.
		if _, err := app.DB().NewQuery("UPDATE availability SET minNoticeMinutes = 120, horizonDays = 60 WHERE horizonDays = 0").Execute(); err != nil {
			return err
		}

		users, err := app.FindCollectionByNameOrId("users")
		if err != nil {
			return err
		}
		feeds := closed(core.NewBaseCollection("calendar_feeds", "camellos_calendar_feeds"))
		feeds.Fields.Add(relation("user", users.Id, true, true))
		// The feed token is never stored: its SHA-256 finds the feed, and
		// the nonce (with the server's feed key) derives it again.
		feeds.Fields.Add(hiddenText("tokenHash", 64))
		feeds.Fields.Add(hiddenText("nonce", 64))
		timestamps(feeds, true)
		feeds.AddIndex("idx_calendar_feeds_user", true, "user", "")
		feeds.AddIndex("idx_calendar_feeds_token", true, "tokenHash", "")
		if err := app.Save(feeds); err != nil {
			return err
		}

		notifications, err := app.FindCollectionByNameOrId("notifications")
		if err != nil {
			return err
		}
		if kind, ok := notifications.Fields.GetByName("kind").(*core.SelectField); ok {
			has := false
			for _, v := range kind.Values {
				has = has || v == "APPOINTMENT_RESCHEDULED"
			}
			if !has {
				kind.Values = append(kind.Values, "APPOINTMENT_RESCHEDULED")
			}
		}
		return app.Save(notifications)
	}, func(app core.App) error {
		if feeds, err := app.FindCollectionByNameOrId("calendar_feeds"); err == nil {
			if err := app.Delete(feeds); err != nil {
				return err
			}
		}
		availability, err := app.FindCollectionByNameOrId("availability")
		if err != nil {
			return err
		}
		for _, f := range []string{"minNoticeMinutes", "bufferMinutes", "horizonDays", "travelBufferMinutes"} {
			availability.Fields.RemoveByName(f)
		}
		return app.Save(availability)
	})
}
