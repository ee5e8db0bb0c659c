package notifications

import (
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"

	"github.com/pocketbase/pocketbase/core"
)

// Register binds the notifications area: the delivery dispatcher (started
// now, stopped on terminate), its record hooks and its routes.
func Register(app core.App) {
	d := newDispatcher(app)
	app.Store().Set(dispatcherKey, d)
	app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
		d.stop()
		return e.Next()
	})
	bindRecordHooks(app)
	bindDataRights(app)
	bindWhatsAppFallback(app)

	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		if !outboxMode(se.App) {
			// Delivering from memory, the web process also sends what a
			// worker left in the push outbox (PUSH_DELIVERY was worker).
			startPushSender(se.App, 30*time.Second)
		}
		api := httpapi.API(se)

		// GET /api/notifications/push/public-key — VAPID public key (public).
		api.GET("/notifications/push/public-key", pushKeyGet)

		g := api.Group("/notifications")
		g.Bind(session.RequireSession(httpapi.MsgUnauthorized))
		// GET /api/notifications — the caller's inbox, newest first.
		g.GET("", inboxList)
		// POST /api/notifications/read-all — mark every notification read.
		g.POST("/read-all", notificationsReadAll)
		// GET /api/notifications/preferences — kind × channel matrix.
		g.GET("/preferences", preferencesGet)
		// PUT /api/notifications/preferences — partial update (merge).
		g.PUT("/preferences", preferencesPut)
		// POST /api/notifications/push/subscribe — store a Web Push subscription (endpoint 9).
		g.POST("/push/subscribe", pushSubscribe).Bind(ratelimit.Guard("push"))
		// POST /api/notifications/push/sync — re-sync the browser's subscription (every app open, pushsubscriptionchange).
		g.POST("/push/sync", pushSync).Bind(ratelimit.Guard("push.sync"))
		// DELETE /api/notifications/push/subscribe — remove the caller's subscription.
		g.DELETE("/push/subscribe", pushUnsubscribe)
		// POST /api/notifications/{id}/read — mark one of the caller's notifications read.
		g.POST("/{id}/read", notificationRead)

		admin := api.Group("/admin/notifications")
		admin.Bind(session.RequireAdmin(httpapi.MsgUnauthenticated))
		// POST /api/admin/notifications — broadcast an ADMIN_MESSAGE (202 {queued}).
		admin.POST("", broadcast)
		return se.Next()
	})
}
