package events

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/modules/notifications"

	"github.com/pocketbase/pocketbase/core"
)

// maxReplay bounds how many inbox items a resumed stream replays.
const maxReplay = 100

// eventsStream handles GET /api/events: the caller's own events as Server-Sent
// Events. With Last-Event-ID (header, or ?lastEventId=) naming one of the
// caller's notifications, the inbox items created after it are replayed
// first. ?once=true ends the stream after the replay (a catch-up poll).
// Comment lines are heartbeats. The stream ends when the client goes, the
// session is revoked or expires, the client is too slow, or the service
// stops.
func eventsStream(e *core.RequestEvent) error {
	user := session.AuthUser(e)
	q := e.Request.URL.Query()
	once := false
	switch strings.ToLower(q.Get("once")) {
	case "", "false", "0":
	case "true", "1":
		once = true
	default:
		return httpapi.FieldError("once", "Debe ser true o false")
	}
	lastID := strings.TrimSpace(e.Request.Header.Get("Last-Event-ID"))
	if lastID == "" {
		lastID = q.Get("lastEventId")
	}
	if lastID != "" && !httpapi.ValidID(lastID) {
		return httpapi.FieldError("Last-Event-ID", "Identificador inválido")
	}
	token := session.SessionToken(e.Request)
	opts := optionsOf(e.App)
	h := hubOf(e.App)

	// Subscribe before replaying, so nothing falls between the two.
	sub := h.subscribe(user.Id, opts.Buffer)
	defer h.unsubscribe(sub)

	rc := http.NewResponseController(e.Response)
	_ = rc.SetWriteDeadline(time.Time{}) // no server write timeout for a stream
	hd := e.Response.Header()
	hd.Set("Content-Type", "text/event-stream; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no")
	e.Response.WriteHeader(http.StatusOK)
	w := &writer{e: e, rc: rc}
	w.raw(": conectado\nretry: 3000\n\n")

	seen := map[string]bool{}
	if lastID != "" {
		items, err := replay(e.App, user.Id, lastID)
		if err != nil {
			e.App.Logger().Error("events: replay", "user", user.Id, "error", err.Error())
		}
		for _, ev := range items {
			seen[ev.ID] = true
			w.event(ev)
		}
	}
	if once || w.err != nil {
		return nil
	}

	heartbeat := time.NewTicker(opts.Heartbeat)
	defer heartbeat.Stop()
	check := time.NewTicker(opts.SessionCheck)
	defer check.Stop()
	for w.err == nil {
		select {
		case <-e.Request.Context().Done():
			return nil
		case <-sub.gone:
			return nil
		case ev := <-sub.ch:
			if ev.ID != "" && seen[ev.ID] {
				continue // already replayed
			}
			w.event(ev)
		case <-heartbeat.C:
			w.raw(": ping\n\n")
		case <-check.C:
			if !session.Valid(e.App, token) {
				w.raw("event: end\ndata: {\"reason\":\"session\"}\n\n")
				return nil
			}
		}
	}
	return nil
}

// writer writes SSE frames and flushes them, remembering the first error
// (the client went away).
type writer struct {
	e   *core.RequestEvent
	rc  *http.ResponseController
	err error
}

func (w *writer) raw(s string) {
	if w.err != nil {
		return
	}
	if _, err := w.e.Response.Write([]byte(s)); err != nil {
		w.err = err
		return
	}
	w.err = w.rc.Flush()
}

func (w *writer) event(ev Event) {
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return
	}
	var b strings.Builder
	if ev.ID != "" {
		fmt.Fprintf(&b, "id: %s\n", ev.ID)
	}
	fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", ev.Name, data)
	w.raw(b.String())
}

// replay returns, oldest first, the caller's inbox items created after the
// notification lastID (none when lastID is not one of the caller's).
func replay(app core.App, userID, lastID string) ([]Event, error) {
	recs, err := notifications.InboxAfter(app, userID, lastID, maxReplay)
	if err != nil {
		return nil, err
	}
	out := make([]Event, 0, len(recs))
	for _, r := range recs {
		out = append(out, Event{ID: r.Id, Name: Notification, Data: notifications.InboxJSON(r)})
	}
	return out, nil
}
