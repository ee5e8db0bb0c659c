package payments

import (
	"strconv"

	"camellos/modules/camellos"
	"camellos/modules/notifications"

	"github.com/pocketbase/pocketbase/core"
)

// Pesos formats an amount of COP as people read it: $180.000.
func Pesos(n int64) string {
	s := strconv.FormatInt(max(n, -n), 10)
	out := make([]byte, 0, len(s)+len(s)/3+2)
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, '.')
		}
		out = append(out, c)
	}
	if n < 0 {
		return "-$" + string(out)
	}
	return "$" + string(out)
}

// tell writes the inbox rows of a money event in the transaction tx (they
// commit with it; push and mail go after the commit): to the client and
// to the camello's user, each with its own text ("" skips that side).
func tell(tx core.App, p *Payment, title, toClient, toCamello string) error {
	data := map[string]any{"jobId": p.JobID(), "paymentId": p.Id}
	var items []notifications.Addressed
	if toClient != "" {
		items = append(items, notifications.Addressed{UserID: p.ClientID(), Message: notifications.Message{
			Kind: notifications.KindPayment, Title: title, Body: toClient, URL: PageURL(p.JobID()), Data: data}})
	}
	if toCamello != "" {
		if c, err := camellos.Find(tx, p.CamelloID()); err == nil && c.UserID() != "" {
			items = append(items, notifications.Addressed{UserID: c.UserID(), Message: notifications.Message{
				Kind: notifications.KindPayment, Title: title, Body: toCamello, URL: PageURL(p.JobID()), Data: data}})
		}
	}
	if len(items) == 0 {
		return nil
	}
	return notifications.NotifyMany(tx, items)
}

// tellUsers writes the same inbox row about p to each of ids (admins), in
// the transaction tx, linking to url.
func tellUsers(tx core.App, p *Payment, ids []string, title, body, url string) error {
	data := map[string]any{"jobId": p.JobID(), "paymentId": p.Id}
	items := make([]notifications.Addressed, 0, len(ids))
	for _, id := range ids {
		items = append(items, notifications.Addressed{UserID: id, Message: notifications.Message{
			Kind: notifications.KindPayment, Title: title, Body: body, URL: url, Data: data}})
	}
	return notifications.NotifyMany(tx, items)
}

// PageURL is the web front's payment of a job: the job page's #pago
// section (pb_public/trabajo.html; pago.html sends there for old links).
func PageURL(jobID string) string { return "/trabajo.html?id=" + jobID + "#pago" }
