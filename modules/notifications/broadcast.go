package notifications

import (
	"net/http"
	"net/url"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/text"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// MaxBroadcastUserIDs bounds the userIds of an admin broadcast.
const MaxBroadcastUserIDs = 1000

var roles = []string{users.RoleAdmin, users.RoleCamello, users.RoleClient}

// broadcastInput is the body of POST /api/admin/notifications.
type broadcastInput struct {
	Title   *string   `json:"title"`
	Body    *string   `json:"body"`
	URL     *string   `json:"url"`
	Role    *string   `json:"role"`
	UserIDs *[]string `json:"userIds"`
}

// validURL accepts a site-relative path ("/trabajos.html?id=1") or an
// absolute http(s) URL.
func validURL(s string) bool {
	if text.Chars(s) > bounds.URLMax || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	if strings.HasPrefix(s, "/") {
		return !strings.HasPrefix(s, "//") && !strings.HasPrefix(s, "/\\")
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// broadcast queues an ADMIN_MESSAGE for every active user of a role or for
// the given users, answering 202 {queued} at once: the recipients are read
// with one query, the inbox records are written in background batches
// (one transaction each) and push/e-mail follow each batch's commit.
func broadcast(e *core.RequestEvent) error {
	var in broadcastInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	v := httpapi.NewValidation()
	title, body, link := "", "", ""
	if in.Title != nil {
		title = strings.TrimSpace(*in.Title)
	}
	httpapi.CheckLength(v, "title", title, bounds.NotificationTitleMin, bounds.NotificationTitleMax)
	if in.Body != nil {
		body = strings.TrimSpace(*in.Body)
	}
	httpapi.CheckLength(v, "body", body, 0, bounds.NotificationBodyMax)
	if in.URL != nil {
		link = strings.TrimSpace(*in.URL)
		if link != "" && !validURL(link) {
			v.Add("url", "Debe ser una ruta que empiece por / o una URL http(s) de hasta 2048 caracteres")
		}
	}
	var ids []string
	switch {
	case in.Role != nil && in.UserIDs != nil:
		v.AddForm("Indica role o userIds, no ambos")
	case in.Role == nil && in.UserIDs == nil:
		v.AddForm("Indica role o userIds")
	case in.Role != nil:
		if !contains(roles, *in.Role) {
			v.Add("role", "Rol desconocido (ADMIN, CAMELLOS o CLIENTE)")
		}
	default:
		ids = uniqueIDs(*in.UserIDs)
		switch {
		case len(*in.UserIDs) == 0:
			v.Add("userIds", "Debe tener al menos un usuario")
		case len(*in.UserIDs) > MaxBroadcastUserIDs:
			v.Add("userIds", "Como máximo 1000 usuarios")
		default:
			for _, id := range ids {
				if !httpapi.ValidID(id) {
					v.Add("userIds", "Identificador inválido: "+truncateRunes(id, 60))
					break
				}
			}
		}
	}
	if err := v.Err(); err != nil {
		return err
	}

	// The recipients, fixed now with one query.
	role := ""
	if in.Role != nil {
		role = *in.Role
	}
	rows, err := users.EnabledIDs(e.App, role, ids)
	if err != nil {
		return httpapi.Internal(err)
	}
	if in.UserIDs != nil {
		found := map[string]bool{}
		for _, id := range rows {
			found[id] = true
		}
		var missing []string
		for _, id := range ids {
			if !found[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			if len(missing) > 10 {
				missing = append(missing[:10], "…")
			}
			return httpapi.FieldError("userIds", "Usuarios inexistentes o deshabilitados: "+strings.Join(missing, ", "))
		}
	}
	recipients := rows
	msg := Message{Kind: KindAdminMessage, Title: title, Body: body, URL: link, Data: map[string]any{}}
	if d := dispatcherOf(e.App); d != nil && len(recipients) > 0 {
		if !d.begin() {
			return httpapi.NewError(http.StatusServiceUnavailable, "El servicio se está deteniendo")
		}
		go d.runBroadcast(msg, recipients)
	}
	return e.JSON(http.StatusAccepted, map[string]any{"queued": len(recipients)})
}

// runBroadcast writes the broadcast's inbox records in batches with
// NotifyMany, one transaction per batch, waiting for room in the delivery
// queue before each batch so a huge broadcast does not pile up in memory.
func (d *dispatcher) runBroadcast(msg Message, recipients []string) {
	defer d.wg.Done()
	defer d.done()
	size := d.opts.BatchSize
	for start := 0; start < len(recipients); start += size {
		if !d.waitForRoom(size) {
			return
		}
		end := min(start+size, len(recipients))
		batch := recipients[start:end]
		items := make([]Addressed, len(batch))
		for i, userID := range batch {
			items[i] = Addressed{UserID: userID, Message: msg}
		}
		err := NotifyMany(d.app, items) // one transaction per batch
		if err != nil {
			d.app.Logger().Error("notifications: broadcast batch failed",
				"from", start, "to", end, "error", err.Error())
			continue
		}
		d.app.Logger().Info("notifications: broadcast batch written", "from", start, "to", end, "total", len(recipients))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func uniqueIDs(ids []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
