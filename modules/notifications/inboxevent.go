package notifications

import (
	"camellos/internal/timefmt"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/pocketbase/pocketbase/tools/types"
)

// InboxItem tells that an inbox notification was committed: Item is the
// API's notification object, for the user UserID. Listeners call e.Next().
type InboxItem struct {
	hook.Event
	App    core.App
	UserID string
	Item   map[string]any
}

const inboxEventKey = "camellos.notifications.inbox"

// OnInbox is the app's event fired after every committed inbox item,
// whichever path wrote it (a record save, or NotifyMany's bulk INSERT). The
// live events stream relays it.
func OnInbox(app core.App) *hook.Hook[*InboxItem] {
	return app.Store().GetOrSet(inboxEventKey, func() any {
		return &hook.Hook[*InboxItem]{}
	}).(*hook.Hook[*InboxItem])
}

// emitInbox fires OnInbox for a committed record.
func emitInbox(app core.App, rec *core.Record) error {
	return OnInbox(app).Trigger(&InboxItem{App: app, UserID: rec.GetString("user"), Item: notificationJSON(rec)})
}

// emitInboxMany fires OnInbox for the items NotifyMany stored (indexes at,
// ids and the stored created time), once the caller's transaction commits.
func emitInboxMany(app core.App, items []Addressed, ids []string, at []int, created string) {
	if len(at) == 0 || app.TxInfo() == nil {
		return
	}
	createdAt := created
	if dt, err := types.ParseDateTime(created); err == nil {
		createdAt = timefmt.ISO(dt.Time())
	}
	app.TxInfo().OnComplete(func(txErr error) error {
		if txErr != nil {
			return nil
		}
		h := OnInbox(app)
		for _, i := range at {
			it := items[i]
			data := it.Data
			if data == nil {
				data = map[string]any{}
			}
			item := map[string]any{
				"id": ids[i], "kind": it.Kind, "title": it.Title, "body": it.Body, "url": it.URL,
				"data": data, "readAt": nil, "createdAt": createdAt,
			}
			if err := h.Trigger(&InboxItem{App: app, UserID: it.UserID, Item: item}); err != nil {
				app.Logger().Error("notifications: inbox event", "error", err.Error())
			}
		}
		return nil
	})
}
