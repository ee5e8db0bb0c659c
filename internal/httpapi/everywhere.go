package httpapi

import (
	"net/http"
	"strings"
	"sync"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// standardMethods are the methods the fallback routes answer (OPTIONS is
// the CORS preflight's); any other method on an /api path is 405 or 404
// here, since no route pattern can match it.
var standardMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true,
}

// BindAPIEnvelopeEverywhere makes every /api path answer its errors in our
// envelope, PocketBase's own routes included (/api/collections/...,
// /api/settings, /api/batch, /api/files...: their 4xx were PocketBase's
// {data, message, status}), and a method no route has (FOO, TRACE...) 405
// with Allow (404 "Ruta no encontrada" when the path has no route at all).
// It only reshapes: what a route answers (status, when) stays the route's.
//
// Kept in PocketBase's shape, because PocketBase's dashboard client reads
// it: requests of a signed-in dashboard superuser and the dashboard's own
// sign-in routes (/api/collections/_superusers/auth-*, request-*, confirm-*).
func BindAPIEnvelopeEverywhere(se *core.ServeEvent) {
	var (
		once sync.Once
		mux  *http.ServeMux
	)
	se.Router.Bind(&hook.Handler[*core.RequestEvent]{
		Id: "camellosAPIEnvelopeEverywhere",
		// Outside PocketBase's request log (which records the original error).
		Priority: apis.DefaultCorsMiddlewarePriority - 1,
		Func: func(e *core.RequestEvent) error {
			p := e.Request.URL.Path
			if p != "/api" && !strings.HasPrefix(p, "/api/") {
				return e.Next()
			}
			if !standardMethods[e.Request.Method] {
				once.Do(func() {
					if h, err := se.Router.BuildMux(); err == nil {
						mux, _ = h.(*http.ServeMux)
					}
				})
				if allow := allowedMethods(mux, e.Request); len(allow) > 0 {
					e.Response.Header().Set("Allow", strings.Join(allow, ", "))
					return WriteError(e, NewError(http.StatusMethodNotAllowed, MsgMethodNotAllowed))
				}
				return WriteError(e, NotFound(MsgRouteNotFound))
			}
			err := e.Next()
			if err == nil || dashboardRequest(e) {
				return err
			}
			return WriteError(e, err)
		},
	})
}

// dashboardRequest reports whether the request is the dashboard's: a
// signed-in superuser, or the superusers' sign-in routes.
func dashboardRequest(e *core.RequestEvent) bool {
	if e.HasSuperuserAuth() {
		return true
	}
	rest, ok := strings.CutPrefix(e.Request.URL.Path, "/api/collections/_superusers/")
	if !ok {
		return false
	}
	for _, p := range []string{"auth-", "request-", "confirm-"} {
		if strings.HasPrefix(rest, p) {
			return true
		}
	}
	return false
}
