package camellos

import (
	"camellos/internal/httpapi"

	"github.com/pocketbase/pocketbase/core"
)

// Register binds the camello record hooks and the public provider routes.
func Register(app core.App) {
	bindHooks(app)
	x := newPublicIndex()
	bindIndexHooks(app, x)
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		bindPublic(httpapi.API(se), x)
		return se.Next()
	})
}
