package messages

import (
	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
)

// Register binds the conversation's record hooks and routes.
func Register(app core.App) {
	bindHooks(app)
	bindDataRights(app)
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		api := httpapi.API(se)
		signedIn := session.RequireSession(httpapi.MsgUnauthorized)
		// The caller's threads of a job, oldest first.
		api.GET("/jobs/{id}/messages", messagesList).Bind(signedIn, apis.SkipSuccessActivityLog())
		// The job's client or a camello of it writes (JSON, or multipart with photos).
		api.POST("/jobs/{id}/messages", messagePost).Bind(signedIn, ratelimit.Guard("message"))
		// A party of the job's conversation blocks another (the blocked side can no longer write there).
		api.POST("/jobs/{id}/blocks", blockCreate).Bind(signedIn, ratelimit.Guard("block"))
		// The blocker lifts its block.
		api.DELETE("/jobs/{id}/blocks/{userId}", blockDelete).Bind(signedIn, ratelimit.Guard("block"))
		// The job's blocks that involve the caller (every one for an admin).
		api.GET("/jobs/{id}/blocks", blocksList).Bind(signedIn)
		// Admins list every block of the service, newest first.
		api.GET("/admin/blocks", adminBlocksList).Bind(session.RequireAdmin(httpapi.MsgUnauthenticated))
		// An attachment, only to the readers of its message.
		api.GET("/messages/files/{id}/{file}", messageFileGet)
		return se.Next()
	})
}
