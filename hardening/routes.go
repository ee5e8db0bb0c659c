// Package hardening holds the service's cross-route quality suites: the
// authorisation matrix, the bad-input sweep, fuzz targets, the crash test and
// the origin/security-header checks. Its non-test part lists the routes the
// service owns, for these suites and the OpenAPI completeness test.
package hardening

import (
	"reflect"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"camellos/internal/config"

	"camellos/modules"
	_ "camellos/pb_migrations"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
	"github.com/pocketbase/pocketbase/tools/router"
)

// Route is one entry of the route table: an HTTP method and a path pattern
// as registered ("/api/jobs/{id}/cancel").
type Route struct {
	Method string
	Path   string
}

// Key is "METHOD /path", the key of expectation tables.
func (r Route) Key() string { return r.Method + " " + r.Path }

// CatchAll reports whether the route is a wildcard fallback ("/api/{path...}"),
// which answers paths no other route owns and is no operation of the API.
func (r Route) CatchAll() bool { return strings.HasSuffix(r.Path, "...}") }

// OwnedRoutes boots the whole service on a temporary data dir and returns
// every /api route the service itself registers, sorted: the route table
// after OnServe minus PocketBase's own routes (those apis.NewRouter binds).
func OwnedRoutes(t testing.TB) []Route {
	t.Helper()
	app, err := tests.NewTestApp(t.TempDir())
	if err != nil {
		t.Fatalf("test app: %v", err)
	}
	defer app.Cleanup()
	modules.Register(app)
	r, err := apis.NewRouter(app)
	if err != nil {
		t.Fatalf("router: %v", err)
	}
	builtin := map[string]bool{}
	for _, rt := range ListRoutes(r) {
		builtin[rt.Key()] = true
	}
	se := &core.ServeEvent{App: app, Router: r}
	if err := app.OnServe().Trigger(se, func(*core.ServeEvent) error { return nil }); err != nil {
		t.Fatalf("serve: %v", err)
	}
	var out []Route
	for _, rt := range ListRoutes(r) {
		if builtin[rt.Key()] || !strings.HasPrefix(rt.Path, "/api/") {
			continue
		}
		out = append(out, rt)
	}
	return out
}

// ListRoutes walks a PocketBase router and returns every route with its full
// path (group prefixes joined), sorted by path then method. PocketBase keeps
// the route tree unexported, so it is read by reflection.
func ListRoutes(r *router.Router[*core.RequestEvent]) []Route {
	var out []Route
	walkGroup(r.RouterGroup, "", &out)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

func walkGroup(g *router.RouterGroup[*core.RequestEvent], prefix string, out *[]Route) {
	prefix += g.Prefix
	field := reflect.ValueOf(g).Elem().FieldByName("children")
	children := reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem().Interface().([]any)
	for _, child := range children {
		switch c := child.(type) {
		case *router.RouterGroup[*core.RequestEvent]:
			walkGroup(c, prefix, out)
		case *router.Route[*core.RequestEvent]:
			method := c.Method
			if method == "" {
				method = "ANY"
			}
			*out = append(*out, Route{Method: method, Path: prefix + c.Path})
		}
	}
}

// Strict reports whether the suites must fail (instead of skip or log) for
// routes of the contract that are not registered: CAMELLOS_STRICT_ROUTES=1,
// for the lead's run once every branch is merged.
func Strict() bool { return config.Switch(config.SwitchStrictRoutes) == "1" }
