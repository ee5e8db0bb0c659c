package httpapi

import (
	"net/http"
	"strings"
	"sync"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

// MaxBodyBytes is the largest request body our routes read (6 MiB); a larger
// one is answered 413 in the envelope.
const MaxBodyBytes int64 = 6 << 20

// API returns the /api route group of a module: every route in it answers
// errors (and panics) in our envelope, reads at most MaxBodyBytes (chunked
// or not) and answers with "Cache-Control: no-store". Modules call it
// inside app.OnServe().
func API(se *core.ServeEvent) *router.RouterGroup[*core.RequestEvent] {
	g := se.Router.Group("/api")
	g.Bind(Envelope())
	g.Bind(BodyLimit(MaxBodyBytes))
	g.Bind(NoStore())
	return g
}

// MsgRouteNotFound answers a path under /api that no route owns.
const MsgRouteNotFound = "Ruta no encontrada"

// BindAPINotFound answers unknown /api paths (404) and wrong methods (405)
// in our envelope instead of falling through to the static site or
// PocketBase's own body (see BindFallback). Routes registered elsewhere are
// more specific and keep precedence.
func BindAPINotFound(se *core.ServeEvent) {
	BindFallback(se.Router, API(se))
}

// fallbackMethods are the methods a fallback route answers (HEAD comes
// with GET; OPTIONS is left to the CORS preflight handling).
var fallbackMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// fallbackPath is the catch-all path of a group's fallback routes.
const fallbackPath = "/{path...}"

// BindFallback binds, once per group prefix, catch-all routes under g that
// answer in the envelope what no route of g answers: 405 "Método no
// permitido" with an Allow header when the path has routes for other
// methods, else 404 "Ruta no encontrada". (Without it PocketBase's own
// catch-all would answer in its {data, message, status} shape.) g must carry
// the Envelope middleware.
func BindFallback(r *router.Router[*core.RequestEvent], g *router.RouterGroup[*core.RequestEvent]) {
	if r.HasRoute(http.MethodGet, g.Prefix+fallbackPath) {
		return
	}
	var (
		once sync.Once
		mux  *http.ServeMux
	)
	handler := func(e *core.RequestEvent) error {
		// Every route is registered by the first request: a copy of the
		// router's mux tells which methods the path has.
		once.Do(func() {
			if h, err := r.BuildMux(); err == nil {
				mux, _ = h.(*http.ServeMux)
			}
		})
		if allow := allowedMethods(mux, e.Request); len(allow) > 0 {
			e.Response.Header().Set("Allow", strings.Join(allow, ", "))
			return NewError(http.StatusMethodNotAllowed, MsgMethodNotAllowed)
		}
		return NotFound(MsgRouteNotFound)
	}
	for _, m := range fallbackMethods {
		g.Route(m, fallbackPath, handler)
	}
}

// allowedMethods lists the methods other than the request's that a real
// route (not a catch-all) of mux answers for the request's path.
func allowedMethods(mux *http.ServeMux, req *http.Request) []string {
	if mux == nil {
		return nil
	}
	var allow []string
	for _, m := range fallbackMethods {
		if m == req.Method || (m == http.MethodGet && req.Method == http.MethodHead) {
			continue
		}
		probe := req.Clone(req.Context())
		probe.Method = m
		_, pattern := mux.Handler(probe)
		if pattern == "" || pattern == "/" || strings.HasSuffix(pattern, fallbackPath) {
			continue
		}
		allow = append(allow, m)
		if m == http.MethodGet {
			allow = append(allow, http.MethodHead)
		}
	}
	return allow
}
