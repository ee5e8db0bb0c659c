// Package agenda is the agenda area: weekly availability, free slots and appointments.
package agenda

import (
	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
)

// MsgOnlyCamellos answers a non-camello on the availability routes.
const MsgOnlyCamellos = "Solo los camellos tienen agenda"

// Register binds the agenda area's record hooks and routes.
func Register(app core.App) {
	bindHooks(app)
	bindDataRights(app)
	bindFeedLifecycle(app)
	bindSearchAvailability(app)
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		api := httpapi.API(se)
		signedIn := session.RequireSession(httpapi.MsgUnauthorized)
		camelloOnly := session.RequireRole(httpapi.MsgUnauthorized, MsgOnlyCamellos, users.RoleCamello)

		// The signed-in camello's weekly availability.
		api.GET("/agenda/availability", availabilityGet).Bind(camelloOnly)
		// The signed-in camello replaces its weekly availability.
		api.PUT("/agenda/availability", availabilityPut).Bind(camelloOnly)
		// Free 60-minute slots of an ACTIVO camello, for any signed-in user (endpoint 8).
		api.GET("/camellos/{id}/slots", slotsList).Bind(signedIn, apis.SkipSuccessActivityLog())
		// The job's client books one free slot of its camello.
		api.POST("/jobs/{id}/appointments", appointmentBook).Bind(signedIn, ratelimit.Guard("booking"))
		// The job's client accepts a quote and books a time in one step ("Aceptar y agendar").
		api.POST("/quotes/{id}/accept-and-book", quoteAcceptAndBook).Bind(signedIn, ratelimit.Guard("booking"))
		// The signed-in user's appointments, as client or as camello.
		api.GET("/agenda/appointments", appointmentsMine).Bind(signedIn)
		// Its client, its camello or an admin cancels an appointment.
		api.POST("/appointments/{id}/cancel", appointmentCancel).Bind(signedIn)
		// The signed-in user's calendar feed URL (made on the first call).
		api.GET("/agenda/calendar", calendarGet).Bind(signedIn)
		// The signed-in user's new calendar feed URL; the old one stops at once.
		api.POST("/agenda/calendar/rotate", calendarRotate).Bind(signedIn)
		// The calendar feed itself, public behind its secret token (RFC 5545).
		api.GET("/agenda/calendar/{token}", calendarFeed)
		// One appointment as an .ics file, for its client or its camello ("Añadir al calendario").
		api.GET("/appointments/{id}/ics", appointmentICS).Bind(signedIn)
		// Its client or its camello moves an appointment to another free slot.
		api.POST("/appointments/{id}/reschedule", appointmentReschedule).Bind(signedIn, ratelimit.Guard("reschedule"))
		return se.Next()
	})
}
