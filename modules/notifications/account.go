package notifications

import (
	"camellos/internal/bus"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// bindDataRights contributes the inbox, the preferences and the push
// endpoints (never their keys) to a user's export; an erasure deletes
// them all.
func bindDataRights(app core.App) {
	bus.Of(app).UserExporting.BindFunc(func(e *bus.Export) error {
		inbox, err := e.App.FindRecordsByFilter(colNotifications, "user = {:u}", "-created", 0, 0, dbx.Params{"u": e.User.Id})
		if err != nil {
			return err
		}
		items := make([]map[string]any, 0, len(inbox))
		for _, r := range inbox {
			items = append(items, notificationJSON(r))
		}
		e.Data["notifications"] = items
		prefs, err := loadPreferences(e.App, e.User.Id)
		if err != nil {
			return err
		}
		e.Data["preferences"] = prefs.full()
		subs, err := e.App.FindAllRecords(colSubscriptions, dbx.HashExp{"user": e.User.Id})
		if err != nil {
			return err
		}
		list := make([]map[string]any, 0, len(subs))
		for _, s := range subs {
			m := subscriptionJSON(s)
			m["userAgent"] = s.GetString("userAgent")
			list = append(list, m)
		}
		e.Data["pushSubscriptions"] = list
		return e.Next()
	})
	bus.Of(app).UserErasing.BindFunc(func(e *bus.Erase) error {
		for _, col := range []string{colNotifications, colPreferences, colSubscriptions, colPushOutbox} {
			if _, err := e.App.DB().Delete(col, dbx.HashExp{"user": e.User.Id}).Execute(); err != nil {
				return err
			}
		}
		return e.Next()
	})
}
