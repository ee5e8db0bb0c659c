package notifications

import (
	"net/http"
	"strings"
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/timefmt"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

const msgNotificationMissing = "Notificación no encontrada"

// notificationJSON is the notification object of the API.
func notificationJSON(rec *core.Record) map[string]any {
	data := map[string]any{}
	_ = rec.UnmarshalJSONField("data", &data)
	if data == nil {
		data = map[string]any{}
	}
	return map[string]any{
		"id":        rec.Id,
		"kind":      rec.GetString("kind"),
		"title":     rec.GetString("title"),
		"body":      rec.GetString("body"),
		"url":       rec.GetString("url"),
		"data":      data,
		"readAt":    timefmt.ISODate(rec.GetDateTime("readAt")),
		"createdAt": timefmt.ISO(rec.GetDateTime("created").Time()),
	}
}

// inboxList answers the caller's notifications, newest first, with the
// unread count; ?unread=true lists only unread ones.
func inboxList(e *core.RequestEvent) error {
	page, err := httpapi.Paging(e)
	if err != nil {
		return err
	}
	onlyUnread := false
	switch strings.ToLower(e.Request.URL.Query().Get("unread")) {
	case "", "false", "0":
	case "true", "1":
		onlyUnread = true
	default:
		return httpapi.FieldError("unread", "Debe ser true o false")
	}
	userID := session.AuthUser(e).Id
	mine := dbx.HashExp{"user": userID}
	unreadExp := dbx.NewExp("readAt = ''")

	unread, err := e.App.CountRecords(colNotifications, mine, unreadExp)
	if err != nil {
		return httpapi.Internal(err)
	}
	total := unread
	if !onlyUnread {
		if total, err = e.App.CountRecords(colNotifications, mine); err != nil {
			return httpapi.Internal(err)
		}
	}
	q := e.App.RecordQuery(colNotifications).AndWhere(mine)
	if onlyUnread {
		q = q.AndWhere(unreadExp)
	}
	var recs []*core.Record
	err = q.OrderBy("created DESC", "id DESC").Offset(page.Offset()).Limit(int64(page.PerPage)).All(&recs)
	if err != nil {
		return httpapi.Internal(err)
	}
	items := make([]map[string]any, 0, len(recs))
	for _, r := range recs {
		items = append(items, notificationJSON(r))
	}
	body := page.Answer("notifications", items, total)
	body["unread"] = unread
	return e.JSON(http.StatusOK, body)
}

// notificationRead marks one of the caller's notifications read (idempotent: the
// first read time is kept). Someone else's notification is 404.
func notificationRead(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	userID := session.AuthUser(e).Id
	now, _ := types.ParseDateTime(time.Now().UTC())
	_, err = e.App.DB().Update(colNotifications, dbx.Params{"readAt": now.String()},
		dbx.And(dbx.HashExp{"id": id, "user": userID}, dbx.NewExp("readAt = ''"))).Execute()
	if err != nil {
		return httpapi.Internal(err)
	}
	rec, err := e.App.FindFirstRecordByFilter(colNotifications, "id = {:id} && user = {:user}",
		dbx.Params{"id": id, "user": userID})
	if err != nil {
		return httpapi.NotFound(msgNotificationMissing)
	}
	return e.JSON(http.StatusOK, map[string]any{"notification": notificationJSON(rec)})
}

// notificationsReadAll marks every unread notification of the caller read and
// answers how many changed.
func notificationsReadAll(e *core.RequestEvent) error {
	now, _ := types.ParseDateTime(time.Now().UTC())
	res, err := e.App.DB().Update(colNotifications, dbx.Params{"readAt": now.String()},
		dbx.And(dbx.HashExp{"user": session.AuthUser(e).Id}, dbx.NewExp("readAt = ''"))).Execute()
	if err != nil {
		return httpapi.Internal(err)
	}
	n, _ := res.RowsAffected()
	return e.JSON(http.StatusOK, map[string]any{"updated": n, "unread": 0})
}

// InboxAfter lists, oldest first and at most limit, userID's notifications
// created after the notification lastID; none when lastID is not one of
// userID's (the SSE stream's replay on reconnection).
func InboxAfter(app core.App, userID, lastID string, limit int) ([]*core.Record, error) {
	rec, err := app.FindRecordById(Collection, lastID)
	if err != nil {
		return nil, nil
	}
	last := WrapNotification(rec)
	if last.UserID() != userID {
		return nil, nil
	}
	created := last.Created().String()
	var recs []*core.Record
	err = app.RecordQuery(Collection).
		Where(dbx.HashExp{"user": userID}).
		AndWhere(dbx.NewExp("(created > {:c} OR (created = {:c} AND id > {:id}))", dbx.Params{"c": created, "id": lastID})).
		OrderBy("created ASC", "id ASC").Limit(int64(limit)).All(&recs)
	return recs, err
}
