package httpapi_test

import (
	"net/http"
	"testing"

	"camellos/internal/httpapi"
	"camellos/internal/testkit"
	"camellos/modules/users"
)

// Unknown /api paths and wrong methods answer in our envelope: 404, or 405
// with Allow when the path has routes for other methods.
func TestAPIFallbackEnvelope(t *testing.T) {
	k := testkit.New(t)
	_, admin := k.UserWithSession(users.RoleAdmin)
	cases := []struct {
		method, path, cookie string
		status               int
		msg, allow           string
	}{
		{http.MethodGet, "/api/nothing", "", 404, httpapi.MsgRouteNotFound, ""},
		{http.MethodDelete, "/api/nothing/deeper/still", "", 404, httpapi.MsgRouteNotFound, ""},
		{http.MethodGet, "/api/camellos/abc/unknown", "", 404, httpapi.MsgRouteNotFound, ""},
		{http.MethodGet, "/api/auth/register", "", 405, httpapi.MsgMethodNotAllowed, "POST"},
		// DELETE /api/me is the account erasure (issue 13).
		{http.MethodPut, "/api/me", "", 405, httpapi.MsgMethodNotAllowed, "GET, HEAD, PATCH, DELETE"},
		{http.MethodDelete, "/api/me/camello", admin, 405, httpapi.MsgMethodNotAllowed, "PATCH"},
		{http.MethodGet, "/api/admin/legal-documents/terminos", admin, 405, httpapi.MsgMethodNotAllowed, "PUT"},
		{http.MethodPost, "/api/categories", "", 405, httpapi.MsgMethodNotAllowed, "GET, HEAD"},
		{http.MethodPut, "/api/health", "", 405, httpapi.MsgMethodNotAllowed, "GET, HEAD"},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			r := k.Do(testkit.Req{Method: c.method, Path: c.path, Cookie: c.cookie})
			if r.Status != c.status || r.Error() != c.msg {
				t.Fatalf("got %d %s", r.Status, r.Raw)
			}
			if _, ok := r.JSON["issues"]; !ok {
				t.Fatalf("no issues key: %s", r.Raw)
			}
			if _, ok := r.JSON["detail"]; !ok {
				t.Fatalf("no detail key: %s", r.Raw)
			}
			if got := r.Header.Get("Allow"); got != c.allow {
				t.Fatalf("Allow = %q, want %q", got, c.allow)
			}
		})
	}
	// HEAD on a POST-only route: 405 without a body.
	r := k.Do(testkit.Req{Method: http.MethodHead, Path: "/api/auth/login"})
	if r.Status != 405 || r.Header.Get("Allow") != "POST" || len(r.Raw) != 0 {
		t.Fatalf("HEAD: %d %q %s", r.Status, r.Header.Get("Allow"), r.Raw)
	}
	// Existing routes still answer.
	if r := k.Get("/api/categories", ""); r.Status != 200 {
		t.Fatalf("categories: %d %s", r.Status, r.Raw)
	}
	if r := k.Do(testkit.Req{Method: http.MethodHead, Path: "/api/categories"}); r.Status != 200 {
		t.Fatalf("HEAD categories: %d", r.Status)
	}
}
