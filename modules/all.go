// Package modules lists every area of the service, so that the binary and
// the tests register exactly the same routes and record hooks.
package modules

import (
	"time"

	"camellos/modules/admin"
	"camellos/modules/agenda"
	"camellos/modules/appointments"
	"camellos/modules/auth"
	"camellos/modules/backup"
	"camellos/modules/camellos"
	"camellos/modules/catalog"
	"camellos/modules/docs"
	"camellos/modules/events"
	"camellos/modules/files"
	"camellos/modules/jobs"
	"camellos/modules/ledger"
	"camellos/modules/legal"
	"camellos/modules/mail"
	"camellos/modules/messages"
	"camellos/modules/metrics"
	"camellos/modules/notifications"
	"camellos/modules/ops"
	"camellos/modules/payments"
	"camellos/modules/places"
	"camellos/modules/quotes"
	"camellos/modules/registration"
	"camellos/modules/search"
	"camellos/modules/seed"
	"camellos/modules/users"
	"camellos/modules/web"
	"camellos/modules/whatsapp"

	"camellos/internal/config"
	"camellos/internal/dbwatch"
	"camellos/internal/httpapi"
	"camellos/internal/readmodel"
	"camellos/internal/session"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/spf13/cobra"
)

// Register binds every module's record hooks and routes to app.
func Register(app core.App) {
	ops.Register(app)   // first: the log pipeline and PocketBase's settings
	readmodel.Bind(app) // before the projections are declared
	session.BindSessionCache(app)
	session.BindUserEvents(app)
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		se.Router.Bind(watchCommits())
		se.Router.Bind(session.LoadSession())
		se.Router.Bind(session.CheckOrigin(), httpapi.SecurityHeaders())
		httpapi.BindAPINotFound(se)
		httpapi.BindAPIEnvelopeEverywhere(se)
		readmodel.Start(se.App, time.Duration(config.Of(se.App).ProjectionCheckSeconds)*time.Second)
		return se.Next()
	})
	mail.Register(app)
	users.Register(app)
	auth.Register(app)
	registration.Register(app)
	places.Register(app)
	camellos.Register(app)
	admin.Register(app)
	catalog.Register(app)
	legal.Register(app)
	search.Register(app)
	appointments.Register(app)
	jobs.Register(app)
	quotes.Register(app)
	ledger.Register(app)
	payments.Register(app)
	events.Register(app)
	messages.Register(app)
	files.Register(app)
	agenda.Register(app)
	whatsapp.Register(app)
	notifications.Register(app)
	backup.Register(app)
	metrics.Register(app)
	docs.Register(app)
	web.Register(app)
}

// watchCommits is the first middleware: before any cache answers, commits
// made by another process since the last request are noticed and the
// caches dropped (see internal/dbwatch; a few µs when nothing changed).
func watchCommits() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id:       "camellosWatchCommits",
		Priority: apis.DefaultLoadAuthTokenMiddlewarePriority - 10,
		Func: func(e *core.RequestEvent) error {
			if w := dbwatch.Of(e.App); w != nil {
				if err := w.Check(); err != nil {
					e.App.Logger().Warn("dbwatch: check failed (caches dropped)", "error", err)
				}
			}
			return e.Next()
		},
	}
}

// Commands returns the service's own CLI commands.
func Commands(app core.App) []*cobra.Command {
	return []*cobra.Command{
		auth.AdminCommand(app),
		jobs.RemindersCommand(app),
		seed.Command(app),
		mail.Command(app),
		backup.Command(app),
		ledger.Command(app),
		payments.Command(app),
		notifications.Command(app),
		ops.HealthCommand(),
	}
}
