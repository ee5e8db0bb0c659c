package hooks

import (
	"net/http"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

// MaxBodyBytes is the largest request body our routes read (6 MiB); a larger
// one is answered 413 in the envelope.
const MaxBodyBytes int64 = 6 << 20

// API returns the /api route group of a module: every route in it answers
// errors (and panics) in our envelope and reads at most MaxBodyBytes.
// Modules call it inside app.OnServe().
func API(se *core.ServeEvent) *router.RouterGroup[*core.RequestEvent] {
	g := se.Router.Group("/api")
	g.Bind(Envelope())
	g.Bind(apis.BodyLimit(MaxBodyBytes))
	return g
}

// MsgRouteNotFound answers a path under /api that no route owns.
const MsgRouteNotFound = "Ruta no encontrada"

// BindAPINotFound answers unknown /api paths in our envelope (404) instead
// of falling through to the static site or PocketBase's own 404 body.
// Routes registered elsewhere are more specific and keep precedence.
func BindAPINotFound(se *core.ServeEvent) {
	g := API(se)
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		g.Route(m, "/{path...}", func(e *core.RequestEvent) error {
			return NotFound(MsgRouteNotFound)
		})
	}
}
