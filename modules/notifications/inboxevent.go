package notifications

import (
	"sync"

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
// ids and the stored created time), once the caller's transaction commits,
// on the inbox emitter (not the writer's goroutine).
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
		// Off the writer's goroutine (a sweep's batch is 10,000 items), in
		// commit order.
		emitterOf(app).run(func() {
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
		})
		return nil
	})
}

// inboxEmitter runs the bulk inbox events of committed batches one batch
// after the other, in commit order, on a goroutine of its own while there
// are any.
type inboxEmitter struct {
	mu      sync.Mutex
	queue   []func()
	running bool
}

const inboxEmitterKey = "camellos.notifications.inboxEmitter"

func emitterOf(app core.App) *inboxEmitter {
	return app.Store().GetOrSet(inboxEmitterKey, func() any { return &inboxEmitter{} }).(*inboxEmitter)
}

// run queues fn after the batches already queued.
func (e *inboxEmitter) run(fn func()) {
	e.mu.Lock()
	e.queue = append(e.queue, fn)
	if e.running {
		e.mu.Unlock()
		return
	}
	e.running = true
	e.mu.Unlock()
	go func() {
		for {
			e.mu.Lock()
			if len(e.queue) == 0 {
				e.running = false
				e.mu.Unlock()
				return
			}
			next := e.queue[0]
			e.queue[0] = nil
			e.queue = e.queue[1:]
			e.mu.Unlock()
			next()
		}
	}()
}
