// Package jobs is the jobs area: the job state machine, assignment, cancellation, reviews and reminders.
package jobs

import (
	"camellos/internal/bus"
	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"
	"camellos/modules/catalog"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Register binds the jobs area's record hooks, the reminder schedule and routes.
func Register(app core.App) {
	bindHooks(app)
	bindDataRights(app)
	bindMarketplaceHooks(app)
	bindPartiesCache(app)
	bindBoard(app)
	declareBoard(app)
	// A service used by a job is not deleted.
	bus.Of(app).ServiceDeleting.BindFunc(func(e *bus.Saving) error {
		n, err := e.App.CountRecords(Collection, dbx.HashExp{"service": e.Record.Id})
		if err != nil {
			return err
		}
		if n > 0 {
			return httpapi.Conflict(catalog.MsgServiceInUse)
		}
		return e.Next()
	})
	scheduleReminders(app)
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		api := httpapi.API(se)
		signedIn := session.RequireSession(httpapi.MsgUnauthorized)

		// A client posts a job (open, or requested from a camello's profile).
		api.POST("/jobs", jobCreate).Bind(session.RequireRole(httpapi.MsgUnauthorized, MsgOnlyClients, users.RoleClient), ratelimit.Guard("job"))
		// The signed-in user's jobs, as client or as provider.
		api.GET("/jobs", jobsMine).Bind(signedIn)
		// One job, for its client, its provider or an admin.
		api.GET("/jobs/{id}", jobView).Bind(signedIn)
		// Its client edits the address or description of a job that is not final.
		api.PATCH("/jobs/{id}", jobEdit).Bind(signedIn)
		// The requested camello accepts a direct request: PENDIENTE → ASIGNADO.
		api.POST("/jobs/{id}/accept", jobAccept).Bind(signedIn)
		// Its camello starts the work: ASIGNADO → EN_PROGRESO.
		api.POST("/jobs/{id}/start", jobStart).Bind(signedIn)
		// Its camello finishes the work: EN_PROGRESO → COMPLETADO.
		api.POST("/jobs/{id}/complete", jobComplete).Bind(signedIn)
		// Its client, its camello or an admin cancels the job (endpoint 6).
		api.POST("/jobs/{id}/cancel", jobCancel).Bind(signedIn)
		// Its client rates a completed job, once.
		api.POST("/jobs/{id}/review", jobReview).Bind(signedIn, ratelimit.Guard("review"))
		// Its camello rates the client of a job paid through the platform, once (double blind).
		api.POST("/jobs/{id}/client-review", jobClientReview).Bind(signedIn, ratelimit.Guard("review"))
		// Its parties see both reviews and whether they are published.
		api.GET("/jobs/{id}/reviews", jobReviews).Bind(signedIn)
		// Admins list every job, optionally by status.
		api.GET("/admin/jobs", jobsAdminList).Bind(session.RequireAdmin(httpapi.MsgUnauthenticated))
		// Admins assign an ACTIVO camello to a free pending job (endpoint 4).
		api.POST("/admin/jobs/{id}/assign", jobAssign).Bind(session.RequireAdmin(httpapi.MsgUnauthorized))
		// The external scheduler sends the due appointment reminders (endpoint 5).
		api.POST("/cron/appointment-reminders", remindersSweepCron).Bind(ratelimit.Guard("cron"))
		return se.Next()
	})
}
