package quotes

import (
	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
)

// ExpirySchedule is when the sweep marks expired quotes VENCIDA (they
// already read VENCIDA before it runs).
const ExpirySchedule = "*/30 * * * *"

// Register binds the quotes area's record hooks, its expiry sweep and routes.
func Register(app core.App) {
	bindHooks(app)
	bindDataRights(app)
	app.Cron().MustAdd("quotesExpiry", ExpirySchedule, func() {
		if _, err := ExpireDue(app, clock.Now(app)); err != nil {
			app.Logger().Error("quotes expiry sweep failed", "error", err.Error())
		}
	})
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		api := httpapi.API(se)
		signedIn := session.RequireSession(httpapi.MsgUnauthorized)

		// ACTIVO camellos browse the open jobs of the services they offer
		// (a read like the listing: no activity-log row unless it fails).
		api.GET("/jobs/open", boardList).Bind(session.RequireRole(httpapi.MsgUnauthorized, MsgOnlyActiveBoard, users.RoleCamello), apis.SkipSuccessActivityLog())
		// An ACTIVO camello quotes an open job (or a direct request naming it).
		api.POST("/jobs/{id}/quotes", quoteCreate).Bind(session.RequireRole(httpapi.MsgUnauthorized, MsgOnlyCamellos, users.RoleCamello), ratelimit.Guard("quote"))
		// The job's client and admins see every quote; a camello its own.
		api.GET("/jobs/{id}/quotes", quotesList).Bind(signedIn, apis.SkipSuccessActivityLog())
		// A camello's own quotes with their jobs ("Mis cotizaciones").
		api.GET("/me/quotes", quotesMine).Bind(session.RequireRole(httpapi.MsgUnauthorized, MsgOnlyCamelloQuotes, users.RoleCamello), apis.SkipSuccessActivityLog())
		// The job's client accepts a quote: the job is assigned at its price.
		api.POST("/quotes/{id}/accept", quoteAccept).Bind(signedIn)
		// The job's client rejects a quote.
		api.POST("/quotes/{id}/reject", quoteReject).Bind(signedIn)
		// The camello withdraws its quote.
		api.POST("/quotes/{id}/withdraw", quoteWithdraw).Bind(signedIn)
		return se.Next()
	})
}
