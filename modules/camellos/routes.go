package camellos

import (
	"camellos/internal/bus"
	"camellos/internal/httpapi"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Register binds the camello record hooks and the public provider routes.
func Register(app core.App) {
	bindHooks(app)
	bindUserRules(app)
	// CamelloChanged after every committed write of a camello.
	bus.EmitChanges(app, Collection, func(h *bus.Hooks) *hook.Hook[*bus.Change] { return h.CamelloChanged })
	bindReviewEvents(app)
	bindBlindReviews(app)
	bindDataRights(app)
	x := newPublicIndex(app)
	app.Store().Set(indexKey, x)
	bindIndexHooks(app, x)
	declareIndex(app, x)
	bindSearchSource(app, x)
	bindSummaryCache(app)
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		bindPublic(httpapi.API(se), x)
		return se.Next()
	})
}
