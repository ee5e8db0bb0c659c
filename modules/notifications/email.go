package notifications

import (
	"net/mail"
	"strings"

	"camellos/internal/config"
	mailer "camellos/modules/mail"
	"camellos/modules/users"
)

// preferencesPage is the web front's page of notification preferences,
// where List-Unsubscribe points.
const preferencesPage = "/notificaciones.html"

// sendEmail mails the notification in Spanish (HTML and plain text, the
// "aviso" templates) with a List-Unsubscribe header pointing at the
// preferences page. The mail goes through the outbox (written here, sent
// by the mail sender, retried with backoff when SMTP fails), so a slow or
// dead SMTP server never holds a delivery worker.
func (d *dispatcher) sendEmail(j job) {
	if !mailer.Enabled(d.app) {
		return
	}
	j = digestMail(j)
	email := users.EmailOf(d.app, j.UserID)
	if email == "" {
		return
	}
	base := config.Of(d.app).AppURL
	link := j.URL
	if strings.HasPrefix(link, "/") && !strings.HasPrefix(link, "//") {
		link = base + link
	}
	unsubscribe := base + preferencesPage
	r, err := mailer.Render(mailer.KindNotification, map[string]any{
		"Title": j.Title, "Body": j.Body, "Link": link, "Unsubscribe": unsubscribe,
	})
	if err != nil {
		d.app.Logger().Error("email: render failed", "notification", j.ID, "error", err.Error())
		return
	}
	err = mailer.Queue(d.app, mailer.Message{
		UserID: j.UserID, Kind: mailer.KindNotification + ":" + j.Kind,
		To:      mail.Address{Address: email},
		Subject: r.Subject, HTML: r.HTML, Text: r.Text,
		Headers: map[string]string{"List-Unsubscribe": "<" + unsubscribe + ">"},
	})
	if err != nil {
		d.app.Logger().Error("email: outbox write failed", "notification", j.ID, "error", err.Error())
	}
}
