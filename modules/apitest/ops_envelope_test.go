package apitest_test

import (
	"net/http"
	"strings"
	"testing"

	"camellos/hardening"
	"camellos/internal/testkit"
)

// Every /api path answers errors in our envelope {error, issues, detail},
// PocketBase's own routes included, and any method a path does not have
// (FOO included) is 405 with Allow; the dashboard's sign-in and requests of
// a signed-in dashboard superuser keep PocketBase's shape (its client reads it).
func TestEveryAPIPathAnswersInTheEnvelope(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"FOO", "/api/categories", 405, "GET"},
		{"PROPFIND", "/api/jobs", 405, "GET"},
		{"FOO", "/api/no-existe", 404, ""},
		{"TRACE", "/api/health", 405, "GET"},
		{"PUT", "/api/categories", 405, "GET"},
		{"GET", "/api/collections/users/records", 403, ""},
		{"GET", "/api/collections/users/records/abc", 403, ""},
		{"GET", "/api/collections/no_existe/records", 404, ""},
		{"POST", "/api/collections/users/records", 403, ""},
		{"GET", "/api/settings", 401, ""},
		{"GET", "/api/logs", 401, ""},
		{"GET", "/api/backups", 401, ""},
		{"POST", "/api/batch", 0, ""},
		{"GET", "/api/collections/users/auth-methods", 0, ""},
		{"POST", "/api/collections/users/auth-with-password", 0, ""},
	} {
		res := k.Do(testkit.Req{Method: tc.method, Path: tc.path, Body: map[string]any{"identity": "x@example.com", "password": "x"}})
		if tc.status != 0 && res.Status != tc.status {
			t.Errorf("%s %s: %d, want %d: %s", tc.method, tc.path, res.Status, tc.status, res.Raw)
		}
		if res.Status < 400 {
			continue
		}
		if bad := hardening.CheckEnvelope(res); bad != "" {
			t.Errorf("%s %s: %s", tc.method, tc.path, bad)
		}
		if _, pb := res.JSON["message"]; pb {
			t.Errorf("%s %s: PocketBase's shape: %s", tc.method, tc.path, res.Raw)
		}
		if tc.allow != "" && !strings.Contains(res.Header.Get("Allow"), tc.allow) {
			t.Errorf("%s %s: Allow %q", tc.method, tc.path, res.Header.Get("Allow"))
		}
	}
	// The dashboard's sign-in keeps PocketBase's body.
	res := k.Do(testkit.Req{Method: "POST", Path: "/api/collections/_superusers/auth-with-password",
		Body: map[string]any{"identity": "nadie@example.com", "password": "incorrecta-123"}})
	if res.Status != http.StatusBadRequest || res.JSON["message"] == nil {
		t.Errorf("dashboard sign-in: %d %s", res.Status, res.Raw)
	}
}
