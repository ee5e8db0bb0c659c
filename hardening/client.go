package hardening

import (
	"net/http"
	"strings"
	"testing"

	"camellos/internal/testkit"
)

// Send calls a route of the table as a role and returns the answer.
func (w *World) Send(t testing.TB, r Route, role Role, c Call) *testkit.Response {
	t.Helper()
	cookie := w.Cookies[role]
	if c.FreshSession {
		cookie = w.Fresh(role)
	}
	path := w.ExpandID(r.Path, c.ID)
	if c.Query != "" {
		path += "?" + c.Query
	}
	path = WithStreamQuery(r, path)
	return w.K.Do(testkit.Req{Method: r.Method, Path: path, Body: c.Body, Cookie: cookie})
}

// CheckEnvelope reports what is wrong with an error answer of ours: it must
// be JSON {error: non-empty string, issues: object|null, detail: string|null}
// and never leak internals.
func CheckEnvelope(res *testkit.Response) string {
	if res.Status < 400 {
		return ""
	}
	if res.JSON == nil {
		return "error body is not a JSON object: " + clip(string(res.Raw))
	}
	msg, ok := res.JSON["error"].(string)
	if !ok || msg == "" {
		return "error body has no error message: " + clip(string(res.Raw))
	}
	if v, ok := res.JSON["issues"]; ok && v != nil {
		if _, isObj := v.(map[string]any); !isObj {
			return "issues is neither an object nor null"
		}
	}
	if v, ok := res.JSON["detail"]; ok && v != nil {
		if _, isStr := v.(string); !isStr {
			return "detail is neither a string nor null"
		}
	}
	low := strings.ToLower(string(res.Raw))
	for _, leak := range []string{"sql", "goroutine", "panic", "runtime error", ".go:", "no such table", "constraint failed"} {
		if strings.Contains(low, leak) {
			return "error body leaks internals (" + leak + "): " + clip(string(res.Raw))
		}
	}
	if res.Status == http.StatusInternalServerError && msg != "Error interno del servidor" {
		return "500 with a specific message: " + msg
	}
	return ""
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// WithStreamQuery adds the StreamQuery of an event-stream route to a path.
func WithStreamQuery(r Route, path string) string {
	q, ok := StreamQuery[r.Key()]
	if !ok {
		return path
	}
	if strings.Contains(path, "?") {
		return path + "&" + q
	}
	return path + "?" + q
}
