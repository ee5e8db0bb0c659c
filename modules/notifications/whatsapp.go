package notifications

import (
	"strings"

	"camellos/internal/config"
	"camellos/modules/whatsapp"

	"github.com/pocketbase/pocketbase/core"
)

// sendWhatsApp queues j's template message to j.phone (the whatsapp
// area's outbox sends it, retries it, and reports a failure back through
// whatsapp.OnUndelivered, bound by bindWhatsAppFallback).
func (d *dispatcher) sendWhatsApp(j job) {
	link := j.URL
	if strings.HasPrefix(link, "/") && !strings.HasPrefix(link, "//") {
		link = config.Of(d.app).AppURL + link
	}
	if link == "" {
		link = config.Of(d.app).AppURL + preferencesPage
	}
	_, err := whatsapp.QueueNotice(d.app, whatsapp.Notice{
		UserID: j.UserID, Phone: j.phone, Kind: j.Kind, NotificationID: j.ID,
		Title: j.Title, Body: j.Body, Link: link, URL: j.URL, Count: j.count, Fallback: j.fallback,
	})
	if err != nil {
		d.app.Logger().Error("whatsapp: outbox write failed", "notification", j.ID, "error", err.Error())
		if j.fallback {
			d.sendEmail(j)
		}
	}
}

// bindWhatsAppFallback mails a notice WhatsApp could not deliver (queued
// with the fallback: e-mail on for its kind while SMTP is enabled).
func bindWhatsAppFallback(app core.App) {
	whatsapp.OnUndelivered(app).BindFunc(func(e *whatsapp.Undelivered) error {
		if d := dispatcherOf(e.App); d != nil {
			d.sendEmail(job{ID: e.NotificationID, UserID: e.UserID, Kind: e.Kind,
				Title: e.Title, Body: e.Body, URL: e.URL})
		}
		return e.Next()
	})
}
