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
		// An attachment, only to the readers of its message.
		api.GET("/messages/files/{id}/{file}", messageFileGet)
		return se.Next()
	})
}
