// Package whatsapp is WhatsApp as a notification channel (issue 26),
// through the WhatsApp Business Cloud API (Meta's Graph API): a user's
// phone number confirmed by a code sent over WhatsApp (whatsapp_contacts),
// the template messages of the notification kinds it handles, sent from an
// outbox with the claim, retry and restart rules of the mail sender
// (whatsapp_outbox, internal/outbox), and the webhook that reports their
// delivery and read statuses (X-Hub-Signature-256 checked). A message that
// cannot be delivered falls back to mail: OnUndelivered fires once for it,
// and the notifications area mails it when the user's preferences allow.
package whatsapp

import (
	"context"
	"net/http"
	"time"

	"camellos/internal/bus"
	"camellos/internal/config"
	"camellos/internal/outbox"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Collections of this area.
const (
	// ContactsCollection holds the users' phone numbers and their confirmation.
	ContactsCollection = "whatsapp_contacts"
	// Collection is the outbox: every message, before it is sent, and its statuses.
	Collection = "whatsapp_outbox"
)

// Contact states.
const (
	ContactPending   = "PENDIENTE"
	ContactConfirmed = "CONFIRMADO"
)

// Outbox states: PENDIENTE until the API accepts the message (ACEPTADO),
// then the webhook's sent (ENVIADO), delivered (ENTREGADO) and read
// (LEIDO); FALLIDO when the API refused it for good, the retries ran out,
// or the webhook reported it failed.
const (
	StatusPending   = "PENDIENTE"
	StatusAccepted  = "ACEPTADO"
	StatusSent      = "ENVIADO"
	StatusDelivered = "ENTREGADO"
	StatusRead      = "LEIDO"
	StatusFailed    = "FALLIDO"
)

// Options tune the sender of one app; set them with SetOptions before
// Register (tests do it through a testkit option). Zero fields take the
// defaults.
type Options struct {
	// HTTPClient calls the Graph API (default: the system trust store and a
	// 20 s timeout). Tests inject the client of their local HTTPS server.
	HTTPClient *http.Client
	// Backoff are the waits before each retry of a message the API could
	// not take now (default 10 s, 30 s, 1 min, 5 min, 15 min, 30 min, 1 h);
	// after the last one the message is FALLIDO and falls back to mail.
	Backoff []time.Duration
	// Poll is how often the outbox is read besides the wake-ups (default 30 s).
	Poll time.Duration
}

const (
	optionsKey = "whatsapp.options"
	workerKey  = "whatsapp.worker"
	eventsKey  = "whatsapp.events"
)

// SetOptions stores the sender's options for app; call it before Register.
func SetOptions(app core.App, o Options) { app.Store().Set(optionsKey, o) }

func optionsOf(app core.App) Options {
	o, _ := app.Store().Get(optionsKey).(Options)
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 20 * time.Second}
	}
	if o.Backoff == nil {
		o.Backoff = []time.Duration{10 * time.Second, 30 * time.Second, time.Minute, 5 * time.Minute,
			15 * time.Minute, 30 * time.Minute, time.Hour}
	}
	if o.Poll <= 0 {
		o.Poll = 30 * time.Second
	}
	return o
}

// Enabled reports whether the channel is configured (WHATSAPP_TOKEN).
func Enabled(app core.App) bool { return config.Of(app).WhatsAppEnabled() }

// Undelivered is a notice WhatsApp could not deliver and that asked for
// the mail fallback: what the mail needs to say it.
type Undelivered struct {
	hook.Event
	App            core.App
	UserID         string
	Kind           string
	NotificationID string
	Title          string
	Body           string
	URL            string
}

// events are the area's own events, held per app.
type events struct {
	undelivered hook.Hook[*Undelivered]
}

func eventsOf(app core.App) *events {
	if ev, ok := app.Store().Get(eventsKey).(*events); ok {
		return ev
	}
	ev := &events{}
	app.Store().Set(eventsKey, ev)
	return ev
}

// OnUndelivered fires once for each notice that was queued with the mail
// fallback and failed for good (refused by the API, retries exhausted, or
// reported failed by the webhook), after its FALLIDO state committed. The
// notifications area binds it to mail the notice.
func OnUndelivered(app core.App) *hook.Hook[*Undelivered] { return &eventsOf(app).undelivered }

// Register binds the area: the sender (while the service serves), the data
// rights, and the routes.
func Register(app core.App) {
	eventsOf(app) // created before any goroutine can race for it
	bus.Of(app).UserExporting.BindFunc(func(e *bus.Export) error {
		c, err := contactOf(e.App, e.User.Id)
		if err != nil {
			return err
		}
		e.Data["whatsapp"] = c.json(e.App)
		return e.Next()
	})
	bus.Of(app).UserErasing.BindFunc(func(e *bus.Erase) error {
		for _, col := range []string{ContactsCollection, Collection} {
			if _, err := e.App.DB().Delete(col, dbx.HashExp{"user": e.User.Id}).Execute(); err != nil {
				return err
			}
		}
		return e.Next()
	})
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		if workerOf(se.App) == nil {
			startWorker(se.App)
		}
		bindRoutes(se)
		return se.Next()
	})
	app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
		if w := workerOf(e.App); w != nil {
			w.loop.Stop()
		}
		return e.Next()
	})
}

// worker is the app's one WhatsApp sender.
type worker struct {
	app  core.App
	opts Options
	loop *outbox.Worker
}

func workerOf(app core.App) *worker {
	w, _ := app.Store().Get(workerKey).(*worker)
	return w
}

func startWorker(app core.App) *worker {
	w := &worker{app: app, opts: optionsOf(app)}
	app.Store().Set(workerKey, w)
	w.loop = outbox.Start(w.opts.Poll, func(ctx context.Context) (time.Duration, bool) {
		if !Enabled(w.app) {
			return 0, false
		}
		return w.sendDue(ctx)
	}, w.purge)
	return w
}

func (w *worker) wake() {
	if w != nil {
		w.loop.Wake()
	}
}
