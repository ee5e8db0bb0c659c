// Package web serves the static web front embedded from pb_public.
package web

import (
	"io/fs"
	"net/http"

	"camellos/pb_public"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Register binds the static site as the last-resort GET route.
func Register(app core.App) {
	app.OnServe().Bind(&hook.Handler[*core.ServeEvent]{
		Func: func(se *core.ServeEvent) error {
			if !se.Router.HasRoute(http.MethodGet, "/{path...}") {
				var site fs.FS = pb_public.Files
				se.Router.GET("/{path...}", apis.Static(site, false))
			}
			return se.Next()
		},
		Priority: 999,
	})
}
